"""The bot API (issue 28, section 1; docs/bot-api.md): bot accounts, challenges,
bots' own rooms, the concurrent-game limit, the leak check over a bot's frames,
and examples/random_bot.py playing a real server to the end."""

from __future__ import annotations

import asyncio
import itertools
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import ROOT, Client, ServerProcess, check_frames, http, play_out, run
from .services import ClusterFront

_names = itertools.count(1)


def new_bot(url: str, stem: str = "Bot") -> tuple[str, str]:
    """A fresh bot account on the server at ``url``: (name, token)."""
    name = f"{stem}{next(_names)}"
    status, body = http("POST", url + "/api/bots", {"name": name})
    assert status == 201, body
    assert body["name"] == name and body["max_games"] == 4
    return name, str(body["token"])


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of this module's own: many bot accounts from one address."""
    db = tmp_path_factory.mktemp("kozyr-bots") / "kozyr.db"
    proc = ServerProcess(db, "--rate", "200", "--burst", "200", "--bot-burst", "500").start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")
    assert not proc.events("task_failed"), proc.events("task_failed")


async def bot_client(url: str, token: str, slot: int = 0, name: str = "ignored") -> Client:
    bot = Client(url, name)
    await bot.connect(hello=False)
    await bot.send({"type": "hello", "name": name, "token": token, "slot": slot})
    welcome = await bot.expect("welcome")
    bot.token = token
    bot.name = welcome["name"]
    return bot


# ---------------------------------------------------------------- accounts
def test_create_bot_account(srv: ServerProcess) -> None:
    name, token = new_bot(srv.url, "Maker")
    assert token.startswith("bot_") and len(token) >= 28
    # Names are unique whatever their case; the token is never shown again.
    status, body = http("POST", srv.url + "/api/bots", {"name": name.upper()})
    assert (status, body["error"]["code"]) == (409, "name_taken")
    for bad, code in (
        ({"name": "   "}, "bad_name"),
        ({"name": "x" * 13}, "bad_name"),
        ({"name": "a\u202eb"}, "bad_name"),
        ({}, "invalid_message"),
        ({"name": "ok", "level": 3}, "invalid_message"),
        ({"name": 5}, "invalid_message"),
    ):
        status, body = http("POST", srv.url + "/api/bots", bad)
        assert (status, body["error"]["code"]) == (400, code), (bad, body)

    async def scenario() -> None:
        bot = await bot_client(srv.ws_url, token, name="Other")
        assert bot.name == name  # the account's name, whatever hello says
        await bot.send({"type": "rename", "name": "Sneaky"})
        assert (await bot.expect("error"))["code"] == "bot_account"
        await bot.send({"type": "quick_match", "seats": 2})
        refused = await bot.expect("error")
        assert (refused["code"], refused["ref"]) == ("bot_account", "quick_match")
        # A person cannot open a second connection; a bot not past its limit.
        person = Client(srv.ws_url, "anna")
        await person.connect(hello=False)
        await person.send({"type": "hello", "name": "anna", "slot": 1})
        assert (await person.expect("error"))["code"] == "bad_slot"
        other = Client(srv.ws_url, "x")
        await other.connect(hello=False)
        await other.send({"type": "hello", "name": "x", "token": token, "slot": 4})
        assert (await other.expect("error"))["code"] == "bad_slot"
        # Slots 0 and 3 are two connections: neither replaces the other.
        third = await bot_client(srv.ws_url, token, slot=3)
        await bot.send({"type": "ping", "t": 1})
        assert (await bot.expect("pong"))["t"] == 1
        await third.send({"type": "ping", "t": 2})
        assert (await third.expect("pong"))["t"] == 2
        assert not [e for e in bot.errors if e["code"] == "replaced"]
        # A bot's token in POST /api/rooms keeps the bot's name and flag.
        status, body = http(
            "POST", srv.url + "/api/rooms", {"name": "Renamed", "token": token, "seats": 2}
        )
        assert status == 201, body
        assert body["room"]["host_name"] == name and body["room"]["host_bot"]
        assert body["room"]["seats"][0]["bot_account"]
        frame = await bot.expect("room")  # slot 0's socket is the host now
        assert frame["you"]["host"] and frame["room"]["code"] == body["code"]
        await bot.send({"type": "leave"})
        await bot.expect("left")

    run(scenario())


