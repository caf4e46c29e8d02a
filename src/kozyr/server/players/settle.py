"""Settling a finished game: history rows, candy grants, ratings, all at once.

:func:`settle` runs on the store's thread inside the transaction that stores the
finished game (``Store.finish_game``), after the room's fencing token was checked
in it.  So a grant and a rating change commit together with the game or not at
all: a kill -9 before the commit leaves the game unfinished (the restarted
server finishes it again), and a process that lost the room is refused as a
whole.  Settling twice is harmless: once the game has its ``game_seats`` rows,
:func:`settle` only reads back what was granted (and ``candy_grants`` is
unique per player and game besides).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, func, insert, select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ..storage.schema import candy_grants, game_seats, moves, players, ratings
from .candies import MIN_MOVES, Grant, candy_day, grant_for
from .ratings import Skill, rate


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """One seat at the end of a game: its person (``key``; a person who left
    during the game too, with ``left``) or its bot's level."""

    seat: int
    key: str | None
    bot_level: int | None = None
    left: bool = False
    #: Hints the person used in this game (issue 27): any hint and it pays nothing.
    hints: int = 0


@dataclass(slots=True)
class GameFacts:
    """What settling needs to know of a finished game."""

    game_id: int
    variant: str
    #: The seat of each action in the record, in order.
    action_seats: list[int]
    seats: list[SeatFacts]
    #: The durak's seat (None: a draw) and the seats that lose with it (its team).
    durak: int | None
    losers: tuple[int, ...] = ()
    #: Number of teams (0: everyone plays alone); a seat's team is seat % teams.
    teams: int = 0
    rated: bool = False
    #: Rate bot accounts' seats too (the room says so; docs/bot-api.md).
    rate_bots: bool = False
    cap: int = 300
    ended_at: float = 0.0
    #: Per action: a bot made it (the timeout bot, or a bot for an absent person);
    #: None: read from the stored moves (their ``auto`` column).
    auto: list[bool] | None = field(default=None)

    @property
    def moves(self) -> int:
        return len(self.action_seats)

    def outcome(self, seat: SeatFacts) -> str:
        """win, loss or draw, from the seat's side (a leaver lost)."""
        if seat.left:
            return "loss"
        if self.durak is None:
            return "draw"
        return "loss" if seat.seat == self.durak or seat.seat in self.losers else "win"


# The statements, built once: SQLAlchemy's per-statement work (building, cache
# keys) cost more than the database's for these small statements.
_SETTLED = (
    select(func.count()).select_from(game_seats).where(game_seats.c.game_id == bindparam("g"))
)
_AUTO = (
    select(moves.c.idx, moves.c.auto).where(moves.c.game_id == bindparam("g")).order_by(moves.c.idx)
)
_GRANT = insert(candy_grants)
_SEATS = insert(game_seats)
#: Everything settling reads of its people, in one statement (each statement
#: costs more CPU than the rows it reads): whether the game was settled
#: already, and per key its bot flag, its rating in the variant and what it
#: earned today.
_TODAY_SUM = (
    select(func.coalesce(func.sum(candy_grants.c.amount), 0))
    .where(candy_grants.c.player == players.c.key, candy_grants.c.day == bindparam("day"))
    .scalar_subquery()
)
_PEOPLE = (
    select(
        _SETTLED.scalar_subquery().label("settled"),
        players.c.key,
        players.c.bot,
        ratings.c.mu,
        ratings.c.sigma,
        ratings.c.games,
        _TODAY_SUM.label("today"),
    )
    .select_from(
        players.outerjoin(
            ratings,
            (ratings.c.player == players.c.key) & (ratings.c.variant == bindparam("variant")),
        )
    )
    .where(players.c.key.in_(bindparam("keys", expanding=True)))
    .order_by(players.c.key)
)
#: PostgreSQL first locks the people's rows (in key order, so two games never
#: wait on each other in a circle): two games of one person settle in turn,
#: even before a rating row exists.  A statement of its own: the read after it
#: takes a new snapshot (READ COMMITTED), so it sees what the game that held
#: the locks committed; a locking read would see its ratings as they were when
#: it began to wait (tests/players/test_settle.py, "in turn").  PostgreSQL's
#: statements go to the driver as they are (``exec_driver_sql``, an array for
#: the keys): a finished game's settling is on the server's hot path, and
#: SQLAlchemy's per-statement work cost more CPU than the driver's.
_LOCK_PEOPLE_PG = "SELECT key FROM players WHERE key = ANY(%(keys)s) ORDER BY key FOR UPDATE"
#: _PEOPLE, written for PostgreSQL's driver.
_PEOPLE_PG = """
SELECT (SELECT count(*) FROM game_seats WHERE game_id = %(g)s) AS settled,
       p.key, p.bot, r.mu, r.sigma, r.games,
       (SELECT coalesce(sum(c.amount), 0) FROM candy_grants AS c
        WHERE c.player = p.key AND c.day = %(day)s) AS today
FROM players AS p
LEFT JOIN ratings AS r ON r.player = p.key AND r.variant = %(variant)s
WHERE p.key = ANY(%(keys)s)
ORDER BY p.key
"""
_RATING_COLUMNS = ("mu", "sigma", "games", "updated_at")


