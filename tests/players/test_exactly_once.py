"""Exactly once across an owner failover: the grant and the rating are written
in the transaction that finishes the game, after the room's fencing token is
checked in it.  A process that lost the room (its token is no longer the newest)
is refused as a whole, and the new owner's finish grants once however often it
runs (a real Store, on SQLite and on PostgreSQL)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from kozyr.server.players.settle import GameFacts, SeatFacts, settle
from kozyr.server.storage.schema import candy_grants, game_seats, ratings, results
from kozyr.server.storage.store import Fence, Fenced, Store

from ..server.services import PgCluster


def _facts(game_id: int) -> GameFacts:
    return GameFacts(
        game_id=game_id, variant="podkidnoy", action_seats=[i % 2 for i in range(20)],
        seats=[SeatFacts(0, "anna"), SeatFacts(1, "boris")], durak=1, losers=(1,),
        rated=True, cap=300,
    )  # fmt: skip


async def _failover(url: str) -> None:
    store = Store(url)
    store.start()
    try:
        store.save_room("R1", "playing", {"seats": [], "state": "playing"})
        gid = await store.create_game("R1", 1, 0, {"meta": {}})
        for i in range(20):  # the moves, the bot flags read back by settle
            await store.add_move(gid, i, {"seat": i % 2, "type": "pass"}, auto=False)
        first = await store.claim_room("R1")
        second = await store.claim_room("R1")  # another process takes the room over
        assert first is not None and second is not None
        old, new = Fence("R1", first[0]), Fence("R1", second[0])
        facts = _facts(gid)

        def settled(conn: Any, now: float) -> dict[str, Any]:
            facts.ended_at = now
            return settle(conn, facts)

        record = {"result": {"durak": 1}, "actions": []}
        outcomes = [("anna", "anna", 1, "win")]
        with pytest.raises(Fenced):
            await store.finish_game(gid, record, "finished", outcomes, old, settled)
        assert await _count(store, candy_grants) == 0
        awards = await store.finish_game(gid, record, "finished", outcomes, new, settled)
        assert awards is not None and awards["anna"]["candies"]["amount"] == 15
        again = await store.finish_game(gid, record, "finished", outcomes, new, settled)
        assert again == awards
        with pytest.raises(Fenced):  # the old owner, late, still changes nothing
            await store.finish_game(gid, record, "finished", outcomes, old, settled)
        assert await _count(store, candy_grants) == 2
        assert await _count(store, game_seats) == 2
        assert await _count(store, results) == 1
        games = await store.call(lambda c: [r.games for r in c.execute(select(ratings)).all()])
        assert games == [1, 1]
    finally:
        store.close()


async def _count(store: Store, table: Any) -> int:
    return int(await store.call(lambda c: c.execute(select(func.count()).select_from(table))
                                .scalar_one()))  # fmt: skip


def test_failover_grants_once_sqlite(tmp_path: Path) -> None:
    asyncio.run(_failover(f"sqlite:///{tmp_path / 'f.db'}"))


def test_failover_grants_once_postgres(pg: PgCluster) -> None:
    asyncio.run(_failover(pg.new_database("kozyr_failover")))
