"""Stored post-game analyses (issue 27): one row per finished game and seat.

Why a row that is claimed before it is computed: an analysis takes tens of
seconds of a core, so it must be computed once per game and seat in the whole
cluster.  The first process to insert the row owns it and refreshes
``updated_at`` as it goes (with the progress, which every process can read);
a second request anywhere finds the row and waits for it, or reads the result.
A row whose owner stopped refreshing it (the process died) or that failed is
claimed again.  The interface is small on purpose (:class:`AnalysisStore`), so
the schema can move to the migrations of issue 26 without touching callers.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection, insert, select, update

from .schema import analyses
from .store import Store


@dataclass(frozen=True)
class StoredAnalysis:
    game_id: int
    seat: int
    #: running | done | failed
    status: str
    owner: str
    done: int
    total: int
    budget: int
    seed: int
    result: dict[str, Any] | None
    error: str | None
    updated_at: float


class AnalysisStore(Protocol):
    """Where analyses are kept (the database in a server; a dict in tests)."""

    async def get(self, game_id: int, seat: int) -> StoredAnalysis | None: ...

    async def claim(
        self, game_id: int, seat: int, owner: str, budget: int, seed: int, stale: float
    ) -> bool:
        """Make ``owner`` compute it: True if the row was absent, failed, or
        not refreshed for ``stale`` seconds; False if done or owned elsewhere."""
        ...

    async def progress(
        self, game_id: int, seat: int, owner: str, done: int, total: int
    ) -> None: ...

    async def finish(self, game_id: int, seat: int, owner: str, result: dict[str, Any]) -> None: ...

    async def fail(self, game_id: int, seat: int, owner: str, error: str) -> None: ...


_COLUMNS = (
    analyses.c.game_id,
    analyses.c.seat,
    analyses.c.status,
    analyses.c.owner,
    analyses.c.done,
    analyses.c.total,
    analyses.c.budget,
    analyses.c.seed,
    analyses.c.result,
    analyses.c.error,
    analyses.c.updated_at,
)


def _row(row: Any) -> StoredAnalysis:
    g, s, status, owner, done, total, budget, seed, result, error, at = row
    return StoredAnalysis(
        int(g),
        int(s),
        str(status),
        str(owner),
        int(done),
        int(total),
        int(budget),
        int(seed),
        None if result is None else dict(json.loads(result)),
        None if error is None else str(error),
        float(at),
    )


class SqlAnalyses:
    """:class:`AnalysisStore` on the server's database (through its writer thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _key(self, game_id: int, seat: int) -> Any:
        return (analyses.c.game_id == game_id) & (analyses.c.seat == seat)

    async def get(self, game_id: int, seat: int) -> StoredAnalysis | None:
        def job(conn: Connection) -> StoredAnalysis | None:
            row = conn.execute(select(*_COLUMNS).where(self._key(game_id, seat))).first()
            return None if row is None else _row(row)

        return await self.store.call(job, read_only=True)

    async def claim(
        self, game_id: int, seat: int, owner: str, budget: int, seed: int, stale: float
    ) -> bool:
        def job(conn: Connection) -> bool:
            now = time.time()
            values = {
                "status": "running",
                "owner": owner,
                "done": 0,
                "total": 0,
                "budget": budget,
                "seed": seed,
                "result": None,
                "error": None,
                "updated_at": now,
            }
            found = conn.execute(select(analyses.c.status).where(self._key(game_id, seat)))
            if found.first() is None:
                # Two processes inserting at once (PostgreSQL): one insert fails,
                # the store runs that job again alone, and it finds the row.
                conn.execute(
                    insert(analyses).values(game_id=game_id, seat=seat, created_at=now, **values)
                )
                return True
            # Someone has the row: take it over only if it failed or went stale
            # (the condition in the UPDATE makes the takeover itself atomic).
            taken = conn.execute(
                update(analyses)
                .where(
                    self._key(game_id, seat),
                    (analyses.c.status == "failed")
                    | ((analyses.c.status == "running") & (analyses.c.updated_at < now - stale)),
                )
                .values(**values)
            )
            return bool(taken.rowcount)

        return await self.store.call(job)

    async def progress(self, game_id: int, seat: int, owner: str, done: int, total: int) -> None:
        def job(conn: Connection) -> None:
            conn.execute(
                update(analyses)
                .where(self._key(game_id, seat), analyses.c.owner == owner)
                .where(analyses.c.status == "running")
                .values(done=done, total=total, updated_at=time.time())
            )

        await self.store.call(job)

    async def finish(self, game_id: int, seat: int, owner: str, result: dict[str, Any]) -> None:
        text = json.dumps(result, separators=(",", ":"))

        def job(conn: Connection) -> None:
            conn.execute(
                update(analyses)
                .where(self._key(game_id, seat), analyses.c.owner == owner)
                .where(analyses.c.status == "running")
                .values(status="done", result=text, done=analyses.c.total, updated_at=time.time())
            )

        await self.store.call(job)

    async def fail(self, game_id: int, seat: int, owner: str, error: str) -> None:
        def job(conn: Connection) -> None:
            conn.execute(
                update(analyses)
                .where(self._key(game_id, seat), analyses.c.owner == owner)
                .where(analyses.c.status == "running")
                .values(status="failed", error=error[:500], updated_at=time.time())
            )

        await self.store.call(job)
