"""The online table as people use it (issue 25), against the real server:
seats (coming back, sitting down, standing up, ready marks, kicks, a returning
player first), the host passing on, the lobby list, quick match, renaming,
invite codes, quick phrases and reactions, and the heartbeat."""

from __future__ import annotations

import asyncio
import random
import re
import socket
import time
from pathlib import Path
from typing import Any

from kozyr.server.tables.lobby import UNLISTED_AFTER, listed

from .harness import Client, ServerProcess, http, play_out, run
from .services import ClusterFront


async def error(c: Client, code: str, ref: str | None = None) -> dict[str, Any]:
    frame = await c.expect("error", timeout=10)
    assert frame["code"] == code, frame
    if ref is not None:
        assert frame["ref"] == ref, frame
    return frame


async def room_until(c: Client, test: Any, timeout: float = 10.0) -> dict[str, Any]:
    """Read ``room`` frames until one passes ``test``."""
    deadline = time.monotonic() + timeout
    while True:
        frame = await c.expect("room", timeout=max(0.1, deadline - time.monotonic()))
        if test(frame):
            return frame


async def finish(clients: list[Client], rng: random.Random) -> None:
    await play_out(clients, rng, timeout=90)


def test_a_player_who_left_takes_the_seat_back_from_the_bot(server: ServerProcess) -> None:
    """Leave during a game: a bot plays the seat, kept in your name; opening the
    room again (join) gives it back at once, with your cards."""

    async def scenario() -> None:
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.join(code)
        await anna.send({"type": "start"})
        await anna.expect("game")
        await play_out([anna, boris], random.Random(2), moves=3)
        await boris.send({"type": "leave"})
        await boris.expect("left")
        kept = await room_until(anna, lambda f: f["room"]["seats"][1]["reserved_for"] == "boris")
        assert kept["room"]["seats"][1]["bot"] is not None  # a bot plays it meanwhile
        assert not kept["room"]["seats"][1]["human"]
        back = await boris.join(code)
        assert back["you"]["seat"] == 1 and not back["you"]["spectator"]
        frame = await boris.expect("game")
        assert frame["seat"] == 1 and frame["view"]["hand"]
        seats = (await room_until(anna, lambda f: f["room"]["seats"][1]["human"]))["room"]["seats"]
        assert seats[1]["name"] == "boris" and seats[1]["reserved_for"] is None
        await finish([anna, boris], random.Random(3))
        for c in (anna, boris):
            await c.close()

    run(scenario())


def test_between_games_nobody_is_seated_without_asking(server: ServerProcess) -> None:
    """After a game, "back to room" seats no spectator; a spectator sits down
    when they ask (sit), a player stands up (stand); ready marks show; a player
    who left during the game gets their seat back before a newcomer."""

    async def scenario() -> None:
        rng = random.Random(4)
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=3, visibility="private", move_time=None, bot_level=1)
        await boris.join(code)
        await anna.send({"type": "start"})
        await anna.expect("game")
        vera = Client(server.ws_url, "vera")
        assert (await vera.join(code))["you"]["spectator"]
        await vera.send({"type": "sit"})
        await error(vera, "wrong_state", "sit")  # not during a game
        await play_out([anna, boris], rng, moves=2)
        await boris.send({"type": "leave"})
        await boris.expect("left")
        await finish([anna], rng)
        await anna.send({"type": "back_to_room"})
        lobby = await room_until(vera, lambda f: f["room"]["state"] == "lobby")
        assert lobby["you"]["spectator"]  # not seated: she did not ask
        assert lobby["room"]["seats"][1]["reserved_for"] == "boris"
        # A newcomer joining now takes a free seat, never the one kept for boris.
        gleb = Client(server.ws_url, "gleb")
        assert (await gleb.join(code))["you"]["seat"] == 2
        back = await boris.join(code)
        assert back["you"]["seat"] == 1
        # Vera asks for a seat: none is free.
        await vera.send({"type": "sit"})
        await error(vera, "bad_seat", "sit")
        await gleb.send({"type": "stand"})
        stood = await room_until(gleb, lambda f: f["you"]["spectator"])
        assert stood["room"]["seats"][2]["name"] is None
        await vera.send({"type": "sit", "seat": 2})
        sat = await room_until(vera, lambda f: f["you"]["seat"] == 2)
        assert sat["room"]["seats"][2]["name"] == "vera"
        await vera.send({"type": "ready", "ready": True})
        ready = await room_until(anna, lambda f: f["room"]["seats"][2]["ready"])
        assert not ready["room"]["seats"][1]["ready"]
        await gleb.send({"type": "ready", "ready": True})
        await error(gleb, "not_seated", "ready")
        await anna.send({"type": "start"})
        started = await room_until(vera, lambda f: f["room"]["state"] == "playing")
        assert not any(s["ready"] for s in started["room"]["seats"])  # cleared by the start
        for c in (anna, boris, vera, gleb):
            await c.close()

    run(scenario())


