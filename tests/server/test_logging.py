"""The log writer (server/logging.py): every line is written at once, in order;
lines that queue up share a ``write``; our events skip LogRecord only while
our writer is the one handler."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kozyr.server.telemetry import log


class Stream:
    """A text stream that records each ``write``."""

    def __init__(self) -> None:
        self.writes: list[str] = []
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def lines(self) -> list[dict[str, object]]:
        with self.lock:
            text = "".join(self.writes)
        return [json.loads(line) for line in text.splitlines()]


def _wait_for(predicate: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the log writer did not catch up"
        time.sleep(0.005)


def test_lines_are_written_at_once_in_order_and_a_burst_in_few_writes() -> None:
    stream = Stream()
    log.configure("info", stream)  # type: ignore[arg-type]
    try:
        log.event("first", n=0)  # written at once, with nothing after it
        _wait_for(lambda: len(stream.lines()) == 1, timeout=2.0)
        before = len(stream.writes)
        for n in range(2000):
            log.event("move", n=n)
        _wait_for(lambda: len(stream.lines()) == 2001)
        assert [line["n"] for line in stream.lines()[1:]] == list(range(2000))
        assert len(stream.writes) - before < 2000  # lines that queued up share a write
        log.event("after", n=1)
        _wait_for(lambda: stream.lines()[-1]["event"] == "after", timeout=2.0)
        first = stream.lines()[0]
        assert list(first)[:3] == ["ts", "level", "event"] and first["level"] == "info"
    finally:
        log.configure("info")  # back to stderr for the other tests


def test_an_added_handler_still_gets_every_event_as_a_log_record() -> None:
    """Events skip the logging machinery only while our writer is the one
    handler; a handler added later (a test's, an operator's) gets LogRecords."""
    import logging

    stream = Stream()
    log.configure("info", stream)  # type: ignore[arg-type]
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    keep = Keep()
    logging.getLogger().addHandler(keep)
    try:
        log.event("room_created", room="abc")
        assert [(r.getMessage(), r.fields) for r in seen] == [  # type: ignore[attr-defined]
            ("room_created", {"room": "abc"})
        ]
        _wait_for(lambda: [line["event"] for line in stream.lines()] == ["room_created"])
        line = stream.lines()[0]
        assert line["level"] == "info" and line["room"] == "abc"
        assert isinstance(line["ts"], str) and line["ts"].endswith("Z")
    finally:
        logging.getLogger().removeHandler(keep)
        log.configure("info")


def test_lines_logged_on_an_event_loop_to_a_file_are_written_by_the_loop(tmp_path: Path) -> None:
    """A regular file: the loop writes its own lines right after the callback
    that logged them (no writer thread woken per move); lines of other threads
    still go through the writer thread, and the order of the file is the order
    of logging."""
    path = tmp_path / "server.log"
    with path.open("w") as stream:
        log.configure("info", stream)
        writer = log._writer
        assert writer is not None and writer._on_loop

        async def scenario() -> None:
            log.event("move", n=0)
            log.event("move", n=1)
            assert not writer._wake.is_set()  # the thread was not woken
            assert path.read_text() == ""  # not yet: after this callback
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == [0, 1]
            # Another thread's line: the writer thread writes it.
            await asyncio.to_thread(log.event, "from_thread", n=2)
            deadline = time.monotonic() + 5
            while "from_thread" not in path.read_text() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            log.event("move", n=3)
            await asyncio.sleep(0)
            await asyncio.sleep(0)

        async def next_loop() -> None:
            log.event("move", n=5)
            await asyncio.sleep(0)
            await asyncio.sleep(0)

        try:
            asyncio.run(scenario())
            assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == [0, 1, 2, 3]
            loop = asyncio.new_event_loop()

            def log_and_stop() -> None:
                log.event("move", n=4)
                loop.stop()

            try:  # a loop that stops right after logging: its write never runs
                loop.call_soon(log_and_stop)
                loop.run_forever()
            finally:
                loop.close()
            assert len(path.read_text().splitlines()) == 4
            asyncio.run(next_loop())  # another loop writes what the stopped one left
            assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == list(range(6))
        finally:
            log.configure("info")  # back to stderr for the other tests


NEWLINE = b"\n"


def _read_lines(fd: int, count: int, timeout: float = 10.0) -> list[dict[str, object]]:
    """Read ``count`` JSON lines from a blocking descriptor (pipe or socket)."""
    data = b""
    deadline = time.monotonic() + timeout
    while data.count(NEWLINE) < count:
        assert time.monotonic() < deadline, f"{data.count(NEWLINE)} of {count} lines"
        data += os.read(fd, 1 << 16)
    return [json.loads(line) for line in data.splitlines()]


@pytest.mark.parametrize("kind", ["pipe", "socket"])
def test_lines_logged_on_an_event_loop_to_a_pipe_or_socket_are_written_by_the_loop(
    kind: str,
) -> None:
    """Docker gives the server a pipe, systemd a stream socket: the loop writes
    its own lines there too (no thread woken per move), the shared
    descriptor stays blocking for everyone else, and the order holds."""
    if kind == "pipe":
        read_fd, write_fd = os.pipe()
    else:
        a, b = socket.socketpair()
        read_fd, write_fd = a.detach(), b.detach()
    stream = os.fdopen(write_fd, "w")
    try:
        log.configure("info", stream)
        writer = log._writer
        assert writer is not None and writer._on_loop and writer._sink is not None
        assert os.get_blocking(write_fd)  # never changed for the other writers

        async def scenario() -> None:
            log.event("move", n=0)
            log.event("move", n=1)
            assert not writer._wake.is_set()  # the thread was not woken
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert not writer._wake.is_set() and not writer._backlog
            assert [line["n"] for line in _read_lines(read_fd, 2)] == [0, 1]
            await asyncio.to_thread(log.event, "from_thread", n=2)  # the thread writes it
            assert [line["n"] for line in _read_lines(read_fd, 1)] == [2]
            log.event("move", n=3)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert [line["n"] for line in _read_lines(read_fd, 1)] == [3]

        asyncio.run(scenario())
        assert os.get_blocking(write_fd)
    finally:
        log.configure("info")
        stream.close()
        os.close(read_fd)


@pytest.mark.timeout(60)  # a loop that blocks on the full pipe would hang here
@pytest.mark.parametrize("kind", ["pipe", "socket"])
def test_a_slow_reader_never_blocks_the_loop_and_loses_nothing(kind: str) -> None:
    """A pipe or socket nobody reads for a while: the loop writes what fits,
    the thread takes the rest (and the loop's later lines) and waits for the
    reader; every line arrives once, in order, when the reader comes back."""
    if kind == "pipe":
        read_fd, write_fd = os.pipe()
        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 4096)  # a small pipe fills fast
    else:
        a, b = socket.socketpair()
        b.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        read_fd, write_fd = a.detach(), b.detach()
    stream = os.fdopen(write_fd, "w")
    total = 3000  # about 200 KB of lines: many times what the pipe or socket holds
    try:
        log.configure("info", stream)
        writer = log._writer
        assert writer is not None and writer._sink is not None

        async def scenario() -> float:
            worst = 0.0
            for n in range(total):
                start = time.perf_counter()
                log.event("move", n=n, pad="x" * 10)
                await asyncio.sleep(0)  # the loop's write of this line
                worst = max(worst, time.perf_counter() - start)
            return worst

        worst = asyncio.run(scenario())
        # Nobody read yet: the pipe is full, the rest waits behind the thread.
        assert worst < 0.5, f"the loop waited {worst:.3f} s for a write"
        assert writer._backlog or writer._pending or writer._write_lock.locked()
        lines = _read_lines(read_fd, total, timeout=30)
        assert [line["n"] for line in lines] == list(range(total))
    finally:
        log.configure("info")
        stream.close()
        os.close(read_fd)
