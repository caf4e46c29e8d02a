"""One WebSocket connection: an outbox, a flood limiter, and who is on it.

Why an outbox: a table broadcasts each move to every seat; if the server
awaited each socket in turn, one slow phone on a bad network would delay the
whole table.  Each connection instead has a queue drained by its own writer
task, and a client that falls too far behind is disconnected (it can come
back with its token and get a full resync).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from . import logging as log
from . import protocol
from .ratelimit import TokenBucket

#: Frames queued for a client before it is considered too slow and dropped.
MAX_BACKLOG = 512

_ids = itertools.count(1)


class Connection:
    """A client socket after the handshake."""

    def __init__(self, ws: WebSocket, rate: float, burst: float) -> None:
        self.ws = ws
        self.id = next(_ids)
        client = ws.client
        self.address = client.host if client else "unknown"
        host = ws.headers.get("host", "127.0.0.1")
        scheme = "https" if ws.url.scheme == "wss" else "http"
        #: Base of invite links made on this connection (what the client dialled).
        self.base_url = f"{scheme}://{host}"
        self.bucket = TokenBucket(rate, burst)
        #: The rooms.Player after ``hello`` (loosely typed: rooms sits above this module).
        self.player: Any = None
        self.closed = False
        self._closer: asyncio.Task[None] | None = None
        self._queue: deque[str] = deque()
        self._wake = asyncio.Event()
        self._writer = asyncio.get_running_loop().create_task(
            self._write_loop(), name=f"ws-writer-{self.id}"
        )

    def send(self, message: protocol.ServerMessage) -> None:
        """Queue a message (never blocks the caller)."""
        self.send_raw(protocol.encode(message).decode())

    def send_raw(self, text: str) -> None:
        """Queue an already-encoded message (broadcasts encode once)."""
        if self.closed:
            return
        if len(self._queue) >= MAX_BACKLOG:
            log.warning("ws_slow_client", conn=self.id, backlog=len(self._queue))
            self.close(1013, "too slow: reconnect to resync")
            return
        self._queue.append(text)
        self._wake.set()

    async def _write_loop(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queue:
                    await self.ws.send_text(self._queue.popleft())
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True
        except asyncio.CancelledError:
            pass

    def close(self, code: int, reason: str) -> None:
        """Flush what is queued, then close the socket with ``code``."""
        if self.closed:
            return
        self.closed = True
        self._closer = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        try:
            while self._queue:
                await self.ws.send_text(self._queue.popleft())
            await self.ws.close(code, reason)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass

    async def drain(self) -> None:
        """Wait for a pending :meth:`close` to reach the client (the endpoint must
        not return before that, or the server drops the socket without a close
        frame and the client never learns the close code)."""
        if self._closer is not None:
            await asyncio.wait([self._closer], timeout=5)

    def finish(self) -> None:
        """The socket is gone: stop the writer."""
        self.closed = True
        self._writer.cancel()
