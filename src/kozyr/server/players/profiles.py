"""Profiles: what ``/api/me``, ``/api/players/{id}`` and the leaderboard show,
transfer codes, and erasing a profile.  Each function is a store job
(``fn(conn)``, run on the store's thread in one transaction).

A profile is the ``players`` row of a token's hash: nothing to sign up for.  A
Telegram user's is the row of the token their Mini App login derives.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update

from ..storage.schema import (
    candy_grants,
    game_seats,
    games,
    players,
    puzzle_streaks,
    puzzle_tries,
    ratings,
    results,
    telegram_users,
    transfer_codes,
)
from .candies import candy_day
from .history import DELETED, games_of, iso
from .ids import DEFAULT_AVATAR, new_public_id
from .ratings import PROVISIONAL_GAMES, VARIANTS, Skill

#: A transfer code lives this long (seconds), and is used once.
TRANSFER_TTL = 600.0
#: Rating points kept for a public page's graph, per variant (the newest).
GRAPH_POINTS = 100


_PLAYER = select(players).where(players.c.key == bindparam("key"))
_BOARD = (
    select(ratings.c.mu, ratings.c.games, players.c.public_id, players.c.name, players.c.avatar)
    .join(players, players.c.key == ratings.c.player)
    .where(
        ratings.c.variant == bindparam("variant"),
        ratings.c.games >= PROVISIONAL_GAMES,
    )
    .order_by(ratings.c.mu.desc(), ratings.c.player)
    .limit(bindparam("n"))
)


def _row(conn: Connection, key: str) -> Any:
    return conn.execute(_PLAYER, {"key": key}).first()


def ensure_public_id(conn: Connection, key: str, row: Any) -> str:
    """The player's public id, made now for a row that has none yet."""
    if row.public_id:
        return str(row.public_id)
    public_id = new_public_id()
    conn.execute(update(players).where(players.c.key == key).values(public_id=public_id))
    return public_id


def ratings_of(conn: Connection, key: str) -> dict[str, dict[str, Any]]:
    found = {
        r.variant: Skill(float(r.mu), float(r.sigma), int(r.games))
        for r in conn.execute(select(ratings).where(ratings.c.player == key)).all()
    }
    out = {}
    for variant in VARIANTS:
        skill = found.get(variant, Skill())
        out[variant] = {
            "rating": skill.shown,
            "games": skill.games,
            "provisional": skill.provisional,
        }
    return out


def candies_of(conn: Connection, key: str, cap: int, now: float | None = None) -> dict[str, int]:
    cg = candy_grants.c
    balance = conn.execute(
        select(func.coalesce(func.sum(cg.amount), 0)).where(cg.player == key)
    ).scalar_one()
    today = conn.execute(
        select(func.coalesce(func.sum(cg.amount), 0)).where(
            cg.player == key, cg.day == candy_day(now)
        )
    ).scalar_one()
    return {"balance": int(balance), "today": int(today), "daily_cap": cap}


def levels_of(conn: Connection, key: str) -> dict[str, dict[str, int]]:
    """Today's per-level record against the computer (``GET /api/me/results``)."""
    rows = conn.execute(
        select(results.c.level, results.c.outcome, func.count())
        .where(results.c.player == key)
        .group_by(results.c.level, results.c.outcome)
    ).all()
    out: dict[int, dict[str, int]] = {}
    for level, outcome, n in rows:
        entry = out.setdefault(int(level), {"games": 0, "win": 0, "loss": 0, "draw": 0})
        entry["games"] += int(n)
        entry[str(outcome)] = entry.get(str(outcome), 0) + int(n)
    return {str(k): v for k, v in sorted(out.items())}


def games_played(conn: Connection, key: str) -> int:
    return int(
        conn.execute(
            select(func.count()).select_from(game_seats).where(game_seats.c.player == key)
        ).scalar_one()
    )


def my_profile(conn: Connection, key: str, cap: int) -> dict[str, Any] | None:
    """``GET /api/me``: the whole profile (None: the token is unknown)."""
    row = _row(conn, key)
    if row is None:
        return None
    lang = row.lang
    if lang is None:  # a Telegram player's language is their Telegram one until chosen
        lang = conn.execute(
            select(telegram_users.c.lang).where(telegram_users.c.player == key).limit(1)
        ).scalar()
    return {
        "public_id": ensure_public_id(conn, key, row),
        "name": row.name,
        "avatar": row.avatar or DEFAULT_AVATAR,
        "lang": lang,
        "joined": iso(float(row.created_at)),
        "games": games_played(conn, key),
        "candies": candies_of(conn, key, cap),
        "ratings": ratings_of(conn, key),
        "levels": levels_of(conn, key),
    }


def key_of_public(conn: Connection, public_id: str) -> str | None:
    found = conn.execute(select(players.c.key).where(players.c.public_id == public_id)).first()
    return None if found is None else str(found[0])


