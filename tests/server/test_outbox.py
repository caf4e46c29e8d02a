"""The outbox of a connection (connection.py): a callback's messages leave in
one ``write`` of whole frames, byte for byte what websockets would write, and a
client whose socket buffer is full is served message by message, in order."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from kozyr.server.edge.connection import WIRE_KEY, Connection, WireProtocol, text_frame, wire_of


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_text_frame_is_what_websockets_writes(size: int) -> None:
    payload = b"x" * size
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False)
    assert text_frame(payload) == expected


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closing


class FakeWire:
    """The parts of uvicorn's sans-I/O protocol that the outbox uses."""

    def __init__(self) -> None:
        self.conn = SimpleNamespace(state=State.OPEN, extensions=[])
        self.transport = FakeTransport()
        self.writable = asyncio.Event()
        self.writable.set()
        self.disconnected = False

    async def send(self, message: Any) -> None:  # what wire_of unwraps
        pass


class FakeSocket:
    """Starlette's WebSocket as far as Connection uses it; ``send_text`` waits
    for the wire to be writable, as uvicorn's ``send`` does."""

    def __init__(self, wire: FakeWire | None) -> None:
        self.client = SimpleNamespace(host="127.0.0.1")
        self.headers = {"host": "example.org"}
        self.url = SimpleNamespace(scheme="ws")
        self.scope: dict[str, Any] = {} if wire is None else {WIRE_KEY: wire}
        self.wire = wire
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        if self.wire is not None:
            await self.wire.writable.wait()
        self.sent.append(text)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_wire_of_finds_uvicorns_protocol_only() -> None:
    wire = FakeWire()
    assert wire_of(wire.send) is wire
    assert wire_of(lambda _m: None) is None
    wire.conn.extensions = ["permessage-deflate"]  # compressed frames: not ours to write
    assert wire_of(wire.send) is None


def test_a_callbacks_messages_leave_in_one_write_and_a_slow_reader_gets_them_in_order() -> None:
    async def scenario() -> None:
        wire = FakeWire()
        ws = FakeSocket(wire)
        conn = Connection(ws, rate=10, burst=10)  # type: ignore[arg-type]
        other = Connection(FakeSocket(wire), rate=10, burst=10)  # type: ignore[arg-type]
        conn.send_raw('{"type":"event"}')
        conn.send_raw(b'{"type":"game"}')
        other.send_raw("x")
        assert wire.transport.writes == []  # written once the callback is done
        await _settle()
        frames = text_frame(b'{"type":"event"}') + text_frame(b'{"type":"game"}')
        assert wire.transport.writes == [frames, text_frame(b"x")]
        assert ws.sent == []

        wire.transport.writes.clear()
        wire.writable.clear()  # the client's socket buffer is full
        conn.send_raw("a")
        conn.send_raw(b"b")
        await _settle()
        conn.send_raw("c")  # queued behind a and b, not written around them
        await _settle()
        assert wire.transport.writes == [] and ws.sent == []
        wire.writable.set()
        await _settle()
        assert ws.sent == ["a", "b", "c"]
        conn.send_raw("d")  # drained: back to one write per callback
        await _settle()
        assert wire.transport.writes == [text_frame(b"d")] and ws.sent == ["a", "b", "c"]

        wire.conn.state = State.CLOSING  # the client is closing: nothing more is written
        conn.send_raw("e")
        await _settle()
        assert wire.transport.writes == [text_frame(b"d")] and conn.closed
        conn.finish()
        other.finish()

    asyncio.run(scenario())


def test_without_a_wire_the_writer_task_sends_each_message() -> None:
    async def scenario() -> None:
        ws = FakeSocket(None)
        conn = Connection(ws, rate=10, burst=10)  # type: ignore[arg-type]
        for text in ("1", b"2", "3"):  # text or its UTF-8 bytes (what send() queues)
            conn.send_raw(text)
        await _settle()
        assert ws.sent == ["1", "2", "3"]
        conn.finish()

    asyncio.run(scenario())


def test_the_wire_reads_on_while_a_few_messages_wait_then_pauses() -> None:
    """uvicorn pauses reading for every message received; WireProtocol only once
    QUEUED messages wait for the app, and reading resumes when they are taken."""

    async def scenario() -> None:
        paused: list[str] = []
        wire = WireProtocol.__new__(WireProtocol)  # only the receiving half is used
        wire.queue = asyncio.Queue()
        wire.read_paused = False
        wire.close_sent = False
        wire.transport = SimpleNamespace(  # type: ignore[assignment]
            pause_reading=lambda: paused.append("pause"),
            resume_reading=lambda: paused.append("resume"),
        )
        for n in range(WireProtocol.QUEUED + 2):
            wire.curr_msg_data_type = "text"
            wire.frames = [f'{{"n":{n}}}'.encode()]
            wire.send_receive_event_to_app()
            expected = [] if n < WireProtocol.QUEUED - 1 else ["pause"]
            assert paused == expected, n
        texts: list[str | None] = []
        for _ in range(WireProtocol.QUEUED + 2):
            m = await wire.receive()
            assert m["type"] == "websocket.receive", m
            texts.append(m["text"])
        assert texts == [f'{{"n":{n}}}' for n in range(WireProtocol.QUEUED + 2)]
        assert paused == ["pause", "resume"] and not wire.read_paused

    asyncio.run(scenario())
