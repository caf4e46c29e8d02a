"""Cheating tables (rule 13) over real sockets: accusations out of turn, the
last call (bots answer at once, people pass when their time is up), the
verdicts in events, spectators who cannot accuse, nothing leaked."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from kozyr.cli.replay import replay_json
from kozyr.engine.actions import Action, Kind
from kozyr.engine.record import GameRecord

from .harness import Client, ServerProcess, check_frames, http, play_out, run
from .services import ClusterFront


def out_of_turn_accusations(record_data: dict[str, Any]) -> tuple[int, int]:
    """(accusations made by a seat that was not to move, accusations in all)."""
    record = GameRecord.from_json(record_data)
    state = record.start()
    outside = total = 0
    for data in record.actions:
        action = Action.from_json(data)
        if action.kind == Kind.ACCUSE:
            total += 1
            outside += action.seat != state.to_move
        state.apply(action)
    return outside, total


async def play_a_bot(client: Client, level: int) -> None:
    """Connect and start a private cheating game against one bot (no move clock)."""
    await client.connect()
    await client.send(
        {
            "type": "create_room",
            "seats": 2,
            "visibility": "private",
            "move_time": None,
            "bot_level": level,
            "rules": {"cheating": True},
            "start": True,
        }
    )


def test_two_people_and_two_bots_cheat_and_accuse(any_server: ServerProcess | ClusterFront) -> None:
    server = any_server  # one process, then a cluster of three (conftest.py)

    async def scenario() -> None:
        rng = random.Random(11)
        anna, boris, vera = (Client(server.ws_url, n) for n in ("anna", "boris", "vera"))
        code = await anna.create_room(seats=4, rules={"cheating": True}, move_time=60, bot_level=4)
        assert (await boris.join(code))["you"]["seat"] == 1
        await anna.send({"type": "start"})
        await anna.expect("game")
        await vera.connect()
        await vera.send({"type": "join", "room": code})
        assert (await vera.expect("room"))["you"]["spectator"]
        spect = await vera.expect("game")
        assert spect["legal"] == [] and "marked" in spect["view"]
        # A spectator may not call out a card, whatever it names.
        await vera.send(
            {
                "type": "move",
                "action": {"seat": 0, "type": "accuse", "card": "9S"},
                "version": spect["version"],
            }
        )
        refused = await vera.expect("error")
        assert refused["code"] == "not_seated"
        # People play random legal actions: cheats, accusations out of turn and
        # last-call passes included.
        await play_out([anna, boris], rng, timeout=120)
        over = anna.over[-1]
        status, record = http("GET", server.url + over["record"])
        assert status == 200
        code_, out = replay_json(json.dumps(record))
        assert code_ == 0 and out["state"]["result"] == over["result"]
        assert check_frames([anna, boris, vera], record) > 50
        outside, total = out_of_turn_accusations(record)
        assert total > 0 and outside > 0
        events = [f for _, f in anna.frames if f["type"] == "event"]
        verdicts = [e["accusation"] for e in events if e["action"]["type"] == "accuse"]
        assert len(verdicts) == total
        assert all(v["verdict"] in ("caught", "fair") and len(v["card"]) == 2 for v in verdicts)
        assert all(e["accusation"] is None for e in events if e["action"]["type"] != "accuse")
        assert any(f["view"]["phase"] == "last_call" for _, f in anna.frames if f["type"] == "game")
        for c in (anna, boris, vera):
            await c.close()

    run(scenario())


def test_the_last_call_passes_for_people_who_let_it_go(server: ServerProcess) -> None:
    """A person who never answers the last call: the server passes for them
    (move clocks are scaled by 0.02 in tests: the 5 s window is 0.1 s)."""

    async def scenario() -> None:
        solo = Client(server.ws_url, "quiet")
        await play_a_bot(solo, level=2)
        frame = await solo.expect("game")
        rng = random.Random(5)
        passes = 0
        while passes < 3:
            if frame["view"]["phase"] == "last_call":
                if frame["view"]["pending"] == [0]:  # bots answered: our window runs
                    assert frame["deadline"] is not None
            elif frame["to_move"] == 0 and frame["view"]["phase"] != "over":
                honest = [a for a in frame["legal"] if a["type"] != "accuse"]
                action = rng.choice(honest)
                await solo.send({"type": "move", "action": action, "version": frame["version"]})
            msg = await solo.recv(10)
            while msg["type"] != "game":
                if msg["type"] == "event" and msg["by"] == "last_call":
                    passes += 1
                if msg["type"] == "game_over":
                    return
                msg = await solo.recv(10)
            frame = msg
        await solo.close()

    run(scenario())


def test_kill_9_in_the_last_call_resumes_it(tmp_path: Path) -> None:
    """The server dies while a person is pending in a last call: restarted on the
    same database, the room comes back in that very last call and the game ends."""
    srv = ServerProcess(
        tmp_path / "cheat.db", "--rate", "200", "--burst", "200", "--last-call", "1000"
    ).start()  # 1000 s x the tests' 0.02 clock scale: 20 s, long enough to crash in

    async def scenario() -> None:
        rng = random.Random(3)
        solo = Client(srv.ws_url, "solo")
        await play_a_bot(solo, level=3)
        frame = await solo.expect("game")
        while not (frame["view"]["phase"] == "last_call" and frame["view"]["pending"] == [0]):
            if frame["to_move"] == 0 and frame["view"]["phase"] not in ("last_call", "over"):
                honest = [a for a in frame["legal"] if a["type"] != "accuse"]
                move = {"type": "move", "action": rng.choice(honest), "version": frame["version"]}
                await solo.send(move)
            frame = await solo.expect("game")
        srv.kill()
        await solo.close()
        srv.start()
        back = Client(srv.ws_url, "solo")
        assert (await back.connect(solo.token))["resumed"]
        again = await back.expect("game")
        assert again["version"] == frame["version"] and again["view"] == frame["view"]
        assert again["view"]["phase"] == "last_call" and again["deadline"] is not None
        await back.send(
            {"type": "move", "action": {"seat": 0, "type": "pass"}, "version": again["version"]}
        )
        await play_out([back], rng, timeout=120)
        status, record = http("GET", srv.url + back.over[-1]["record"])
        assert status == 200
        code_, out = replay_json(json.dumps(record))
        assert code_ == 0 and out["state"]["result"] == record["result"]
        await back.close()

    try:
        run(scenario())
        assert srv.events("room_recovered")
    finally:
        srv.stop()
