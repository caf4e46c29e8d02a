"""The compiled core against the reference engine: proof by comparison.

The core (src/kozyr/core/*.c) is a second implementation of the rules, so it is
checked the way chess engines check move generators: on many positions, over
every rule option and 2-6 players, both engines must agree on the legal actions
(same list, same order) and on the state after every legal action; seeded
playouts must give identical records; illegal actions must be refused by both;
perft counts must match the stored data.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr import core
from kozyr.engine.actions import Action, Kind
from kozyr.engine.deal import Deal
from kozyr.engine.perft import position
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from tests.engine.strategies import examples, game_st

from .helpers import assert_same, lockstep, needs_core, random_rules

pytestmark = needs_core

PERFT = Path(__file__).parents[1] / "perft"

#: Positions compared (with every successor) by the seeded sweep, per chunk.
SWEEP_CHUNKS = 4
SWEEP_POSITIONS = 52_000


@pytest.mark.parametrize("chunk", range(SWEEP_CHUNKS))
def test_seeded_sweep_agrees_on_every_legal_action(chunk: int) -> None:
    """Random tables over every option (2-6 players), random games from seeded
    deals; at every position the legal lists and every successor agree.  The
    four chunks together compare more than 200,000 positions."""
    rng = random.Random(1000 + chunk)
    positions = games = 0
    players_seen = set()
    while positions < SWEEP_POSITIONS:
        rules = random_rules(rng, players=2 + games % 5)
        players_seen.add(rules.players)
        positions += lockstep(GameState.from_seed(rules, rng.getrandbits(64)), rng)
        games += 1
    assert players_seen == {2, 3, 4, 5, 6}


def test_the_sweep_covers_every_option_value():
    """The sweep's tables take every value of every option (so a new option, or
    a value nobody draws, cannot slip past the comparison)."""
    rng = random.Random(1000)
    seen: dict[str, set[object]] = {name: set() for name in Rules.options()}
    for _ in range(2000):
        for name, value in random_rules(rng).to_dict().items():
            seen[name].add(value)
    for name, values in Rules.options().items():
        assert seen[name] == set(values), name


@settings(max_examples=examples(150))
@given(game_st(explicit=0.6), st.integers(0, 2**32))
def test_any_position_agrees(game: tuple[Rules, Deal], seed: int) -> None:
    """Hypothesis deals: explicit positions (short decks, empty decks, players
    already out, a named first attacker or previous durak) as well as seeded ones."""
    rules, deal = game
    lockstep(GameState.new(rules, deal), random.Random(seed))


@pytest.mark.parametrize("seed", range(40))
def test_new_seeded_deals_like_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    rules = random_rules(rng)
    deal_seed = rng.getrandbits(64)
    assert_same(GameState.from_seed(rules, deal_seed), core.new_seeded(rules, deal_seed), "deal")


@pytest.mark.parametrize("seed", range(6))
def test_seeded_playouts_give_identical_records(seed: int) -> None:
    """Each engine picks the i-th of its own legal list, i from one seeded stream:
    the records (every action) and the results are identical."""
    rng = random.Random(seed)
    rules = random_rules(rng)
    deal_seed = rng.getrandbits(64)
    records = []
    for engine in ("reference", "core"):
        picks = random.Random(seed)
        actions = []
        if engine == "reference":
            ref = GameState.from_seed(rules, deal_seed)
            while not ref.game_over:
                legal = ref.legal_actions()
                a = legal[picks.randrange(len(legal))]
                actions.append(tuple(a))
                ref.do(a)
            records.append((actions, core.fields_of(ref)[22]))
        else:
            mine = core.new_seeded(rules, deal_seed)
            while not mine.over:
                legal = mine.legal()
                a = legal[picks.randrange(len(legal))]
                actions.append(a)
                mine.apply(a)
            records.append((actions, mine.snapshot()[22]))
    assert records[0] == records[1]
    assert records[0][0]  # a real game was played


def _fields(a: Action) -> tuple[int, int, int, int]:
    """``a`` as the plain tuple the core reads."""
    return (a.seat, a.kind, a.cards, a.target)


def _candidates(state: GameState, rng: random.Random) -> list[tuple[int, int, int, int]]:
    """Actions near the legal ones and far from them: every kind, every seat,
    wrong targets, foreign cards, several cards, no cards."""
    out = [_fields(a) for a in state.legal_actions()]
    if state.rules.cheating:
        for seat in range(state.n):
            out += [_fields(a) for a in state.legal_actions_for(seat)]
            on_table = state.att + [d for d in state.dfn if d >= 0]
            for c in on_table[:3]:  # own cards, cleared cards, cards of others
                out.append((seat, 7, 1 << c, -1))
    hand_of = state.hands
    for _ in range(40):
        seat = rng.randrange(-1, state.n + 1)
        kind = rng.randrange(0, 8)
        pool = hand_of[seat] if 0 <= seat < state.n and rng.random() < 0.8 else rng.getrandbits(52)
        cards = 0
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            if pool:
                bits = [c for c in range(52) if pool >> c & 1]
                cards |= 1 << rng.choice(bits)
        target = -1
        if rng.random() < 0.5:
            at_the_table = bool(state.att) and rng.random() < 0.7
            target = rng.choice(state.att) if at_the_table else rng.randrange(52)
        out.append((seat, kind, cards, target))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_illegal_actions_are_refused_by_both(seed: int) -> None:
    rng = random.Random(seed)
    checked = refused = 0
    for _ in range(8):
        rules = random_rules(rng)
        state = GameState.from_seed(rules, rng.getrandbits(64))
        mine = core.from_state(state)
        while not state.game_over:
            for a in _candidates(state, rng):
                legal_ref = state.check(Action(a[0], Kind(a[1]), a[2], a[3])) is None
                assert mine.is_legal(a) == legal_ref, a
                if not legal_ref:
                    before = mine.snapshot()
                    with pytest.raises(ValueError):
                        mine.apply(a)
                    assert mine.snapshot() == before  # a refused action changes nothing
                    refused += 1
                checked += 1
            legal = state.legal_actions()
            a0 = legal[rng.randrange(len(legal))]
            state.do(a0)
            mine.apply(tuple(a0))
    assert refused > checked // 2


@pytest.mark.parametrize("name", sorted(p.stem for p in PERFT.glob("*.json")))
def test_perft_matches_the_stored_counts(name: str) -> None:
    data = json.loads((PERFT / f"{name}.json").read_text(encoding="utf-8"))
    mine = core.from_state(position(data["record"]))
    assert [mine.perft(d) for d in range(1, len(data["counts"]) + 1)] == data["counts"]


def test_perft_deeper_than_the_stored_data():
    """One level beyond the stored counts, core against the reference's perft."""
    from kozyr.engine.perft import perft

    state = GameState.from_seed(Rules(players=3, variant="perevodnoy"), 11)
    assert core.from_state(state).perft(6) == perft(state, 6)


