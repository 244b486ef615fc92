"""An agent command's output, kept to a size: the first half of the cap is written as it
comes (a live log can be followed), the last half is held in memory and written when the
command is over, with a line between them saying how many bytes were cut. An agent that
prints 30 MB (or fills a disk) leaves a log of about the cap."""

from __future__ import annotations

import os
import select
import threading
import time

LOG_CAP_BYTES = 1 << 20
DRAIN_S = 1.0  # after the command's processes are ended, output still in the pipe is read this long
CHUNK = 1 << 16


class CappedLog:
    """Read the pipe the command writes (``writer``, its stdout and stderr) into ``fd``, an open
    log file (closed by ``close``)."""

    def __init__(self, fd: int, cap: int = LOG_CAP_BYTES):
        if cap < 2:
            raise ValueError(f"the log cap must be at least 2 bytes, got {cap}")
        self._fd, self._head_cap, self._tail_cap = fd, cap - cap // 2, cap // 2
        self._head_left = self._head_cap
        self._tail = bytearray()
        self.total = self.cut = 0
        self._fd_failed = False
        self._read, self.writer = os.pipe()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="pastcast-agent-log", daemon=True)
        self._thread.start()

    def after_start(self) -> None:
        """The command has its copy of the pipe: this process's is closed, so the pipe ends
        when the command's processes are gone."""
        os.close(self.writer)
        self.writer = -1

    def _take(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self._head_left:
            head, chunk = chunk[:self._head_left], chunk[self._head_left:]
            try:
                _write_all(self._fd, head)
            except OSError:  # a full disk: the log stops, the command is never blocked by it
                self._fd_failed = True
            self._head_left -= len(head)
        if chunk:
            self._tail += chunk
            extra = len(self._tail) - self._tail_cap
            if extra > 0:
                del self._tail[:extra]
                self.cut += extra

    def _pump(self) -> None:
        drain_until = None
        while True:
            ready, _, _ = select.select([self._read], [], [], 0.1)
            if not ready:
                if self._stop.is_set():
                    return
                continue
            chunk = os.read(self._read, CHUNK)
            if not chunk:
                return
            self._take(chunk)
            if self._stop.is_set():  # a process that escaped the harness still writing: not forever
                drain_until = drain_until or time.monotonic() + DRAIN_S
                if time.monotonic() > drain_until:
                    return

    def close(self) -> None:
        """The command is over: the rest of the pipe, then the tail and how much was cut."""
        if self.writer >= 0:
            os.close(self.writer)
            self.writer = -1
        self._stop.set()
        self._thread.join()
        os.close(self._read)
        try:
            if self.cut and not self._fd_failed:
                _write_all(self._fd, f"\n[pastcast: {self.cut} bytes cut here, of {self.total}: the log keeps the "
                                     f"first {self._head_cap} and the last {self._tail_cap} bytes]\n".encode())
            if not self._fd_failed:
                _write_all(self._fd, bytes(self._tail))
        except OSError:
            pass
        finally:
            os.close(self._fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
