"""Game history: a player's finished games, newest first, a page at a time.

One indexed range scan per page (``game_seats_history``: player, ended_at,
game_id) plus one lookup of the page's other seats.  The cursor is opaque to
clients: the (end time, game id) of the last game of the page, base64url.
"""

from __future__ import annotations

import base64
import binascii
import time
from typing import Any

from sqlalchemy import Connection, and_, bindparam, or_, select

from ..storage.schema import game_seats, players

DELETED = "deleted player"
MAX_LIMIT = 100
DEFAULT_LIMIT = 20


class BadCursor(ValueError):
    """A ``before`` that no page of this API gave out."""


def iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def encode_cursor(ended_at: float, game_id: int) -> str:
    raw = f"{ended_at!r}:{game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str) -> tuple[float, int]:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        at, game = raw.split(":")
        found = float(at), int(game)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadCursor("that cursor was not given out by this server") from None
    if not (found[0] == found[0] and 0 <= found[0] < 1e11 and 0 < found[1] < 2**63):
        raise BadCursor("that cursor was not given out by this server")
    return found


# Built once (SQLAlchemy's per-statement work cost more than these small queries).
_gs = game_seats.c
_PAGE = select(
    _gs.game_id, _gs.seat, _gs.outcome, _gs.variant, _gs.moves, _gs.ended_at, _gs.candies,
    _gs.rating_before, _gs.rating_after,
).where(_gs.player == bindparam("key"))  # fmt: skip
_FIRST = _PAGE.order_by(_gs.ended_at.desc(), _gs.game_id.desc()).limit(bindparam("n"))
_AFTER = (
    _PAGE.where(
        or_(
            _gs.ended_at < bindparam("at"),
            and_(_gs.ended_at == bindparam("at"), _gs.game_id < bindparam("game")),
        )
    )
    .order_by(_gs.ended_at.desc(), _gs.game_id.desc())
    .limit(bindparam("n"))
)
_SEATS = (
    select(_gs.game_id, _gs.seat, _gs.bot_level, _gs.player, players.c.name, players.c.public_id)
    .select_from(game_seats)
    .outerjoin(players, players.c.key == _gs.player)
    .where(_gs.game_id.in_(bindparam("games", expanding=True)))
    .order_by(_gs.game_id, _gs.seat)
)


def games_of(
    conn: Connection, key: str, limit: int, before: tuple[float, int] | None, public: bool
) -> dict[str, Any]:
    """``{"games": [...], "next": cursor | None}`` for the player ``key``;
    ``public``: nothing private (the candies of each game are left out)."""
    if before is None:
        found_rows = conn.execute(_FIRST, {"key": key, "n": limit + 1}).all()
    else:
        at, game = before
        params = {"key": key, "n": limit + 1, "at": at, "game": game}
        found_rows = conn.execute(_AFTER, params).all()
    more = len(found_rows) > limit
    rows = found_rows[:limit]
    seats: dict[int, list[dict[str, Any]]] = {}
    if rows:
        found = conn.execute(_SEATS, {"games": [r.game_id for r in rows]}).all()
        for seat_row in found:
            seats.setdefault(int(seat_row.game_id), []).append(seat_json(seat_row))
    games = []
    for r in rows:
        change = None
        if r.rating_before is not None and r.rating_after is not None:
            change = round(r.rating_after) - round(r.rating_before)
        games.append(
            {
                "game_id": int(r.game_id),
                "ended_at": iso(float(r.ended_at)),
                "variant": r.variant,
                "seat": int(r.seat),
                "players": seats.get(int(r.game_id), []),
                "result": r.outcome,
                "moves": int(r.moves),
                "candies": None if public else int(r.candies or 0),
                "rating_change": change,
            }
        )
    last = rows[-1] if rows else None
    cursor = encode_cursor(float(last.ended_at), int(last.game_id)) if more and last else None
    return {"games": games, "next": cursor}


def seat_json(row: Any) -> dict[str, Any]:
    """A seat of a listed game: a bot's level, a person's name and public id,
    or "deleted player" (a profile erased since, or a person who played
    before profiles existed)."""
    if row.player is None and row.bot_level is not None:
        return {"seat": int(row.seat), "bot_level": int(row.bot_level)}
    if row.name is None:
        return {"seat": int(row.seat), "name": DELETED, "public_id": None}
    return {"seat": int(row.seat), "name": str(row.name), "public_id": row.public_id}
