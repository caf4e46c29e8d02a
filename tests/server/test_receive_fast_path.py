"""WireProtocol reads a client's plain text frames itself (connection.py): the
app gets exactly what uvicorn + websockets would give it, however the bytes are
cut into TCP reads, and every other frame (ping, binary, fragments, errors)
still goes through websockets with today's answers.

Most cases drive the real protocol object with a fake transport (the reads are
then exactly the chunks given); the rest talk raw bytes to a real server."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.protocol import State
from websockets.utils import apply_mask

from kozyr.server.edge.connection import WireProtocol
from kozyr.server.edge.run import ws_frame_limit

from .harness import ServerProcess

TEXT, BINARY, CONT, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA
MAX_SIZE = 70_000  # the fake server's ws_max_size: room for 126- and 127-length frames


def client_frame(
    opcode: int,
    payload: bytes,
    *,
    fin: bool = True,
    mask: bytes | None = b"\x12\x34\x56\x78",
    rsv: int = 0,
    length: int | None = None,
) -> bytes:
    """A client's frame (RFC 6455 5.2), masked unless ``mask`` is None;
    ``length`` overrides the declared payload length."""
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
    bit = 0x80 if mask is not None else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += struct.pack("!BH", bit | 126, n)
    else:
        head += struct.pack("!BQ", bit | 127, n)
    if mask is None:
        return head + payload
    return head + mask + apply_mask(payload, mask)


def text(message: str | bytes, **kw: Any) -> bytes:
    return client_frame(TEXT, message.encode() if isinstance(message, str) else message, **kw)


# ---------------------------------------------------------------- fake transport
class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False
        self.paused = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


async def _app(scope: Any, receive: Any, send: Any) -> None:
    """Accepts, then leaves every message in the protocol's queue for the test."""
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    await scope["state"]["done"].wait()


def _request() -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        "GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


class Wire:
    """A protocol object (``WireProtocol`` or uvicorn's own class, for reference)
    after its handshake, on a fake transport."""

    def __init__(self, cls: type[WebSocketsSansIOProtocol], max_size: int = MAX_SIZE) -> None:
        self.done = asyncio.Event()
        config = uvicorn.Config(
            _app,
            ws=cls,
            ws_max_size=max_size,
            ws_per_message_deflate=False,
            ws_ping_interval=None,
            log_config=None,
        )
        config.load()
        self.state = ServerState()
        self.proto = cls(config, self.state, {"done": self.done}, _loop=asyncio.get_running_loop())
        self.transport = FakeTransport()
        self.proto.connection_made(self.transport)  # type: ignore[arg-type]

    async def open(self, after_request: bytes = b"") -> Wire:
        self.proto.data_received(_request() + after_request)
        await _settle()
        assert self.proto.conn.state is State.OPEN
        self.transport.writes.clear()  # the 101 response
        return self

    def feed(self, chunks: Sequence[bytes]) -> None:
        for chunk in chunks:
            self.proto.data_received(chunk)

    def messages(self) -> list[Any]:
        queue = self.proto.queue
        return [queue.get_nowait() for _ in range(queue.qsize())]

    @property
    def splits(self) -> bool:
        """WireProtocol splits the frames itself (it decided at the handshake)."""
        split: bool = getattr(self.proto, "_split")  # noqa: B009
        return split

    def written(self) -> bytes:
        return b"".join(self.transport.writes)

    async def finish(self) -> None:
        self.done.set()
        await asyncio.gather(*self.state.tasks)


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


def _counting_parser(wire: Wire) -> list[bytes]:
    """What the connection hands to websockets' parser from now on."""
    fed: list[bytes] = []
    conn = wire.proto.conn
    receive = conn.receive_data

    def spy(data: bytes | bytearray) -> None:
        fed.append(bytes(data))
        receive(data)

    conn.receive_data = spy  # type: ignore[method-assign]
    return fed


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["text"] for m in messages]


