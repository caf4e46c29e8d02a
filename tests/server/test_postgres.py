"""The server against a real PostgreSQL: a throwaway cluster (Debian's initdb
and pg_ctl, installed by ./setup) on a free loopback port, one database per
test.  A full game with humans and bots whose record replays, and a kill -9
mid-game after which a restarted server resumes the table from PostgreSQL."""

from __future__ import annotations

import asyncio
import glob
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg  # a dev dependency (pip install -e '.[dev]')
import pytest

from kozyr.cli.replay import replay_json

from .harness import Client, ServerProcess, check_frames, crash_and_resume, http, play_out

PASSWORD = "s3cret-pw"  # trust auth ignores it; the server must not log it


def _pg_bin() -> Path | None:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: int(Path(p).parents[1].name) if Path(p).parents[1].name.isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    def __init__(self, port: int) -> None:
        self.port = port

    def connect(self, dbname: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=dbname, autocommit=True
        )

    def new_database(self, name: str) -> str:
        """Create database ``name``; its SQLAlchemy URL (with a password, to
        check it never shows in the log)."""
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres:{PASSWORD}@127.0.0.1:{self.port}/{name}"


@pytest.fixture(scope="session")
def pg() -> Iterator[PgCluster]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (run ./setup)")
    as_pg: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        as_pg = ["runuser", "-u", "postgres", "--"]
    # Not under pytest's tmp dir: that one is private to root (0700).
    top = Path(tempfile.mkdtemp(prefix="kozyr-pg-"))
    data, log = top / "data", top / "pg.log"
    if as_pg:
        shutil.chown(top, "postgres", "postgres")
    port = _free_port()

    def run(*cmd: str) -> None:
        done = subprocess.run([*as_pg, *cmd], capture_output=True, text=True, timeout=60)
        if done.returncode:
            extra = log.read_text() if log.exists() else ""
            raise RuntimeError(f"{cmd[0]} failed:\n{done.stdout}{done.stderr}{extra}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip
        opts = f"-k {top} -p {port} -h 127.0.0.1 -c fsync=off"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "30",
            "-o", opts, "start")  # fmt: skip
        try:
            yield PgCluster(port)
        finally:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _check_log(srv: ServerProcess) -> None:
    for name in ("internal_error", "task_failed", "store_error"):
        assert not srv.events(name), srv.events(name)
    (listening,) = srv.events("listening")[-1:]
    text = srv.log_text() + json.dumps(srv.lines)
    assert PASSWORD not in text
    assert listening.get("db", "").startswith("postgresql+psycopg://"), listening


def test_full_game_on_postgres_record_replays(pg: PgCluster, tmp_path: Path) -> None:
    url = pg.new_database("kozyr_play")
    srv = ServerProcess(tmp_path / "unused.db", "--rate", "200", "--burst", "200", db_url=url)
    srv.start()

    async def scenario() -> tuple[dict, dict, dict]:
        rng = random.Random(11)
        anna, boris = Client(srv.ws_url, "anna"), Client(srv.ws_url, "boris")
        code = await anna.create_room(seats=4, move_time=60, bot_level=2)
        assert (await boris.join(code))["you"]["seat"] == 1
        await anna.send({"type": "seat_bot", "seat": 3, "level": 1})
        await anna.expect("room")
        await anna.send({"type": "start"})
        for c in (anna, boris):
            frame = await c.expect("game")
            assert frame["seat"] == c.seat and len(frame["view"]["hand"]) == 6
        await play_out([anna, boris], rng)
        over = anna.over[-1]
        assert over == boris.over[-1]
        status, record = http("GET", srv.url + over["record"])
        assert status == 200 and record["result"] == over["result"]
        assert check_frames([anna, boris], record) > 50
        status, results = http(
            "GET", srv.url + "/api/me/results", headers={"authorization": f"Bearer {anna.token}"}
        )
        assert status == 200 and results["name"] == "anna"
        for c in (anna, boris):
            await c.close()
        return over, record, results

    try:
        over, record, _results = asyncio.run(scenario())
        code, out = replay_json(json.dumps(record))
        assert code == 0 and out["state"]["result"] == over["result"]
        # The rows really are in PostgreSQL.
        with pg.connect("kozyr_play") as conn:
            row = conn.execute(
                "SELECT status, record FROM games WHERE id = %s", (over["game_id"],)
            ).fetchone()
            assert row is not None and row[0] == "finished"
            assert json.loads(row[1]) == record
            (n_moves,) = conn.execute(
                "SELECT count(*) FROM moves WHERE game_id = %s", (over["game_id"],)
            ).fetchone()
            assert n_moves == len(record["actions"])
            (n_players,) = conn.execute("SELECT count(*) FROM players").fetchone()
            assert n_players >= 2
        assert not (tmp_path / "unused.db").exists()
    finally:
        srv.stop()
    _check_log(srv)


def test_kill_9_mid_game_on_postgres_then_restart_resumes(pg: PgCluster, tmp_path: Path) -> None:
    url = pg.new_database("kozyr_crash")
    srv = ServerProcess(tmp_path / "unused.db", "--rate", "200", "--burst", "200", db_url=url)
    srv.extra += ["--bot-delay", "0.02"]
    srv.start()

    try:
        asyncio.run(crash_and_resume(srv, seed=23))
        assert srv.events("room_recovered")
    finally:
        srv.stop()
    _check_log(srv)
