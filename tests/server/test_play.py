"""Full games over real sockets: humans (random legal moves) with bots."""

from __future__ import annotations

import asyncio
import http.client as http_client
import json
import random

from kozyr.cli.replay import replay_json

from .harness import Client, ServerProcess, check_frames, http, play_out, run, shared
from .services import ClusterFront


def test_two_humans_two_bots_play_rematch_and_a_spectator(
    any_server: ServerProcess | ClusterFront,
) -> None:
    server = any_server  # one process, then a cluster of three (conftest.py)

    async def scenario() -> None:
        rng = random.Random(7)
        anna, boris, vera = (Client(server.ws_url, n) for n in ("anna", "boris", "vera"))
        code = await anna.create_room(
            seats=4,
            rules={"first_attacker": "after_durak"},
            move_time=60,
            bot_level=2,
        )
        assert (await boris.join(code))["you"]["seat"] == 1
        await anna.send({"type": "seat_bot", "seat": 3, "level": 1})
        await anna.expect("room")
        await anna.send({"type": "start"})
        for c in (anna, boris):
            frame = await c.expect("game")
            assert frame["seat"] == c.seat and len(frame["view"]["hand"]) == 6
        # A third person joins the running game: a spectator until the next one.
        await play_out([anna, boris], rng, moves=6)
        await vera.connect()
        await vera.send({"type": "join", "room": code})
        seen = await vera.expect("room")
        assert seen["you"]["spectator"] and seen["you"]["seat"] is None
        spect = await vera.expect("game")
        assert "hand" not in spect["view"] and spect["seat"] is None and spect["legal"] == []
        watcher = asyncio.ensure_future(_watch_until_over(vera))
        await play_out([anna, boris], rng)
        await watcher
        over = anna.over[-1]
        assert shared(over) == shared(boris.over[-1]) == shared(vera.over[-1])
        # Each person's own grant and rating; a spectator gets neither.
        assert vera.over[-1]["candies"] is None and vera.over[-1]["rating"] is None
        for c in (anna, boris):
            mine = c.over[-1]
            won = mine["durak"] != c.seat
            assert mine["candies"] == {"amount": 15 if won else 5,
                                       "reason": "friends_win" if won else "friends_loss",
                                       "capped": False}  # fmt: skip
            # A public room is rated: the durak falls, the others do not.
            rating = mine["rating"]
            assert rating["before"] == 1500 and rating["games"] == 1 and rating["provisional"]
            assert rating["after"] < 1500 if not won else rating["after"] >= 1500
        assert sum(over["cards_left"]) >= 0 and over["record"] == f"/api/games/{over['game_id']}"

        status, record = http("GET", server.url + over["record"])
        assert status == 200 and record["result"] == over["result"]
        code_, out = replay_json(json.dumps(record))
        assert code_ == 0 and out["state"]["result"] == over["result"]
        assert check_frames([anna, boris, vera], record) > 50
        # The finishing order: every seat once, the replayed game's "out" order
        # first, the durak (still holding cards) last.
        flat = [seat for group in over["places"] for seat in group]
        gone = out["state"]["out"]
        assert sorted(flat) == [0, 1, 2, 3] and flat[: len(gone)] == gone
        if over["durak"] is not None:
            assert over["places"][-1] == [over["durak"]] and over["cards_left"][over["durak"]] > 0

        # Rematch: same table; vera sits down in the seat the auto-bot filled
        # (nobody is seated without asking: issue 25), and the deal names the
        # previous durak (first_attacker rule).
        await vera.send({"type": "sit"})
        sat = await vera.expect("room")
        while sat["you"]["seat"] is None:
            sat = await vera.expect("room")
        assert sat["you"]["seat"] == 2 and not sat["you"]["spectator"]
        await anna.send({"type": "rematch"})
        room = await vera.expect("room", timeout=10)
        while room["room"]["state"] != "playing":
            room = await vera.expect("room")
        assert vera.seat == 2
        await play_out([anna, boris, vera], rng)
        over2 = anna.over[-1]
        assert over2["game"] == over["game"] + 1
        status, record2 = http("GET", server.url + over2["record"])
        assert record2["deal"].get("previous_durak") == over["durak"]
        assert check_frames([anna, boris, vera], record2) > 50
        assert record2["meta"]["base_version"] == over["version"] + 1

        # Back to the room: the lobby again, same people in the same seats.
        await boris.send({"type": "back_to_room"})
        lobby = await anna.expect("room")
        while lobby["room"]["state"] != "lobby":
            lobby = await anna.expect("room")
        assert [s["name"] for s in lobby["room"]["seats"]][:3] == ["anna", "boris", "vera"]
        for c in (anna, boris, vera):
            await c.send({"type": "leave"})
            await c.expect("left")
            await c.close()
        status, _ = http("GET", f"{server.url}/api/rooms/{code}")
        assert status == 404  # closed once everybody left

    run(scenario())


