"""Structured logs: one JSON object per line, one line per event.

Why JSON lines: a server that runs hundreds of tables is debugged with ``grep``
and ``jq``, not by reading prose.  Every line has ``ts`` (UTC, ISO 8601),
``level`` and ``event`` (a short snake_case name such as ``room_created``,
``game_started``, ``move``, ``error``, ``ws_open``, ``ws_close``) plus the
event's own fields.  Messages from uvicorn and other libraries go through the
same formatter as ``event: "log"`` so the whole stream stays machine-readable.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import stat
import sys
import threading
import time
from collections import deque
from typing import IO, Any

import msgspec

from . import logsink

LOGGER_NAME = "kozyr.server"
_log = logging.getLogger(LOGGER_NAME)


class JsonFormatter(logging.Formatter):
    """Render a record as one JSON line (fields from ``extra={"fields": ...}``)."""

    def __init__(self) -> None:
        super().__init__()
        #: The last second formatted (lines come many a second; strftime is slow).
        self._second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        if self._second[0] != second:
            self._second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        out: dict[str, Any] = {
            "ts": f"{self._second[1]}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out["event"] = record.getMessage()
            out.update(fields)
        else:
            out["event"] = "log"
            out["logger"] = record.name
            out["message"] = record.getMessage()
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        try:
            # msgspec writes what json.dumps(ensure_ascii=False, separators=(",", ":"))
            # writes, several times faster: the server logs a line per move.
            return _encode(out).decode()
        except (TypeError, ValueError, OverflowError):
            return json.dumps(out, ensure_ascii=False, default=str, separators=(",", ":"))


_encode = msgspec.json.Encoder(enc_hook=str).encode


class _Writer(logging.Handler):
    """Hand records to a writer thread that formats and writes them in batches.

    Why batches: a busy server logs a ``move`` line for every move; waking a
    thread per line (as a QueueListener does) and writing each line with its own
    ``write`` costs more than formatting it.  Only the first record after the
    thread went idle wakes it; whatever accumulated while it worked is written
    with one ``write``.  The thread does not wait for a batch to fill: a line is
    out within moments (tests and operators read the log as things happen, and
    a ``kill -9`` loses only what was not yet written).

    When the stream is a regular file, a pipe or a stream socket, lines logged
    on an event loop's thread are written by that thread instead, once the loop
    finishes the callback that logged them (``call_soon``): waking the writer
    thread for every move — a futex wake and the GIL passed back and forth —
    cost more than writing the line (a fifth to a quarter of a busy server's
    CPU).  A write to a regular file does not block on a slow reader; a pipe or
    a socket is written without blocking (:mod:`.logsink`), and what does not
    fit is left to the thread, which is what the thread is for.  The loop never
    waits for the thread either: while the thread writes, the loop's lines
    queue behind it.
    """

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream
        self._pending: deque[logging.LogRecord] = deque()
        self._wake = threading.Event()
        self._stopping = False
        self._write_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="kozyr-log", daemon=True)
        self._thread.start()
        #: A pipe or stream socket the loop may write to without blocking.
        self._sink = logsink.non_blocking_sink(stream)
        #: Bytes the sink did not take (a slow reader), for the thread to write.
        self._backlog = b""
        #: Lines logged on an event loop may be written by the loop.
        self._on_loop = self._sink is not None or _is_regular_file(stream)
        #: The loop that has a write of the pending lines scheduled, if any.
        self._flush_loop: asyncio.AbstractEventLoop | None = None

    def emit(self, record: logging.LogRecord) -> None:
        # deque.append is atomic; only the first record of a batch wakes the
        # thread or schedules the loop's write.
        pending = self._pending
        pending.append(record)
        if self._stopping:  # after flush(): write at once, nothing is lost
            self._write_pending()
        elif self._on_loop:
            loop = asyncio._get_running_loop()
            if loop is None:  # another thread's line (rare): the writer thread
                self._wake.set()
            elif self._flush_loop is not loop:  # (a loop that stopped never wrote)
                self._flush_loop = loop
                loop.call_soon(self._flush_from_loop)
        elif len(pending) == 1:
            self._wake.set()

    def _flush_from_loop(self) -> None:
        self._flush_loop = None
        lock = self._write_lock
        if not lock.acquire(blocking=False):
            self._wake.set()  # the thread is writing (a slow reader?): it takes these next
            return
        try:
            if self._backlog:  # the thread has bytes to write first
                self._wake.set()
            else:
                self._write(self._format_pending(), wait=False)
        finally:
            lock.release()

    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait()
            self._wake.clear()
            self._write_pending()
        self._write_pending()

    def _write_pending(self) -> None:
        """Write the backlog and every pending line, waiting for the reader
        if need be (the thread, or anyone once the writer is stopping)."""
        with self._write_lock:
            self._write(self._format_pending(), wait=True)

    def _write(self, text: str, wait: bool) -> None:
        """Write the backlog, then ``text`` (the write lock is held).  Without
        ``wait``, a pipe or socket takes what fits and the rest becomes the
        backlog, for the thread; a regular file takes everything either way."""
        try:
            sink = self._sink
            if sink is None:
                if text:
                    self.stream.write(text)
                    self.stream.flush()
                return
            data, self._backlog = self._backlog + text.encode("utf-8", "backslashreplace"), b""
            if not data:
                return
            if wait:
                sink.write_all(data)
                return
            done = sink.try_write(data)
            if done < len(data):
                self._backlog = data[done:]
                self._wake.set()
        except (OSError, ValueError):  # stream closed: nowhere to log to
            pass

    def _format_pending(self) -> str:
        """The pending records as lines (each ending in a newline), in order."""
        pending = self._pending
        lines = []
        while pending:
            record = pending.popleft()
            try:
                lines.append(self.format(record))
            except Exception:  # a bad record must not stop the log
                self.handleError(record)
        return "\n".join(lines) + "\n" if lines else ""

    def stop(self) -> None:
        """Write out every record, then end the thread."""
        self._stopping = True
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if self._thread.is_alive():
            return  # stuck on a reader that no longer reads (it is a daemon thread)
        self._write_pending()  # anything logged while the thread finished
        with self._write_lock:
            sink, self._sink = self._sink, None
            if sink is not None:  # later lines go to the stream itself
                sink.close()


def _is_regular_file(stream: IO[str]) -> bool:
    with contextlib.suppress(AttributeError, OSError, ValueError):
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    return False


_writer: _Writer | None = None


class _ClientFaults(logging.Filter):
    """uvicorn logs a text frame that is not UTF-8 as an error with a traceback,
    then closes with 1007 as RFC 6455 requires.  Any client can send one, and it
    is no server bug: it becomes one warning line, ``ws_bad_utf8``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Invalid UTF-8"):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
            record.msg, record.args = "ws_bad_utf8", ()
            record.fields = {"close": 1007}
        return True