def public_profile(conn: Connection, public_id: str) -> dict[str, Any] | None:
    """``GET /api/players/{public_id}``: name, avatar, date joined, games
    played, ratings with their graphs, recent games; nothing private (no
    token, no key, no candies, no language, no record against the computer)."""
    row = conn.execute(select(players).where(players.c.public_id == public_id)).first()
    if row is None:
        return None
    key = str(row.key)
    gs = game_seats.c
    graph: dict[str, list[dict[str, Any]]] = {}
    for variant in VARIANTS:
        points = conn.execute(
            select(gs.ended_at, gs.rating_after)
            .where(gs.player == key, gs.variant == variant, gs.rating_after.is_not(None))
            .order_by(gs.ended_at.desc(), gs.game_id.desc())
            .limit(GRAPH_POINTS)
        ).all()
        graph[variant] = [{"at": iso(float(a)), "rating": round(r)} for a, r in reversed(points)]
    return {
        "public_id": public_id,
        "name": row.name,
        "avatar": row.avatar or DEFAULT_AVATAR,
        "joined": iso(float(row.created_at)),
        "games": games_played(conn, key),
        "ratings": ratings_of(conn, key),
        "graph": graph,
        "recent": games_of(conn, key, 10, None, public=True)["games"],
    }


def update_profile(
    conn: Connection, key: str, name: str | None, avatar: str | None, lang: str | None
) -> bool:
    values: dict[str, Any] = {}
    if name is not None:
        values["name"] = name
    if avatar is not None:
        values["avatar"] = avatar
    if lang is not None:
        values["lang"] = lang
    if not values:
        return _row(conn, key) is not None
    return bool(conn.execute(update(players).where(players.c.key == key).values(**values)).rowcount)


def leaderboard(conn: Connection, variant: str, limit: int) -> list[dict[str, Any]]:
    """The best players of a variant who are not provisional, by rating."""
    rows = conn.execute(_BOARD, {"variant": variant, "n": limit}).all()
    return [
        {
            "rank": i + 1,
            "public_id": r.public_id,
            "name": r.name,
            "avatar": r.avatar or DEFAULT_AVATAR,
            "rating": round(r.mu),
            "games": int(r.games),
        }
        for i, r in enumerate(rows)
    ]


# ------------------------------------------------------------ transfer codes
def _code_hash(code: str) -> str:
    return hashlib.sha256(f"kozyr-transfer:{code}".encode()).hexdigest()


def _keystream(code: str, salt: bytes, size: int) -> bytes:
    return hashlib.shake_256(b"kozyr-transfer-key\0" + code.encode() + salt).digest(size)


def seal(token: str, code: str) -> str:
    """The token as stored with its code: encrypted with a key derived from the
    code (which is never stored), so the table alone gives no token."""
    salt = secrets.token_bytes(16)
    raw = token.encode()
    body = bytes(a ^ b for a, b in zip(raw, _keystream(code, salt, len(raw)), strict=True))
    return (salt + body).hex()


def unseal(sealed: str, code: str) -> str:
    data = bytes.fromhex(sealed)
    salt, body = data[:16], data[16:]
    stream = _keystream(code, salt, len(body))
    return bytes(a ^ b for a, b in zip(body, stream, strict=True)).decode(errors="replace")


def create_transfer(conn: Connection, key: str, token: str, code: str, now: float) -> bool:
    """Keep ``code`` for the player's token (their earlier codes stop working)."""
    if _row(conn, key) is None:
        return False
    tc = transfer_codes.c
    conn.execute(delete(transfer_codes).where((tc.player == key) | (tc.expires_at < now - 86400)))
    conn.execute(
        insert(transfer_codes).values(
            code=_code_hash(code), player=key, secret=seal(token, code),
            expires_at=now + TRANSFER_TTL, used=False,
        )
    )  # fmt: skip
    return True


def claim_transfer(conn: Connection, code: str, now: float) -> tuple[str, str | None]:
    """(``ok``, token) or (error code, None): ``unknown_code``, ``code_used``,
    ``code_expired``.  A code works once."""
    tc = transfer_codes.c
    row = conn.execute(select(transfer_codes).where(tc.code == _code_hash(code))).first()
    if row is None:
        return "unknown_code", None
    if row.used:
        return "code_used", None
    if row.expires_at < now:
        return "code_expired", None
    done = conn.execute(
        update(transfer_codes).where(tc.code == row.code, tc.used.is_(False)).values(used=True)
    )
    if done.rowcount != 1:  # claimed by another process meanwhile
        return "code_used", None
    if _row(conn, str(row.player)) is None:  # the profile was deleted since
        return "unknown_code", None
    return "ok", unseal(str(row.secret), code)


# ------------------------------------------------------------ erasing
def delete_profile(conn: Connection, key: str) -> bool:
    """Erase a profile: its name, avatar, candies, ratings, record against the
    computer, puzzle progress, transfer codes and Telegram binding.  In other
    people's histories its seats become "deleted player"; the records of
    finished games stay replayable (the name in them is replaced)."""
    if _row(conn, key) is None:
        return False
    gs = game_seats.c
    played = conn.execute(select(gs.game_id, gs.seat).where(gs.player == key)).all()
    for game_id, seat in played:
        found = conn.execute(select(games.c.record).where(games.c.id == game_id)).first()
        if found is None:
            continue
        record = json.loads(found[0])
        names = (record.get("meta") or {}).get("players")
        if isinstance(names, list) and 0 <= seat < len(names):
            names[seat] = DELETED
            text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
            conn.execute(update(games).where(games.c.id == game_id).values(record=text))
    conn.execute(update(game_seats).where(gs.player == key).values(player=None))
    for table in (candy_grants, ratings, results, transfer_codes, telegram_users,
                  puzzle_tries, puzzle_streaks):  # fmt: skip
        conn.execute(delete(table).where(table.c.player == key))
    conn.execute(delete(players).where(players.c.key == key))
    return True


def now() -> float:
    return time.time()


def key_exists(conn: Connection, key: str) -> bool:
    return _row(conn, key) is not None
