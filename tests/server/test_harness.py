"""The harness's own promises, which every scenario relies on: a scenario that
fails leaves no socket open for the garbage collector to warn about in a later
test, and machine-speed players stay under the test servers' flood limit."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from websockets.protocol import State

from .harness import Client, ServerProcess, play_out, run


def test_a_failed_scenario_closes_every_socket_its_clients_opened(server: ServerProcess) -> None:
    vera = Client(server.ws_url, "vera")  # made before the scenario runs
    made: list[Client] = [vera]

    async def scenario() -> None:
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        made.extend((anna, boris))
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.join(code)
        await vera.join(code)  # a spectator
        await anna.connect()  # a reconnect: the first socket is replaced, not closed
        raise RuntimeError("the scenario failed")

    with pytest.raises(RuntimeError, match="the scenario failed"):
        run(scenario())
    assert [len(c.sockets) for c in made] == [1, 2, 1]
    assert all(ws.state is State.CLOSED for c in made for ws in c.sockets)


def test_machine_speed_players_stay_under_the_flood_limit(tmp_path: Path) -> None:
    """In a cheating game every frame offers an accusation, so each player answers
    every frame: unpaced, two players outrun a server's flood limit (here 20 a
    second, so that any machine shows it); paced under it, none is dropped."""
    srv = ServerProcess(tmp_path / "k.db", "--rate", "20", "--burst", "20").start()

    async def game(rate: float, moves: int) -> list[Client]:
        anna, boris = Client(srv.ws_url, "anna"), Client(srv.ws_url, "boris")
        code = await anna.create_room(
            seats=2, visibility="private", rules={"cheating": True}, move_time=None
        )
        await boris.join(code)
        await anna.send({"type": "start"})
        await anna.expect("game")
        await play_out([anna, boris], random.Random(3), moves=moves, rate=rate, timeout=60)
        return [anna, boris]

    try:
        # Unpaced, 100 moves each (a game offers some 150 frames to each
        # player) must come within 4 s to pass 20 + 20 a second: here they take
        # about 0.05 s, so a far slower machine still shows the flood.
        with pytest.raises(AssertionError, match="rate_limited"):
            run(game(rate=1e9, moves=200))
        players = run(game(rate=10, moves=40))
        assert not [e for c in players for e in c.errors if e["code"] == "rate_limited"]
    finally:
        srv.stop()