def test_malformed_fields_are_refused_not_crashed():
    state = GameState.from_seed(Rules(players=2), 1)
    fields = list(core.fields_of(state))
    rules = core.rules_tuple(state.rules)
    bad_cases = [
        (0, (1 << 60, 0)),  # a card that does not exist
        (6, tuple(range(20))),  # a table longer than any round
        (11, 7),  # a seat that is not at the table
        (2, (99,)),  # a stock card out of range
    ]
    for index, value in bad_cases:
        broken = list(fields)
        broken[index] = value
        with pytest.raises((ValueError, OverflowError)):
            core._require().from_fields(rules, tuple(broken))
    with pytest.raises(ValueError):
        core._require().from_fields((9, 36, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0), tuple(fields))


def test_malformed_cheating_fields_are_refused():
    """Plays must be exactly the cards on the table, by real seats; cheat
    records must point into them (else a take-back would go wrong in memory)."""
    rules = Rules(players=2, cheating=True)
    state = GameState.from_seed(rules, 3)
    state.do(state.legal_actions()[0])  # a lead: cards on the table
    fields = list(core.fields_of(state))
    rt = core.rules_tuple(rules)
    core._require().from_fields(rt, tuple(fields))  # the real thing is fine
    card = state.att[0]
    bad_cases = [
        (31, ()),  # cards on the table that nobody played
        (31, (card | 7 << 6,)),  # a seat that does not exist
        (31, ((card + 1) % 52,)),  # a card that is not on the table
        (31, (card, card)),  # twice
        (31, (card | 1 << 9,)),  # an attack card called a cover
        (32, ((5, card, 0, 0, 0, 0, 1, 6, False, 0, 0, 0, ()),)),  # points past the plays
        (32, ((0, 51 - card, 0, 0, 0, 0, 1, 6, False, 0, 0, 0, ()),)),  # not on the table
        (32, ((0, card, 9, 0, 0, 0, 1, 6, False, 0, 0, 0, ()),)),  # no such cheater
        (28, 1 << 7),  # marks of seats that do not exist
    ]
    for index, value in bad_cases:
        broken = list(fields)
        broken[index] = value
        with pytest.raises((ValueError, TypeError, OverflowError)):
            core._require().from_fields(rt, tuple(broken))


def test_mutated_fields_never_crash_the_core():
    """Hand-built states that no game reaches (a field changed at random, within
    what from_fields accepts): the core may refuse them, and whatever it accepts
    it can generate moves for and play out without going wrong in memory."""
    rng = random.Random(5)
    accepted = 0
    for i in range(1500):
        rules = random_rules(rng)
        state = GameState.from_seed(rules, i)
        for _ in range(rng.randrange(0, 40)):
            if state.game_over:
                break
            state.do(state.sample_action(rng.random()))
        fields = list(core.fields_of(state))
        index = rng.randrange(len(fields))
        value = fields[index]
        if isinstance(value, bool) or value is None:
            fields[index] = rng.choice([True, False, None, 0])
        elif isinstance(value, int):
            fields[index] = rng.choice([0, 1, 5, 6, 7, 13, 63, 64, -1, rng.getrandbits(52)])
        elif isinstance(value, tuple):
            fields[index] = tuple(rng.randrange(-1, 53) for _ in range(rng.randrange(0, 8)))
        try:
            mine = core._require().from_fields(core.rules_tuple(rules), tuple(fields))
        except (ValueError, TypeError, OverflowError):
            continue
        accepted += 1
        if not mine.over:
            mine.legal()
            mine.copy().random_playout(i, 300)
            mine.copy().policy_playout(i, (1, 1, 1, 1, 0.0, 0.6), 0.05, 300)
        mine.snapshot()
    assert accepted > 300
