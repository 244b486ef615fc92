"""File operations that stay inside a folder an agent can also write (its notes, the harness's
workspace, logs and configs): each name is one plain component, opened relative to its
folder's descriptor and never through a link (``O_NOFOLLOW`` on every component), so an agent
that swaps a file or folder for a link cannot make pastcast read or write anywhere else.

The folder a walk starts from (the run folder) is resolved once, when the run starts: links in
the path the user gave are the user's; from there on, nothing below it is followed."""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from pastcast.io import plain_name

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Escape(ValueError):
    """A name that would lead out of its folder: a link, or not the kind of entry expected."""


def _check(name: str) -> None:
    if not plain_name(name):
        raise Escape(f"{name!r} is not a plain file name")


def open_root(root: Path) -> int:
    """The run folder (already resolved), the last component not followed."""
    try:
        return os.open(root, _DIR)
    except OSError as exc:
        raise Escape(f"{root} cannot be opened as a folder ({exc.strerror})") from None


def open_folder(parent: int, name: str, create: bool = False, repair: bool = False) -> int:
    """``name`` in ``parent`` as a folder, never through a link. ``create``: made when missing.
    ``repair`` (a folder pastcast owns): whatever else is there (a link, a file) is removed and
    a folder made, and one the agent made unreadable or read-only is given back its modes."""
    _check(name)
    for _ in range(3):  # an agent racing the repair gets a few rounds, then an error
        try:
            fd = os.open(name, _DIR, dir_fd=parent)
        except FileNotFoundError:
            if not (create or repair):
                raise
            try:
                os.mkdir(name, 0o755, dir_fd=parent)
            except FileExistsError:
                pass
            continue
        except PermissionError:
            if not repair:
                raise
            _give_back_modes(parent, name)
            continue
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):  # not a link, not a file: a real error
                raise
            if not repair:
                raise Escape(f"{name} is a link or not a folder") from None
            remove_entry(parent, name)
            continue
        if repair:
            mode = os.fstat(fd).st_mode
            if mode & 0o700 != 0o700:
                os.fchmod(fd, stat.S_IMODE(mode) | 0o700)
        return fd
    raise Escape(f"{name} keeps changing under pastcast (a link, a file, modes): cannot be used")


def walk(root: int, parts: Iterable[str], create: bool = False, repair: bool = False) -> int:
    """Each of ``parts`` below ``root`` in turn (as ``open_folder``); the last one's descriptor."""
    fd = os.dup(root)
    try:
        for part in parts:
            child = open_folder(fd, part, create=create, repair=repair)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _give_back_modes(parent: int, name: str) -> None:
    """Owner rwx on a folder ``name`` made unreadable, without following a link: it is opened as
    a path only (``O_PATH``), and its mode set through that handle."""
    fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent)
    try:
        os.chmod(f"/proc/self/fd/{fd}", 0o700)
    finally:
        os.close(fd)


def entry_kind(parent: int, name: str) -> int | None:
    """The entry's file type (``stat.S_IFMT``), the entry itself not followed; None: none."""
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def read_regular(parent: int, name: str, limit: int) -> bytes:
    """A regular file's bytes, up to ``limit`` + 1 (the caller sees that it is larger). A link,
    a folder, a fifo, a device: ``Escape`` (a fifo is never waited on)."""
    _check(name)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        kind = entry_kind(parent, name)
        raise Escape(f"{name} is a link, not a note" if kind == stat.S_IFLNK else
                     f"{name} is not a note ({exc.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Escape(f"{name} is not a note (not a plain file)")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def regular_files(folder: int) -> dict[str, int]:
    """The plain files in ``folder`` (links, folders and the rest left out), by name: size."""
    out = {}
    for name in os.listdir(folder):
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode):
            out[name] = st.st_size
    return out


def write_file(folder: int, name: str, data: bytes, mode: int = 0o644, replace_any: bool = False) -> None:
    """``name`` in ``folder`` becomes ``data``, atomically: a temp file in the folder, renamed
    onto it (a rename replaces a link itself, never what it names). ``replace_any``: whatever
    is there (a folder the agent made) is removed first; otherwise an entry that is not a plain
    file is refused."""
    _check(name)
    kind = entry_kind(folder, name)
    if kind not in (None, stat.S_IFREG):
        if not replace_any:
            raise Escape(f"{name} is a link, not a note" if kind == stat.S_IFLNK else f"{name} is not a note")
        remove_entry(folder, name)
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        for attempt in range(3):
            try:
                os.rename(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
                return
            except (IsADirectoryError, OSError) as exc:  # a folder put there meanwhile
                if not replace_any or attempt == 2 or entry_kind(folder, name) != stat.S_IFDIR:
                    raise Escape(f"{name} cannot be written ({exc.strerror})") from None
                remove_entry(folder, name)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=folder)
        except FileNotFoundError:
            pass
        raise


def open_append(folder: int, name: str) -> int:
    """``name`` in ``folder`` opened to append (created when missing); whatever else is there
    (a link, a folder) is removed first: the file is pastcast's."""
    _check(name)
    for _ in range(3):
        kind = entry_kind(folder, name)
        if kind not in (None, stat.S_IFREG):
            remove_entry(folder, name)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         0o644, dir_fd=folder)
        except OSError:
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.set_blocking(fd, True)
            return fd
        os.close(fd)
    raise Escape(f"{name} keeps changing under pastcast: cannot be written")


def remove_entry(parent: int, name: str) -> None:
    """Remove ``name`` from ``parent`` whatever it is, never following a link: a link or a file
    is unlinked; a folder is emptied first (depth first, without recursion: an agent can nest
    folders deeper than Python's stack), its modes given back where the agent took them."""
    _check(name)
    if entry_kind(parent, name) != stat.S_IFDIR:
        try:
            os.unlink(name, dir_fd=parent)
        except FileNotFoundError:
            pass
        return
    stack = [(os.dup(parent), name)]  # (the folder's parent, its name), each still to empty
    try:
        while stack:
            above, here = stack[-1]
            try:
                fd = open_folder(above, here, repair=False)
            except PermissionError:
                _give_back_modes(above, here)
                fd = open_folder(above, here)
            except (FileNotFoundError, Escape):  # gone, or made a link meanwhile: unlink that
                _unlink_any(above, here)
                os.close(stack.pop()[0])
                continue
            try:
                os.fchmod(fd, 0o700)
                deeper = None
                for child in os.listdir(fd):
                    if entry_kind(fd, child) == stat.S_IFDIR:
                        deeper = child
                        break
                    _unlink_any(fd, child)
            except BaseException:
                os.close(fd)
                raise
            if deeper is not None:
                stack.append((fd, deeper))  # fd is the parent of the next; closed when popped
                continue
            os.close(fd)
            os.rmdir(here, dir_fd=above)
            os.close(stack.pop()[0])
    finally:
        for fd, _ in stack:
            os.close(fd)


def _unlink_any(parent: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=parent)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        remove_entry(parent, name)
