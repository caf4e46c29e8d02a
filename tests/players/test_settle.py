"""Candies and ratings as the transaction that finishes a game writes them
(kozyr.server.players.settle on real SQLite and PostgreSQL databases at the
newest schema):
every row of the candy rules, the 16-move rule, the daily cap, the seat the bot
played, exactly once; ratings' direction, ties, draws, teams, provisional, a
leaver rated as the durak."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine

from kozyr.server.players import candies as c
from kozyr.server.players.profiles import candies_of, ratings_of
from kozyr.server.players.ratings import MU, PROVISIONAL_GAMES
from kozyr.server.players.settle import GameFacts, SeatFacts, settle
from kozyr.server.storage.migrate import upgrade
from kozyr.server.storage.schema import candy_grants, game_seats, players, ratings
from kozyr.server.storage.store import make_engine

_ids = itertools.count(1)
NOW = 1_790_000_000.0


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The newest schema on SQLite, and on PostgreSQL (settling writes there
    with a statement of its own: settle._WRITE_POSTGRES)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'p.db'}"
    else:
        url = request.getfixturevalue("pg").fresh_database("settle")[1]
    engine = make_engine(url)
    upgrade(engine)
    with engine.begin() as conn:
        for key in ("anna", "boris", "vera", "gleb"):
            conn.execute(insert(players).values(key=key, name=key, created_at=1.0))
    yield engine
    engine.dispose()


def facts(
    seats: list[SeatFacts],
    durak: int | None,
    moves: int = 30,
    *,
    rated: bool = True,
    cap: int = 300,
    teams: int = 0,
    losers: tuple[int, ...] = (),
    auto: list[bool] | None = None,
    at: float = NOW,
) -> GameFacts:
    """A finished game: actions go round the seats; ``auto`` says which a bot made."""
    n = len(seats)
    action_seats = [i % n for i in range(moves)]
    return GameFacts(
        game_id=next(_ids), variant="podkidnoy", action_seats=action_seats, seats=seats,
        durak=durak, losers=losers or ((durak,) if durak is not None else ()), teams=teams,
        rated=rated, cap=cap, ended_at=at, auto=auto or [False] * moves,
    )  # fmt: skip


def run(db: Engine, f: GameFacts) -> dict[str, dict[str, Any]]:
    with db.begin() as conn:
        return settle(conn, f)


def people(*keys: str) -> list[SeatFacts]:
    return [SeatFacts(i, k) for i, k in enumerate(keys)]


def vs_bots(key: str, bots: int = 1) -> list[SeatFacts]:
    return [SeatFacts(0, key), *(SeatFacts(i + 1, None, 3) for i in range(bots))]


def grant(awards: dict[str, dict[str, Any]], key: str) -> tuple[int, str]:
    return awards[key]["candies"]["amount"], awards[key]["candies"]["reason"]


def test_with_friends_win_15_loss_5_draw_8(db: Engine) -> None:
    won = run(db, facts(people("anna", "boris"), durak=1))
    assert grant(won, "anna") == (15, "friends_win")
    assert grant(won, "boris") == (5, "friends_loss")
    drawn = run(db, facts(people("anna", "boris"), durak=None))
    assert grant(drawn, "anna") == grant(drawn, "boris") == (8, "friends_draw")


def test_friends_with_bots_in_other_seats_and_not_being_durak_is_a_win(db: Engine) -> None:
    seats = [SeatFacts(0, "anna"), SeatFacts(1, None, 2), SeatFacts(2, "boris"),
             SeatFacts(3, None, 2)]  # fmt: skip
    awards = run(db, facts(seats, durak=3))  # a bot is the durak: both people won
    assert grant(awards, "anna") == grant(awards, "boris") == (15, "friends_win")
    assert set(awards) == {"anna", "boris"}  # bots get nothing, not even a row


def test_against_the_computer_win_6_draw_3_loss_2(db: Engine) -> None:
    assert grant(run(db, facts(vs_bots("anna"), durak=1)), "anna") == (6, "computer_win")
    assert grant(run(db, facts(vs_bots("anna", 3), durak=2)), "anna") == (6, "computer_win")
    assert grant(run(db, facts(vs_bots("anna"), durak=None)), "anna") == (3, "computer_draw")
    assert grant(run(db, facts(vs_bots("anna"), durak=0)), "anna") == (2, "computer_loss")


def test_sixteen_moves_pay_fifteen_do_not(db: Engine) -> None:
    assert grant(run(db, facts(vs_bots("anna"), durak=1, moves=15)), "anna") == (0, "too_short")
    assert grant(run(db, facts(vs_bots("anna"), durak=1, moves=16)), "anna") == (6, "computer_win")


def test_a_seat_the_timeout_bot_played_earns_nothing(db: Engine) -> None:
    moves = 40  # anna (seat 0) has 20 actions
    every = [i % 2 == 0 for i in range(moves)]  # the bot made all of anna's
    awards = run(db, facts(people("anna", "boris"), durak=1, moves=moves, auto=every))
    assert grant(awards, "anna") == (0, "bot_played")
    assert grant(awards, "boris") == (5, "friends_loss")
    # Under a quarter made by anna herself (4 of 20): nothing; 5 of 20: paid.
    for own, paid in ((4, False), (5, True)):
        auto = [i % 2 == 0 and i // 2 >= own for i in range(moves)]
        awards = run(db, facts(people("anna", "boris"), durak=1, moves=moves, auto=auto))
        assert grant(awards, "anna") == ((15, "friends_win") if paid else (0, "bot_played"))


def test_a_person_who_left_earns_nothing(db: Engine) -> None:
    seats = [SeatFacts(0, "anna"), SeatFacts(1, "boris", left=True)]
    awards = run(db, facts(seats, durak=0))
    assert grant(awards, "boris") == (0, "left")
    assert grant(awards, "anna") == (5, "friends_loss")


def test_daily_cap_cuts_then_stops_and_a_new_utc_day_starts_again(db: Engine) -> None:
    for _ in range(3):  # 45 of a cap of 50
        assert grant(run(db, facts(people("anna", "boris"), durak=1, cap=50)), "anna")[0] == 15
    cut = run(db, facts(people("anna", "boris"), durak=1, cap=50))
    assert cut["anna"]["candies"] == {"amount": 5, "reason": "friends_win", "capped": True}
    assert grant(run(db, facts(people("anna", "boris"), durak=1, cap=50)), "anna") == (
        0, "cap_reached",
    )  # fmt: skip
    day = 86400 * (NOW // 86400 + 1)  # midnight UTC: the next day's quota
    assert grant(run(db, facts(people("anna", "boris"), durak=1, cap=50, at=day)), "anna")[0] == 15
    with db.connect() as conn:
        assert candies_of(conn, "anna", 50, now=NOW) == {"balance": 65, "today": 50,
                                                        "daily_cap": 50}  # fmt: skip


def test_cap_zero_turns_candies_off(db: Engine) -> None:
    assert grant(run(db, facts(people("anna", "boris"), durak=1, cap=0)), "anna") == (0, "off")


def test_granted_exactly_once_per_player_and_game(db: Engine) -> None:
    f = facts(people("anna", "boris"), durak=1)
    first = run(db, f)
    again = run(db, f)  # a restart that finishes the same game again
    assert again == first
    with db.connect() as conn:
        rows = conn.execute(
            select(candy_grants.c.player, func.count()).where(candy_grants.c.game_id == f.game_id)
            .group_by(candy_grants.c.player)
        ).all()  # fmt: skip
        assert sorted(tuple(r) for r in rows) == [("anna", 1), ("boris", 1)]
        assert ratings_of(conn, "anna")["podkidnoy"]["games"] == 1
        seats = conn.execute(select(func.count()).select_from(game_seats)).scalar_one()
        assert seats == 2


# ------------------------------------------------------------ ratings
def rating(awards: dict[str, dict[str, Any]], key: str) -> tuple[int, int]:
    r = awards[key]["rating"]
    return r["before"], r["after"]


def test_two_people_winner_rises_durak_falls(db: Engine) -> None:
    awards = run(db, facts(people("anna", "boris"), durak=1))
    a, b = rating(awards, "anna"), rating(awards, "boris")
    assert a[0] == b[0] == MU and a[1] > MU > b[1]
    again = run(db, facts(people("anna", "boris"), durak=1))
    assert rating(again, "anna")[0] == a[1] and rating(again, "anna")[1] > a[1]


def test_non_durak_players_tie_for_first(db: Engine) -> None:
    awards = run(db, facts(people("anna", "boris", "vera"), durak=2))
    a, b, v = (rating(awards, k) for k in ("anna", "boris", "vera"))
    assert a == b and a[1] > MU > v[1]


def test_a_draw_ties_everyone(db: Engine) -> None:
    awards = run(db, facts(people("anna", "boris", "vera"), durak=None))
    assert {rating(awards, k) for k in ("anna", "boris", "vera")} == {(MU, MU)}
    assert awards["anna"]["rating"]["games"] == 1


def test_teams_are_rated_as_teams(db: Engine) -> None:
    # 2v2: seats 0 and 2 against 1 and 3; seat 1 is the durak, its team loses.
    awards = run(db, facts(people("anna", "boris", "vera", "gleb"), durak=1, teams=2,
                           losers=(1, 3)))  # fmt: skip
    assert rating(awards, "anna") == rating(awards, "vera")
    assert rating(awards, "boris") == rating(awards, "gleb")
    assert rating(awards, "anna")[1] > MU > rating(awards, "boris")[1]


def test_people_on_one_team_against_bots_are_not_rated(db: Engine) -> None:
    seats = [SeatFacts(0, "anna"), SeatFacts(1, None, 3), SeatFacts(2, "vera"),
             SeatFacts(3, None, 3)]  # fmt: skip
    awards = run(db, facts(seats, durak=1, teams=2, losers=(1, 3)))
    assert awards["anna"]["rating"] is None and awards["vera"]["rating"] is None


def test_a_leaver_is_rated_as_the_durak(db: Engine) -> None:
    seats = [SeatFacts(0, "anna"), SeatFacts(1, "boris", left=True), SeatFacts(2, "vera")]
    awards = run(db, facts(seats, durak=0))  # anna is the durak, boris left
    anna, boris, vera = (rating(awards, k) for k in ("anna", "boris", "vera"))
    assert boris[1] < MU and anna[1] < MU < vera[1]
    assert boris == anna  # both last


def test_unrated_casual_short_alone_and_bots(db: Engine) -> None:
    casual = run(db, facts(people("anna", "boris"), durak=1, rated=False))
    short = run(db, facts(people("anna", "boris"), durak=1, moves=15))
    alone = run(db, facts(vs_bots("anna"), durak=1))
    for awards in (casual, short, alone):
        assert awards["anna"]["rating"] is None
    with db.connect() as conn:
        assert conn.execute(select(func.count()).select_from(ratings)).scalar_one() == 0


def test_provisional_for_the_first_games(db: Engine) -> None:
    for n in range(1, PROVISIONAL_GAMES + 1):
        awards = run(db, facts(people("anna", "boris"), durak=n % 2))
        assert awards["anna"]["rating"]["games"] == n
        assert awards["anna"]["rating"]["provisional"] == (n < PROVISIONAL_GAMES)
    with db.connect() as conn:
        mine = ratings_of(conn, "anna")
    assert mine["podkidnoy"]["provisional"] is False
    assert mine["perevodnoy"] == {"rating": MU, "games": 0, "provisional": True}


def full_game_grant(people: int, outcome: str, hints: int = 0) -> c.Grant:
    """The grant for a 30-move game played to the end, every one of the seat's
    10 actions the person's own, nothing earned yet today."""
    return c.grant_for(
        people=people, outcome=outcome, moves=30, own=10, actions=10, left=False, today=0,
        cap=300, hints=hints,
    )  # fmt: skip


