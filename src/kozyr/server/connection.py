"""One WebSocket connection: an outbox, a flood limiter, and who is on it.

Why an outbox: a table broadcasts each move to every seat; if the server
awaited each socket in turn, one slow phone on a bad network would delay the
whole table.  Messages are queued instead, and a client that falls too far
behind is disconnected (it can come back with its token and get a full resync).

How the outbox is written (the hot path of every move, docs/performance.md):
under uvicorn's sans-I/O WebSocket protocol (what :func:`kozyr.server.app.serve`
runs) a connection holds that protocol object, its *wire*.  Whatever was queued
for any connection while the event loop ran one callback is written once that
callback is done: each connection's messages as complete text frames, joined
into **one** ``write`` (a move's event and game frame leave together), with no
task woken.  Without a wire (another ASGI server), or while the client reads
too slowly for its socket buffer, a writer task sends the queue message by
message through Starlette.  Either way every message is one whole frame, in
order: the bytes on the wire are what ``websocket.send`` would write.
"""

from __future__ import annotations

import asyncio
import itertools
import struct
import weakref
from collections import deque
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from . import logging as log
from . import protocol
from .ratelimit import TokenBucket

#: Frames queued for a client before it is considered too slow and dropped.
MAX_BACKLOG = 512

#: ASGI scope key under which :func:`kozyr.server.app.expose_wire` puts the wire.
WIRE_KEY = "kozyr.wire"

_ids = itertools.count(1)


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented, uncompressed WebSocket text frame (RFC 6455
    5.2): what a server writes for ``websocket.send`` with ``text``."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + payload
    return struct.pack("!BBQ", 0x81, 127, n) + payload


def _text(message: str | bytes) -> str:
    return message.decode() if isinstance(message, bytes) else message


def wire_of(send: Any) -> Any | None:
    """uvicorn's sans-I/O protocol object behind an ASGI ``send``, or None when
    ``send`` is something else (another server, a wrapped callable) or the
    connection uses an extension (compression changes the frames)."""
    wire = getattr(send, "__self__", None)
    conn = getattr(wire, "conn", None)
    if (
        conn is None
        or getattr(conn, "extensions", None)
        or not hasattr(wire, "transport")
        or not hasattr(wire, "writable")
        or not hasattr(wire, "disconnected")
    ):
        return None
    return wire


class WireProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol (what ``serve`` runs), except that
    it keeps reading while fewer than ``QUEUED`` messages wait for the app.

    uvicorn stops reading a socket as soon as one message waits and starts
    again once the app took it: two ``epoll_ctl`` calls for every message a
    client sends.  A client that sends faster than it is served still meets the
    same back-pressure, a few messages later."""

    QUEUED = 4

    def send_receive_event_to_app(self) -> None:
        if self.read_paused or self.queue.qsize() >= self.QUEUED - 1:
            super().send_receive_event_to_app()
            return
        self.read_paused = True  # uvicorn pauses reading only if it is not paused
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False


class _Flusher:
    """Writes the outboxes filled during one callback of the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.dirty: list[Connection] = []

    def mark(self, conn: Connection) -> None:
        if not self.dirty:
            self.loop.call_soon(self.run)
        self.dirty.append(conn)

    def run(self) -> None:
        dirty, self.dirty = self.dirty, []
        for conn in dirty:
            conn.flush()


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Flusher] = (
    weakref.WeakKeyDictionary()
)


def _flusher() -> _Flusher:
    loop = asyncio.get_running_loop()
    found = _flushers.get(loop)
    if found is None:
        found = _flushers[loop] = _Flusher(loop)
    return found


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
        #: Messages to send: text, or its UTF-8 bytes (what ``send`` encodes).
        self._queue: deque[str | bytes] = deque()
        #: uvicorn's protocol object when frames may be written straight to it.
        self._wire: Any | None = ws.scope.get(WIRE_KEY)
        self._flusher = _flusher()
        #: The writer task is sending the queue (the wire is paused or absent).
        self._draining = False
        self._wake = asyncio.Event()
        self._writer = asyncio.get_running_loop().create_task(
            self._write_loop(), name=f"ws-writer-{self.id}"
        )

    def send(self, message: protocol.ServerMessage) -> None:
        """Queue a message (never blocks the caller)."""
        self.send_raw(protocol.encode(message))

    def send_raw(self, text: str | bytes) -> None:
        """Queue an already-encoded message (broadcasts encode once): JSON text,
        or its UTF-8 bytes."""
        if self.closed:
            return
        queue = self._queue
        if len(queue) >= MAX_BACKLOG:
            log.warning("ws_slow_client", conn=self.id, backlog=len(queue))
            self.close(1013, "too slow: reconnect to resync")
            return
        queue.append(text)
        if self._wire is None or self._draining:
            self._draining = True
            self._wake.set()
        elif len(queue) == 1:
            self._flusher.mark(self)

    def flush(self) -> None:
        """Write everything queued as one ``write`` of whole text frames (the
        flusher calls this once the callback that queued them is done)."""
        queue, wire = self._queue, self._wire
        if self.closed or self._draining or not queue or wire is None:
            return  # a close or the writer task sends what is queued
        if wire.disconnected or wire.transport.is_closing() or wire.conn.state is not State.OPEN:
            self.closed = True  # as when a send fails: nobody reads any more
            queue.clear()
            return
        if not wire.writable.is_set():
            # The socket buffer is full (a slow reader): the writer task waits
            # for it to drain, sending message by message, then hands back.
            self._draining = True
            self._wake.set()
            return
        frames = [text_frame(m.encode() if isinstance(m, str) else m) for m in queue]
        queue.clear()
        wire.transport.write(frames[0] if len(frames) == 1 else b"".join(frames))

    async def _write_loop(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queue:
                    await self.ws.send_text(_text(self._queue.popleft()))
                self._draining = False
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
                await self.ws.send_text(_text(self._queue.popleft()))
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
