"""The schema as it was before Alembic (commit ab91f77): the baseline revision.

Why frozen here: the first migration (``migrations/versions/0001_baseline.py``)
creates exactly these tables, and a database made before Alembic (tables but no
``alembic_version``) is brought up to them and stamped as that revision
(:mod:`.migrate`).  Never edit this file: a change of shape is a new migration.
"""

from __future__ import annotations

import json

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    insert,
    inspect,
    select,
    text,
)

metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("name", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
)

rooms = Table(
    "rooms",
    metadata,
    Column("code", String(40), primary_key=True),
    Column("state", String(16), nullable=False),
    Column("closed", Boolean, nullable=False, default=False),
    #: Room settings and seats as JSON (see rooms.Room.to_store).
    Column("data", Text, nullable=False),
    Column("updated_at", Float, nullable=False),
    #: Cluster mode: the highest fencing token that wrote this room (a write
    #: with a lower one is refused), and the position in the room's inbox
    #: stream up to which messages are applied (docs/architecture.md).
    Column("fence", Integer, nullable=False, default=0, server_default="0"),
    Column("inbox_pos", String(40)),
)

#: Who is in which open room, one row per seated or watching person: the index that
#: finds a player's room at ``hello`` on any process of a cluster (kept by
#: ``save_room`` in the room's own transaction; a closed room has no rows).
room_seats = Table(
    "room_seats",
    metadata,
    Column("room", String(40), primary_key=True),
    Column("player", String(64), primary_key=True),
    Index("room_seats_player", "player"),
)

games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(40), nullable=False, index=True),
    Column("game_no", Integer, nullable=False),
    Column("base_version", Integer, nullable=False),
    #: GameRecord JSON: the header while playing, the whole record once finished.
    Column("record", Text, nullable=False),
    #: playing | finished | abandoned
    Column("status", String(16), nullable=False),
    Column("result", Text),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float),
)

moves = Table(
    "moves",
    metadata,
    Column("game_id", Integer, primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("action", Text, nullable=False),
    Column("at", Float, nullable=False),
)

results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", Integer, nullable=False),
    Column("player", String(64), nullable=False, index=True),
    Column("name", String(32), nullable=False),
    Column("level", Integer, nullable=False),
    #: win | loss | draw
    Column("outcome", String(8), nullable=False),
    Column("at", Float, nullable=False),
)

#: One row per Telegram user who opened the Mini App or used the bot
#: (kozyr.telegram.login fills it; docs/telegram.md).
telegram_users = Table(
    "telegram_users",
    metadata,
    Column("tg_id", BigInteger, primary_key=True, autoincrement=False),
    #: The player's key (hash of the derived token), as in ``players.key``.
    Column("player", String(64), nullable=False, index=True),
    Column("name", String(64), nullable=False),
    #: en | ru | zh | ja, from the user's Telegram language.
    Column("lang", String(8), nullable=False),
    #: "Your turn" messages wanted (the user can turn them off).
    Column("nudges", Boolean, nullable=False, default=True),
    #: The Auto ladder as JSON {"level", "games"}, null until the first Auto game.
    Column("auto", Text),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
)


#: The tables the Telegram bot opened (kozyr.telegram.tables fills it): a group's
#: table message, kept up to date, and the last game whose result was posted.
#: In the database, so a table outlives a restart of every process of a cluster.
telegram_tables = Table(
    "telegram_tables",
    metadata,
    Column("room", String(40), primary_key=True),
    Column("chat_id", BigInteger, nullable=False),
    Column("lang", String(8), nullable=False),
    #: A group's table (True), or a table opened in one person's chat.
    Column("grp", Boolean, nullable=False),
    Column("message_id", BigInteger),
    Column("last_text", Text, nullable=False, default=""),
    #: The last game number whose result was posted (claimed before it is sent:
    #: a result is posted at most once, whichever process runs the bot).
    Column("posted_game", Integer, nullable=False, default=0),
    Column("created_at", Float, nullable=False),
)


def bring_up_legacy(conn: Connection) -> None:
    """A database made before Alembic (by any earlier version of the server):
    add what the server's old start-up code would have added (missing tables,
    the seat index filled once, the cluster's ``fence`` and ``inbox_pos``), so it
    is exactly the baseline before it is stamped."""
    had_seats = inspect(conn).has_table("room_seats")
    metadata.create_all(conn)
    if not had_seats:
        for code, data in conn.execute(
            select(rooms.c.code, rooms.c.data).where(rooms.c.closed.is_(False))
        ).all():
            found = json.loads(data)
            people = [*found.get("seats", []), *found.get("spectators", [])]
            keys = sorted({s["player"] for s in people if isinstance(s, dict) and s.get("player")})
            conn.execute(delete(room_seats).where(room_seats.c.room == code))
            if keys:
                conn.execute(insert(room_seats), [{"room": code, "player": k} for k in keys])
    have = {c["name"] for c in inspect(conn).get_columns("rooms")}
    if "fence" not in have:
        conn.execute(text("ALTER TABLE rooms ADD COLUMN fence INTEGER NOT NULL DEFAULT 0"))
    if "inbox_pos" not in have:
        conn.execute(text("ALTER TABLE rooms ADD COLUMN inbox_pos VARCHAR(40)"))
