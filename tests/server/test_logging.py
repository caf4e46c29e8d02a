"""The log writer (server/logging.py): every line is written at once, in order;
lines that queue up share a ``write``; our events skip LogRecord only while
our writer is the one handler."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

from kozyr.server import logging as log


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


def _wait_for(predicate: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
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
            try:  # a loop that stops right after logging: its write never runs
                loop.call_soon(lambda: (log.event("move", n=4), loop.stop()))
                loop.run_forever()
            finally:
                loop.close()
            assert len(path.read_text().splitlines()) == 4
            asyncio.run(next_loop())  # another loop writes what the stopped one left
            assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == list(range(6))
        finally:
            log.configure("info")  # back to stderr for the other tests
