"""The database's tables: the shape the newest migration leaves.

Why a module of its own: the store (:mod:`.store`) is how the server reads and
writes; this is what the database holds.  Every table of the server is here,
including the Telegram players' (filled only when Telegram is on), so the
schema is the same whichever features a process runs with.  The tables are
made and changed by Alembic migrations only (:mod:`.migrate`, ``migrations/``):
a change here comes with a new revision (a test checks they agree).
"""

from __future__ import annotations

from typing import Any

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
    UniqueConstraint,
    delete,
    false,
    insert,
)

metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("name", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
    #: The profile (issue 26): a short random id for the public page, the
    #: avatar's id (players.ids.AVATARS; None: the default) and the language.
    Column("public_id", String(16)),
    Column("avatar", String(24)),
    Column("lang", String(8)),
    #: A bot account (issue 28, docs/bot-api.md): a program, not a person; and
    #: its name case-folded (unique: hosts challenge bots by name), None for people.
    Column("bot", Boolean, nullable=False, default=False, server_default=false()),
    Column("bot_name", String(64)),
    Index("players_public_id", "public_id", unique=True),
    Index("players_bot_name", "bot_name", unique=True),
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
    #: A bot made this move for its seat (the timeout bot, or for a person who
    #: is away or left); None in games from before candies: counted as the person's.
    Column("auto", Boolean),
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

#: Post-game analyses (issue 27), one row per finished game and seat: claimed
#: by the process that computes it (``status`` running, ``owner``, progress in
#: ``done``/``total``, refreshed in ``updated_at``), then its result once.  Any
#: process of a cluster reads it; a claim whose owner stopped refreshing it is
#: taken over (:mod:`.analyses`).
analyses = Table(
    "analyses",
    metadata,
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    #: running | done | failed
    Column("status", String(16), nullable=False),
    Column("owner", String(64), nullable=False),
    Column("done", Integer, nullable=False, default=0),
    Column("total", Integer, nullable=False, default=0),
    Column("budget", Integer, nullable=False),
    Column("seed", Integer, nullable=False),
    #: The seat's analysis as JSON (``kozyr analyse --json``'s seat object).
    Column("result", Text),
    Column("error", Text),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
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


#: Candies, a ledger (issue 26, docs/players.md): one row per person per
#: finished game they sat in (an amount of 0 says why nothing was paid), written
#: in the transaction that finishes the game; unique, so granted exactly once.
candy_grants = Table(
    "candy_grants",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player", String(64), nullable=False),
    Column("game_id", Integer, nullable=False),
    Column("amount", Integer, nullable=False),
    #: friends_win, computer_draw, ... or why nothing: too_short, cap_reached, ...
    Column("reason", String(24), nullable=False),
    #: Cut down by the daily cap.
    Column("capped", Boolean, nullable=False, default=False, server_default=false()),
    #: The UTC day the grant counts against (the daily cap), as 2026-12-01.
    Column("day", String(10), nullable=False),
    Column("at", Float, nullable=False),
    UniqueConstraint("player", "game_id", name="candy_grants_once"),
    Index("candy_grants_player_day", "player", "day"),
)

#: Each person's rating per variant (OpenSkill Plackett-Luce: mean and sigma).
ratings = Table(
    "ratings",
    metadata,
    Column("player", String(64), primary_key=True),
    Column("variant", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
    Index("ratings_board", "variant", "mu"),
)

#: Every seat of every finished game (people and bots): the game history.
game_seats = Table(
    "game_seats",
    metadata,
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    #: The person's key (None: a bot, or a profile erased since).
    Column("player", String(64)),
    Column("bot_level", Integer),
    #: win | loss | draw, from this seat's side
    Column("outcome", String(8), nullable=False),
    Column("variant", String(16), nullable=False),
    Column("moves", Integer, nullable=False),
    Column("ended_at", Float, nullable=False),
    Column("candies", Integer),
    #: The rating's mean before and after (None: not rated).
    Column("rating_before", Float),
    Column("rating_after", Float),
    Index("game_seats_history", "player", "ended_at", "game_id"),
)

#: One-time codes that move a profile to another device (10 minutes, used once).
transfer_codes = Table(
    "transfer_codes",
    metadata,
    #: SHA-256 of the code (the code itself is never stored).
    Column("code", String(64), primary_key=True),
    Column("player", String(64), nullable=False, index=True),
    #: The token, encrypted with a key derived from the code.
    Column("secret", String(256), nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("used", Boolean, nullable=False, default=False),
)

#: Puzzles (issue 27 §5, docs/puzzles.md): a row per player and puzzle tried
#: with a token: whether a wrong move was ever made on it, and when it was solved.
puzzle_tries = Table(
    "puzzle_tries",
    metadata,
    Column("player", String(64), primary_key=True),
    Column("puzzle", String(40), primary_key=True),
    Column("failed", Boolean, nullable=False, default=False, server_default=false()),
    Column("solved_at", Float),
    Column("first_at", Float, nullable=False),
)

#: Puzzles solved in a row without a wrong move (now and the best so far).
puzzle_streaks = Table(
    "puzzle_streaks",
    metadata,
    Column("player", String(64), primary_key=True),
    Column("streak", Integer, nullable=False),
    Column("best", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)


def seated_keys(data: dict[str, Any]) -> list[str]:
    """The keys of the people in a room's stored ``data``: seated, or watching
    (a spectator reconnecting through any process of a cluster finds the room
    by this index too)."""
    people = [*data.get("seats", []), *data.get("spectators", [])]
    return sorted({s["player"] for s in people if isinstance(s, dict) and s.get("player")})


def set_seats(conn: Connection, code: str, keys: list[str]) -> None:
    """Make ``room_seats`` list exactly ``keys`` as seated in room ``code``."""
    conn.execute(delete(room_seats).where(room_seats.c.room == code))
    if keys:
        conn.execute(insert(room_seats), [{"room": code, "player": k} for k in keys])