_client_faults = _ClientFaults()


def configure(level: str = "info", stream: IO[str] | None = None) -> None:
    """Send every log record (ours, uvicorn's, asyncio's) to ``stream`` as JSON.

    Records are formatted and written by a background thread in batches, so a
    slow terminal or disk never stalls the event loop.
    """
    global _writer
    if _writer is not None:
        _writer.stop()
        logging.getLogger().removeHandler(_writer)
    # Record attributes no line prints: computing them costs on every event
    # (the caller's file and line walks the stack).
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = _Writer(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    _writer = handler
    atexit.register(flush)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
    # uvicorn logs every WebSocket handshake at info; we log our own ws_open.
    logging.getLogger("uvicorn.error").setLevel(max(logging.WARNING, root.level))
    logging.getLogger("uvicorn.error").addFilter(_client_faults)


def flush() -> None:
    """Write out every queued record (at exit); later records are written at once."""
    if _writer is not None:
        _writer.stop()


def event(name: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log one event line: ``event("move", room=code, seat=1, action={...})``."""
    if not _log.isEnabledFor(level):
        return
    writer = _writer
    if writer is not None and _direct(writer):
        writer.emit(_Line(level, name, fields))  # type: ignore[arg-type]
    else:
        _log.log(level, name, extra={"fields": fields})


def _direct(writer: _Writer) -> bool:
    """Our writer is the only place a line of ours can go (no other handler or
    filter on the way): then :func:`event` hands it a :class:`_Line` directly."""
    handlers = _root.handlers
    return (
        len(handlers) == 1
        and handlers[0] is writer
        and not _log.handlers
        and not _log.filters
        and not _root.filters
        and not writer.filters
        and _log.propagate
    )


_root = logging.getLogger()


class _Line:
    """What :class:`JsonFormatter` reads of a record, for our own events: a
    ``LogRecord`` costs several times more to make and to pass through the
    logger's and the handler's machinery (a line is logged for every move)."""

    __slots__ = ("args", "created", "exc_info", "fields", "levelname", "levelno", "msecs", "msg")

    def __init__(self, level: int, name: str, fields: dict[str, Any]) -> None:
        now = time.time()
        self.created = now
        self.msecs = (now - int(now)) * 1000
        self.levelno = level
        self.levelname = logging.getLevelName(level)
        self.msg = name
        self.args = ()
        self.fields = fields
        self.exc_info = None

    def getMessage(self) -> str:
        return self.msg


def error(name: str, **fields: Any) -> None:
    event(name, logging.ERROR, **fields)


def warning(name: str, **fields: Any) -> None:
    event(name, logging.WARNING, **fields)