def test_grant_rule_table() -> None:
    """The pure rule, every row at a glance."""
    for people_n, outcome, amount in [
        (2, "win", 15), (2, "draw", 8), (2, "loss", 5), (4, "win", 15),
        (1, "win", 6), (1, "draw", 3), (1, "loss", 2),
    ]:  # fmt: skip
        assert full_game_grant(people_n, outcome).amount == amount


def test_a_game_with_hints_pays_nothing() -> None:
    """Issue 27: a hint is level 10's move, so a game with any hint pays no candies."""
    assert full_game_grant(1, "win").amount == 6
    hinted = full_game_grant(1, "win", hints=1)
    assert (hinted.amount, hinted.reason) == (0, c.HINTS)


def test_two_games_of_one_player_settle_in_turn_on_postgres(pg: Any) -> None:
    """PostgreSQL: a game's settling locks its people's rows until it commits,
    so a second game of the same player, settled at once on another connection,
    waits, then reads the first one's rating and candies (none are lost)."""
    engine = make_engine(pg.fresh_database("settle_turns")[1])
    upgrade(engine)
    with engine.begin() as conn:
        for key in ("anna", "boris", "vera"):
            conn.execute(insert(players).values(key=key, name=key, created_at=1.0))
    first, second = facts(people("anna", "boris"), 1), facts(people("anna", "vera"), 1)
    done = threading.Event()

    def settle_second() -> None:
        with engine.begin() as conn:
            settle(conn, second)
        done.set()

    with engine.connect() as conn:
        tx = conn.begin()
        settle(conn, first)
        other = threading.Thread(target=settle_second)
        other.start()
        assert not done.wait(0.5), "the second game did not wait for the first one's locks"
        tx.commit()
    other.join(30)
    assert done.is_set()
    with engine.connect() as conn:
        assert ratings_of(conn, "anna")["podkidnoy"]["games"] == 2
        assert candies_of(conn, "anna", 300, NOW)["balance"] == 30
    engine.dispose()