def test_plain_text_frames_bypass_websockets_parser() -> None:
    """The point of it all: a text frame never reaches websockets' parser,
    and a burst of them in one read gives every message, in order."""

    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        fed = _counting_parser(wire)
        sent = [f'{{"n":{i},"s":"ж€😀"}}' for i in range(50)]
        wire.feed([b"".join(text(m, mask=os.urandom(4)) for m in sent)])
        assert _texts(wire.messages()) == sent
        assert fed == [] and wire.written() == b""
        await wire.finish()

    run(scenario)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, MAX_SIZE])
def test_a_frame_cut_anywhere_arrives_whole(size: int) -> None:
    """7-, 16- and 64-bit lengths, cut after every byte of the header, the mask
    and the start and end of the payload, and one byte per read."""

    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        fed = _counting_parser(wire)
        message = ("é" * size)[: size // 2] + "x" * (size - len("é".encode()) * (size // 2))
        assert len(message.encode()) == size
        frame = text(message)
        header = len(frame) - size
        cuts = [*range(1, header + 2), len(frame) - 1]
        for cut in cuts:
            wire.feed([frame[:cut], frame[cut:]])
        if size < 200:
            wire.feed([frame[i : i + 1] for i in range(len(frame))])
            cuts.append(0)
        wire.feed([frame + frame[:3], frame[3:]])  # the next frame's start in the same read
        assert _texts(wire.messages()) == [message] * (len(cuts) + 2)
        assert fed == []
        await wire.finish()

    run(scenario)


def test_a_ping_between_text_frames_is_answered_in_order() -> None:
    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        fed = _counting_parser(wire)
        ping = client_frame(PING, b"are you there")
        wire.feed([text("a") + ping + text("b") + client_frame(PING, b"2") + text("c")])
        assert _texts(wire.messages()) == ["a", "b", "c"]
        assert wire.written() == b"\x8a\x0dare you there" + b"\x8a\x012"
        assert fed == [ping, client_frame(PING, b"2")]  # each alone and whole
        await wire.finish()

    run(scenario)


def test_a_fragmented_message_goes_through_websockets_then_fast_frames_again() -> None:
    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        fed = _counting_parser(wire)
        parts = [
            text("hel", fin=False),
            client_frame(PING, b"p"),  # control frames may come between fragments
            client_frame(CONT, b"lo ", fin=False),
            client_frame(CONT, "wörld".encode(), fin=True),
        ]
        stream = text("before") + b"".join(parts) + text("after")
        wire.feed([stream[:9], stream[9:30], stream[30:]])
        assert _texts(wire.messages()) == ["before", "hello wörld", "after"]
        assert fed == parts
        assert wire.written() == b"\x8a\x01p"
        await wire.finish()

    run(scenario)


def test_binary_frames_reach_the_app_as_bytes() -> None:
    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        wire.feed([client_frame(BINARY, b'{"type":"sync"}') + text("t")])
        assert wire.messages() == [
            {"type": "websocket.receive", "bytes": b'{"type":"sync"}'},
            {"type": "websocket.receive", "text": "t"},
        ]
        await wire.finish()

    run(scenario)


def _close_code(written: bytes) -> int:
    assert written[0] == 0x88, written
    code: int = struct.unpack("!H", written[2:4])[0]
    return code


BAD_FRAMES = {
    "bad_utf8": (text(b'{"x":"\xff\xfe"}'), 1007),
    "too_big": (text("x" * (MAX_SIZE + 1)), 1009),
    "too_big_header_only": (text(b"", length=MAX_SIZE + 1), 1009),
    "huge_64_bit_length": (text(b"", length=2**63 + 5), 1009),
    "unmasked": (text("hi", mask=None), 1002),
    "rsv_bits": (text("hi", rsv=0b100), 1002),
    "unknown_opcode": (client_frame(0x3, b"?"), 1002),
    "continuation_first": (client_frame(CONT, b"x"), 1002),
    "text_inside_fragments": (text("a", fin=False) + text("b"), 1002),
    "long_ping": (client_frame(PING, b"x" * 126), 1002),
    "fragmented_ping": (client_frame(PING, b"x", fin=False), 1002),
}


@pytest.mark.parametrize("name", sorted(BAD_FRAMES))
def test_bad_frames_get_todays_close(name: str) -> None:
    """The close frame, the disconnect given to the app and the messages before
    it are those of uvicorn's own protocol (fed the same bytes, in one read)."""
    frame, code = BAD_FRAMES[name]
    stream = text("first") + frame + text("never read")
    first = len(text("first"))

    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        # "first" in a read of its own: uvicorn drops the messages of a read
        # that fails, the fast path has already given them to the app.
        wire.feed([stream[:first], stream[first:]])
        reference = await Wire(WebSocketsSansIOProtocol).open()
        reference.feed([stream[:first], stream[first:]])
        assert _close_code(wire.written()) == code
        assert wire.written() == reference.written()
        assert wire.messages() == reference.messages()
        assert wire.transport.closed and reference.transport.closed
        await wire.finish()
        await reference.finish()

    run(scenario)


def test_a_close_frame_is_echoed_and_what_follows_ignored() -> None:
    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        close = client_frame(CLOSE, struct.pack("!H", 1000) + b"bye")
        wire.feed([text("a") + close + text("late"), text("later")])
        assert wire.messages() == [
            {"type": "websocket.receive", "text": "a"},
            {"type": "websocket.disconnect", "code": 1000, "reason": "bye"},
        ]
        assert wire.written() == b"\x88\x05\x03\xe8bye"
        assert not wire.splits  # websockets reads what comes after a close
        await wire.finish()

    run(scenario)


def test_bytes_pipelined_behind_the_request_keep_websockets_parser() -> None:
    """Frames in the same read as the HTTP request: websockets has already read
    into them, so this connection never splits frames itself."""

    async def scenario() -> None:
        wire = Wire(WireProtocol)
        early = text("early") + text("split", mask=b"abcd")[:4]
        await wire.open(after_request=early)
        assert not wire.splits
        fed = _counting_parser(wire)
        rest = text("split", mask=b"abcd")[4:] + text("later")
        wire.feed([rest])
        assert _texts(wire.messages()) == ["early", "split", "later"]
        assert fed == [rest]
        clean = await Wire(WireProtocol).open()
        assert clean.splits
        await wire.finish()
        await clean.finish()

    run(scenario)


def test_after_the_app_closes_websockets_reads_everything() -> None:
    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        await wire.proto.send({"type": "websocket.close", "code": 1000})
        fed = _counting_parser(wire)
        wire.transport.writes.clear()
        stream = text("ignored") + client_frame(CLOSE, struct.pack("!H", 1000))
        wire.feed([stream])
        assert fed == [stream]
        assert wire.transport.closed
        assert not any(m["type"] == "websocket.receive" for m in wire.messages())
        await wire.finish()

    run(scenario)


# ---------------------------------------------------------------- property
def _message_frames() -> st.SearchStrategy[list[bytes]]:
    """One message's frames: a text (any Unicode) or binary message, whole or in
    fragments with pings between them, or a lone ping or pong."""
    masks = st.binary(min_size=4, max_size=4)
    payloads = st.one_of(
        st.text(max_size=40).map(str.encode),
        st.binary(max_size=40),
        st.sampled_from([b"x" * 126, "ж".encode() * 200, b"y" * 65_536]),  # within MAX_SIZE
    )

    @st.composite
    def message(draw: st.DrawFn) -> list[bytes]:
        kind = draw(st.sampled_from(["text", "text", "text", "binary", "ping", "pong"]))
        if kind in ("ping", "pong"):
            opcode = PING if kind == "ping" else PONG
            return [client_frame(opcode, draw(st.binary(max_size=125)), mask=draw(masks))]
        data = draw(payloads)
        if kind == "text":
            data = data.decode(errors="replace").encode()
        cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=3)))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        frames = []
        for i, piece in enumerate(pieces):
            opcode = (TEXT if kind == "text" else BINARY) if i == 0 else CONT
            last = i == len(pieces) - 1
            frames.append(client_frame(opcode, piece, fin=last, mask=draw(masks)))
            if not last and draw(st.booleans()):
                frames.append(client_frame(PING, b"mid", mask=draw(masks)))
        return frames

    return message()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(_message_frames(), max_size=12),
    close=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=12),
)
def test_any_split_gives_what_websockets_parser_gives(
    messages: list[list[bytes]], close: bool, cuts: list[int]
) -> None:
    stream = b"".join(frame for frames in messages for frame in frames)
    if close:
        stream += client_frame(CLOSE, struct.pack("!H", 1001))
    points = sorted({c % (len(stream) + 1) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]

    async def scenario() -> None:
        wire = await Wire(WireProtocol).open()
        wire.feed([c for c in chunks if c])
        reference = await Wire(WebSocketsSansIOProtocol).open()
        reference.feed([stream])
        assert wire.messages() == reference.messages()
        assert wire.written() == reference.written()
        await wire.finish()
        await reference.finish()

    run(scenario)


# ---------------------------------------------------------------- real server
class RawClient:
    """A WebSocket client that writes exactly the bytes it is given."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def open(self, server: ServerProcess, after_request: bytes = b"") -> RawClient:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", server.port)
        sock = self.writer.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.writer.write(_request() + after_request)
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 101"), head
        return self

    async def write(self, *chunks: bytes, pause: float = 0.0) -> None:
        for chunk in chunks:
            self.writer.write(chunk)
            await self.writer.drain()
            if pause:
                await asyncio.sleep(pause)

    async def frame(self, timeout: float = 10.0) -> tuple[int, bytes]:
        """The server's next frame (opcode, payload); server frames are unmasked."""
        read = self.reader.readexactly
        head1, head2 = await asyncio.wait_for(read(2), timeout)
        n = head2 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", await read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await read(8))
        return head1 & 0x0F, await asyncio.wait_for(read(n), timeout)

    async def message(self) -> dict[str, Any]:
        while True:
            opcode, payload = await self.frame()
            if opcode == TEXT:
                found: dict[str, Any] = json.loads(payload)
                return found
            assert opcode == PING, (opcode, payload)  # a keep-alive ping

    async def close_code(self) -> int:
        while True:
            opcode, payload = await self.frame()
            if opcode == CLOSE:
                return _close_code(bytes([0x88, len(payload)]) + payload)

    async def hello(self) -> None:
        await self.write(text(json.dumps({"type": "hello", "name": "raw"})))
        assert (await self.message())["type"] == "welcome"

    def close(self) -> None:
        self.writer.close()


def _errors_logged(server: ServerProcess, since: int) -> list[dict[str, Any]]:
    return [
        line
        for line in server.lines[since:]
        if line.get("level") in ("error", "critical") or line.get("event") == "raw"
    ]


SYNC = json.dumps({"type": "sync"})  # answered with error not_in_room, ref "sync"
LEAVE = json.dumps({"type": "leave"})  # answered with error not_in_room, ref "leave"


async def _refs(c: RawClient, n: int) -> list[str]:
    return [(await c.message())["ref"] for _ in range(n)]


def test_real_server_reads_a_burst_and_a_trickle(server: ServerProcess) -> None:
    async def scenario() -> None:
        c = await RawClient().open(server)
        burst = [text(json.dumps({"type": "hello", "name": "burst"}))]
        burst += [text(SYNC if i % 2 else LEAVE, mask=os.urandom(4)) for i in range(10)]
        await c.write(b"".join(burst))
        assert (await c.message())["type"] == "welcome"
        assert await _refs(c, 10) == ["leave", "sync"] * 5
        frame = text(SYNC)
        await c.write(*[frame[i : i + 1] for i in range(len(frame))], pause=0.002)
        assert await _refs(c, 1) == ["sync"]
        # Cut after the header, inside the mask and inside the payload.
        both = text(LEAVE) + text(SYNC)
        await c.write(both[:2], both[2:4], both[4:11], both[11:40], both[40:], pause=0.01)
        assert await _refs(c, 2) == ["leave", "sync"]
        c.close()

    asyncio.run(scenario())


def test_real_server_length_encodings(server: ServerProcess) -> None:
    """A 16-bit length (a padded message under the 8 KiB limit) is read; a
    64-bit one within the frame limit reaches the app, which refuses it."""

    async def scenario() -> None:
        c = await RawClient().open(server)
        await c.hello()
        await c.write(text(SYNC[:-1] + " " * (8000 - len(SYNC)) + "}"))
        assert await _refs(c, 1) == ["sync"]
        big = ws_frame_limit(8192)
        assert big >= 65536
        await c.write(text(SYNC[:-1] + " " * (big - len(SYNC)) + "}"))
        refused = await c.message()
        assert (refused["code"], refused["ref"]) == ("too_big", "sync")
        assert await c.close_code() == 1009
        c.close()

    asyncio.run(scenario())


def test_real_server_ping_and_fragments_between_fast_frames(server: ServerProcess) -> None:
    async def scenario() -> None:
        c = await RawClient().open(server)
        await c.hello()
        await c.write(text(SYNC) + client_frame(PING, b"ping!") + text(LEAVE))
        replies = [await c.frame() for _ in range(3)]
        assert (PONG, b"ping!") in replies
        refs = [json.loads(p)["ref"] for op, p in replies if op == TEXT]
        assert refs == ["sync", "leave"]
        fragments = text(SYNC[:5], fin=False) + client_frame(CONT, SYNC[5:].encode())
        await c.write(fragments + text(LEAVE))
        assert await _refs(c, 2) == ["sync", "leave"]
        c.close()

    asyncio.run(scenario())


def test_real_server_bad_frames(server: ServerProcess) -> None:
    since = len(server.lines)

    async def scenario() -> None:
        for frame, code in [
            (text(b'{"type": "sync", "x": "\xff"}'), 1007),
            (text(b"", length=ws_frame_limit(8192) + 1), 1009),
            (text(SYNC, mask=None), 1002),
        ]:
            c = await RawClient().open(server)
            await c.hello()
            await c.write(text(SYNC))
            assert await _refs(c, 1) == ["sync"]
            await c.write(frame + text(LEAVE))  # the close comes before any answer
            assert await c.close_code() == code
            c.close()
        c = await RawClient().open(server)
        await c.hello()
        await c.write(client_frame(BINARY, SYNC.encode()) + text(SYNC))
        refused = await c.message()
        assert refused["code"] == "bad_json" and "binary" in refused["message"]
        assert await _refs(c, 1) == ["sync"]
        c.close()

    asyncio.run(scenario())
    assert server.alive()
    assert not _errors_logged(server, since), _errors_logged(server, since)
    assert not any("exception" in line for line in server.lines[since:])


def test_real_server_frames_pipelined_behind_the_handshake(server: ServerProcess) -> None:
    """uvicorn's HTTP layer hands WireProtocol the request alone and drops bytes
    that came behind it in the same read (today as before): the client's first
    message is lost, but the connection works from its next frame on."""

    async def scenario() -> None:
        c = await RawClient().open(server, after_request=text(SYNC))
        await c.hello()
        await c.write(text(LEAVE))
        assert await _refs(c, 1) == ["leave"]
        c.close()

    asyncio.run(scenario())
