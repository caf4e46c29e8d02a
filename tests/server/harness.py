"""Test harness: a real server in a subprocess, real WebSocket clients, and a
checker that no frame ever shows a seat a card it may not see."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Self, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from kozyr.bench.launch import listening_port, serve_command
from kozyr.cli.replay import replay_json
from kozyr.engine.actions import Action
from kozyr.engine.cards import card_str, cards_of
from kozyr.engine.record import GameRecord
from kozyr.engine.state import GameState

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


#: Server options for the socket tests: no bot pacing, quick takeovers and timers.
TEST_OPTIONS = (
    "--bot-delay",
    "0",
    "--grace",
    "0.5",
    "--bot-workers",
    "1",
    "--passphrase-backoff",
    "0.4",
    "--move-time-scale",
    "0.02",
)


class ServerProcess:
    """``kozyr serve`` on a free loopback port, with test-friendly timings.

    ``db`` is an SQLite file (its directory is the server's working directory);
    ``db_url``, if given, is passed to ``--db`` instead (e.g. a PostgreSQL URL);
    ``options`` replaces :data:`TEST_OPTIONS` and ``extra`` is added after them."""

    def __init__(
        self,
        db: Path,
        *extra: str,
        db_url: str | None = None,
        options: tuple[str, ...] = TEST_OPTIONS,
    ) -> None:
        self.db = db
        self.db_url = db_url or f"sqlite:///{db}"
        self.extra = [*options, *extra]
        self.proc: subprocess.Popen[str] | None = None
        self._reader = threading.Thread()
        self.lines: list[dict[str, Any]] = []
        self.port = 0
        self._ready = threading.Event()

    def command(self) -> list[str]:
        """The command line of the process (subclasses start other commands)."""
        return serve_command(self.db_url, *self.extra)

    def environment(self) -> dict[str, str]:
        """The process's environment."""
        return dict(os.environ, PYTHONWARNINGS="ignore")

    def start(self, timeout: float = 60.0) -> Self:
        self._ready.clear()
        cmd = self.command()
        env = self.environment()
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.db.parent,
            env=env,
        )
        self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout):
            self.stop()
            raise RuntimeError("server did not start:\n" + self.log_text())
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                data = {"event": "raw", "message": line.rstrip()}
            self.lines.append(data)
            port = listening_port(line)
            if port is not None:
                self.port = port
                self._ready.set()
        proc.stderr.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def events(self, name: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == name]

    def log_text(self) -> str:
        return "\n".join(json.dumps(line) for line in self.lines[-50:])

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (a crash)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._reader.join(10)

    def pause(self) -> None:
        """SIGSTOP: the process stalls with its sockets open (a frozen node)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT: a stalled process goes on where it stopped."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._reader.join(10)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def http(
    method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """(status, decoded JSON or text) of one HTTP request (stdlib only)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:  # it holds the connection: close it (else a ResourceWarning, later)
            status, text = exc.code, exc.read().decode()
    try:
        return status, json.loads(text)
    except json.JSONDecodeError:
        return status, text


#: Clients made while :func:`run` runs a scenario (it closes their sockets at
#: the end; strong references, since a scenario's locals are gone once it returns).
_clients: set[Client] | None = None