async def _watch_until_over(c: Client) -> None:
    while not c.over:
        await c.recv(30)


def test_play_against_the_computer_and_results(any_server: ServerProcess | ClusterFront) -> None:
    server = any_server  # one process, then a cluster of three (conftest.py)

    async def scenario() -> None:
        rng = random.Random(3)
        solo = Client(server.ws_url, "solo")
        await solo.connect()
        await solo.send(
            {
                "type": "create_room",
                "seats": 3,
                "visibility": "private",
                "move_time": None,
                "bot_level": 3,
                "start": True,
            }
        )
        await solo.expect("game")
        assert solo.room is not None and solo.room["state"] == "playing"
        assert [s["bot"] for s in solo.room["seats"]] == [None, 3, 3]
        assert solo.game is not None and solo.game["deadline"] is None
        await play_out([solo], rng)
        over = solo.over[-1]
        status, record = http("GET", server.url + over["record"])
        assert check_frames([solo], record) > 10
        status, results = http(
            "GET", server.url + "/api/me/results", headers={"authorization": f"Bearer {solo.token}"}
        )
        assert status == 200 and results["name"] == "solo"
        level3 = results["levels"]["3"]
        assert level3["games"] == 1 and level3["win"] + level3["loss"] + level3["draw"] == 1
        outcome = "loss" if over["durak"] == 0 else ("draw" if over["durak"] is None else "win")
        assert level3[outcome] == 1
        await solo.close()

    run(scenario())


def test_bots_play_for_a_human_whose_time_runs_out(server: ServerProcess) -> None:
    """Move clocks are scaled by 0.02 in tests: 30 s become 0.6 s."""

    async def scenario() -> None:
        idle = Client(server.ws_url, "idle")
        await idle.connect()
        await idle.send({"type": "create_room", "seats": 2, "move_time": 30, "bot_level": 1})
        await idle.expect("room")
        await idle.send({"type": "start"})
        frame = await idle.expect("game")
        assert frame["deadline"] is not None or frame["to_move"] != 0
        # Never move: every one of our turns is played by a bot after the clock.
        event = await idle.expect("event", timeout=10, seat=0)
        assert event["by"] == "timeout"
        assert idle.room is not None and not idle.room["seats"][0]["away"]
        await idle.close()

    run(scenario())


def test_http_api(server: ServerProcess) -> None:
    status, health = http("GET", server.url + "/health")
    assert status == 200 and health["status"] == "ok" and health["protocol"] == 1
    status, made = http("POST", server.url + "/api/rooms", {"name": "host", "seats": 3})
    assert status == 201 and made["room"]["state"] == "lobby"
    assert made["invite"].endswith("/?room=" + made["code"]) and len(made["code"]) >= 16
    status, info = http("GET", f"{server.url}/api/rooms/{made['code']}")
    assert status == 200 and info["seats"][0]["name"] == "host" and "passphrase" not in info
    status, listing = http("GET", server.url + "/api/rooms")
    assert made["code"] in [r["code"] for r in listing["rooms"]]
    status, err = http("GET", server.url + "/api/rooms/nonexistentcode")
    assert status == 404 and err["error"]["code"] == "no_such_room"
    status, err = http("POST", server.url + "/api/rooms", {"name": "x", "seats": 9})
    assert status == 400 and err["error"]["code"] == "invalid_message"
    status, err = http("POST", server.url + "/api/rooms", {"name": "pub", "move_time": None})
    assert status == 400 and err["error"]["code"] == "bad_room"
    status, err = http(
        "POST", server.url + "/api/rooms", {"name": "teams", "seats": 3, "rules": {"teams": "2v2"}}
    )
    assert status == 400 and err["error"]["code"] == "bad_rules"
    status, err = http("GET", server.url + "/api/games/999999")
    assert status == 404
    status, err = http("GET", server.url + "/api/me/results")
    assert status == 401

    # Creating rooms over HTTP is limited per address (bursts of 10).
    codes = []
    for _ in range(14):
        conn = http_client.HTTPConnection("127.0.0.1", server.port, source_address=("127.0.0.3", 0))
        conn.request("POST", "/api/rooms", json.dumps({"name": "spam"}))
        codes.append(conn.getresponse().status)
        conn.close()
    assert codes[:10] == [201] * 10 and 429 in codes[10:]

    async def host_connects() -> None:
        host = Client(server.ws_url, "host")
        welcome = await host.connect(made["token"])
        assert welcome["resumed"] and welcome["room"] == made["code"]
        room = await host.expect("room")
        assert room["you"] == {"seat": 0, "host": True, "spectator": False}
        await host.close()

    run(host_connects())