def test_bot_creation_throttle(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path / "kozyr.db").start()
    try:
        made = [http("POST", proc.url + "/api/bots", {"name": f"T{i}"})[0] for i in range(3)]
        assert made == [201, 201, 201]
        status, body = http("POST", proc.url + "/api/bots", {"name": "T3"})
        assert status == 429 and body["error"]["code"] == "rate_limited"
        assert body["error"]["retry_after"] == 60
        # The refused request made nothing: the name is still free later.
        status, body = http("GET", proc.url + "/health")
        assert status == 200
    finally:
        proc.stop()


# ---------------------------------------------------------------- challenges
def seat_of(frame: dict[str, Any], index: int) -> dict[str, Any]:
    seat: dict[str, Any] = frame["room"]["seats"][index]
    return seat


def test_challenge_accepted_game_played_without_leaks(srv: ServerProcess) -> None:
    """A host seats a bot account by name; it accepts, plays a whole game with
    a person and a built-in bot; no frame the bot received shows a hidden card."""
    name, token = new_bot(srv.url)

    async def scenario() -> None:
        bot = await bot_client(srv.ws_url, token)
        host = Client(srv.ws_url, "anna")
        code = await host.create_room(seats=3, visibility="private", move_time=None, bot_level=1)
        await host.send({"type": "challenge", "seat": 1, "bot": name.lower()})
        waiting = await host.expect("room")
        assert seat_of(waiting, 1)["challenged"] == name
        offer = await bot.expect("challenge")
        assert offer["seat"] == 1 and offer["host"] == "anna"
        assert offer["room"]["code"] == code and offer["seconds"] == 20
        assert offer["expires"] > time.time() * 1000
        # While the seat waits: nobody else takes it, and the game cannot start.
        await host.send({"type": "start"})
        assert (await host.expect("error"))["code"] == "wrong_state"
        await host.send({"type": "seat_bot", "seat": 1})
        assert (await host.expect("error"))["code"] == "bad_seat"
        # Someone else's challenge id, and a person's accept, are refused.
        await host.send({"type": "accept", "challenge": offer["challenge"]})
        assert (await host.expect("error"))["code"] == "no_such_challenge"
        await bot.send({"type": "accept", "challenge": offer["challenge"]})
        seated = await bot.expect("room")
        assert seated["you"]["seat"] == 1 and not seated["you"]["host"]
        info = seat_of(seated, 1)
        assert info["name"] == name and info["bot_account"] and info["challenged"] is None
        assert not seat_of(seated, 0)["bot_account"]
        frame = await host.expect("room")
        assert seat_of(frame, 1)["bot_account"]
        # The answer was used: a second accept is refused.
        await bot.send({"type": "accept", "challenge": offer["challenge"]})
        assert (await bot.expect("error"))["code"] == "no_such_challenge"
        await bot.send({"type": "say", "phrase": "good_luck"})
        said = await host.expect("said")
        assert said["bot"] and said["name"] == name
        await host.send({"type": "start"})
        await play_out([host, bot], random.Random(28), timeout=120)
        status, record = http("GET", srv.url + host.over[-1]["record"])
        assert status == 200 and record["meta"]["players"][1] == name
        assert check_frames([host, bot], record) > 20

    run(scenario())


def test_challenge_declined_timed_out_withdrawn_offline(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path / "kozyr.db", "--challenge-time", "1.5").start()
    try:
        _challenge_endings(proc)
    finally:
        proc.stop()
    assert not proc.events("internal_error")


