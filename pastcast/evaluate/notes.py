"""An external agent's notes (``memory_write`` / ``memory_read``): plain files directly in one
folder of its run folder, which the agent may also reach with a shell of its own (``eval
harness`` keeps them in its workspace). Every operation walks from the run folder to the notes
folder and opens the note by descriptor, following no link on the way (``confined_fs``): a
notes folder, a folder above it or a note replaced by a link is refused, never followed, so no
note is ever read from or written to anywhere else."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pastcast.evaluate.confined_fs import Escape, open_root, read_regular, regular_files, walk, write_file

MAX_NOTE_BYTES = 256 << 10  # one note
MAX_MEMORY_BYTES = 8 << 20  # all of a run's notes
NOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # one component: no '/', no NUL, never '..'


def check_note_name(name) -> str:
    if not isinstance(name, str) or not NOTE_NAME.fullmatch(name) or ".." in name:
        text = repr(name)
        raise ValueError(f"a note's name is 1-64 letters, digits, '.', '_' or '-' (starting with a letter "
                         f"or digit), got {text if len(text) <= 60 else text[:60] + '...'}")
    return name


class Notes:
    """The notes folder ``folder`` of the run folder ``run_folder`` (resolved now: links in the
    path the user gave are the user's; nothing below it is followed)."""

    def __init__(self, folder: str | os.PathLike, run_folder: str | os.PathLike):
        folder, run = Path(os.path.abspath(folder)), Path(os.path.abspath(run_folder))
        if folder != run and folder.is_relative_to(run):
            self.root, self.parts = Path(os.path.realpath(run)), folder.relative_to(run).parts
        else:  # kept elsewhere: its parent is the user's, the folder itself is not followed
            self.root, self.parts = Path(os.path.realpath(folder.parent)), (folder.name,)
        self.label = "/".join(self.parts)

    def _folder(self, create: bool) -> int:
        """The notes folder's descriptor; ``ValueError`` (the agent's answer) when it, or a
        folder above it, is a link or not a folder."""
        try:
            root = open_root(self.root)
        except Escape as exc:
            raise ValueError(f"the run folder is gone: {exc}") from None
        try:
            return walk(root, self.parts, create=create)
        except Escape:
            raise ValueError(f"the notes folder {self.label} (or a folder above it) is a link or not a folder: "
                             "notes are kept only in the run's own folder") from None
        except PermissionError:
            raise ValueError(f"the notes folder {self.label} cannot be opened (its modes were changed)") from None
        finally:
            os.close(root)

    def list(self) -> list[dict]:
        try:
            fd = self._folder(create=False)
        except FileNotFoundError:
            return []
        try:
            files = regular_files(fd)
        finally:
            os.close(fd)
        return [{"name": n, "bytes": files[n]} for n in sorted(files) if NOTE_NAME.fullmatch(n) and ".." not in n]

    def read(self, name) -> str:
        check_note_name(name)
        try:
            fd = self._folder(create=False)
        except FileNotFoundError:
            raise ValueError(f"no note named {name!r} (memory_read without a name lists them)") from None
        try:
            data = read_regular(fd, name, MAX_NOTE_BYTES)
        except FileNotFoundError:
            raise ValueError(f"no note named {name!r} (memory_read without a name lists them)") from None
        except OSError as exc:
            raise ValueError(f"note {name!r} cannot be read ({exc.strerror})") from None
        finally:
            os.close(fd)
        if len(data) > MAX_NOTE_BYTES:  # grown outside memory_write: not read whole
            raise ValueError(f"note {name!r} holds more than {MAX_NOTE_BYTES} bytes (written outside memory_write)")
        return data.decode("utf-8", errors="replace")

    def write(self, name, text: str, append: bool = False) -> int:
        """Write (or append to) note ``name``, atomically; the note's size in bytes."""
        check_note_name(name)
        fd = self._folder(create=True)
        try:
            old = b""
            if append:
                try:
                    old = read_regular(fd, name, MAX_NOTE_BYTES)
                except FileNotFoundError:
                    pass
            new = old + text.encode("utf-8")
            if len(new) > MAX_NOTE_BYTES:
                raise ValueError(f"a note holds at most {MAX_NOTE_BYTES} bytes; {name!r} would hold {len(new)}")
            others = sum(size for n, size in regular_files(fd).items() if n != name)
            if others + len(new) > MAX_MEMORY_BYTES:
                raise ValueError(f"memory is full ({MAX_MEMORY_BYTES} bytes over all notes): rewrite or shorten a note")
            write_file(fd, name, new)
            return len(new)
        except OSError as exc:
            raise ValueError(f"note {name!r} cannot be written ({exc.strerror})") from None
        finally:
            os.close(fd)
