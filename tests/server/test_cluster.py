"""Cluster mode: three real ``kozyr serve --redis`` processes, a real Redis and a
real PostgreSQL (all started by the tests), real WebSocket clients spread over
the processes.  Every game's frames go through the leak check (no seat ever
sees a card it may not see), whichever process forwarded them."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kozyr.cli.replay import replay_json

from .harness import Client, ServerProcess, _quiet, check_frames, http, play_out
from .test_postgres import PgCluster, pg  # noqa: F401  (the PostgreSQL fixture)

LEASE = "1.5"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A throwaway ``redis-server`` on a loopback port, no persistence (a restart
    loses everything, the harder case for the cluster)."""

    def __init__(self, binary: str, workdir: Path) -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir), "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server not found (run ./setup: it installs Debian's redis-server)")
    srv = RedisServer(binary, tmp_path)
    srv.start()
    yield srv
    srv.kill()


class Cluster:
    """Three server processes sharing one Redis and one PostgreSQL database."""

    def __init__(self, tmp: Path, db_url: str, redis_url: str, *extra: str, n: int = 3) -> None:
        self.servers = [
            ServerProcess(
                tmp / f"unused{i}.db",
                "--rate",
                "200",
                "--burst",
                "200",
                "--redis",
                redis_url,
                "--lease",
                LEASE,
                "--bot-delay",
                "0.02",
                *extra,
                db_url=db_url,
            )
            for i in range(n)
        ]

    def start(self) -> Cluster:
        # All at once on an empty database: schema creation must be safe.
        errors: list[BaseException] = []

        def go(s: ServerProcess) -> None:
            try:
                s.start()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=go, args=(s,)) for s in self.servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.stop()
            raise errors[0]
        return self

    def stop(self) -> None:
        for s in self.servers:
            if s.proc is not None and s.proc.poll() is None:
                with_cont = s.proc.pid
                os.kill(with_cont, signal.SIGCONT)
            s.stop()

    def dump(self, path: Path) -> None:
        """Every process's log into one file (to read after a failure)."""
        with path.open("w") as out:
            for i, s in enumerate(self.servers):
                for line in s.lines:
                    out.write(f"s{i} {json.dumps(line)}\n")

    def owners(self, code: str, skip: int | None = None) -> list[int]:
        """Indexes of the live processes whose /health lists ``code`` as owned
        (``skip``: a process not to ask, e.g. a stopped one that cannot answer)."""
        out = []
        for i, s in enumerate(self.servers):
            if not s.alive() or i == skip:
                continue
            try:
                status, health = http("GET", s.url + "/health")
            except OSError:
                continue
            if status == 200 and code in health["owned"]:
                out.append(i)
        return out

    def wait_owner(self, code: str, exclude: int | None = None, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            owners = self.owners(code, skip=exclude)
            if len(owners) == 1:
                return owners[0]
            time.sleep(0.05)
        raise AssertionError(f"no single owner of {code}: {self.owners(code)}")

    def check_logs(self) -> None:
        for s in self.servers:
            for name in ("internal_error", "task_failed", "store_error", "cluster_entry_failed"):
                assert not s.events(name), (name, s.events(name)[:3])


def _cards_total(frame: dict[str, Any]) -> int:
    view = frame["view"]
    table = [c for pair in view["table"] for c in pair.values() if c]
    return sum(view["hand_counts"]) + len(table) + view["discard"] + view["deck"]


def _check_record(cluster_pg: PgCluster, db: str, record: dict[str, Any], game_id: int) -> None:
    """The finished record replays, and the database holds each move once."""
    code, out = replay_json(json.dumps(record))
    assert code == 0 and out["state"]["result"] == record["result"]
    with cluster_pg.connect(db) as conn:
        rows = conn.execute(
            "SELECT idx FROM moves WHERE game_id = %s ORDER BY idx", (game_id,)
        ).fetchall()
    assert [r[0] for r in rows] == list(range(len(record["actions"])))


def _record(srv: ServerProcess, over: dict[str, Any]) -> dict[str, Any]:
    status, record = http("GET", srv.url + over["record"])
    assert status == 200, record
    return dict(record)


def test_whole_game_across_three_processes(
    pg: PgCluster,  # noqa: F811
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    url = pg.new_database("kozyr_cluster_play")
    cluster = Cluster(tmp_path, url, redis_server.url).start()
    s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(3)
        anna = Client(s0.ws_url, "anna")
        boris, carl = Client(s1.ws_url, "boris"), Client(s2.ws_url, "carl")
        dana = Client(s1.ws_url, "dana")
        code = await anna.create_room(seats=4, move_time=60, bot_level=1)
        assert cluster.owners(code) == [0]
        # The lobby and the invite code work on every process.
        for s in (s1, s2):
            status, info = http("GET", f"{s.url}/api/rooms/{code}")
            assert status == 200 and info["code"] == code, info
            status, lobby = http("GET", f"{s.url}/api/rooms")
            assert code in [r["code"] for r in lobby["rooms"]]
        assert (await boris.join(code))["you"]["seat"] == 1
        assert (await carl.join(code))["you"]["seat"] == 2
        await anna.send({"type": "start"})
        for c in (anna, boris, carl):
            frame = await c.expect("game")
            assert frame["seat"] == c.seat and len(frame["view"]["hand"]) == 6
        spectate = await dana.join(code)
        assert spectate["you"]["spectator"]
        await play_out([anna, boris, carl], rng, timeout=90)
        over = anna.over[-1]
        for c in (boris, carl):
            assert c.over[-1] == over
        await dana.expect("game_over", timeout=20)
        record = _record(s2, over)
        assert check_frames([anna, boris, carl, dana], record) > 50
        _check_record(pg, "kozyr_cluster_play", record, over["game_id"])
        # Rematch, asked on process 0, dealt by the owner, seen on 1 and 2.
        await anna.send({"type": "rematch"})
        for c in (boris, carl):
            frame = await c.expect("game", game=over["game"] + 1)
            assert len(frame["view"]["hand"]) == 6
        for c in (anna, boris, carl, dana):
            await c.close()
        assert cluster.owners(code) == [0]

    try:
        asyncio.run(scenario())
    finally:
        cluster.stop()
        cluster.dump(tmp_path / "cluster.log")
    cluster.check_logs()


def test_owner_killed_another_process_takes_over(
    pg: PgCluster,  # noqa: F811
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    url = pg.new_database("kozyr_cluster_kill")
    cluster = Cluster(tmp_path, url, redis_server.url).start()
    s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(7)
        anna = Client(s0.ws_url, "anna")
        boris, carl = Client(s1.ws_url, "boris"), Client(s2.ws_url, "carl")
        code = await anna.create_room(seats=4, visibility="private", move_time=None, bot_level=1)
        await boris.join(code)
        await carl.join(code)
        await anna.send({"type": "start"})
        await play_out([anna, boris, carl], rng, moves=10)
        before = await _quiet([anna, boris, carl], {0, 1, 2})
        assert cluster.owners(code) == [0]

        killed = time.monotonic()
        s0.kill()
        await anna.close()
        new_owner = await asyncio.to_thread(cluster.wait_owner, code, 0, 10.0)
        took = time.monotonic() - killed
        assert took < 5.0, took
        # Anna comes back through another process: same seat, same cards.
        back = Client(s2.ws_url, "anna")
        back.frames = list(anna.frames)
        welcome = await back.connect(anna.token)
        assert welcome["resumed"] and welcome["room"] == code
        room = await back.expect("room")
        assert room["you"]["seat"] == 0
        frames = {"anna": await back.expect("game")}
        for c in (boris, carl):  # their processes attach them to the new owner
            frames[c.name] = await c.expect("game", version=before[c.name]["version"])
        for name, frame in frames.items():
            assert frame["version"] == before[name]["version"]
            assert frame["view"]["hand"] == before[name]["view"]["hand"]
            assert _cards_total(frame) == 36
        hands = [card for f in frames.values() for card in f["view"]["hand"]]
        assert len(set(hands)) == len(hands)
        await play_out([back, boris, carl], rng, timeout=90)
        over = back.over[-1]
        record = _record(cluster.servers[new_owner], over)
        assert check_frames([back, boris, carl], record) > 30
        _check_record(pg, "kozyr_cluster_kill", record, over["game_id"])
        for c in (back, boris, carl):
            await c.close()
        print(f"takeover after kill -9: {took:.2f} s")

    try:
        asyncio.run(scenario())
    finally:
        cluster.stop()
        cluster.dump(tmp_path / "cluster.log")
    cluster.check_logs()
    assert any(s.events("room_adopted") for s in cluster.servers[1:])


def test_stalled_owner_cannot_write_after_its_lease(
    pg: PgCluster,  # noqa: F811
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    url = pg.new_database("kozyr_cluster_stop")
    # Bots think a while, so the stalled owner has a bot move pending when stopped.
    cluster = Cluster(tmp_path, url, redis_server.url, "--bot-delay", "0.3").start()
    s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(11)
        # The room is made over HTTP on process 0 (which owns it); its host
        # plays through process 1 with the token, a guest through process 2.
        status, made = http(
            "POST", s0.url + "/api/rooms",
            {"name": "anna", "seats": 3, "visibility": "private", "move_time": None,
             "bot_level": 1},
        )  # fmt: skip
        assert status == 201, made
        code = made["code"]
        anna, boris = Client(s1.ws_url, "anna"), Client(s2.ws_url, "boris")
        welcome = await anna.connect(made["token"])
        assert welcome["room"] == code
        await anna.expect("room")
        await boris.join(code)
        await anna.send({"type": "start"})
        await play_out([anna, boris], rng, moves=6)
        await _quiet([anna, boris], {0, 1})
        assert cluster.owners(code) == [0]
        # A human move hands the turn to the bot (seat 2): its move is pending on 0.
        frame = anna.game if anna.game and anna.game["legal"] else boris.game
        mover = anna if frame is anna.game else boris
        assert frame is not None
        await mover.send(
            {"type": "move", "action": rng.choice(frame["legal"]), "version": frame["version"]}
        )
        await mover.expect("event", version=frame["version"] + 1)
        os.kill(s0.proc.pid, signal.SIGSTOP)  # type: ignore[union-attr]
        stopped = time.monotonic()
        new_owner = await asyncio.to_thread(cluster.wait_owner, code, 0, 10.0)
        assert time.monotonic() - stopped < 5.0
        # The game goes on at the new owner while the old one is frozen.
        await play_out([anna, boris], rng, moves=4, timeout=30)
        os.kill(s0.proc.pid, signal.SIGCONT)  # type: ignore[union-attr]
        resumed_at = len(s0.lines)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not s0.events("room_lost"):
            await asyncio.sleep(0.1)
        assert s0.events("room_lost"), s0.log_text()
        assert cluster.owners(code) == [new_owner]
        # Nothing the old owner did after waking up reached the database or a client.
        late_moves = [
            line for line in s0.lines[resumed_at:]
            if line.get("event") == "move" and line.get("room") == code
        ]  # fmt: skip
        assert not late_moves, late_moves
        await play_out([anna, boris], rng, timeout=90)
        over = anna.over[-1]
        record = _record(s1, over)
        assert check_frames([anna, boris], record) > 20
        _check_record(pg, "kozyr_cluster_stop", record, over["game_id"])
        for c in (anna, boris):
            await c.close()

    try:
        asyncio.run(scenario())
    finally:
        cluster.stop()
        cluster.dump(tmp_path / "cluster.log")
    cluster.check_logs()


def test_redis_restarted_mid_game_play_continues(
    pg: PgCluster,  # noqa: F811
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    url = pg.new_database("kozyr_cluster_redis")
    cluster = Cluster(tmp_path, url, redis_server.url).start()
    s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(5)
        anna = Client(s0.ws_url, "anna")
        boris, carl = Client(s1.ws_url, "boris"), Client(s2.ws_url, "carl")
        code = await anna.create_room(seats=4, visibility="private", move_time=None, bot_level=1)
        await boris.join(code)
        await carl.join(code)
        await anna.send({"type": "start"})
        await play_out([anna, boris, carl], rng, moves=8)
        await _quiet([anna, boris, carl], {0, 1, 2})
        redis_server.kill()
        await asyncio.sleep(1.0)
        redis_server.start()  # same port, empty
        # Sockets on the other processes are resynced once those processes have
        # subscribed again (frames may have been lost meanwhile).
        for c in (boris, carl):
            await c.expect("game", timeout=20)
        await play_out([anna, boris, carl], rng, timeout=90)
        over = anna.over[-1]
        record = _record(s1, over)
        assert check_frames([anna, boris, carl], record) > 30
        _check_record(pg, "kozyr_cluster_redis", record, over["game_id"])
        for c in (anna, boris, carl):
            await c.close()
        assert len(cluster.owners(code)) == 1

    try:
        asyncio.run(scenario())
    finally:
        cluster.stop()
        cluster.dump(tmp_path / "cluster.log")
    cluster.check_logs()


def test_fencing_refuses_a_former_owners_writes(tmp_path: Path) -> None:
    """The store alone (SQLite here): after a takeover raised the token, every
    kind of write with the old token is refused and changes nothing."""
    from kozyr.server.store import Fence, Fenced, Store

    async def scenario() -> None:
        old, new = Store(f"sqlite:///{tmp_path / 'f.db'}"), Store(f"sqlite:///{tmp_path / 'f.db'}")
        old.start()
        new.start()
        try:
            stale = Fence("room1", 1)
            old.save_room("room1", "playing", {"seats": []}, fence=stale)
            game = await old.create_game("room1", 1, 0, {"h": 1}, stale)
            await old.add_move(game, 0, {"seat": 0}, stale)
            claimed = await new.claim_room("room1")
            assert claimed is not None and claimed[0] == 2
            with pytest.raises(Fenced):
                await old.add_move(game, 1, {"seat": 1}, stale)
            with pytest.raises(Fenced):
                await old.create_game("room1", 2, 5, {"h": 2}, stale)
            with pytest.raises(Fenced):
                await old.finish_game(game, {"result": None}, "finished", [], stale)
            await new.add_move(game, 1, {"seat": 2}, Fence("room1", 2))
            loaded = await new.call(
                lambda conn: conn.exec_driver_sql(
                    "SELECT idx, action FROM moves ORDER BY idx"
                ).all()
            )
            assert [(i, json.loads(a)["seat"]) for i, a in loaded] == [(0, 0), (1, 2)]
        finally:
            old.close()
            new.close()

    asyncio.run(scenario())
