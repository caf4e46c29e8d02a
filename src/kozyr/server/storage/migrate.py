"""Bring the database to the newest schema with Alembic, at every start.

Why here and not ``alembic upgrade head``: ``kozyr serve`` upgrades the database
itself, so an operator never runs a separate step, and several processes of one
deployment (``--workers N``, a cluster) may start at the same moment.  They take
turns: on PostgreSQL behind an advisory lock held for the upgrade's transaction
(its DDL is transactional: a process killed half-way leaves nothing half-done),
on SQLite behind an exclusive lock on a file next to the database.  Whoever comes
second finds the database at the head revision and does nothing.

A database made before Alembic has the tables but no ``alembic_version``: it is
brought up to the baseline (:func:`.baseline.bring_up_legacy`), stamped as the
baseline revision, then upgraded like any other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from .baseline import bring_up_legacy

if TYPE_CHECKING:
    from alembic.config import Config

#: Where the revisions live (shipped in the wheel with the package).
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BASELINE = "0001_baseline"
#: The newest revision (a test checks it is Alembic's head).  A database already
#: there is recognised without loading Alembic, which costs seconds at start on
#: a busy machine; only a start that has something to upgrade loads it.
HEAD = "0005_puzzle_progress"

#: Key of the PostgreSQL advisory lock held while the schema is migrated.
_SCHEMA_LOCK = 0x6B6F7A7972


def _config(conn: Connection) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    return cfg


def head() -> str:
    """The newest revision among the migrations (Alembic's head)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS))
    found = script.get_current_head()
    assert found is not None
    return found


def current(conn: Connection) -> str | None:
    """The database's revision (None: not under Alembic yet)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def _at_head(engine: Engine) -> bool:
    """The database is at :data:`HEAD` already (plain SQL, no Alembic)."""
    if not inspect(engine).has_table("alembic_version"):
        return False
    with engine.connect() as conn:
        try:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).all()
        except DBAPIError:
            return False
    return [r[0] for r in found] == [HEAD]


@contextlib.contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    """SQLite: an exclusive ``flock`` on ``<database>.migrate.lock`` (nothing for
    a database in memory, which one process alone can see)."""
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        yield
        return
    import fcntl

    path = Path(database + ".migrate.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def upgrade(engine: Engine, to: str = "head") -> None:
    """Upgrade the database to ``to`` (default: the newest revision), safely
    while other processes do the same."""
    if to == "head" and _at_head(engine):
        return
    from alembic import command

    postgres = engine.dialect.name == "postgresql"
    with contextlib.ExitStack() as stack:
        if not postgres:
            stack.enter_context(_file_lock(engine))
        with engine.begin() as conn:
            if postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _SCHEMA_LOCK})
            cfg = _config(conn)
            if current(conn) is None and _has_tables(conn):
                bring_up_legacy(conn)
                command.stamp(cfg, BASELINE)
            command.upgrade(cfg, to)


def _has_tables(conn: Connection) -> bool:
    """Tables of the server are there (a database from before Alembic)."""
    names = set(inspect(conn).get_table_names())
    return bool(names & {"players", "rooms", "games"})
