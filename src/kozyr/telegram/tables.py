"""The bot's tables in the database (``telegram_tables``), and the finished
games it reports.

Why in the database: a group's ``/durak`` table must outlive the bot's
process, and in a cluster the bot may run on any process; the table's message
and the last result posted move with it.  Posting a result first *claims* it
with a conditional update, so it is posted once whichever process runs the bot.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from kozyr.server.players.history import DELETED
from kozyr.server.storage.schema import game_seats, games, players, telegram_tables
from kozyr.server.tables.lobby import Hub


@dataclass
class Table:
    """A table the bot opened: in a group (its message is kept up to date and
    results are posted there) or for one person (an invite in their chat)."""

    room: str
    chat_id: int
    lang: str
    group: bool
    message_id: int | None = None
    last_text: str = ""
    posted_game: int = 0


async def load_all(hub: Hub) -> dict[str, Table]:
    def job(conn: Connection) -> dict[str, Table]:
        rows = conn.execute(select(telegram_tables)).mappings().all()
        return {
            str(r["room"]): Table(
                str(r["room"]), int(r["chat_id"]), str(r["lang"]), bool(r["grp"]),
                None if r["message_id"] is None else int(r["message_id"]),
                str(r["last_text"] or ""), int(r["posted_game"] or 0),
            )
            for r in rows
        }  # fmt: skip

    return await hub.store.call(job, read_only=True)


async def add(hub: Hub, table: Table) -> None:
    def job(conn: Connection) -> None:
        conn.execute(delete(telegram_tables).where(telegram_tables.c.room == table.room))
        conn.execute(
            insert(telegram_tables).values(
                room=table.room, chat_id=table.chat_id, lang=table.lang, grp=table.group,
                message_id=table.message_id, last_text=table.last_text,
                posted_game=table.posted_game, created_at=time.time(),
            )
        )  # fmt: skip

    await hub.store.call(job)


async def save_message(hub: Hub, table: Table) -> None:
    """The table's message id and the text it shows now."""

    def job(conn: Connection) -> None:
        conn.execute(
            update(telegram_tables)
            .where(telegram_tables.c.room == table.room)
            .values(message_id=table.message_id, last_text=table.last_text)
        )

    await hub.store.call(job)


async def claim_post(hub: Hub, room: str, game: int) -> bool:
    """True if the result of ``game`` at ``room`` is ours to post (nobody
    posted it or a later one); the claim is stored at once."""

    def job(conn: Connection) -> bool:
        done = conn.execute(
            update(telegram_tables)
            .where(telegram_tables.c.room == room, telegram_tables.c.posted_game < game)
            .values(posted_game=game)
        )
        return bool(done.rowcount)

    return await hub.store.call(job)


async def remove(hub: Hub, room: str) -> None:
    def job(conn: Connection) -> None:
        conn.execute(delete(telegram_tables).where(telegram_tables.c.room == room))

    await hub.store.call(job)


@dataclass
class Finished:
    """What a result message says of a finished game."""

    durak: int | None
    durak_name: str | None  # None: a bot, or a draw
    pogony: bool
    #: What each person earned, in seat order: (name, candies, rating before,
    #: rating after; None when unrated).
    earned: list[tuple[str, int, int | None, int | None]] = field(default_factory=list)


async def finished_game(hub: Hub, room: str, game: int) -> Finished | None:
    """Game ``game`` of ``room`` as stored when it finished (None if it did not)."""

    def job(conn: Connection) -> tuple[str, list[Any]] | None:
        found = conn.execute(
            select(games.c.id, games.c.record)
            .where(games.c.room == room, games.c.game_no == game, games.c.status == "finished")
            .limit(1)
        ).first()
        if found is None:
            return None
        seats = conn.execute(
            select(
                players.c.name,
                game_seats.c.candies,
                game_seats.c.rating_before,
                game_seats.c.rating_after,
            )
            .select_from(game_seats)
            .outerjoin(players, players.c.key == game_seats.c.player)
            .where(game_seats.c.game_id == found[0], game_seats.c.candies.is_not(None))
            .order_by(game_seats.c.seat)
        ).all()
        return str(found[1]), list(seats)

    answer = await hub.store.call(job, read_only=True)
    if answer is None:
        return None
    raw, seats = answer
    earned = [
        (
            str(name) if name is not None else DELETED,
            int(candies or 0),
            None if before is None else round(before),
            None if after is None else round(after),
        )
        for name, candies, before, after in seats
    ]
    record = json.loads(raw)
    result = record.get("result") or {}
    durak = result.get("durak")
    names = (record.get("meta") or {}).get("players") or []
    name = names[durak] if durak is not None and durak < len(names) else None
    if isinstance(name, str) and name.startswith("bot level "):
        name = None
    return Finished(durak, name, bool(result.get("pogony")), earned)
