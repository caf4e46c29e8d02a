"""Storage: players, rooms, games in progress and finished, results vs bots.

Design (docs/protocol.md, "Storage", says the same for operators):

* SQLAlchemy 2 Core with the ordinary **sync** engine, driven by **one
  writer thread**.  Every database call is a job on that thread's queue; the
  event loop awaits a future.  Why not async drivers: SQLite has one writer
  anyway, so a single thread never sees "database is locked"; the thread
  commits all jobs that queued up meanwhile in **one transaction** (group
  commit), so a thousand tables moving at once cost a few commits a second,
  not a thousand; and the same code runs on PostgreSQL through psycopg with
  no async driver to add.
* A game in progress is a ``games`` row holding the record's header (rules,
  deal with its seed, meta) plus one ``moves`` row per action.  Appending a
  move is one small insert, and after a crash ``GameRecord`` + moves replays
  to exactly the position the players last saw: the server persists a move
  *before* it broadcasts it.
* A finished game stores the complete GameRecord JSON (with ``result``), the
  same format as ``kozyr replay`` reads.
* ``results`` keeps one row per human per finished game against bots, with
  the bots' level, for per-player, per-level statistics.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import msgspec
from sqlalchemy import (
    Connection,
    String,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine, make_url

from kozyr.engine.record import GameRecord

from ..telemetry import log
from .ids import new_public_id
from .migrate import upgrade
from .schema import (
    games,
    moves,
    players,
    results,
    room_seats,
    rooms,
    seated_keys,
    set_seats,
)

T = TypeVar("T")


def _dumps(data: Any) -> str:
    """Compact JSON text, as ``json.dumps(data, separators=(",", ":"),
    ensure_ascii=False)`` writes it, several times faster (msgspec, in C):
    every move is encoded here on its way to the database."""
    return _encode(data).decode()


_encode = msgspec.json.Encoder().encode


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine; SQLite files get their directory created and WAL on."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=5000")
        # WAL + synchronous=NORMAL: a commit survives the process being killed
        # (kill -9); only a power cut may lose the last few commits.
        _switch_to_wal(cur)
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    return engine


def _switch_to_wal(cur: Any, patience: float = 10.0) -> None:
    """Put the database file in WAL mode (it stays so: only the first connection
    of a new file changes anything).  Several processes opening a new file at the
    same moment (``--workers N``, a cluster's first start) race for the switch,
    and SQLite answers the loser "database is locked" at once, without waiting
    on the busy timeout (two connections upgrading their locks would deadlock),
    so the switch is retried for a while."""
    deadline = time.monotonic() + patience
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Fenced(Exception):
    """A write of a room by a process whose fencing token is no longer the
    highest: another process owns the room now (cluster mode)."""


class Fence:
    """What a room's writes carry in cluster mode: its code, the owner's fencing
    token, and the inbox position applied so far.  Every write checks the token
    in the same transaction (:meth:`Store.check_fence`); ``on_refused`` runs on the
    event loop when a write that nobody awaits (``save_room``) is refused."""

    __slots__ = ("code", "loop", "muted", "on_refused", "pos", "token", "valid_until")

    def __init__(
        self,
        code: str,
        token: int,
        pos: str | None = None,
        on_refused: Callable[[], None] | None = None,
    ) -> None:
        self.code = code
        self.token = token
        self.pos = pos
        self.on_refused = on_refused
        self.loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):  # made outside a loop: no callback
            self.loop = asyncio.get_running_loop()
        #: ``time.monotonic()`` until which the owner's lease surely holds
        #: (renewals move it on).  Past it the room sends nothing: a stalled
        #: owner must not show players a table another process may have moved on.
        self.valid_until = math.inf
        #: Something the room would have said was held back while the lease
        #: was unsure: the next renewal that finds it still ours resyncs everyone.
        self.muted = False

    def stale(self, now: float | None = None) -> bool:
        """The lease may have run out (by ``now``, default: this instant)."""
        return self.valid_until <= (time.monotonic() if now is None else now)

    def silent(self) -> bool:
        """True (and noted in :attr:`muted`) if the room must say nothing now."""
        if self.valid_until > time.monotonic():
            return False
        self.muted = True
        return True

    def refused(self) -> None:
        if self.on_refused is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(self.on_refused)


@dataclass(slots=True)
class _MoveRow:
    """The hot-path job: one ``moves`` row, answered on the event loop
    (in cluster mode with the room's fence, checked in the same transaction)."""

    row: tuple[Any, ...] | dict[str, Any]
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]
    fence: Fence | None = None


class _DriverSQL:
    """A statement compiled once to the driver's own SQL, executed on the
    driver's cursor: SQLAlchemy's per-call work (building, cache keys,
    bookkeeping) cost more than the statement itself on the move path."""

    def __init__(self, statement: Any, dialect: Any) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = str(compiled)
        #: The order of positional parameters (None: the driver takes a dict).
        self.order = (
            list(compiled.positiontup) if compiled.positional and compiled.positiontup else None
        )

    def params(self, values: dict[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        return values if self.order is None else tuple(values[k] for k in self.order)


class _Read(NamedTuple):
    """A job that only reads (``Store.call(..., read_only=True)``): on SQLite it
    runs without ``Store.lock``, since in WAL mode a reader neither waits for
    nor holds up a writer.  Why: a slow read (a long game's record, a room list)
    must not stall the move commits the event loop makes meanwhile."""

    fn: Callable[[Connection], Any]
    fut: Future[Any]


_Job = tuple[Callable[[Connection], Any], Future[Any]] | _Read | _MoveRow


def _settle(moves: list[_MoveRow], error: BaseException | None) -> None:
    """On the event loop: answer the ``add_move`` calls of one batch."""
    for job in moves:
        if job.done.done():
            continue
        if error is None:
            job.done.set_result(None)
        else:
            job.done.set_exception(error)


class _LoopMoves:
    """SQLite ``moves`` rows written and committed on the event loop's own
    thread (one process, no fencing: ``Store(inline_moves=True)``).

    Why: on the store thread a move costs two thread wake-ups (the store
    thread's, then the event loop's to hear of the commit), which cost more
    than the insert.  Here the rows queued while the loop ran one callback are
    inserted and committed together right after it (group commit as before),
    and their ``add_move`` calls resume: a move is still committed before it is
    broadcast.  In WAL mode with ``synchronous=NORMAL`` a commit appends to the
    WAL without an fsync, so the loop never waits for the disk; the checkpoints
    that do are left to the store thread (this connection never runs one, see
    :meth:`Store._checkpoint`).  ``lock`` keeps this connection's write
    transaction and the store thread's apart, so neither meets SQLite's "busy"
    (a blocked ``acquire`` lets the other thread run).
    """

    #: Commits between two checkpoints requested from the store thread.
    CHECKPOINT_EVERY = 256

    def __init__(self, store: Store, raw: Any) -> None:
        self.store = store
        self.raw = raw  # SQLAlchemy's pooled DBAPI connection (kept checked out)
        self.driver = raw.driver_connection
        self.driver.execute("PRAGMA wal_autocheckpoint=0")
        self.rows: list[tuple[Any, ...] | dict[str, Any]] = []
        self.waiters: list[asyncio.Future[None]] = []
        self.commits = 0

    def add(self, row: tuple[Any, ...] | dict[str, Any]) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not self.rows:
            loop.call_soon(self.commit)
        self.rows.append(row)
        self.waiters.append(done)
        return done

    def commit(self) -> None:
        """Insert and commit what is queued; answer each ``add_move``."""
        rows, waiters = self.rows, self.waiters
        self.rows, self.waiters = [], []
        if not rows:
            return
        error = self._write(rows)
        if error is None:
            errors: list[Exception | None] = [None] * len(rows)
        elif len(rows) == 1:
            errors = [error]
        else:  # find the row the database refuses: one transaction each
            errors = [self._write([row]) for row in rows]
        for done, failed in zip(waiters, errors, strict=True):
            if failed is not None:
                log.error("store_error", error=repr(failed))
            if done.done():
                continue
            if failed is None:
                done.set_result(None)
            else:
                done.set_exception(failed)

    def _write(self, rows: list[Any]) -> Exception | None:
        """Insert ``rows`` in one transaction: None once committed, else the error."""
        store = self.store
        with store.lock:
            try:
                self.driver.executemany(store._insert_move.sql, rows)
                self.driver.commit()
            except Exception as exc:
                with contextlib.suppress(Exception):
                    self.driver.rollback()
                return exc
        store.commits += 1
        self.commits += 1
        if self.commits % self.CHECKPOINT_EVERY == 0:
            store.submit(_checkpoint)
        return None

    def close(self) -> None:
        self.commit()
        with contextlib.suppress(Exception):
            self.raw.close()


def _checkpoint(conn: Connection) -> None:
    """Copy the WAL into the database file without blocking writers (the loop's
    move commits go on meanwhile); the next writer then restarts the WAL."""
    conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").all()


class Store:
    """All database access, run on one thread; ``await store.call(fn)``.

    A job is either a function of a connection or, for the hot path, a row of
    ``moves``: the rows of a batch are inserted with one ``executemany`` of a
    statement compiled once (about twenty times cheaper than one insert
    statement per move), and the batch's moves are answered with one wake-up
    of the event loop rather than one per move.  The thread keeps one
    connection open instead of taking it from the pool for every batch.
    """

    def __init__(self, url: str, inline_moves: bool = False) -> None:
        self.url = url
        self.engine = make_engine(url)
        #: Write unfenced moves on the event loop (SQLite only, one process:
        #: :class:`_LoopMoves`); set by a hub that is not part of a cluster.
        self.inline_moves = inline_moves and self.engine.dialect.name == "sqlite"
        self._loop_moves: _LoopMoves | None = None
        #: Held by whichever thread has a write transaction open on SQLite.
        self.lock = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="kozyr-store", daemon=True)
        self._conn: Connection | None = None
        dialect = self.engine.dialect
        self._insert_move = _DriverSQL(insert(moves), dialect)
        # The fence check (see check_fence); the inbox position kept when None.
        self._fence = _DriverSQL(
            update(rooms)
            .where(rooms.c.code == bindparam("f_code"), rooms.c.fence <= bindparam("f_token"))
            .values(
                fence=bindparam("f_token"),
                inbox_pos=func.coalesce(bindparam("f_pos", type_=String), rooms.c.inbox_pos),
            ),
            dialect,
        )
        self._open_codes = _DriverSQL(
            select(rooms.c.code).where(rooms.c.closed.is_(False)), dialect
        )
        #: PostgreSQL: a fenced move in one statement (the fence check, then the
        #: row only if the check passed): one round trip per move, not two.
        self._fenced_move: str | None = None
        if dialect.name == "postgresql" and self._insert_move.order is None:
            self._fenced_move = (
                "WITH f AS (UPDATE rooms SET fence = %(f_token)s,"
                " inbox_pos = COALESCE(%(f_pos)s, inbox_pos)"
                " WHERE code = %(f_code)s AND fence <= %(f_token)s RETURNING 1)"
                " INSERT INTO moves (game_id, idx, action, at, auto)"
                " SELECT %(game_id)s, %(idx)s, %(action)s, %(at)s, %(auto)s FROM f"
            )
        self.commits = 0
        #: Writes refused by their fencing token (cluster: a room lost to another process).
        self.fenced = 0

    # ------------------------------------------------------------ the thread
    def start(self) -> None:
        upgrade(self.engine)
        self._thread.start()
        if self.inline_moves and self.engine.url.database not in (None, "", ":memory:"):
            self._loop_moves = _LoopMoves(self, self.engine.raw_connection())

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                break
            batch = [job]
            stop = False
            while len(batch) < 1024:
                try:
                    nxt = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
            self._run_batch(batch)
            if stop:
                break
        if self._conn is not None:
            self._conn.close()
        self.engine.dispose()

    def _connection(self) -> Connection:
        """The thread's connection, opened again after a failure."""
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            self._conn = self.engine.connect()
        return self._conn

    def _run_batch(self, batch: list[_Job], retry: bool = True) -> None:
        """Run every job in one transaction (group commit); if one fails, run
        them one by one so only the failing job reports the error.  A failed
        batch first runs once more on a new connection, in case the old one was
        lost (the database restarted: the pool's pre-ping no longer sees it).
        A batch of reads only runs without ``lock`` (see :class:`_Read`)."""
        if all(isinstance(job, _Read) for job in batch):
            self._run_jobs(batch, retry)
            return
        with self.lock:
            self._run_jobs(batch, retry)

    def _run_jobs(self, batch: list[_Job], retry: bool) -> None:
        only_moves = [job for job in batch if isinstance(job, _MoveRow)]
        if len(only_moves) == len(batch):
            self._run_moves(only_moves, retry)
            return
        out: list[Any] = []
        rows: list[Any] = []
        try:
            conn = self._connection()
            with conn.begin():
                for job in batch:
                    if isinstance(job, _MoveRow):
                        if job.fence is not None:
                            self.check_fence(conn, job.fence)
                        rows.append(job.row)
                        out.append(None)
                    else:
                        out.append(job[0](conn))
                if rows:
                    raw = conn.connection.driver_connection
                    assert raw is not None
                    cur = raw.cursor()
                    try:
                        cur.executemany(self._insert_move.sql, rows)
                    finally:
                        cur.close()
            self.commits += 1
        except Exception as exc:
            # The transaction was rolled back, so the jobs can run again.  A
            # fenced write is expected in cluster mode and the connection is fine.
            if retry and not isinstance(exc, Fenced):
                self._discard_connection()
                self._run_jobs(batch, retry=False)
                return
            if len(batch) > 1:
                for job in batch:
                    self._run_jobs([job], retry=False)
                return
            if isinstance(exc, Fenced):  # expected after losing a room: not an error
                self.fenced += 1
                log.warning("write_fenced", error=str(exc))
            else:
                log.error("store_error", error=repr(exc))
            self._answer(batch, None, exc)
            return
        self._answer(batch, out, None)

    def _run_moves(self, batch: list[_MoveRow], retry: bool = True) -> None:
        """The hot path, a batch of moves only: the fence checks of their rooms
        (cluster mode), one ``executemany`` and a commit, straight on the
        driver's connection (SQLAlchemy's transaction bookkeeping cost more
        than the insert).  A room whose fence is refused loses just its moves."""
        raw: Any = None
        refused: set[int] = set()
        try:
            raw = self._connection().connection.driver_connection
            assert raw is not None
            cur = raw.cursor()
            try:
                if self._fenced_move is not None:
                    rows = self._fenced_rows(cur, batch, refused)
                else:
                    fences = {id(job.fence): job.fence for job in batch if job.fence is not None}
                    for key, fence in fences.items():
                        cur.execute(*self._fence_statement(fence))
                        if cur.rowcount != 1:
                            refused.add(key)
                    rows = [job.row for job in batch if id(job.fence) not in refused]
                if len(rows) == 1:  # the usual batch: psycopg's executemany costs more
                    cur.execute(self._insert_move.sql, rows[0])
                elif rows:
                    cur.executemany(self._insert_move.sql, rows)
            finally:
                cur.close()
            raw.commit()
            self.commits += 1
        except Exception as exc:
            if raw is not None:
                with contextlib.suppress(Exception):
                    raw.rollback()
            self._discard_connection()  # it may be broken: the next batch opens another
            if retry:
                self._run_moves(batch, retry=False)
                return
            if len(batch) > 1:
                for job in batch:
                    self._run_moves([job], retry=False)
                return
            log.error("store_error", error=repr(exc))
            self._answer(list(batch), None, exc)
            return
        if not refused:
            self._answer(list(batch), [None] * len(batch), None)
            return
        ok = [job for job in batch if id(job.fence) not in refused]
        self._answer(list(ok), [None] * len(ok), None)
        for job in batch:
            if id(job.fence) in refused and job.fence is not None:
                self.fenced += 1
                error = Fenced(f"room {job.fence.code}: token {job.fence.token} is not the newest")
                log.warning("write_fenced", error=str(error))
                self._answer([job], None, error)

    def check_fence(self, conn: Connection, fence: Fence) -> None:
        """Raise :class:`Fenced` unless ``fence`` holds the room's highest token
        (and record the inbox position handled so far).

        The UPDATE locks the row until the transaction ends, so a takeover's bump
        of the token (:meth:`claim_room`) and this write are serialised: a write
        either commits before the takeover or is refused after it."""
        if conn.exec_driver_sql(*self._fence_statement(fence)).rowcount != 1:
            raise Fenced(f"room {fence.code}: token {fence.token} is not the newest")

    def _fenced_rows(self, cur: Any, batch: list[_MoveRow], refused: set[int]) -> list[Any]:
        """PostgreSQL: write each fenced move with its fence check in one
        statement (noting refused fences); the unfenced rows, to insert."""
        assert self._fenced_move is not None
        rows = []
        for job in batch:
            fence = job.fence
            if fence is None:
                rows.append(job.row)
            elif id(fence) not in refused:
                assert isinstance(job.row, dict)
                cur.execute(self._fenced_move, {**job.row, **_fence_values(fence)})
                if cur.rowcount != 1:
                    refused.add(id(fence))
        return rows

    def _fence_statement(self, fence: Fence) -> tuple[str, tuple[Any, ...] | dict[str, Any]]:
        return self._fence.sql, self._fence.params(_fence_values(fence))

    def _discard_connection(self) -> None:
        """After an error the connection may be broken: open a new one next time."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # it is being thrown away
                conn.invalidate()
                conn.close()

    def _answer(self, batch: list[_Job], out: list[Any] | None, error: Exception | None) -> None:
        moves_done: dict[asyncio.AbstractEventLoop, list[_MoveRow]] = {}
        for i, job in enumerate(batch):
            if isinstance(job, _MoveRow):
                moves_done.setdefault(job.loop, []).append(job)
                continue
            fut = job[1]
            if fut.done():
                continue
            if error is not None:
                fut.set_exception(error)
            else:
                assert out is not None
                fut.set_result(out[i])
        for loop, jobs in moves_done.items():
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                loop.call_soon_threadsafe(_settle, jobs, error)

    def submit(self, fn: Callable[[Connection], T], read_only: bool = False) -> Future[T]:
        """Queue ``fn(conn)`` for the store thread (inside a transaction);
        ``read_only``: ``fn`` never writes (it then runs without ``lock``)."""
        fut: Future[T] = Future()
        self._jobs.put(_Read(fn, fut) if read_only else (fn, fut))
        return fut

    async def call(self, fn: Callable[[Connection], T], read_only: bool = False) -> T:
        return await asyncio.wrap_future(self.submit(fn, read_only))

    def close_loop_moves(self) -> None:
        """On the event loop, before :meth:`close`: commit the moves it queued
        and close its connection (later moves go through the store thread)."""
        inline, self._loop_moves = self._loop_moves, None
        if inline is not None:
            inline.close()

    def close(self) -> None:
        """Finish the queued jobs, then stop the thread."""
        self.close_loop_moves()
        if self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join(timeout=10)
        else:
            self.engine.dispose()

    # ------------------------------------------------------------ players
    async def add_player(self, key: str, name: str) -> None:
        now = time.time()

        def job(conn: Connection) -> None:
            done = conn.execute(update(players).where(players.c.key == key).values(name=name))
            if not done.rowcount:
                conn.execute(
                    insert(players).values(
                        key=key, name=name, created_at=now, public_id=new_public_id()
                    )
                )

        await self.call(job)

    async def player_name(self, key: str) -> str | None:
        def job(conn: Connection) -> str | None:
            row = conn.execute(select(players.c.name).where(players.c.key == key)).first()
            return None if row is None else str(row[0])

        return await self.call(job, read_only=True)

    # ------------------------------------------------------------ rooms
    def save_room(
        self,
        code: str,
        state: str,
        data: dict[str, Any],
        closed: bool = False,
        fence: Fence | None = None,
    ) -> None:
        """Queue an upsert of the room (not awaited: the queue keeps the order)."""
        data_text = _dumps(data)
        seated = [] if closed else seated_keys(data)
        now = time.time()

        def job(conn: Connection) -> None:
            values: dict[str, Any] = {
                "state": state,
                "closed": closed,
                "data": data_text,
                "updated_at": now,
            }
            query = update(rooms).where(rooms.c.code == code)
            if fence is not None:
                query = query.where(rooms.c.fence <= fence.token)
                values["fence"] = fence.token
                if fence.pos is not None:
                    values["inbox_pos"] = fence.pos
            done = conn.execute(query.values(**values))
            if not done.rowcount:
                if fence is not None:
                    exists = conn.execute(select(rooms.c.fence).where(rooms.c.code == code)).first()
                    if exists is not None:
                        raise Fenced(f"room {code}: token {fence.token} is not the newest")
                conn.execute(insert(rooms).values(code=code, **values))
            set_seats(conn, code, seated)

        fut = self.submit(job)
        if fence is not None:
            fut.add_done_callback(lambda f: _refused_callback(f, fence))

    async def claim_room(self, code: str) -> tuple[int, str | None, dict[str, Any]] | None:
        """Take a room over (cluster mode): raise its fencing token by one.
        (new token, inbox position, data), or None if the room is closed or unknown."""

        def job(conn: Connection) -> tuple[int, str | None, str] | None:
            row = conn.execute(
                update(rooms)
                .where(rooms.c.code == code, rooms.c.closed.is_(False))
                .values(fence=rooms.c.fence + 1)
                .returning(rooms.c.fence, rooms.c.inbox_pos, rooms.c.data)
            ).first()
            return None if row is None else (int(row[0]), row[1], str(row[2]))

        found = await self.call(job)
        if found is None:
            return None
        token, pos, data = found
        return token, pos, json.loads(data)

    async def open_room_codes(self) -> list[str]:
        """Every open room's code (cluster processes ask twice a second: on the
        driver's cursor, as SQLAlchemy's row handling cost more than the query)."""

        def job(conn: Connection) -> list[str]:
            raw = conn.connection.driver_connection
            assert raw is not None
            cur = raw.cursor()
            try:
                cur.execute(self._open_codes.sql)
                return [str(r[0]) for r in cur.fetchall()]
            finally:
                cur.close()

        return await self.call(job, read_only=True)

    async def room_is_open(self, code: str) -> bool:
        def job(conn: Connection) -> bool:
            row = conn.execute(
                select(rooms.c.code).where(rooms.c.code == code, rooms.c.closed.is_(False))
            ).first()
            return row is not None

        return await self.call(job, read_only=True)

    async def room_of_player(self, key: str) -> str | None:
        """The open room where the player (by token hash) has a seat, if any
        (the newest, should a crash have left two)."""

        def job(conn: Connection) -> str | None:
            row = conn.execute(
                select(rooms.c.code)
                .join(room_seats, room_seats.c.room == rooms.c.code)
                .where(room_seats.c.player == key, rooms.c.closed.is_(False))
                .order_by(rooms.c.updated_at.desc())
            ).first()
            return None if row is None else str(row[0])

        return await self.call(job, read_only=True)

    async def open_rooms(self) -> list[tuple[str, dict[str, Any]]]:
        def job(conn: Connection) -> list[tuple[str, dict[str, Any]]]:
            rows = conn.execute(
                select(rooms.c.code, rooms.c.data).where(rooms.c.closed.is_(False))
            ).all()
            return [(str(code), json.loads(data)) for code, data in rows]

        return await self.call(job, read_only=True)

    # ------------------------------------------------------------ games
    async def create_game(
        self,
        room: str,
        game_no: int,
        base_version: int,
        header: dict[str, Any],
        fence: Fence | None = None,
    ) -> int:
        text = _dumps(header)
        now = time.time()

        def job(conn: Connection) -> int:
            if fence is not None:
                self.check_fence(conn, fence)
            res = conn.execute(
                insert(games).values(
                    room=room,
                    game_no=game_no,
                    base_version=base_version,
                    record=text,
                    status="playing",
                    started_at=now,
                )
            )
            key = res.inserted_primary_key
            assert key is not None
            return int(key[0])

        return await self.call(job)

    async def add_move(
        self,
        game_id: int,
        idx: int,
        action: dict[str, Any],
        fence: Fence | None = None,
        auto: bool = False,
    ) -> None:
        """Append one action to a game in progress (returns once committed;
        raises :class:`Fenced` if ``fence`` no longer holds the room).  ``auto``:
        a bot made it for its seat (candies: a seat the bot played earns nothing)."""
        values = {
            "game_id": game_id,
            "idx": idx,
            "action": _dumps(action),
            "at": time.time(),
            "auto": auto,
        }
        row = self._insert_move.params(values)
        if fence is None and self._loop_moves is not None:
            await self._loop_moves.add(row)
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._jobs.put(_MoveRow(row, loop, done, fence))
        await done

    async def finish_game(
        self,
        game_id: int,
        record: dict[str, Any],
        status: str,
        outcomes: list[tuple[str, str, int, str]],
        fence: Fence | None = None,
        settle: Callable[[Connection, float], T] | None = None,
    ) -> T | None:
        """Store the whole record; ``outcomes`` are (player key, name, level, outcome).

        ``settle(conn, now)`` runs in the same transaction, after the fence check
        (candies and ratings: granted with the finished game or not at all); its
        answer is returned.  A game finished already (a restart that finishes it
        again) keeps its record and results: only ``settle`` runs (to read back)."""
        text = _dumps(record)
        result = _dumps(record.get("result")) if record.get("result") is not None else None
        now = time.time()

        def job(conn: Connection) -> T | None:
            if fence is not None:
                self.check_fence(conn, fence)
            done = conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.status != "finished")
                .values(record=text, status=status, result=result, finished_at=now)
            )
            answer = None if settle is None else settle(conn, now)
            if not done.rowcount:
                return answer
            for key, name, level, outcome in outcomes:
                conn.execute(
                    insert(results).values(
                        game_id=game_id, player=key, name=name, level=level, outcome=outcome, at=now
                    )
                )
            return answer

        return await self.call(job)

    async def save_header(self, game_id: int, header: dict[str, Any]) -> None:
        """Rewrite the header of a game in play (its ``meta`` changed: hints)."""
        text = _dumps(header)

        def job(conn: Connection) -> None:
            conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.status == "playing")
                .values(record=text)
            )

        await self.call(job)

    async def abandon_game(self, game_id: int, fence: Fence | None = None) -> None:
        def job(conn: Connection) -> None:
            if fence is not None:
                self.check_fence(conn, fence)
            conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.status == "playing")
                .values(status="abandoned", finished_at=time.time())
            )

        await self.call(job)

    async def load_game(self, game_id: int) -> tuple[GameRecord, int, int] | None:
        """(record so far, game number, base version) of a game, or None."""

        def job(conn: Connection) -> tuple[str, int, int, list[str]] | None:
            row = conn.execute(
                select(games.c.record, games.c.game_no, games.c.base_version).where(
                    games.c.id == game_id
                )
            ).first()
            if row is None:
                return None
            acts = conn.execute(
                select(moves.c.action).where(moves.c.game_id == game_id).order_by(moves.c.idx)
            ).all()
            return str(row[0]), int(row[1]), int(row[2]), [str(a[0]) for a in acts]

        found = await self.call(job, read_only=True)
        if found is None:
            return None
        header, game_no, base, acts = found
        data = json.loads(header)
        data["actions"] = [json.loads(a) for a in acts]
        data.pop("result", None)
        return GameRecord.from_json(data), game_no, base

    async def finished_record(self, game_id: int) -> dict[str, Any] | None:
        """The GameRecord JSON of a finished game (None while it is being played)."""

        def job(conn: Connection) -> str | None:
            row = conn.execute(
                select(games.c.record).where(games.c.id == game_id, games.c.status == "finished")
            ).first()
            return None if row is None else str(row[0])

        text = await self.call(job, read_only=True)
        return None if text is None else dict(json.loads(text))

    async def player_results(self, key: str) -> dict[int, dict[str, int]]:
        """Per bot level: games, wins, losses, draws of one player."""

        def job(conn: Connection) -> list[tuple[int, str, int]]:
            rows = conn.execute(
                select(results.c.level, results.c.outcome, func.count())
                .where(results.c.player == key)
                .group_by(results.c.level, results.c.outcome)
            ).all()
            return [(int(a), str(b), int(c)) for a, b, c in rows]

        out: dict[int, dict[str, int]] = {}
        for level, outcome, n in await self.call(job, read_only=True):
            entry = out.setdefault(level, {"games": 0, "win": 0, "loss": 0, "draw": 0})
            entry["games"] += n
            entry[outcome] = entry.get(outcome, 0) + n
        return dict(sorted(out.items()))


def _fence_values(fence: Fence) -> dict[str, Any]:
    """The parameters of a fence check (``f_code``, ``f_token``, ``f_pos``)."""
    return {"f_code": fence.code, "f_token": fence.token, "f_pos": fence.pos}


def _refused_callback(fut: Future[Any], fence: Fence) -> None:
    if not fut.cancelled() and isinstance(fut.exception(), Fenced):
        fence.refused()