def test_the_host_kicks_and_the_kicked_cannot_come_back(server: ServerProcess) -> None:
    async def scenario() -> None:
        anna, boris, vera = (Client(server.ws_url, n) for n in ("anna", "boris", "vera"))
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.join(code)
        assert (await vera.join(code))["you"]["spectator"]
        await boris.send({"type": "kick", "seat": 0})
        await error(boris, "not_host", "kick")
        await anna.send({"type": "kick", "seat": 0})
        await error(anna, "bad_seat", "kick")  # not yourself
        await anna.send({"type": "kick", "seat": 1})
        gone = await boris.expect("left")
        assert gone == {"type": "left", "room": code, "reason": "kicked"}
        await anna.send({"type": "kick", "spectator": 0})
        assert (await vera.expect("left"))["reason"] == "kicked"
        room = await room_until(anna, lambda f: not f["room"]["spectators"])
        assert room["room"]["seats"][1]["name"] is None
        await boris.send({"type": "join", "room": code})
        refused = await error(boris, "kicked", "join")
        assert 590 < refused["retry_after"] <= 600
        # During a game nobody is sent out.
        gleb = Client(server.ws_url, "gleb")
        await gleb.join(code)
        await anna.send({"type": "start"})
        await anna.expect("game")
        await anna.send({"type": "kick", "seat": 1})
        await error(anna, "wrong_state", "kick")
        for c in (anna, boris, vera, gleb):
            await c.close()

    run(scenario())


def test_the_host_role_passes_to_someone_connected(server: ServerProcess) -> None:
    """The host closes the browser: after the grace period (0.5 s here) the
    role passes to a connected player, who can start the game."""

    async def scenario() -> None:
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=3, visibility="private", move_time=None)
        await boris.join(code)
        await anna.close()
        passed = await room_until(boris, lambda f: f["you"]["host"], timeout=10)
        assert passed["room"]["host"] == 1 and passed["room"]["host_name"] == "boris"
        await boris.send({"type": "start"})
        await boris.expect("game")
        await boris.close()

    run(scenario())


def test_the_lobby_lists_who_is_connected_and_forgets_empty_rooms() -> None:
    """The list shows each room's connected people; a room nobody is in leaves it
    after a minute (checked on the rule itself) and closes after
    --empty-lobby-close (1 s here, on a server of its own)."""
    now = 1_000_000.0
    info = {"connected": 0, "empty_since": int(now * 1000)}
    assert listed(info, now + UNLISTED_AFTER - 1) and not listed(info, now + UNLISTED_AFTER + 1)
    assert listed({"connected": 2, "empty_since": None}, now)


def test_empty_public_rooms_leave_the_list_and_close(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "k.db", "--empty-lobby-close", "1").start()
    try:

        async def scenario() -> None:
            anna, boris = Client(srv.ws_url, "anna"), Client(srv.ws_url, "boris")
            code = await anna.create_room(seats=3, visibility="public", move_time=30)
            await boris.join(code)
            _status, lobby = http("GET", srv.url + "/api/rooms")
            (mine,) = [r for r in lobby["rooms"] if r["code"] == code]
            assert mine["connected"] == 2 and mine["empty_since"] is None
            await anna.close()
            await boris.close()
            deadline = time.monotonic() + 10
            while http("GET", f"{srv.url}/api/rooms/{code}")[0] == 200:
                assert time.monotonic() < deadline, "the empty room did not close"
                await asyncio.sleep(0.2)
            _status, lobby = http("GET", srv.url + "/api/rooms")
            assert code not in [r["code"] for r in lobby["rooms"]]

        run(scenario())
    finally:
        srv.stop()


def test_quick_match_seats_strangers_together(any_server: ServerProcess | ClusterFront) -> None:
    """Two people ask for a quick two-player podkidnoy game (in a cluster, on
    different processes): they meet in one public room, which starts at once."""
    server = any_server

    async def scenario() -> None:
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        await anna.connect()
        await boris.connect()
        await anna.send({"type": "quick_match", "variant": "podkidnoy", "seats": 2})
        room = await anna.expect("room")
        assert room["room"]["visibility"] == "public" and room["room"]["quick_start"]
        await boris.send({"type": "quick_match", "variant": "podkidnoy", "seats": 2})
        await boris.expect("room")
        for c in (anna, boris):
            frame = await c.expect("game", timeout=10)
            assert frame["seat"] == c.seat
        # They meet in one room. In a cluster, Boris's process may offer its room
        # before Anna's offer lands; then Anna moves to his (quick.py): either way
        # one room, both seated, started at once.
        assert anna.room and boris.room and anna.room["code"] == boris.room["code"]
        assert {anna.seat, boris.seat} == {0, 1}
        if isinstance(server, ServerProcess):  # one process: the first room waits
            assert anna.room["code"] == room["room"]["code"] and boris.seat == 1
        await anna.send({"type": "leave"})
        await boris.send({"type": "leave"})
        for c in (anna, boris):
            await c.close()

    run(scenario())


