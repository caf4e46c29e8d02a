"""The server against a real PostgreSQL: a throwaway cluster (Debian's initdb
and pg_ctl, installed by ./setup) on a free loopback port, one database per
test.  A full game with humans and bots whose record replays, and a kill -9
mid-game after which a restarted server resumes the table from PostgreSQL."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from kozyr.cli.replay import replay_json

from .harness import (
    Client,
    ServerProcess,
    check_frames,
    crash_and_resume,
    http,
    play_out,
    run,
    shared,
)
from .services import PASSWORD, PgCluster


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

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
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
        assert shared(over) == shared(boris.over[-1])
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
        over, record, _results = run(scenario())
        code, out = replay_json(json.dumps(record))
        assert code == 0 and out["state"]["result"] == over["result"]
        # The rows really are in PostgreSQL.
        with pg.connect("kozyr_play") as conn:
            row = conn.execute(
                "SELECT status, record FROM games WHERE id = %s", (over["game_id"],)
            ).fetchone()
            assert row is not None and row[0] == "finished"
            assert json.loads(row[1]) == record
            moves = conn.execute(
                "SELECT count(*) FROM moves WHERE game_id = %s", (over["game_id"],)
            ).fetchone()
            assert moves is not None and moves[0] == len(record["actions"])
            players = conn.execute("SELECT count(*) FROM players").fetchone()
            assert players is not None and players[0] >= 2
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
        run(crash_and_resume(srv, seed=23))
        assert srv.events("room_recovered")
    finally:
        srv.stop()
    _check_log(srv)
