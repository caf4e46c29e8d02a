"""Post-game analysis over HTTP and hints over the WebSocket (issue 27, sections 3-4),
against real server processes."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kozyr import core
from kozyr.bots.analysis import Decision, SeatAnalysis, label_of, mean_accuracy
from kozyr.engine.actions import Action
from kozyr.server.tables.analysis_pool import _seat_json

from .harness import Client, ServerProcess, http, play_out, run

pytestmark = [
    pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built"),
    pytest.mark.timeout(900),  # whole games and analyses on a machine that may be busy
]

BUDGET = 80
SMALL = {"deck": 24}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("kozyr-analysis") / "kozyr.db"
    proc = ServerProcess(
        db,
        "--rate",
        "200",
        "--burst",
        "200",
        "--analysis-budget",
        str(BUDGET),
        "--hint-budget",
        "200",
        "--analysis-burst",
        "2",
        "--analyses-per-hour",
        "0.01",
        "--hint-burst",
        "3",
        "--hints-per-minute",
        "0.01",
    ).start(timeout=240)  # fmt: skip (a busy machine starts slowly)
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")
    assert not proc.events("task_failed"), proc.events("task_failed")


async def _against_bot(
    srv: ServerProcess, name: str, hints: int = 0, seats: int = 2
) -> tuple[Client, dict[str, Any], list[dict[str, Any]]]:
    """A game of one person (random moves, asking ``hints`` hints on the way)
    against bots; (client, game_over, the hint answers)."""
    rng = random.Random(name)
    me = Client(srv.ws_url, name)
    # 24 cards: short games with small endgames (solved exactly whatever the budget).
    await me.create_room(
        seats=seats, bot_level=1, move_time=60, start=True, visibility="private", rules=SMALL
    )
    answers: list[dict[str, Any]] = []
    while len(answers) < hints:
        frame = await me.expect("game")
        if not frame["legal"] or frame["to_move"] != me.seat:
            continue
        await me.send({"type": "hint"})
        answer = await me.expect("hint")
        assert answer["version"] == frame["version"] and answer["game"] == frame["game"]
        legal = frame["legal"]
        assert answer["action"] in legal, (answer, legal)
        assert 0.0 <= answer["chance"] <= 1.0 and answer["used"] == len(answers) + 1
        answers.append(answer)
        await me.send({"type": "move", "action": answer["action"], "version": frame["version"]})
    await play_out([me], rng, timeout=120)
    return me, me.over[-1], answers


def test_a_finished_game_is_analysed_once_in_a_worker_and_shared(srv: ServerProcess) -> None:
    async def scenario() -> tuple[str, dict[str, Any]]:
        me, over, _ = await _against_bot(srv, "anna")
        assert me.token is not None
        return me.token, over

    token, over = run(scenario())
    game_id = over["game_id"]
    url = f"{srv.url}/api/games/{game_id}/analysis"
    auth = {"Authorization": f"Bearer {token}"}
    assert http("GET", url + "?seat=0")[1]["status"] == "none"
    assert http("POST", url + "?seat=0")[0] == 401  # who asks is needed for the rate limit
    assert http("POST", url + "?seat=7", headers=auth)[1]["error"]["code"] == "bad_seat"
    assert http("POST", url + "?seat=x", headers=auth)[1]["error"]["code"] == "bad_seat"
    missing = f"{srv.url}/api/games/999999/analysis?seat=0"
    assert http("POST", missing, headers=auth)[1]["error"]["code"] == "no_such_game"
    assert http("GET", missing)[0] == 404

    status, first = http("POST", url + "?seat=0", headers=auth)
    assert status in (200, 202), first
    seen_progress = set()
    deadline = time.monotonic() + 600  # generous: the machine may be very busy
    while True:
        status, body = http("GET", url + "?seat=0")
        assert status == 200 and body["seat"] == 0 and body["game_id"] == game_id
        seen_progress.add((body["status"], body["done"]))
        if body["status"] == "done":
            break
        assert body["status"] in ("queued", "running"), body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    result = body["result"]
    assert body["done"] == body["total"] == len(result["seats"]["0"]["decisions"]) > 0
    assert result["budget"] == BUDGET and result["seed"] == 0

    # The same analysis from the command line on the served record: identical.
    status, record = http("GET", f"{srv.url}/api/games/{game_id}")
    path = Path(srv.db.parent) / f"game-{game_id}.json"
    path.write_text(json.dumps(record))
    cli = subprocess.run(
        [sys.executable, "-m", "kozyr.cli.main", "analyse", str(path), "--seat", "0",
         "--budget", str(BUDGET), "--seed", "0", "--json"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    assert json.loads(cli.stdout)["seats"]["0"] == result["seats"]["0"]

    # A second request gets the stored result and costs nothing: no new analysis.
    status, again = http("POST", url + "?seat=0", headers=auth)
    assert status == 200 and again["status"] == "done" and again["result"] == result
    assert len([e for e in srv.events("analysis_done") if e["game_id"] == game_id]) == 1


def test_a_running_game_is_never_analysed_and_new_analyses_are_rate_limited(
    srv: ServerProcess,
) -> None:
    async def scenario() -> None:
        boris = Client(srv.ws_url, "boris")
        await boris.create_room(
            seats=2, bot_level=1, move_time=60, start=True, visibility="private", rules=SMALL
        )
        await boris.expect("game")
        assert boris.token is not None
        auth = {"Authorization": f"Bearer {boris.token}"}
        # Every game id of this server so far: the running one is among them,
        # and none of them is analysable while it runs.
        for game_id in range(1, 30):
            status, body = await asyncio.to_thread(
                http, "GET", f"{srv.url}/api/games/{game_id}", None, None
            )
            if status == 404:
                status, body = await asyncio.to_thread(
                    http, "POST", f"{srv.url}/api/games/{game_id}/analysis?seat=0", None, auth
                )
                assert status == 404 and body["error"]["code"] == "no_such_game"
        await play_out([boris], random.Random(3), timeout=120)
        game_id = boris.over[-1]["game_id"]
        url = f"{srv.url}/api/games/{game_id}/analysis"
        codes = []
        for seat in (0, 1):
            status, body = await asyncio.to_thread(http, "POST", f"{url}?seat={seat}", None, auth)
            codes.append(status)
        assert codes[0] in (200, 202) and codes[1] in (200, 202)
        # A third new analysis within the hour (burst 2): refused, with when to
        # come back.  The rematch is the same player's next game.
        await boris.send({"type": "rematch"})
        await play_out([boris], random.Random(4), timeout=120)
        third = boris.over[-1]["game_id"]
        assert third != game_id
        status, body = await asyncio.to_thread(
            http, "POST", f"{srv.url}/api/games/{third}/analysis?seat=0", None, auth
        )
        assert status == 429 and body["error"]["code"] == "rate_limited"
        assert body["error"]["retry_after"] > 0

    run(scenario())


def test_hints_only_alone_against_the_computer_counted_and_rate_limited(
    srv: ServerProcess,
) -> None:
    async def scenario() -> None:
        me, over, answers = await _against_bot(srv, "vera", hints=2)
        assert len(answers) == 2 and over["hints"] == 2
        _status, record = await asyncio.to_thread(
            http, "GET", f"{srv.url}/api/games/{over['game_id']}", None, None
        )
        assert record["meta"]["hints"] == {str(me.seat): 2}
        if len(record["actions"]) >= 16:  # long enough to pay: the hints cost the candies
            assert over["candies"] == {"amount": 0, "reason": "hints", "capped": False}

        # A table with another person: refused, whoever asks.
        anna, boris = Client(srv.ws_url, "anna3"), Client(srv.ws_url, "boris3")
        code = await anna.create_room(seats=2, move_time=60)
        await boris.join(code)
        await anna.send({"type": "start"})
        frame = await anna.expect("game")
        for c in (anna, boris):
            await c.send({"type": "hint"})
            err = await c.expect("error")
            assert err["code"] == "hint_unavailable" and err["ref"] == "hint"
        assert frame["view"]["phase"] != "over"

        # The third hint of a burst of three is the last one: the fourth waits.
        gleb = Client(srv.ws_url, "gleb")
        await gleb.create_room(seats=3, bot_level=2, move_time=60, start=True, visibility="private")
        got = 0
        while True:
            frame = await gleb.expect("game")
            if frame["to_move"] != gleb.seat or not frame["legal"]:
                continue
            await gleb.send({"type": "hint"})
            reply = await _hint_or_error(gleb)
            if reply["type"] == "error":
                assert reply["code"] == "rate_limited" and reply["retry_after"] > 0
                break
            got += 1
            await gleb.send(
                {"type": "move", "action": reply["action"], "version": frame["version"]}
            )
        assert got == 3

    run(scenario())


async def _hint_or_error(c: Client) -> dict[str, Any]:
    while True:
        frame = await c.recv()
        if frame["type"] in ("hint", "error"):
            return frame


def test_a_hint_out_of_turn_or_from_a_spectator_is_refused(srv: ServerProcess) -> None:
    async def scenario() -> None:
        olga, pavel = Client(srv.ws_url, "olga"), Client(srv.ws_url, "pavel")
        code = await olga.create_room(
            seats=2, bot_level=1, move_time=60, start=True, visibility="private"
        )
        await pavel.connect()
        await pavel.send({"type": "join", "room": code})
        await pavel.expect("room")
        await pavel.send({"type": "hint"})
        err = await _hint_or_error(pavel)
        assert err["code"] == "hint_unavailable"
        while True:
            frame = await olga.expect("game")
            if frame["to_move"] != olga.seat and frame["view"]["phase"] != "over":
                await olga.send({"type": "hint"})
                reply = await _hint_or_error(olga)
                # The bot may have moved meanwhile: then the hint is for olga's turn.
                assert reply["type"] == "hint" or reply["code"] == "not_your_turn"
                break
            if frame["legal"]:
                await olga.send(
                    {"type": "move", "action": frame["legal"][0], "version": frame["version"]}
                )

    run(scenario())


def test_hints_survive_a_kill_9_and_still_cost_the_candies(tmp_path: Path) -> None:
    """A hint is kept with the game in play (its header's meta): after a kill -9
    and a restart the resumed game still counts it, and pays no candies."""
    # The player moves at machine speed: the looser flood limit (an idle CI box
    # sent more than 20 moves a second and one was dropped).
    srv = ServerProcess(
        tmp_path / "kozyr.db", "--hint-budget", "200", "--rate", "200", "--burst", "200"
    ).start(timeout=240)
    try:

        async def before() -> tuple[str, str]:
            me = Client(srv.ws_url, "hilda")
            code = await me.create_room(seats=2, bot_level=1, move_time=None, start=True,
                                        visibility="private")  # fmt: skip
            while True:
                frame = await me.expect("game")
                if frame["legal"] and frame["to_move"] == me.seat:
                    break
            await me.send({"type": "hint"})
            answer = await me.expect("hint")
            assert answer["used"] == 1
            await me.close()
            assert me.token is not None
            return me.token, code

        token, code = run(before())
        deadline = time.monotonic() + 10
        while True:  # the header is written by a task of its own: wait for it
            db = sqlite_meta(tmp_path / "kozyr.db")
            if db.get("hints") == {"0": 1} or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert db.get("hints") == {"0": 1}
        srv.kill()
        srv.start(timeout=240)

        async def after() -> dict[str, Any]:
            me = Client(srv.ws_url, "hilda")
            welcome = await me.connect(token)
            assert welcome["resumed"] and welcome["room"] == code
            await play_out([me], random.Random(3), timeout=180)
            return me.over[-1]

        over = run(after())
        assert over["hints"] == 1
        _status, record = http("GET", f"{srv.url}/api/games/{over['game_id']}")
        assert record["meta"]["hints"] == {"0": 1}
        if len(record["actions"]) >= 16:
            assert over["candies"]["reason"] == "hints" and over["candies"]["amount"] == 0
    finally:
        srv.stop()


def sqlite_meta(db: Path) -> dict[str, Any]:
    """The meta of the game in play in ``db`` (read straight from its header)."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT record FROM games WHERE status = 'playing'").fetchone()
    return {} if row is None else dict(json.loads(row[0]).get("meta", {}))