@dataclass(frozen=True, slots=True)
class Known:
    """What the store knows of one person when a game of theirs is settled."""

    bot: bool = False
    skill: Skill | None = None
    today: int = 0


def read_people(conn: Connection, facts: GameFacts) -> tuple[bool, dict[str, Known]]:
    """(the game is settled already, what is known of each seat's key): one
    statement (and the lock before it on PostgreSQL); a key without a profile
    row is a person with nothing yet."""
    keys = [s.key for s in facts.seats if s.key is not None]
    if not keys:
        return bool(conn.execute(_SETTLED, {"g": facts.game_id}).scalar_one()), {}
    params = {"g": facts.game_id, "keys": keys, "variant": facts.variant,
              "day": candy_day(facts.ended_at)}  # fmt: skip
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(_LOCK_PEOPLE_PG, {"keys": keys})
        rows = conn.exec_driver_sql(_PEOPLE_PG, params).all()
    else:
        rows = conn.execute(_PEOPLE, params).all()
    if not rows:
        return bool(conn.execute(_SETTLED, {"g": facts.game_id}).scalar_one()), {}
    known = {
        str(r.key): Known(
            bool(r.bot),
            None if r.mu is None else Skill(float(r.mu), float(r.sigma), int(r.games)),
            int(r.today or 0),
        )
        for r in rows
    }
    return bool(rows[0].settled), known


def _sqlite_upsert() -> Any:
    """INSERT ... ON CONFLICT (player, variant) DO UPDATE: one statement for new
    and known ratings alike (PostgreSQL's is inside _WRITE_POSTGRES)."""
    stmt: Any = sqlite_insert(ratings)
    return stmt.on_conflict_do_update(
        index_elements=[ratings.c.player, ratings.c.variant],
        set_={c: stmt.excluded[c] for c in _RATING_COLUMNS},
    )


_UPSERT_RATINGS = _sqlite_upsert()


def stored_auto(conn: Connection, game_id: int) -> list[bool]:
    """Per stored move of a game: a bot made it (None, from before: the person)."""
    rows = conn.execute(_AUTO, {"g": game_id}).all()
    out = [False] * (rows[-1][0] + 1 if rows else 0)
    for idx, auto in rows:
        out[idx] = bool(auto)
    return out


