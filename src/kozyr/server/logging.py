"""Structured logs: one JSON object per line, one line per event.

Why JSON lines: a server that runs hundreds of tables is debugged with ``grep``
and ``jq``, not by reading prose.  Every line has ``ts`` (UTC, ISO 8601),
``level`` and ``event`` (a short snake_case name such as ``room_created``,
``game_started``, ``move``, ``error``, ``ws_open``, ``ws_close``) plus the
event's own fields.  Messages from uvicorn and other libraries go through the
same formatter as ``event: "log"`` so the whole stream stays machine-readable.
"""

from __future__ import annotations

import atexit
import json
import logging
import logging.handlers
import queue
import sys
import time
from typing import IO, Any

LOGGER_NAME = "kozyr.server"
_log = logging.getLogger(LOGGER_NAME)


class JsonFormatter(logging.Formatter):
    """Render a record as one JSON line (fields from ``extra={"fields": ...}``)."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        out: dict[str, Any] = {
            "ts": f"{ts}.{int(record.msecs):03d}Z",
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
        return json.dumps(out, ensure_ascii=False, default=str, separators=(",", ":"))


class _Enqueue(logging.handlers.QueueHandler):
    """Hand records to the writer thread as they are (formatting happens there)."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record


_listener: logging.handlers.QueueListener | None = None


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

    Records are formatted and written by a background thread (a
    QueueListener), so a slow terminal or disk never stalls the event loop.
    """
    global _listener
    if _listener is not None:
        _listener.stop()
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    _listener = logging.handlers.QueueListener(records, handler)
    _listener.start()
    atexit.register(flush)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(_Enqueue(records))
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
    # uvicorn logs every WebSocket handshake at info; we log our own ws_open.
    logging.getLogger("uvicorn.error").setLevel(max(logging.WARNING, root.level))
    logging.getLogger("uvicorn.error").addFilter(_client_faults)


def flush() -> None:
    """Write out every queued record (at exit; the listener is restarted)."""
    global _listener
    if _listener is not None:
        _listener.stop()
        _listener = None


def event(name: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log one event line: ``event("move", room=code, seat=1, action={...})``."""
    if _log.isEnabledFor(level):
        _log.log(level, name, extra={"fields": fields})


def error(name: str, **fields: Any) -> None:
    event(name, logging.ERROR, **fields)


def warning(name: str, **fields: Any) -> None:
    event(name, logging.WARNING, **fields)
