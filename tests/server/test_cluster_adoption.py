"""A room being adopted by a process (a takeover) and a player's ``hello`` on
that process at the same moment, driven step by step in one event loop: a real
Redis, SQLite, the hubs and the cluster node in process, fake sockets.

The failover test (test_cluster_failover.py) found this once on a loaded
machine: the host's ``hello`` came while the new owner was still reading the
game from the database; it reached the half-built room, whose resync had no
``game`` frame, and the versions the host had missed were never sent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from kozyr.server import protocol as p
from kozyr.server.cluster.node import ClusterNode, lease_key
from kozyr.server.config import ServerConfig
from kozyr.server.tables.lobby import Hub

from .services import RedisServer


class FakeSocket:
    """A socket as the hub sees one (:class:`~kozyr.server.tables.ports.Peer`):
    it keeps the frames sent to it."""

    _ids = iter(range(1, 1000))

    def __init__(self) -> None:
        self.id = next(self._ids)
        self.address = "127.0.0.1"
        self.base_url = "http://127.0.0.1"
        self.player: Any = None
        self.closed = False
        self.frames: list[dict[str, Any]] = []

    def send(self, message: p.ServerMessage) -> None:
        self.frames.append(json.loads(p.encode(message)))

    def send_raw(self, text: str) -> None:
        self.frames.append(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        self.closed = True

    def last(self, kind: str) -> dict[str, Any]:
        return next(f for f in reversed(self.frames) if f["type"] == kind)


def _hub(url: str) -> Hub:
    hub = Hub(ServerConfig(db_url=url, bot_workers=0, grace=30.0))
    hub.store.start()
    return hub


async def _say(hub: Hub, sock: FakeSocket, **msg: Any) -> None:
    await hub.handle_text(sock, json.dumps(msg))


def test_hello_while_the_room_is_adopted_gets_the_whole_table(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """anna and boris play on the first process, which dies; while the second
    one adopts the room (its game still being read from the database), anna
    says ``hello`` there.  She gets a full resync at the game's version (a
    ``room`` frame directly followed by a ``game`` frame), never a ``room``
    frame of a table without its game."""
    url = f"sqlite:///{tmp_path / 'adopt.db'}"

    async def scenario() -> None:
        # The first process: a two-seat room, a game, one move.
        first = _hub(url)
        anna, boris = FakeSocket(), FakeSocket()
        try:
            await _say(first, anna, type="hello", name="anna")
            token = anna.last("welcome")["token"]
            await _say(first, anna, type="create_room", seats=2, visibility="private",
                       move_time=None, bot_level=1)  # fmt: skip
            code = anna.last("room")["room"]["code"]
            await _say(first, boris, type="hello", name="boris")
            await _say(first, boris, type="join", room=code)
            await _say(first, anna, type="start")
            game = anna.last("game")
            mover = anna if game["to_move"] == game["seat"] else boris
            frame = mover.last("game")
            await _say(first, mover, type="move", action=frame["legal"][0],
                       version=frame["version"])  # fmt: skip
            version = anna.last("game")["version"]
            assert version == frame["version"] + 1
            await first.store.call(lambda _conn: None)  # every write is stored
        finally:
            for room in list(first.rooms.values()):
                room.shutdown()  # the process dies: nothing more from it
            first.pool.shutdown()
            first.store.close()

        # The second process adopts the room; reading the game waits at a gate.
        second = _hub(url)
        node = ClusterNode(second, redis_server.new_url(), lease=5.0)
        second.coord = node
        node.outbox.start()
        node.inbox_out.start()
        reading, gate = asyncio.Event(), asyncio.Event()
        load_game = second.store.load_game

        async def slow_load_game(game_id: int) -> Any:
            reading.set()
            await gate.wait()
            return await load_game(game_id)

        second.store.load_game = slow_load_game  # type: ignore[method-assign]
        back = FakeSocket()
        try:
            take = asyncio.ensure_future(node._take(code))
            await asyncio.wait_for(reading.wait(), 10)
            await _say(second, back, type="hello", name="anna", token=token)
            assert back.last("welcome")["room"] == code
            gate.set()
            await asyncio.wait_for(take, 10)
            assert code in node.owned and code in second.rooms
            kinds = [f["type"] for f in back.frames]
            for i, kind in enumerate(kinds):
                if kind == "room":  # a resync: the table and its game at once
                    assert kinds[i + 1 : i + 2] == ["game"], kinds
            games = [f for f in back.frames if f["type"] == "game"]
            assert games and games[-1]["version"] == version, kinds
            # And the game goes on for her from there.
            room = second.rooms[code]
            assert room.seats[0].player is not None and room.seats[0].player.conn is back
        finally:
            for room in list(second.rooms.values()):
                room.shutdown()
            await node.redis.delete(lease_key(code))
            node.outbox.stop()
            node.inbox_out.stop()
            await node.redis.aclose()
            second.pool.shutdown()
            second.store.close()

    asyncio.run(scenario())
