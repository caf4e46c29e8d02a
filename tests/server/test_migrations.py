"""Schema migrations (Alembic, kozyr.server.storage.migrate): a database written
by the server before Alembic is recognised, stamped as the baseline and upgraded
with everything in it kept, on SQLite and PostgreSQL; the newest revision has
exactly the tables of schema.py; processes upgrading together take turns."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, func, inspect, select, text
from sqlalchemy.engine import Engine

from kozyr.server.storage import baseline
from kozyr.server.storage.migrate import BASELINE, HEAD, _config, current, head, upgrade
from kozyr.server.storage.schema import metadata
from kozyr.server.storage.store import _switch_to_wal, make_engine

from .services import PgCluster

ROOM_DATA = {
    "rules": {"players": 2},
    "seats": [{"player": "k" * 64, "name": "anna"}, {"player": None, "bot": 3}],
    "spectators": [{"player": "w" * 64, "name": "vera"}],
    "state": "playing",
}
RECORD = {"rules": {"players": 2}, "deal": {"seed": 7}, "actions": [], "meta": {"room": "R1"}}


def _fill_legacy(engine: Engine, seat_index: bool = True) -> None:
    """What the server before Alembic wrote: its tables, rows in each, and no
    ``alembic_version`` (``seat_index=False``: a database older still, from
    before the seat index and the cluster's columns)."""
    tables = [t for t in baseline.metadata.sorted_tables if seat_index or t.name != "room_seats"]
    baseline.metadata.create_all(engine, tables=tables)
    with engine.begin() as conn:
        if not seat_index:
            conn.execute(text("ALTER TABLE rooms DROP COLUMN fence"))
            conn.execute(text("ALTER TABLE rooms DROP COLUMN inbox_pos"))
        conn.execute(
            baseline.players.insert(),
            [
                {"key": "k" * 64, "name": "anna", "created_at": 1.0},
                {"key": "w" * 64, "name": "vera", "created_at": 2.0},
            ],
        )
        conn.execute(
            text(
                "INSERT INTO rooms (code, state, closed, data, updated_at)"
                " VALUES ('R1', 'playing', :f, :data, 3.0)"
            ),
            {"f": False, "data": json.dumps(ROOM_DATA)},
        )
        if seat_index:
            conn.execute(baseline.room_seats.insert(), [{"room": "R1", "player": "k" * 64}])
        conn.execute(
            baseline.games.insert(),
            [
                {"id": 1, "room": "R1", "game_no": 1, "base_version": 0,
                 "record": json.dumps(RECORD), "status": "finished", "result": '{"durak":1}',
                 "started_at": 4.0, "finished_at": 5.0},
                {"id": 2, "room": "R1", "game_no": 2, "base_version": 40,
                 "record": json.dumps(RECORD), "status": "playing", "result": None,
                 "started_at": 6.0, "finished_at": None},
            ],
        )  # fmt: skip
        conn.execute(
            baseline.moves.insert(),
            [
                {"game_id": 2, "idx": i, "action": f'{{"seat":{i % 2}}}', "at": 7.0}
                for i in range(5)
            ],
        )
        conn.execute(
            baseline.results.insert(),
            [{"game_id": 1, "player": "k" * 64, "name": "anna", "level": 3, "outcome": "win",
              "at": 5.0}],
        )  # fmt: skip
        conn.execute(
            baseline.telegram_users.insert(),
            [{"tg_id": 42, "player": "k" * 64, "name": "Anna", "lang": "ru", "nudges": True,
              "auto": '{"level": 2, "games": 3}', "created_at": 1.0, "seen_at": 2.0}],
        )  # fmt: skip
        conn.execute(
            baseline.telegram_tables.insert(),
            [{"room": "R1", "chat_id": -100, "lang": "ru", "grp": True, "message_id": 9,
              "last_text": "table", "posted_game": 1, "created_at": 1.0}],
        )  # fmt: skip


def _check_kept(engine: Engine) -> None:
    with engine.connect() as conn:
        assert current(conn) == head()
        names = {r[0] for r in conn.execute(select(baseline.players.c.name)).all()}
        assert names == {"anna", "vera"}
        # Players from before profiles got a public id each (revision 0002_players).
        ids = [r[0] for r in conn.execute(text("SELECT public_id FROM players")).all()]
        assert len(set(ids)) == 2 and all(isinstance(i, str) and len(i) == 10 for i in ids)
        data = conn.execute(select(baseline.rooms.c.data)).scalar_one()
        assert json.loads(data) == ROOM_DATA
        fence = conn.execute(select(baseline.rooms.c.fence)).scalar_one()
        assert fence == 0
        seats = conn.execute(select(baseline.room_seats.c.player).order_by("player")).all()
        assert [r[0] for r in seats] == ["k" * 64, "w" * 64] or [r[0] for r in seats] == ["k" * 64]
        games = conn.execute(
            select(baseline.games.c.id, baseline.games.c.status, baseline.games.c.result).order_by(
                baseline.games.c.id
            )
        ).all()
        assert [tuple(g) for g in games] == [(1, "finished", '{"durak":1}'), (2, "playing", None)]
        acts = conn.execute(
            select(baseline.moves.c.action).where(baseline.moves.c.game_id == 2)
            .order_by(baseline.moves.c.idx)
        ).all()  # fmt: skip
        assert [a[0] for a in acts] == [f'{{"seat":{i % 2}}}' for i in range(5)]
        res = conn.execute(select(baseline.results.c.player, baseline.results.c.outcome)).all()
        assert [tuple(r) for r in res] == [("k" * 64, "win")]
        tg = conn.execute(select(baseline.telegram_users.c.player, baseline.telegram_users.c.auto))
        assert [tuple(r) for r in tg.all()] == [("k" * 64, '{"level": 2, "games": 3}')]
        posted = conn.execute(select(baseline.telegram_tables.c.posted_game)).scalar_one()
        assert posted == 1
        assert conn.execute(select(func.count()).select_from(baseline.games)).scalar_one() == 2


def test_head_constant_is_alembics_head() -> None:
    assert head() == HEAD


def _no_drift(engine: Engine) -> None:
    """The newest revision leaves exactly the tables schema.py describes."""
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == [], diff


@pytest.mark.parametrize("seat_index", [True, False])
def test_sqlite_database_from_before_alembic_is_upgraded_and_kept(
    tmp_path: Path, seat_index: bool
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    _fill_legacy(engine, seat_index)
    with engine.connect() as conn:
        assert current(conn) is None
    upgrade(engine)
    _check_kept(engine)
    _no_drift(engine)
    upgrade(engine)  # again: nothing to do, nothing lost
    _check_kept(engine)
    if not seat_index:  # the seat index was filled from the open room (seats and spectators)
        with engine.connect() as conn:
            seats = conn.execute(select(baseline.room_seats.c.player)).all()
        assert sorted(r[0] for r in seats) == ["k" * 64, "w" * 64]


def test_postgres_database_from_before_alembic_is_upgraded_and_kept(pg: PgCluster) -> None:
    engine = make_engine(pg.new_database("kozyr_legacy"))
    _fill_legacy(engine)
    upgrade(engine)
    _check_kept(engine)
    _no_drift(engine)
    engine.dispose()


def test_fresh_database_goes_through_the_baseline(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'new.db'}")
    upgrade(engine, BASELINE)
    with engine.connect() as conn:
        assert current(conn) == BASELINE
        names = set(inspect(conn).get_table_names())
        assert names == {*baseline.metadata.tables, "alembic_version"}
    upgrade(engine)
    _no_drift(engine)


_UPGRADE = (
    "import sys\n"
    "from kozyr.server.storage.migrate import upgrade\n"
    "from kozyr.server.storage.store import make_engine\n"
    "upgrade(make_engine(sys.argv[1]))\n"
)


def _upgrade_together(url: str, n: int = 4) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _UPGRADE, url], stderr=subprocess.PIPE, text=True)
        for _ in range(n)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * n, errors


