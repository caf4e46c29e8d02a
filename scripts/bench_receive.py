"""Microbenchmark: µs per received text frame through ``WireProtocol.data_received``
(uvicorn's sans-I/O WebSocket protocol as ``kozyr serve`` runs it), on a fake
transport, the queue item taken at once.  docs/performance.md.

    PYTHONPATH=src python scripts/bench_receive.py [frames]
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
import time
from typing import Any

import uvicorn
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode

from kozyr.server.edge.connection import WireProtocol

MOVE = b'{"type":"move","action":{"seat":0,"type":"attack","cards":["6S"]},"version":12}'


class Transport:
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def app(scope: Any, receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    await scope["state"]["done"].wait()


async def main(n: int) -> None:
    config = uvicorn.Config(app, ws=WireProtocol, ws_max_size=65536, log_config=None)
    config.ws_ping_interval = None
    config.load()
    done = asyncio.Event()
    state = ServerState()
    wire = WireProtocol(config, state, {"done": done}, _loop=asyncio.get_running_loop())
    wire.connection_made(Transport())  # type: ignore[arg-type]
    key = base64.b64encode(os.urandom(16)).decode()
    wire.data_received(
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    for _ in range(10):
        await asyncio.sleep(0)
    assert wire.conn.state.name == "OPEN"
    frame = Frame(Opcode.TEXT, MOVE).serialize(mask=True)
    queue = wire.queue
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            wire.data_received(frame)
            queue.get_nowait()
        best = min(best, (time.perf_counter() - start) / n)
    print(f"{best * 1e6:.2f} µs per received frame (best of 5 runs of {n})")
    done.set()
    await asyncio.gather(*state.tasks)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000))
