"""The log writer (server/logging.py): every line is written, in order, soon;
a burst is written in few ``write`` calls and wakes the thread once."""

from __future__ import annotations

import json
import threading
import time

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


def test_lines_are_written_in_order_and_a_burst_in_few_writes() -> None:
    stream = Stream()
    log.configure("info", stream)  # type: ignore[arg-type]
    writer = log._writer
    assert writer is not None
    wakes = 0
    real_set = writer._wake.set

    def counting_set() -> None:
        nonlocal wakes
        wakes += 1
        real_set()

    writer._wake.set = counting_set  # type: ignore[method-assign]
    try:
        log.event("first", n=0)  # after a quiet moment: written at once
        _wait_for(lambda: len(stream.lines()) == 1)
        _wait_for(lambda: writer._idle)
        wakes, before = 0, len(stream.writes)
        for n in range(2000):
            log.event("move", n=n)
            if n % 200 == 0:
                time.sleep(0.002)  # the loop does other things between moves
        _wait_for(lambda: len(stream.lines()) == 2001)
        assert [line["n"] for line in stream.lines()[1:]] == list(range(2000))
        assert wakes <= 3  # a busy writer polls instead of being woken per line
        assert len(stream.writes) - before < 200  # lines written together
        _wait_for(lambda: writer._idle)  # quiet again: the next line wakes it
        log.event("after", n=1)
        _wait_for(lambda: stream.lines()[-1]["event"] == "after")
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