def _challenge_endings(proc: ServerProcess) -> None:
    name, token = new_bot(proc.url)

    async def ask(host: Client, bot: Client, seat: int) -> dict[str, Any]:
        await host.send({"type": "challenge", "seat": seat, "bot": name})
        assert seat_of(await host.expect("room"), seat)["challenged"] == name
        return await bot.expect("challenge")

    async def freed(host: Client, seat: int, reason: str) -> dict[str, Any]:
        closed = await host.expect("challenge_closed")
        assert (closed["seat"], closed["bot"], closed["reason"]) == (seat, name, reason)
        frame = await host.expect("room")
        assert seat_of(frame, seat)["challenged"] is None
        assert seat_of(frame, seat)["name"] is None
        return closed

    async def scenario() -> None:
        host = Client(proc.ws_url, "boris")
        await host.create_room(seats=4, visibility="private", move_time=None)
        await host.send({"type": "challenge", "seat": 1, "bot": name})
        assert (await host.expect("error"))["code"] == "bot_offline"
        await host.send({"type": "challenge", "seat": 1, "bot": "NoSuchBot"})
        assert (await host.expect("error"))["code"] == "no_such_bot"
        await host.send({"type": "challenge", "seat": 0, "bot": name})
        assert (await host.expect("error"))["code"] == "bad_seat"
        bot = await bot_client(proc.ws_url, token)
        # Declined: the host hears it, the seat is free.
        offer = await ask(host, bot, 1)
        await bot.send({"type": "decline", "challenge": offer["challenge"]})
        await freed(host, 1, "declined")
        # No answer in time: both hear it, and a late accept is refused.
        offer = await ask(host, bot, 2)
        started = time.monotonic()
        await freed(host, 2, "timeout")
        assert 1.2 < time.monotonic() - started < 10
        assert (await bot.expect("challenge_closed"))["reason"] == "timeout"
        await bot.send({"type": "accept", "challenge": offer["challenge"]})
        assert (await bot.expect("error"))["code"] == "no_such_challenge"
        # The host withdraws it (free_seat): both hear it.
        offer = await ask(host, bot, 3)
        await host.send({"type": "free_seat", "seat": 3})
        await freed(host, 3, "canceled")
        closed = await bot.expect("challenge_closed")
        assert (closed["challenge"], closed["reason"]) == (offer["challenge"], "canceled")
        # The bot's connection closes while it is asked: "offline".
        await ask(host, bot, 1)
        await bot.close()
        await freed(host, 1, "offline")
        # Not the host: not_host.  And the room's table is as it was.
        guest = Client(proc.ws_url, "vera")
        await guest.join((host.room or {})["code"])
        await guest.send({"type": "challenge", "seat": 2, "bot": name})
        assert (await guest.expect("error"))["code"] == "not_host"
        await host.send({"type": "sync"})
        frame = await host.expect("room")
        assert [s["name"] for s in frame["room"]["seats"]] == ["boris", "vera", None, None]
        assert all(s["challenged"] is None for s in frame["room"]["seats"])

    run(scenario())


def test_concurrent_game_limit(srv: ServerProcess) -> None:
    """Each connection (slot) of a bot plays one room; a challenge goes to an
    idle one, and to none when all are busy."""
    name, token = new_bot(srv.url)

    async def scenario() -> None:
        slots = [await bot_client(srv.ws_url, token, slot=k) for k in (0, 1)]
        hosts = [Client(srv.ws_url, f"h{k}") for k in range(3)]
        got: list[int] = []
        for host in hosts[:2]:
            await host.create_room(seats=2, visibility="private", move_time=None)
            await host.send({"type": "challenge", "seat": 1, "bot": name})
            await host.expect("room")
            offers = await asyncio.gather(
                *(s.expect("challenge", timeout=1.5) for s in slots), return_exceptions=True
            )
            (which,) = [i for i, o in enumerate(offers) if isinstance(o, dict)]
            got.append(which)
            offer = offers[which]
            assert isinstance(offer, dict)
            await slots[which].send({"type": "accept", "challenge": offer["challenge"]})
            assert (await slots[which].expect("room"))["you"]["seat"] == 1
        assert sorted(got) == [0, 1]
        await hosts[2].create_room(seats=2, visibility="private", move_time=None)
        await hosts[2].send({"type": "challenge", "seat": 1, "bot": name})
        assert (await hosts[2].expect("error"))["code"] == "bot_busy"
        # A bot account's connection plays one room at a time, like a person.
        await slots[0].send({"type": "create_room", "seats": 2})
        assert (await slots[0].expect("error"))["code"] == "already_in_room"
        # A third connection watches a full table: listed as a bot among spectators.
        watcher = await bot_client(srv.ws_url, token, slot=2)
        frame = await watcher.join((hosts[0].room or {})["code"])
        assert frame["you"]["spectator"] and frame["room"]["spectators"] == [name]
        assert frame["room"]["bot_spectators"] == [0]

    run(scenario())


