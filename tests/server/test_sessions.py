"""Passphrases and their throttle, reconnection with a token, leaving, and a
kill -9 of the server in the middle of a game."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from .harness import Client, ServerProcess, check_frames, crash_and_resume, http, play_out, run
from .services import ClusterFront


def test_passphrase_throttled_per_room_and_per_address(
    any_server: ServerProcess | ClusterFront,
) -> None:
    server = any_server  # one process, then a cluster of three (conftest.py)

    async def scenario() -> None:
        host, guest = Client(server.ws_url, "host"), Client(server.ws_url, "guest")
        code = await host.create_room(
            visibility="private", passphrase="open sesame", move_time=None
        )
        await guest.connect()
        await guest.send({"type": "join", "room": code})
        first = await guest.expect("error")
        assert first["code"] == "wrong_passphrase" and first["retry_after"] == 0.4
        # Even the right passphrase is not checked while the back-off runs.
        await guest.send({"type": "join", "room": code, "passphrase": "open sesame"})
        held = await guest.expect("error")
        assert held["code"] == "throttled" and 0 < held["retry_after"] <= 0.4
        await asyncio.sleep(held["retry_after"] + 0.05)
        await guest.send({"type": "join", "room": code, "passphrase": "open sesamE"})
        second = await guest.expect("error")
        assert second["code"] == "wrong_passphrase" and second["retry_after"] == 0.8

        # The room's back-off holds for every address: another one waits too
        # (else guessing from many addresses would be as fast as one's typos).
        other = Client(server.ws_url, "other")
        other.ws = await connect(server.ws_url, local_addr=("127.0.0.2", 0), max_queue=None)
        await other.send({"type": "hello", "name": "other"})
        await other.expect("welcome")
        await other.send({"type": "join", "room": code, "passphrase": "open sesame"})
        held = await other.expect("error")
        assert held["code"] == "throttled" and 0 < held["retry_after"] <= 0.8
        await asyncio.sleep(held["retry_after"] + 0.05)
        await other.send({"type": "join", "room": code, "passphrase": "open sesame"})
        room = await other.expect("room")
        assert room["you"]["seat"] == 1 and room["room"]["has_passphrase"]

        # The right passphrase cleared the room's count; the guest's address
        # had its own back-off, which has run out by now.
        await guest.send({"type": "join", "room": code, "passphrase": "open sesame"})
        room = await guest.expect("room")
        assert room["you"]["seat"] == 2
        assert server.alive()
        for c in (host, guest, other):
            await c.close()

    run(scenario())


def test_disconnect_bot_takes_over_then_reconnect_resyncs(
    any_server: ServerProcess | ClusterFront,
) -> None:
    server = any_server  # one process, then a cluster of three (conftest.py)

    async def scenario() -> None:
        rng = random.Random(5)
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=3, visibility="private", move_time=None, bot_level=1)
        await boris.join(code)
        await anna.send({"type": "start"})
        await anna.expect("game")
        await boris.expect("game")
        await play_out([anna, boris], rng, moves=4)
        old_frames = list(boris.frames)
        await boris.close()
        # Anna plays on; after the grace period a bot moves for boris's seat.
        seen_takeover = False
        while not seen_takeover and not anna.over:
            frame = await anna.recv(20)
            if frame["type"] == "room":
                seat = frame["room"]["seats"][1]
                assert seat["name"] == "boris"
                if seat["away"]:
                    assert not seat["connected"] and seat["bot"] == 1
            if frame["type"] == "event" and frame["by"] == "takeover":
                seen_takeover = True
            if frame["type"] == "game" and frame["legal"]:
                await anna.send(
                    {
                        "type": "move",
                        "action": rng.choice(frame["legal"]),
                        "version": frame["version"],
                    }
                )
        assert seen_takeover or anna.over
        # Boris comes back with his token: same seat, full resync.
        back = Client(server.ws_url, "boris")
        back.frames = old_frames
        welcome = await back.connect(boris.token)
        assert welcome["resumed"] and welcome["room"] == code and welcome["token"] == boris.token
        room = await back.expect("room")
        assert room["you"]["seat"] == 1
        assert room["room"]["seats"][1]["connected"] and not room["room"]["seats"][1]["away"]
        if not anna.over:
            frame = await back.expect("game")
            assert (
                frame["seat"] == 1 and len(frame["view"]["hand"]) == frame["view"]["hand_counts"][1]
            )
            await play_out([anna, back], rng)
        _status, record = http("GET", server.url + anna.over[-1]["record"])
        assert check_frames([anna, back], record) > 10
        await anna.close()
        await back.close()

    run(scenario())


def test_a_spectator_who_reconnects_keeps_watching(
    any_server: ServerProcess | ClusterFront,
) -> None:
    """A spectator's socket drops: within the grace period (0.5 s here) they come
    back with their token, through any process, to the same room as a spectator
    (welcome names it, a resync follows); a spectator who stays away longer is
    gone from the room."""
    server = any_server

    async def scenario() -> None:
        rng = random.Random(9)
        anna = Client(server.ws_url, "anna")
        code = await anna.create_room(seats=2, visibility="private", move_time=None, bot_level=1)
        await anna.send({"type": "start"})
        await anna.expect("game")
        dana, emil = Client(server.ws_url, "dana"), Client(server.ws_url, "emil")
        for w in (dana, emil):
            assert (await w.join(code))["you"]["spectator"]
        await play_out([anna], rng, moves=2)
        await dana.close()
        await emil.close()
        back = Client(server.ws_url, "dana")
        welcome = await back.connect(dana.token)
        assert welcome["resumed"] and welcome["room"] == code
        room = await back.expect("room")
        assert room["you"]["spectator"] and room["you"]["seat"] is None
        frame = await back.expect("game")
        assert frame["seat"] is None and "hand" not in frame["view"]
        # Emil stayed away past the grace period: the room lets him go.
        deadline = time.monotonic() + 10
        while "emil" in (anna.room or {}).get("spectators", []):
            assert time.monotonic() < deadline, anna.room
            with contextlib.suppress(TimeoutError):
                await anna.recv(0.5)
        assert "dana" in (anna.room or {})["spectators"]
        # Another process finds a player's room in the database, which the
        # room's owner writes behind its broadcast: on a loaded machine the
        # seat row can outlive the frame anna saw by a moment, not longer.
        deadline = time.monotonic() + 5
        while True:
            late = Client(server.ws_url, "emil")
            room_then = (await late.connect(emil.token))["room"]
            if room_then is None:
                break
            await late.close()
            assert time.monotonic() < deadline, f"emil is still placed in {room_then}"
            await asyncio.sleep(0.1)
        for c in (anna, back, late):
            await c.close()

    run(scenario())


def test_leaving_mid_game_hands_the_seat_to_a_bot(server: ServerProcess) -> None:
    async def scenario() -> None:
        rng = random.Random(9)
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=2, move_time=60, bot_level=2)
        await boris.join(code)
        await anna.send({"type": "start"})
        await anna.expect("game")
        await anna.send({"type": "leave"})
        await anna.expect("left")
        # The host left: boris is the host now and a bot plays anna's seat.
        room = await boris.expect("room")
        while room["room"]["seats"][0]["human"]:
            room = await boris.expect("room")
        assert room["you"]["host"] and room["room"]["seats"][0]["bot"] == 2
        await play_out([boris], rng)
        assert boris.over
        await anna.close()
        await boris.close()

    run(scenario())


def test_kill_9_mid_game_then_restart_resumes_every_table(tmp_path: Path) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<h1>Kozyr</h1>")
    srv = ServerProcess(
        tmp_path / "crash.db", "--rate", "200", "--burst", "200", "--static", str(static)
    )
    srv.extra += ["--bot-delay", "0.05"]  # later options win over the harness's 0
    srv.start()
    assert http("GET", srv.url + "/") == (200, "<h1>Kozyr</h1>")

    try:
        run(crash_and_resume(srv, seed=21))
        assert srv.events("room_recovered")
        # Bot moves are paced: never sooner than --bot-delay after the move before.
        # Compare moves of the same room and game only: rooms interleave in the log.
        by_table: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for line in srv.events("move"):
            by_table.setdefault((line["room"], line["game"]), []).append(line)
        gaps = sorted(
            _ts(b) - _ts(a)
            for moves in by_table.values()
            for a, b in itertools.pairwise(moves)
            if b["by"] == "bot"
        )
        assert gaps and gaps[len(gaps) // 2] >= 0.045 and gaps[0] >= 0.02, gaps[:5]
    finally:
        srv.stop()


def _ts(line: dict[str, Any]) -> float:
    from datetime import datetime

    return datetime.strptime(line["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def test_structured_logs_one_json_line_per_event(server: ServerProcess) -> None:
    async def scenario() -> None:
        c = Client(server.ws_url, "logger")
        await c.connect()
        await c.send({"type": "teleport"})
        await c.expect("error")
        await c.send({"type": "create_room", "seats": 2, "visibility": "private", "start": True})
        await play_out([c], random.Random(1))
        await c.close()

    run(scenario())
    time.sleep(0.3)  # the server writes its log from a background thread
    assert all(line.get("event") != "raw" for line in server.lines), [
        line for line in server.lines if line.get("event") == "raw"
    ][:3]
    seen = {line["event"] for line in server.lines}
    for name in (
        "listening",
        "ws_open",
        "ws_close",
        "hello",
        "room_created",
        "game_started",
        "move",
        "game_over",
        "error",
    ):
        assert name in seen, name
    move = next(line for line in server.lines if line["event"] == "move")
    assert {"ts", "level", "room", "game", "version", "seat", "action", "by"} <= set(move)
    error = next(line for line in server.lines if line["event"] == "error")
    assert error["code"] and error["message"]
