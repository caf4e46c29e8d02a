"""One WebSocket connection: an outbox, a flood limiter, and who is on it.

Why an outbox: a table broadcasts each move to every seat; if the server
awaited each socket in turn, one slow phone on a bad network would delay the
whole table.  Messages are queued instead, and a client that falls too far
behind is disconnected (it can come back with its token and get a full resync).

How the outbox is written (the hot path of every move, docs/performance.md):
under uvicorn's sans-I/O WebSocket protocol (what :func:`kozyr.server.edge.run.serve`
runs) a connection holds that protocol object, its *wire*.  Whatever was queued
for any connection while the event loop ran one callback is written once that
callback is done: each connection's messages as complete text frames, joined
into **one** ``write`` (a move's event and game frame leave together), with no
task woken.  Without a wire (another ASGI server), or while the client reads
too slowly for its socket buffer, a writer task sends the queue message by
message through Starlette.  Either way every message is one whole frame, in
order: the bytes on the wire are what ``websocket.send`` would write.

How a client's message is read: :class:`WireProtocol` splits the bytes it
receives into frames itself and gives a plain text frame (complete, final,
masked, valid UTF-8, on an open connection outside a fragmented message)
straight to the app, without websockets' generator-based parser; every other
frame goes alone and whole to that parser, which answers it as before.
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
from websockets.frames import Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

try:  # websockets' C helper, as websockets/frames.py imports it
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

from .. import protocol
from ..telemetry import log
from .ratelimit import TokenBucket

#: Frames queued for a client before it is considered too slow and dropped.
MAX_BACKLOG = 512

#: ASGI scope key under which :func:`kozyr.server.edge.run.expose_wire` puts the wire.
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


#: The opcodes websockets' ``Frame.parse`` accepts.
_OPCODES = frozenset(int(opcode) for opcode in Opcode)


def _frame_end(data: bytes, pos: int, limit: int) -> int:
    """Where the client frame that starts at ``data[pos]`` ends (RFC 6455 5.2):
    past ``len(data)`` while it is incomplete (by one when even its header is);
    -1 when websockets fails the header at once, whatever follows (an unknown
    opcode, no mask, or a payload over ``limit``)."""
    n = len(data)
    if n - pos < 2:
        return n + 1
    head1, head2 = data[pos], data[pos + 1]
    if head1 & 0x0F not in _OPCODES or not head2 & 0x80:
        return -1
    length, start = head2 & 0x7F, pos + 2
    if length >= 126:
        start += 2 if length == 126 else 8
        if n < start:
            return n + 1
        length = int.from_bytes(data[pos + 2 : start], "big")
    if length > limit:
        return -1
    return start + 4 + length


def _frame_limit(conn: ServerProtocol) -> int | None:
    """The largest payload websockets' parser accepts in the next frame (what
    ``Protocol.parse`` computes before each frame)."""
    size = conn.max_message_size
    if size is not None and conn.current_size is not None:
        size -= conn.current_size
    fragment = conn.max_fragment_size
    if fragment is not None:
        size = fragment if size is None else min(size, fragment)
    return size


class WireProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol (what ``serve`` runs), except that
    it keeps reading while fewer than ``QUEUED`` messages wait for the app, and
    that it reads a client's plain text frames itself.

    uvicorn stops reading a socket as soon as one message waits and starts
    again once the app took it: two ``epoll_ctl`` calls for every message a
    client sends.  A client that sends faster than it is served still meets the
    same back-pressure, a few messages later.

    Receiving a move through websockets' generator-based parser cost 5-9 % of
    the server's CPU (docs/performance.md).  So :meth:`data_received` splits
    the bytes into frames itself and hands a complete, final, masked text frame
    of valid UTF-8 straight to the app, as uvicorn would, while the connection
    is open and no fragmented message is under way.  Every other frame goes
    alone and whole to websockets, so its parser is always at a frame boundary
    and answers pings, closes and protocol errors exactly as before; frames are
    handled in arrival order whichever way each takes.  Splitting stops for
    good (everything then goes to websockets as it arrives) when the handshake
    came with bytes behind it, the connection leaves OPEN, a header is one
    websockets fails at once, or anything looks unexpected."""

    QUEUED = 4

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Frames are split here (decided when the HTTP request has been read).
        self._split = False
        #: The start of an incomplete frame, and how long it must grow first.
        self._partial = bytearray()
        self._wanted = 0

    def data_received(self, data: bytes) -> None:
        if self._split:
            self._receive_frames(data)
        elif self.handshake_initiated:
            super().data_received(data)
        else:
            self._receive_request(data)

    def _receive_request(self, data: bytes) -> None:
        """uvicorn's ``data_received`` while the HTTP request arrives; frames
        may be split later only if nothing followed the request (under
        ``kozyr serve`` nothing does: uvicorn's HTTP layer hands over the
        request alone)."""
        conn = self.conn
        conn.receive_data(data)
        if conn.parser_exc is not None:
            self.handle_parser_exception()
            return
        events = conn.events
        self._split = (
            len(events) == 1
            and isinstance(events[0], Request)
            and not conn.reader.buffer
            and _frame_limit(conn) is not None
        )
        self.handle_events()

    def _receive_frames(self, data: bytes) -> None:
        partial = self._partial
        if partial:
            partial += data
            if len(partial) < self._wanted:
                return
            buf = bytes(partial)
            partial.clear()
        else:
            buf = data
        pos, n = 0, len(buf)
        while pos < n:
            conn = self.conn
            limit = _frame_limit(conn)
            end = -1 if limit is None else _frame_end(buf, pos, limit)
            if end < 0 or conn.state is not State.OPEN or conn.reader.buffer:
                self._split = False  # websockets reads the rest as it comes
                super().data_received(buf[pos:])
                return
            if end > n:
                self._partial += buf[pos:]
                self._wanted = end - pos
                return
            if not self._text_frame(buf, pos, end):
                super().data_received(buf[pos:end])
                if conn.parser_exc is not None:
                    return  # failed: websockets would discard the rest too
            pos = end

    def _text_frame(self, buf: bytes, pos: int, end: int) -> bool:
        """Hand the whole frame ``buf[pos:end]`` to the app if it is a final
        text frame of valid UTF-8 that needs nothing of websockets (its header
        is known complete, masked and within the size limit)."""
        conn = self.conn
        if buf[pos] != 0x81 or conn.current_size is not None or self.frames:
            return False  # not FIN + TEXT without RSV bits, or inside a fragmented message
        if conn.extensions or conn.debug:
            return False  # compressed frames; websockets logs each frame
        length = buf[pos + 1] & 0x7F
        start = pos + (2 if length < 126 else 4 if length == 126 else 10)
        payload = apply_mask(buf[start + 4 : end], buf[start : start + 4])
        if not payload.isascii():
            try:
                payload.decode()
            except UnicodeDecodeError:
                return False  # uvicorn's path closes with 1007
        self.curr_msg_data_type = "text"
        self.frames = [payload]
        self.send_receive_event_to_app()
        return True

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