# ---------------------------------------------------------------- leak check
def test_bot_joins_by_invite_on_any_server(any_server: ServerProcess | ClusterFront) -> None:
    """A bot account joins a person's room by its code and plays it out (on one
    process and in the cluster); the leak check covers the bot's frames."""
    status, body = http("POST", any_server.url + "/api/bots", {"name": f"Inv{next(_names)}"})
    assert status == 201, body
    token = body["token"]

    async def scenario() -> None:
        host = Client(any_server.ws_url, "galina")
        code = await host.create_room(seats=3, visibility="private", move_time=None, bot_level=1)
        bot = await bot_client(any_server.ws_url, token)
        frame = await bot.join(code)
        assert frame["you"]["seat"] == 1
        assert (await host.expect("room"))["room"]["seats"][1]["bot_account"]
        await host.send({"type": "start"})
        await play_out([host, bot], random.Random(7), timeout=120)
        status, record = http("GET", any_server.url + host.over[-1]["record"])
        assert status == 200
        assert check_frames([host, bot], record) > 20

    run(scenario())


# ---------------------------------------------------------------- the example bot
EXAMPLE = ROOT / "examples" / "random_bot.py"


def test_example_is_small_and_plain() -> None:
    """At most 80 lines, and nothing from outside the standard library but websockets."""
    text = EXAMPLE.read_text()
    assert len(text.splitlines()) <= 80
    imported = {
        line.split()[1].split(".")[0]
        for line in text.splitlines()
        if line.startswith(("import ", "from "))
    }
    assert imported - set(sys.stdlib_module_names) == {"websockets"}, imported