def test_processes_upgrading_together_take_turns_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'race.db'}"
    _upgrade_together(url)
    engine = create_engine(url)
    with engine.connect() as conn:
        assert current(conn) == head()
        versions = conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one()
    assert versions == 1
    _no_drift(engine)


class _RacedCursor:
    """A cursor whose first ``losses`` switches to WAL lose the race."""

    def __init__(self, losses: int, message: str = "database is locked") -> None:
        self.losses, self.message, self.tries = losses, message, 0

    def execute(self, sql: str) -> None:
        assert sql == "PRAGMA journal_mode=WAL"
        self.tries += 1
        if self.tries <= self.losses:
            raise sqlite3.OperationalError(self.message)


def test_a_connection_that_loses_the_race_to_wal_tries_again() -> None:
    # SQLite answers the loser of two connections switching a new file to WAL
    # "database is locked" at once, busy timeout or not (seen in CI: one of four
    # processes starting together failed).
    cursor = _RacedCursor(losses=3)
    _switch_to_wal(cursor)
    assert cursor.tries == 4
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _switch_to_wal(_RacedCursor(losses=10**9), patience=0.1)
    other = _RacedCursor(losses=1, message="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk"):
        _switch_to_wal(other)
    assert other.tries == 1


def test_processes_upgrading_together_take_turns_postgres(pg: PgCluster) -> None:
    url = pg.new_database("kozyr_race")
    _upgrade_together(url)
    engine = make_engine(url)
    with engine.connect() as conn:
        assert current(conn) == head()
    _no_drift(engine)
    engine.dispose()


def test_legacy_databases_upgrading_together_keep_everything(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'legacy_race.db'}"
    _fill_legacy(make_engine(url))
    _upgrade_together(url, 3)
    _check_kept(make_engine(url))


def test_puzzle_progress_arrives_on_a_database_at_0004(tmp_path: Path) -> None:
    """0004 (analyses) to 0005 (puzzle progress): a profile and an analysis made
    before stay, the new tables start empty, and a downgrade drops them again."""
    engine = make_engine(f"sqlite:///{tmp_path / 'at4.db'}")
    upgrade(engine, "0004_analyses")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO players (key, name, created_at, public_id, avatar)"
                " VALUES ('k1', 'anna', 1.0, 'pubanna001', 'fox')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO analyses (game_id, seat, status, owner, done, total, budget, seed,"
                " result, created_at, updated_at)"
                " VALUES (7, 0, 'done', 'p1', 3, 3, 100, 1, '{}', 1.0, 2.0)"
            )
        )
    upgrade(engine)
    with engine.connect() as conn:
        assert current(conn) == HEAD == "0005_puzzle_progress"
        assert conn.execute(text("SELECT name FROM players")).scalars().all() == ["anna"]
        assert conn.execute(text("SELECT status FROM analyses")).scalars().all() == ["done"]
        for table in ("puzzle_tries", "puzzle_streaks"):
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0
    _no_drift(engine)
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0004_analyses")
    with engine.connect() as conn:
        assert "puzzle_tries" not in inspect(conn).get_table_names()
    engine.dispose()