def run(scenario: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(scenario)``, closing every socket its clients opened at the
    end even if the scenario failed: a socket left to the garbage collector warns
    later, in whichever test is running then (pytest makes that warning that
    test's error).  Every scenario with clients runs through here."""

    global _clients
    mine: set[Client] = set()

    async def main() -> T:
        try:
            return await scenario
        finally:
            for c in mine:
                for ws in c.sockets:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.close(), 5)

    _clients = mine
    try:
        return asyncio.run(main())
    finally:
        _clients = None


class Client:
    """A WebSocket player that remembers every frame it received and, per frame,
    which seat it held then (for the leak check)."""

    def __init__(self, url: str, name: str) -> None:
        self.url = url
        self.name = name
        #: Every socket this client opened, the replaced ones too (for :func:`run`).
        self.sockets: list[ClientConnection] = []
        self._ws: ClientConnection | None = None
        self.token: str | None = None
        #: (seat or None for a spectator, frame)
        self.frames: list[tuple[int | None, dict[str, Any]]] = []
        self.seat: int | None = None
        self.room: dict[str, Any] | None = None
        self.game: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.over: list[dict[str, Any]] = []

    @property
    def ws(self) -> ClientConnection | None:
        return self._ws

    @ws.setter
    def ws(self, ws: ClientConnection | None) -> None:
        """A new socket (a reconnect, or a test's own ``connect``) is remembered
        so that :func:`run` closes it, whoever replaced it since (and wherever
        the client was made)."""
        self._ws = ws
        if ws is not None:
            self.sockets.append(ws)
            if _clients is not None:
                _clients.add(self)

    async def connect(self, token: str | None = None, hello: bool = True) -> dict[str, Any]:
        self.ws = await connect(self.url, open_timeout=10, max_size=2**20, max_queue=None)
        if not hello:
            return {}
        msg: dict[str, Any] = {"type": "hello", "name": self.name}
        if token or self.token:
            msg["token"] = token or self.token
        await self.send(msg)
        welcome = await self.expect("welcome")
        self.token = welcome["token"]
        return welcome

    async def create_room(self, **options: Any) -> str:
        """Connect, create a room with ``options`` (create_room fields); its code."""
        await self.connect()
        await self.send({"type": "create_room", **options})
        code: str = (await self.expect("room"))["room"]["code"]
        return code

    async def join(self, code: str, **fields: Any) -> dict[str, Any]:
        """Connect if need be and join room ``code``; the room frame that answers."""
        if self.ws is None:
            await self.connect()
        await self.send({"type": "join", "room": code, **fields})
        return await self.expect("room")

    async def send(self, msg: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(msg))

    async def send_raw(self, text: str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(text)

    async def recv(self, timeout: float = 20.0) -> dict[str, Any]:
        assert self.ws is not None
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        frame: dict[str, Any] = json.loads(raw)
        kind = frame["type"]
        if kind == "room":
            self.room = frame["room"]
            self.seat = frame["you"]["seat"]
        elif kind == "game":
            self.game = frame
        elif kind == "error":
            self.errors.append(frame)
        elif kind == "game_over":
            self.over.append(frame)
        self.frames.append((self.seat, frame))
        return frame

    async def expect(self, kind: str, timeout: float = 20.0, **match: Any) -> dict[str, Any]:
        """Read frames until one of ``kind`` (whose fields equal ``match``) arrives."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no {kind} {match} frame")
            frame = await self.recv(left)
            if frame["type"] == kind and all(frame.get(k) == v for k, v in match.items()):
                return frame

    async def closed_code(self, timeout: float = 10.0) -> int | None:
        """Read until the server closes the socket; the close code."""
        assert self.ws is not None
        try:
            while True:
                await self.recv(timeout)
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def shared(over: dict[str, Any]) -> dict[str, Any]:
    """A ``game_over`` frame without what is the receiver's own (their candies
    and rating): the part every listener gets alike."""
    return {k: v for k, v in over.items() if k not in ("candies", "rating")}


async def play_out(
    clients: list[Client],
    rng: random.Random,
    *,
    moves: int | None = None,
    timeout: float = 60.0,
    rate: float = 100.0,
) -> None:
    """Humans pick random legal moves until the game is over (or until they made
    ``moves`` moves between them).  Stale-version refusals are expected (a
    frame can be outdated by the time we answer it); any other error fails.

    Each client answers every frame that offers it a move, so at machine speed
    it would send as fast as the server plays (in a cheating game every frame
    offers an accusation): each sends at most ``rate`` moves a second, half the
    test servers' flood limit (``--rate 200``), so none is dropped however fast
    the machine is."""
    made = 0
    gap = 1.0 / rate
    last_sent: dict[int, float] = {}  # id(client): when it last sent

    async def run(c: Client) -> None:
        nonlocal made
        start_over = len(c.over)
        if c.game and c.game["legal"] and c.game["view"]["phase"] != "over":
            await _move(c, c.game)
        while len(c.over) == start_over:
            if moves is not None and made >= moves:
                return
            try:
                frame = await c.recv(0.2)
            except TimeoutError:
                continue
            if frame["type"] == "error" and frame["code"] != "stale_version":
                raise AssertionError(f"{c.name} got {frame}")
            if frame["type"] == "game" and frame["legal"]:
                await _move(c, frame)

    async def _move(c: Client, frame: dict[str, Any]) -> None:
        nonlocal made
        if moves is not None and made >= moves:
            return
        made += 1
        action = rng.choice(frame["legal"])
        wait = last_sent.get(id(c), -gap) + gap - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        last_sent[id(c)] = time.monotonic()
        await c.send({"type": "move", "action": action, "version": frame["version"]})

    await asyncio.wait_for(asyncio.gather(*(run(c) for c in clients)), timeout)


# ---------------------------------------------------------------- leak check
CARD = re.compile(r"^[2-9TJQKA][SCDH]$")


def cards_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        out: set[str] = set()
        for v in obj.values():
            out |= cards_in(v)
        return out
    if isinstance(obj, list):
        out = set()
        for v in obj:
            out |= cards_in(v)
        return out
    return set()


def hidden_from(state: GameState, seat: int | None) -> set[str]:
    """Cards ``seat`` (None: a spectator) may not know: others' unrevealed cards
    and the deck below its top, except the face-up trump."""
    mask = 0
    for other in range(state.n):
        if other != seat:
            mask |= state.hands[other] & ~state.known[other]
    for c in state.stock[1:]:  # stock[0] is the face-up trump
        mask |= 1 << c
    return {card_str(c) for c in cards_of(mask)}


def check_frames(clients: list[Client], record_data: dict[str, Any]) -> int:
    """Check every game/event frame of the game in ``record_data``: no hidden
    card, the right hand for players, no hand at all for spectators.  Returns
    the number of frames checked."""
    record = GameRecord.from_json(record_data)
    game_no = record.meta["game"]
    base = record.meta["base_version"]
    state = record.start()
    states = [state.copy()]
    for data in record.actions:
        state.apply(Action.from_json(data))
        states.append(state.copy())
    checked = 0
    for c in clients:
        for seat, frame in c.frames:
            if frame["type"] not in ("game", "event", "game_over") or frame["game"] != game_no:
                continue
            k = frame["version"] - base
            assert 0 <= k < len(states), (c.name, frame["version"], base)
            st = states[k]
            viewer = frame["seat"] if frame["type"] == "game" else seat
            leaked = cards_in(frame) & hidden_from(st, viewer)
            assert not leaked, f"{c.name} (seat {viewer}) saw {leaked} in {frame}"
            if frame["type"] == "game":
                if viewer is None:
                    assert "hand" not in frame["view"], frame
                    assert frame["legal"] == []
                else:
                    hand = {card_str(x) for x in cards_of(st.hands[viewer])}
                    assert set(frame["view"]["hand"]) == hand
            checked += 1
    return checked


async def _quiet(clients: list[Client], humans: set[int]) -> dict[str, dict[str, Any]]:
    """Wait until a human is to move and nothing more arrives; the last frames."""
    while True:
        for c in clients:
            try:
                while True:
                    await c.recv(0.4)
            except TimeoutError:
                pass
        games = {c.name: c.game for c in clients if c.game is not None}
        if len(games) == len(clients):
            versions = {g["version"] for g in games.values()}
            moving = next(iter(games.values()))
            if len(versions) == 1 and moving["to_move"] in humans:
                return games


async def crash_and_resume(srv: ServerProcess, seed: int) -> dict[str, Any]:
    """Two humans and two bots play; the server is killed with SIGKILL mid-game and
    restarted on the same database; both humans resume with their tokens and the
    game goes on to the end.  Checks that nothing was lost or duplicated and
    returns the finished record."""
    rng = random.Random(seed)
    anna, boris = Client(srv.ws_url, "anna"), Client(srv.ws_url, "boris")
    code = await anna.create_room(seats=4, visibility="private", move_time=None, bot_level=1)
    await boris.join(code)
    await anna.send({"type": "start"})
    await play_out([anna, boris], rng, moves=8)
    before = await _quiet([anna, boris], {0, 1})
    srv.kill()
    assert not srv.alive()
    for c in (anna, boris):
        await c.close()

    srv.start()  # same database, new port
    back = {c.name: Client(srv.ws_url, c.name) for c in (anna, boris)}
    for old in (anna, boris):
        new = back[old.name]
        new.frames = list(old.frames)
        welcome = await new.connect(old.token)
        assert welcome["resumed"] and welcome["room"] == code
    after = {}
    for name, c in back.items():
        after[name] = await c.expect("game")
    for name in ("anna", "boris"):
        old_frame, new_frame = before[name], after[name]
        assert new_frame["version"] == old_frame["version"]
        assert new_frame["view"]["hand"] == old_frame["view"]["hand"]
        assert new_frame["view"]["table"] == old_frame["view"]["table"]
    view = after["anna"]["view"]
    table = [c for pair in view["table"] for c in pair.values() if c]
    cards = after["anna"]["view"]["hand"] + after["boris"]["view"]["hand"]
    assert len(set(cards)) == len(cards)
    total = sum(view["hand_counts"]) + len(table) + view["discard"] + view["deck"]
    assert total == 36
    await play_out(list(back.values()), rng)
    status, record = http("GET", srv.url + back["anna"].over[-1]["record"])
    assert status == 200
    assert check_frames(list(back.values()), record) > 20
    code_, out = replay_json(json.dumps(record))
    assert code_ == 0 and out["state"]["result"] == record["result"]
    for c in back.values():
        await c.close()
    assert isinstance(record, dict)
    return record