def test_quick_match_fills_with_bots_after_the_wait(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "k.db", "--quick-wait", "1").start()
    try:

        async def scenario() -> None:
            anna = Client(srv.ws_url, "anna")
            await anna.connect()
            await anna.send({"type": "quick_match", "variant": "perevodnoy", "seats": 3})
            room = await anna.expect("room")
            start = room["room"]["quick_start"]
            assert 0 < start / 1000 - time.time() <= 1.5
            frame = await anna.expect("game", timeout=10)
            assert frame["seat"] == 0
            playing = anna.room
            assert playing is not None and playing["rules"]["variant"] == "perevodnoy"
            assert [s["bot"] is not None for s in playing["seats"]] == [False, True, True]
            await anna.close()

        run(scenario())
    finally:
        srv.stop()


def test_rename_between_games_and_invite_codes_without_lookalikes(server: ServerProcess) -> None:
    async def scenario() -> None:
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        assert re.fullmatch(r"[2-9A-HJKMNP-Z]{16}", code), code
        await boris.join(code)
        await boris.send({"type": "rename", "name": "  Борис  "})
        assert (await boris.expect("renamed"))["name"] == "Борис"
        await room_until(anna, lambda f: f["room"]["seats"][1]["name"] == "Борис")
        await boris.send({"type": "rename", "name": "\u202eevil"})
        await error(boris, "bad_name", "rename")
        await anna.send({"type": "start"})
        await anna.expect("game")
        await boris.send({"type": "rename", "name": "Borya"})
        await error(boris, "wrong_state", "rename")
        for c in (anna, boris):
            await c.close()

    run(scenario())


def test_quick_phrases_and_reactions(server: ServerProcess) -> None:
    """Players say fixed phrases, everyone may react (spectators too, but they
    say no phrases); three at once, then the limit answers with a wait."""

    async def scenario() -> None:
        anna, boris, vera = (Client(server.ws_url, n) for n in ("anna", "boris", "vera"))
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.join(code)
        await vera.join(code)
        await anna.send({"type": "say", "phrase": "good_luck"})
        for c in (anna, boris, vera):
            said = await c.expect("said")
            assert said == {
                "type": "said",
                "seat": 0,
                "name": "anna",
                "phrase": "good_luck",
                "bot": False,
            }
        await vera.send({"type": "say", "phrase": "hello"})
        await error(vera, "not_seated", "say")
        await vera.send({"type": "react", "reaction": "clap"})
        reacted = await boris.expect("reacted")
        assert reacted == {
            "type": "reacted",
            "seat": None,
            "name": "vera",
            "reaction": "clap",
            "bot": False,
        }
        for _ in range(2):
            await anna.send({"type": "react", "reaction": "fire"})
        await anna.send({"type": "react", "reaction": "fire"})
        limited = await error(anna, "rate_limited", "react")
        assert 0 < limited["retry_after"] <= 2
        await anna.send({"type": "say", "phrase": "shut up"})
        await error(anna, "invalid_message", "say")  # no free text
        for c in (anna, boris, vera):
            await c.close()

    run(scenario())


def test_heartbeat_and_a_silent_client_is_closed(tmp_path: Path) -> None:
    """``ping`` is answered ``pong``; a client whose network is gone (it never
    answers the server's WebSocket pings) is closed within twice --ws-ping."""
    srv = ServerProcess(tmp_path / "k.db", "--ws-ping", "0.5").start()
    try:

        async def scenario() -> None:
            c = Client(srv.ws_url, "anna")
            await c.connect()
            await c.send({"type": "ping", "t": 42})
            assert (await c.expect("pong")) == {"type": "pong", "t": 42}
            await c.close()

        run(scenario())
        # A raw socket: the handshake, then silence (no pong, ever).
        raw = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        raw.sendall(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        assert b"101" in raw.recv(4096)
        start = time.monotonic()
        while len(srv.events("ws_close")) < 2:  # anna's, then the silent one's
            assert time.monotonic() - start < 5.0, srv.log_text()
            time.sleep(0.05)
        assert time.monotonic() - start < 2.0
        assert srv.events("ws_close")[-1]["player"] is None
        raw.close()
    finally:
        srv.stop()