def test_the_served_accuracy_is_the_commands_to_the_tenth() -> None:
    """The service builds a seat's JSON from decisions judged one by one in
    workers; its accuracy must be ``kozyr analyse``'s, which averages the losses
    at full precision.  Averaged from the JSON's chances (rounded to 4 places)
    it missed by a tenth now and then (84.0 against 84.1 in a CI run)."""
    rng = random.Random(29)
    take = Action.from_json({"seat": 0, "type": "take"})
    rounded_differs = 0
    for _ in range(300):
        decisions = []
        for index in range(rng.randint(1, 40)):
            best = rng.random()
            played = max(0.0, best - rng.choice((0.0, rng.random() * 0.25)))
            label = label_of(best - played, played == best, forced=rng.random() < 0.1)
            decisions.append(Decision(index, 0, take, take, played, best, label, False))
        command = SeatAnalysis(0, decisions, 2).to_json()
        served = _seat_json([(d.to_json(), d.loss) for d in decisions], 2)
        assert served == command
        from_json = mean_accuracy(
            max(0.0, d["chance_best"] - d["chance_played"])
            for d in command["decisions"]
            if d["label"] != "forced"
        )
        rounded_differs += from_json is not None and round(from_json, 1) != command["accuracy"]
    assert rounded_differs > 0  # the case the test is for does occur in its sample