def start_example(srv: ServerProcess, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--server", srv.url, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "error" not in err, err
    return out


def test_example_bot_accepts_a_challenge_and_plays_to_the_end(srv: ServerProcess) -> None:
    made = subprocess.run(
        [sys.executable, str(EXAMPLE), "--server", srv.url, "--create", "RandomEx"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    token = made.stdout.strip()
    assert token.startswith("bot_")
    proc = start_example(srv, "--token", token, "--games", "1")
    try:

        async def scenario() -> None:
            host = Client(srv.ws_url, "dmitri")
            await host.create_room(seats=2, visibility="private", move_time=None)
            deadline = time.monotonic() + 20
            while True:  # until the example has connected
                await host.send({"type": "challenge", "seat": 1, "bot": "RandomEx"})
                frame = await host.recv()
                while frame["type"] not in ("room", "error"):
                    frame = await host.recv()
                if frame["type"] == "room":
                    break
                assert frame["code"] == "bot_offline" and time.monotonic() < deadline
                await asyncio.sleep(0.2)
            seated = await host.expect("room")
            assert seat_of(seated, 1)["name"] == "RandomEx" and seat_of(seated, 1)["bot_account"]
            await host.send({"type": "start"})
            await play_out([host], random.Random(3), timeout=120)
            assert host.over[-1]["game"] == 1

        run(scenario())
        out = finish(proc)
        assert "game 1 over" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_example_bot_hosts_a_public_room(srv: ServerProcess) -> None:
    name, token = new_bot(srv.url, "Hoster")
    proc = start_example(srv, "--token", token, "--host", "2", "--games", "1")
    try:
        deadline = time.monotonic() + 20
        mine: list[dict[str, Any]] = []
        while not mine:
            assert time.monotonic() < deadline, "the bot's room never showed in the lobby"
            _, body = http("GET", srv.url + "/api/rooms")
            mine = [r for r in body["rooms"] if r["host_name"] == name]
            time.sleep(0.2)
        (room,) = mine
        assert room["host_bot"] and room["seats"][0]["bot_account"]

        async def scenario() -> None:
            person = Client(srv.ws_url, "elena")
            await person.join(room["code"])
            await person.expect("game")  # the bot starts once every seat has a person
            await play_out([person], random.Random(5), timeout=120)

        run(scenario())
        assert "game 1 over" in finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


# ---------------------------------------------------------------- ratings and candies
@pytest.mark.parametrize("rate_bots", [False, True])
def test_a_bot_account_is_rated_only_where_the_room_says_so(
    srv: ServerProcess, rate_bots: bool
) -> None:
    """A rated room with a person and a bot account: the bot's seat counts as
    the computer's (the person is paid as against the computer, and nothing is
    rated) unless the room was made with ``rate_bots``."""
    _name, token = new_bot(srv.url)

    async def scenario() -> None:
        bot = await bot_client(srv.ws_url, token)
        host = Client(srv.ws_url, "fedor")
        code = await host.create_room(
            seats=2, visibility="private", move_time=None, rated=True, rate_bots=rate_bots
        )
        assert host.room is not None and host.room["rated"]
        assert host.room["rate_bots"] is rate_bots
        await bot.join(code)
        await host.send({"type": "start"})
        await play_out([host, bot], random.Random(11), timeout=120)
        over = host.over[-1]
        status, record = http("GET", srv.url + over["record"])
        assert status == 200 and len(record["actions"]) >= 16  # long enough to pay and rate
        assert over["candies"]["reason"].startswith("computer_"), over["candies"]
        if rate_bots:
            assert over["rating"] is not None and over["rating"]["games"] == 1
        else:
            assert over["rating"] is None
        assert bot.over[-1]["candies"] is None  # a program earns no candies
        assert check_frames([host, bot], record) > 10

    run(scenario())


def test_the_bot_flag_survives_a_crash(tmp_path: Path) -> None:
    """kill -9 mid-lobby: the restarted server still knows the seat is a bot
    account's (the room's stored seats), and the bot's token still works."""
    proc = ServerProcess(tmp_path / "kozyr.db").start()
    try:
        name, token = new_bot(proc.url)

        async def before() -> tuple[str, str]:
            host = Client(proc.ws_url, "galya")
            code = await host.create_room(seats=3, visibility="private", move_time=None)
            bot = await bot_client(proc.ws_url, token)
            await bot.join(code)
            assert host.token is not None
            return code, host.token

        code, host_token = run(before())
        # A lobby's seats are stored a moment after the room frame (queued
        # writes): the crash comes once the bot's seat is in the database.
        db = sqlite3.connect(tmp_path / "kozyr.db")
        deadline = time.monotonic() + 15
        while (
            name
            not in (
                db.execute("SELECT data FROM rooms WHERE code = ?", (code,)).fetchone() or [""]
            )[0]
        ):
            assert time.monotonic() < deadline, "the bot's seat was never stored"
            time.sleep(0.05)
        db.close()
        proc.kill()
        proc.start()

        async def after() -> None:
            # The person first: the bot has not said hello since the restart.
            host = Client(proc.ws_url, "galya")
            await host.connect(host_token)
            seats = (await host.expect("room"))["room"]["seats"]
            assert seats[1]["name"] == name and not seats[1]["connected"]
            assert seats[1]["bot_account"] and not seats[0]["bot_account"]
            bot = await bot_client(proc.ws_url, token)
            assert bot.name == name
            frame = await bot.expect("room")
            assert frame["room"]["code"] == code and frame["you"]["seat"] == 1

        run(after())
    finally:
        proc.stop()
