"""Writing log lines to a pipe or a socket without ever blocking the event loop.

Why: in production the server's stderr is rarely a file.  Docker and
Kubernetes hand it a pipe, systemd a stream socket to the journal.  A write to
either blocks when the reader falls behind, so the log writer used to hand
every line to a thread there, and waking that thread for each move (a futex
wake, the GIL passed back and forth) cost the server about a quarter more CPU
per move than logging to a file.  With a sink from this module, the event
loop writes what fits at once and leaves only what does not fit (a slow
reader) to the writer thread.

The shared descriptor's flags are never changed, since other processes may
write to the same pipe or terminal.  A pipe is opened again through
``/proc/self/fd`` (a file description of our own, which may be non-blocking).
A socket takes ``MSG_DONTWAIT`` on each ``send``.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import stat
from typing import IO


class NonBlockingSink:
    """A pipe or a stream socket: :meth:`try_write` never blocks, :meth:`write_all` may."""

    def try_write(self, data: bytes) -> int:
        """Write what fits now; how many bytes were written (0 when full)."""
        raise NotImplementedError

    def write_all(self, data: bytes) -> None:
        """Write everything, waiting for the reader (the writer thread calls this)."""
        view = memoryview(data)
        while view:
            try:
                view = view[self._write_shared(view) :]
            except BlockingIOError:  # someone made the shared descriptor non-blocking
                select.select([], [self._shared_fd()], [])

    def close(self) -> None:
        raise NotImplementedError

    def _write_shared(self, data: memoryview) -> int:
        """One write to the stream's own (blocking) descriptor."""
        raise NotImplementedError

    def _shared_fd(self) -> int:
        raise NotImplementedError


class _Pipe(NonBlockingSink):
    def __init__(self, own_fd: int, shared_fd: int) -> None:
        self._own = own_fd  # non-blocking, ours alone
        self._shared = shared_fd  # the stream's, flags untouched

    def try_write(self, data: bytes) -> int:
        try:
            return os.write(self._own, data)
        except BlockingIOError:
            return 0

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._own)

    def _write_shared(self, data: memoryview) -> int:
        return os.write(self._shared, data)

    def _shared_fd(self) -> int:
        return self._shared


class _Socket(NonBlockingSink):
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock  # a duplicate of the stream's descriptor

    def try_write(self, data: bytes) -> int:
        try:
            return self._sock.send(data, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return 0

    def close(self) -> None:
        self._sock.close()

    def _write_shared(self, data: memoryview) -> int:
        return self._sock.send(data)

    def _shared_fd(self) -> int:
        return self._sock.fileno()


def non_blocking_sink(stream: IO[str]) -> NonBlockingSink | None:
    """A sink for ``stream`` if it is a pipe (FIFO) or a stream socket; None
    otherwise (a regular file, a terminal) or if it cannot be had."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return None
    if stat.S_ISFIFO(mode):
        try:  # fails without a reader (ENXIO) or without /proc: the thread writes then
            own = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        if not stat.S_ISFIFO(os.fstat(own).st_mode):
            os.close(own)
            return None
        return _Pipe(own, fd)
    if stat.S_ISSOCK(mode):
        dup = os.dup(fd)
        try:
            sock = socket.socket(fileno=dup)
        except OSError:
            os.close(dup)
            return None
        if sock.type != socket.SOCK_STREAM:  # a datagram would split lines
            sock.close()
            return None
        return _Socket(sock)
    return None