def settle(conn: Connection, facts: GameFacts) -> dict[str, dict[str, Any]]:
    """Write (once) and return each person's award: ``{key: {"candies": grant
    JSON, "rating": {...} | None}}``."""
    settled, known = read_people(conn, facts)
    if settled:
        return awards_of(conn, facts.game_id)
    auto = facts.auto if facts.auto is not None else stored_auto(conn, facts.game_id)
    bots = {k for k, v in known.items() if v.bot}
    people = [s for s in facts.seats if s.key is not None and s.key not in bots]
    own = [0] * len(facts.seats)
    acted = [0] * len(facts.seats)
    for i, seat in enumerate(facts.action_seats):
        if 0 <= seat < len(acted):
            acted[seat] += 1
            if not (auto[i] if i < len(auto) else False):
                own[seat] += 1
    day = candy_day(facts.ended_at)
    grants: dict[str, Grant] = {}
    rows = []
    for s in people:
        assert s.key is not None
        grant = grant_for(
            people=len(people),
            outcome=facts.outcome(s),
            moves=facts.moves,
            own=own[s.seat],
            actions=acted[s.seat],
            left=s.left,
            hints=s.hints,
            today=known[s.key].today if s.key in known else 0,
            cap=facts.cap,
        )
        grants[s.key] = grant
        rows.append(
            {"player": s.key, "game_id": facts.game_id, "amount": grant.amount,
             "reason": grant.reason, "capped": grant.capped, "day": day, "at": facts.ended_at}
        )  # fmt: skip
    rated = people + [s for s in facts.seats if s.key in bots] if facts.rate_bots else people
    changes, rating_rows = _rate(facts, rated, known)
    seat_rows = [
        {
            "game_id": facts.game_id,
            "seat": s.seat,
            "player": s.key,
            "bot_level": s.bot_level if s.key is None else None,
            "outcome": facts.outcome(s),
            "variant": facts.variant,
            "moves": facts.moves,
            "ended_at": facts.ended_at,
            "candies": grants[s.key].amount if s.key in grants else None,
            "rating_before": changes[s.key][0].mu if s.key in changes else None,
            "rating_after": changes[s.key][1].mu if s.key in changes else None,
        }
        for s in facts.seats
    ]
    if conn.dialect.name == "postgresql":
        _write_postgres(conn, rows, rating_rows, seat_rows)
    else:
        if rows:
            conn.execute(_GRANT, rows)
        if rating_rows:
            conn.execute(_UPSERT_RATINGS, rating_rows)
        conn.execute(_SEATS, seat_rows)
    return {
        key: {
            "candies": grant.to_json(),
            "rating": _rating_json(facts.variant, *changes[key]) if key in changes else None,
        }
        for key, grant in grants.items()
    }


def rated_sides(facts: GameFacts, people: list[SeatFacts]) -> list[tuple[list[str], int]]:
    """The sides of a rated game as (players' keys, rank): each person alone,
    or with their team's other people; rank 1 for every side that is not the
    durak's (a draw: all 1), 2 for the durak's and for anyone who left (alone).
    Empty when the game is not rated: casual, shorter than 16 moves, fewer
    than two people, or fewer than two sides with a person."""
    if not facts.rated or facts.moves < MIN_MOVES or len(people) < 2:
        return []
    sides: dict[Any, list[str]] = {}
    ranks: dict[Any, int] = {}
    for s in people:
        assert s.key is not None
        side: Any = ("left", s.seat) if s.left or not facts.teams else s.seat % facts.teams
        sides.setdefault(side, []).append(s.key)
        ranks[side] = 2 if facts.outcome(s) == "loss" else 1
    if len(sides) < 2:
        return []
    return [(keys, ranks[side]) for side, keys in sides.items()]


def _rate(
    facts: GameFacts, people: list[SeatFacts], known: dict[str, Known]
) -> tuple[dict[str, tuple[Skill, Skill]], list[dict[str, Any]]]:
    """(each rated person's skill before and after, the ``ratings`` rows to write)."""
    sides = rated_sides(facts, people)
    if not sides:
        return {}, []
    before = [[_skill(known.get(k)) for k in side] for side, _ in sides]
    after = rate(before, [rank for _, rank in sides])
    out: dict[str, tuple[Skill, Skill]] = {}
    rows = []
    for (side, _), olds, news in zip(sides, before, after, strict=True):
        for key, old, new in zip(side, olds, news, strict=True):
            out[key] = (old, new)
            rows.append(
                {"player": key, "variant": facts.variant, "mu": new.mu, "sigma": new.sigma,
                 "games": new.games, "updated_at": facts.ended_at}
            )  # fmt: skip
    return out, rows


