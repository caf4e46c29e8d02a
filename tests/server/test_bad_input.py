"""Bad input: each case gets a clear error, and the room and server carry on."""

from __future__ import annotations

import json
import random
from typing import Any

from kozyr.engine.cards import card_str, deck_cards

from .harness import Client, ServerProcess, check_frames, http, play_out, run
from .services import ClusterFront


async def _error(c: Client, code: str) -> dict[str, Any]:
    frame = await c.expect("error", timeout=10)
    assert frame["code"] == code, frame
    assert frame["message"]
    return frame


def test_malformed_and_unexpected_messages(server: ServerProcess) -> None:
    async def scenario() -> None:
        c = Client(server.ws_url, "rude")
        await c.connect(hello=False)
        await c.send({"type": "sync"})
        await _error(c, "hello_first")
        await c.send_raw('{"type": "hello", "name": ')
        await _error(c, "bad_json")
        await c.send_raw(b"\xff\xfe\x00garbage")
        await _error(c, "bad_json")
        await c.send_raw("[1, 2, 3]")
        await _error(c, "invalid_message")
        await c.send({"type": "teleport"})
        frame = await _error(c, "unknown_type")
        assert frame["ref"] == "teleport"
        await c.send({"type": "hello", "name": "  "})
        await _error(c, "bad_name")
        await c.send({"type": "hello", "name": "okay", "admin": True})
        await _error(c, "invalid_message")
        await c.send({"type": "hello", "name": "okay", "protocol": 2})
        await _error(c, "unsupported_protocol")
        await c.send({"type": "hello", "name": "okay", "protocol": 1})
        await c.expect("welcome")
        await c.send({"type": "hello", "name": "again"})
        await _error(c, "already_hello")
        await c.send({"type": "join", "room": "doesnotexist123"})
        await _error(c, "no_such_room")
        await c.send({"type": "start"})
        await _error(c, "not_in_room")
        await c.send({"type": "create_room", "seats": 7})
        await _error(c, "invalid_message")
        await c.send({"type": "create_room", "seats": 2, "rules": {"deck": 37}})
        await _error(c, "bad_rules")
        await c.send({"type": "create_room", "seats": 2, "rules": {"players": 3}})
        await _error(c, "bad_rules")
        await c.send({"type": "create_room", "visibility": "public", "move_time": None})
        await _error(c, "bad_room")
        await c.send({"type": "create_room", "start": True})
        await _error(c, "bad_room")
        await c.close()

    run(scenario())


def test_two_character_names_play_and_bad_names_are_refused(server: ServerProcess) -> None:
    """Names are 1-12 user-perceived characters (docs/protocol.md, "Names"): two
    players called 小明 and 翔太 play a whole game; empty, blank, control-character
    and overlong names get ``bad_name`` with the reason, on the socket and over HTTP."""

    async def scenario() -> None:
        ming = Client(server.ws_url, "小明")
        welcome = await ming.connect()
        assert welcome["name"] == "小明"
        code = await ming.create_room(seats=3, visibility="private", move_time=None)
        shota = Client(server.ws_url, " 翔太 ")
        assert (await shota.connect())["name"] == "翔太"
        await shota.join(code)
        await ming.send({"type": "start"})
        await ming.expect("game")
        await shota.expect("game")
        assert ming.room is not None
        assert [s["name"] for s in ming.room["seats"][:2]] == ["小明", "翔太"]
        await play_out([ming, shota], random.Random(14))
        assert ming.over and ming.over[-1]["game"] == 1
        await ming.close()
        await shota.close()

        for bad, reason in [
            ("", "empty"),
            (" \t\u3000 ", "empty"),
            ("bo\x07b", "control"),
            ("a\u202eb", "control"),
            ("名" * 13, "at most 12"),
        ]:
            c = Client(server.ws_url, bad)
            await c.connect(hello=False)
            await c.send({"type": "hello", "name": bad})
            frame = await _error(c, "bad_name")
            assert reason in frame["message"], frame
            await c.send({"type": "hello", "name": "翔"})
            await c.expect("welcome")
            await c.close()

    run(scenario())
    status, err = http("POST", server.url + "/api/rooms", {"name": "   ", "seats": 2})
    assert status == 400 and err["error"]["code"] == "bad_name", err
    status, made = http("POST", server.url + "/api/rooms", {"name": "翔", "seats": 2})
    assert status == 201 and made["room"]["seats"][0]["name"] == "翔", made


