"""Running the app: :func:`serve` serves it with uvicorn on a socket of its own
or one inherited from ``kozyr serve --workers N`` (:mod:`.supervisor`).
"""

from __future__ import annotations

import gc
import signal
import socket
from collections.abc import Sequence
from types import FrameType

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from ..config import ServerConfig
from ..telemetry import log
from .app import create_app
from .connection import WIRE_KEY, WireProtocol, wire_of
from .extension import Extension


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0 picks a free port; read it back from the socket)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(4096)
    sock.set_inheritable(True)
    return sock


def serve(config: ServerConfig, extensions: Sequence[Extension] = ()) -> int:
    """Run the server (with ``extensions``) until SIGINT/SIGTERM; returns the exit code."""
    log.configure(config.log_level)
    try:
        if config.listen_fd is not None:  # a worker of ``--workers N``: the shared socket
            sock = socket.socket(fileno=config.listen_fd)
        else:
            sock = bind(config.host, config.port)
    except OSError as exc:
        log.error("bind_failed", host=config.host, port=config.port, error=str(exc))
        return 1
    config.port = sock.getsockname()[1]
    uconfig = uvicorn.Config(
        expose_wire(create_app(config, extensions)),
        # uvicorn's sans-I/O protocol: connection.py writes frames straight to it.
        ws=WireProtocol,
        log_config=None,
        access_log=False,
        # Above the protocol's limit, so that a message somewhat too big reaches
        # the endpoint and gets the documented ``too_big`` before the close.
        ws_max_size=ws_frame_limit(config.max_message),
        # Compression costs more CPU than it saves on small JSON frames.
        ws_per_message_deflate=False,
        # A client that stopped answering (its network is gone) is closed within
        # twice this, and its seat's grace period starts (docs/protocol.md).
        ws_ping_interval=config.ws_ping,
        ws_ping_timeout=config.ws_ping,
        timeout_graceful_shutdown=5,
        lifespan="on",
    )
    server = _Server(uconfig)
    _tune_gc()
    server.run(sockets=[sock])
    return 0 if server.started else 1


def _tune_gc() -> None:
    """Fewer, cheaper garbage collections for a long-running server: what exists
    at start (modules, the app) is never scanned again, and young objects are
    collected every 10,000 allocations rather than 700 (a move allocates
    hundreds of short-lived dicts and lists; collections were about 3 % of the
    CPU per move, docs/performance.md)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 10)


def expose_wire(app: ASGIApp) -> ASGIApp:
    """``app`` with each WebSocket scope carrying uvicorn's protocol object
    under ``WIRE_KEY`` (when the server is uvicorn's sans-I/O one), so that a
    :class:`Connection` can write a move's frames in one system call."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            wire = wire_of(send)
            if wire is not None:
                scope[WIRE_KEY] = wire
        await app(scope, receive, send)

    return wrapped


def ws_frame_limit(max_message: int) -> int:
    """Largest frame the WebSocket layer reads (bigger ones close with 1009 at
    once): twice the protocol limit, at least 64 KiB."""
    return max(2 * max_message, 64 * 1024)


class _Server(uvicorn.Server):
    """uvicorn's server, except that a SIGINT/SIGTERM that stopped it cleanly is
    not raised again at the end (uvicorn re-raises it, so the process died
    "by the signal", status -15): ``kozyr serve`` then exits with status 0."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if sig in (signal.SIGINT, signal.SIGTERM):
            # The list uvicorn re-raises from once it has shut down.
            captured: list[int] = getattr(self, "_captured_signals", [])
            while sig in captured:
                captured.remove(sig)