#: PostgreSQL: the three writes of a settled game in one statement (data-modifying
#: CTEs over JSON arrays of rows): one round trip and one statement of the
#: driver's, whatever the number of people; the rows go as three JSON texts
#: (json.dumps is C, a driver's array of each column is not).  The other stores
#: run the same rows as three executemany calls (SQLite has no round trips).
_WRITE_POSTGRES = """
WITH grants AS (
    INSERT INTO candy_grants (player, game_id, amount, reason, capped, day, at)
    SELECT g.player, %(game_id)s, g.amount, g.reason, g.capped, %(day)s, %(at)s
    FROM json_to_recordset(CAST(%(grants)s AS json))
         AS g(player varchar, amount integer, reason varchar, capped boolean)
), rated AS (
    INSERT INTO ratings (player, variant, mu, sigma, games, updated_at)
    SELECT r.player, %(variant)s, r.mu, r.sigma, r.games, %(at)s
    FROM json_to_recordset(CAST(%(ratings)s AS json))
         AS r(player varchar, mu float8, sigma float8, games integer)
    ON CONFLICT (player, variant) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,
        games = excluded.games, updated_at = excluded.updated_at
)
INSERT INTO game_seats (game_id, seat, player, bot_level, outcome, variant, moves, ended_at,
                        candies, rating_before, rating_after)
SELECT %(game_id)s, s.seat, s.player, s.bot_level, s.outcome, %(variant)s, %(moves)s, %(at)s,
       s.candies, s.rating_before, s.rating_after
FROM json_to_recordset(CAST(%(seats)s AS json))
     AS s(seat integer, player varchar, bot_level integer, outcome varchar, candies integer,
          rating_before float8, rating_after float8)
"""


def _write_postgres(
    conn: Connection,
    grants: list[dict[str, Any]],
    ratings_rows: list[dict[str, Any]],
    seats: list[dict[str, Any]],
) -> None:
    first = seats[0]
    conn.exec_driver_sql(
        _WRITE_POSTGRES,
        {
            "game_id": first["game_id"], "variant": first["variant"], "moves": first["moves"],
            "at": first["ended_at"], "day": grants[0]["day"] if grants else "",
            "grants": json.dumps(grants), "ratings": json.dumps(ratings_rows),
            "seats": json.dumps(seats),
        },
    )  # fmt: skip


def _skill(known: Known | None) -> Skill:
    return known.skill if known is not None and known.skill is not None else Skill()


def _rating_json(variant: str, old: Skill, new: Skill) -> dict[str, Any]:
    return {
        "variant": variant,
        "before": old.shown,
        "after": new.shown,
        "games": new.games,
        "provisional": new.provisional,
    }


def awards_of(conn: Connection, game_id: int) -> dict[str, dict[str, Any]]:
    """The awards of a game already settled (for a resync after a restart)."""
    rows = conn.execute(
        select(
            game_seats.c.player,
            game_seats.c.variant,
            game_seats.c.rating_before,
            game_seats.c.rating_after,
            candy_grants.c.amount,
            candy_grants.c.reason,
            candy_grants.c.capped,
        )
        .select_from(game_seats)
        .outerjoin(
            candy_grants,
            (candy_grants.c.player == game_seats.c.player)
            & (candy_grants.c.game_id == game_seats.c.game_id),
        )
        .where(game_seats.c.game_id == game_id, game_seats.c.player.is_not(None))
    ).all()
    out: dict[str, dict[str, Any]] = {}
    for key, variant, before, after, amount, reason, capped in rows:
        rating = None
        if before is not None and after is not None:
            games = conn.execute(
                select(ratings.c.games).where(ratings.c.player == key, ratings.c.variant == variant)
            ).scalar()
            rating = _rating_json(
                variant, Skill(before), Skill(after, games=int(games or 0))
            )  # the count now: close enough for a resync
        out[str(key)] = {
            "candies": {
                "amount": int(amount or 0),
                "reason": reason or "off",
                "capped": bool(capped),
            },
            "rating": rating,
        }
    return out