def test_forged_stale_out_of_turn_and_illegal_moves(
    any_server: ServerProcess | ClusterFront,
) -> None:
    server = any_server  # one process, then a cluster of three (conftest.py)

    async def scenario() -> None:
        rng = random.Random(11)
        anna, boris, spy = (Client(server.ws_url, n) for n in ("anna", "boris", "spy"))
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.connect()
        await boris.send({"type": "join", "room": code, "seat": 0})
        await _error(boris, "bad_seat")
        await boris.send({"type": "join", "room": code})
        await boris.expect("room")
        await boris.send({"type": "start"})
        await _error(boris, "not_host")
        await boris.send({"type": "seat_bot", "seat": 1})
        await _error(boris, "not_host")
        await anna.send({"type": "start"})
        fa, fb = await anna.expect("game"), await boris.expect("game")
        version = fa["version"]
        mover, waiter = (anna, boris) if fa["legal"] else (boris, anna)
        frame = fa if mover is anna else fb
        my_seat, other_seat = frame["seat"], 1 - frame["seat"]
        legal = frame["legal"][0]

        # Acting for the other seat.
        forged = dict(legal, seat=other_seat)
        await mover.send({"type": "move", "action": forged, "version": version})
        await _error(mover, "forged_seat")
        # Out of turn (own seat, but not our turn).
        wait_frame = fb if mover is anna else fa
        bogus = {
            "seat": wait_frame["seat"],
            "type": "attack",
            "cards": wait_frame["view"]["hand"][:1],
        }
        await waiter.send({"type": "move", "action": bogus, "version": version})
        await _error(waiter, "not_your_turn")
        # A card we do not hold.
        hand = set(frame["view"]["hand"])
        missing = next(card_str(c) for c in deck_cards(36) if card_str(c) not in hand)
        await mover.send(
            {
                "type": "move",
                "action": {"seat": my_seat, "type": "attack", "cards": [missing]},
                "version": version,
            }
        )
        err = await _error(mover, "illegal_move")
        assert missing in err["message"]
        # Nonsense notation.
        await mover.send(
            {"type": "move", "action": {"seat": my_seat, "type": "fly"}, "version": version}
        )
        await _error(mover, "bad_action")
        await mover.send({"type": "move", "action": legal, "version": version + 5})
        await _error(mover, "stale_version")
        # A spectator cannot move.
        await spy.connect()
        await spy.send({"type": "join", "room": code})
        await spy.expect("game")
        await spy.send({"type": "move", "action": legal, "version": version})
        await _error(spy, "not_seated")
        # None of that changed the game: the real move is still version `version`.
        await mover.send({"type": "move", "action": legal, "version": version})
        event = await mover.expect("event")
        assert event["version"] == version + 1 and event["by"] == "player"
        # Replaying the same move (old version) is refused.
        await mover.send({"type": "move", "action": legal, "version": version})
        await _error(mover, "stale_version")
        await play_out([anna, boris], rng)
        status, record = http("GET", server.url + anna.over[-1]["record"])
        assert status == 200
        assert check_frames([anna, boris, spy], record) > 20
        for c in (anna, boris, spy):
            await c.close()

    run(scenario())


def test_oversized_frame_closes_only_that_connection(server: ServerProcess) -> None:
    async def scenario() -> None:
        big = Client(server.ws_url, "big")
        await big.connect()
        await big.send_raw(json.dumps({"type": "sync", "pad": "x" * 9000}))
        frame = await _error(big, "too_big")  # the documented error, then the close
        assert frame["ref"] == "sync"
        assert await big.closed_code() == 1009
        status, health = http("GET", server.url + "/health")
        assert status == 200 and health["status"] == "ok"
        again = Client(server.ws_url, "big")
        welcome = await again.connect(big.token)
        assert welcome["resumed"]
        await again.close()

    run(scenario())


def test_flood_is_refused_then_closed_with_policy_violation(server: ServerProcess) -> None:
    async def scenario() -> None:
        loud = Client(server.ws_url, "loud")
        await loud.connect()
        for _ in range(600):  # the test server allows 200 a second (burst 200)
            await loud.send({"type": "sync"})
        assert await loud.closed_code() == 1008
        codes = {f["code"] for _, f in loud.frames if f["type"] == "error"}
        assert "rate_limited" in codes
        dropped = [f["ref"] for _, f in loud.frames if f.get("code") == "rate_limited"]
        assert set(dropped) == {"sync"}, dropped  # each names the message it dropped
        status, _health = http("GET", server.url + "/health")
        assert status == 200

    run(scenario())
