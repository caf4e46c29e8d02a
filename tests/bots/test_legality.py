"""Bots only ever return legal actions, at every level and under every rule set."""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from kozyr.bots.heuristic_bot import heuristic_action
from kozyr.bots.heuristics import cover_plan, tables
from kozyr.bots.levels import LEVELS
from kozyr.bots.match import play_seed
from kozyr.bots.rollout import policy_action
from kozyr.bots.search import candidates
from kozyr.engine.cards import cards_of, deck_cards
from kozyr.engine.rules import Rules
from kozyr.engine.state import BEATERS, OVER, GameState
from kozyr.engine.view import view_of

from .helpers import RULE_SETS, reduced_bot

STYLES = [LEVELS[level].style for level in (1, 2, 3, 4)]


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_heuristics_are_legal_in_random_positions(rules: Rules) -> None:
    """The rules of thumb (views and rollout states) and the search's candidate
    list stay within the legal actions all through randomly played games."""
    rng = random.Random(7)
    checked = 0
    for seed in range(12):
        state = GameState.from_seed(rules, seed)
        while state.phase != OVER:
            seat = state.to_move
            assert seat is not None
            view = view_of(state, seat)
            for style in STYLES:
                action = heuristic_action(view, style, rng.random())
                assert action in view.legal, (style, action)
                t = tables(state.trump_suit, rules.deck, style.trump_aware)
                rollout_action = policy_action(state, t, style, rng.random())
                assert state.check(rollout_action) is None, rollout_action
            cands = candidates(view)
            assert cands and set(cands) <= set(view.legal)
            assert cands[0] == heuristic_action(view, STYLES[-1], 1.0)
            checked += 1
            # Mix heuristic and random moves so odd positions come up too.
            if rng.random() < 0.5:
                state.do(state.sample_action(rng.random()))
            else:
                state.do(policy_action(state, t, STYLES[rng.randrange(4)], rng.random()))
    assert checked > 100


@pytest.mark.parametrize("index", range(len(RULE_SETS)))
def test_every_level_plays_legal_games(index: int) -> None:
    """Whole games with every level seated somewhere; the referee's ``apply``
    raises on any illegal action.  Search levels use reduced budgets."""
    rules = RULE_SETS[index]
    n = rules.players
    games = 2 if n <= 3 else 1
    for g in range(games):
        levels = [1 + (index * 3 + g * n + seat) % 10 for seat in range(n)]
        bots = [reduced_bot(level, 100 * index + seat) for seat, level in enumerate(levels)]
        final = play_seed(rules, bots, seed=1000 + 10 * index + g)
        assert final.game_over and final.result is not None


def test_all_levels_seated() -> None:
    """The rotation above seats every level 1..10 at least once."""
    seated = set()
    for index, rules in enumerate(RULE_SETS):
        n = rules.players
        for g in range(2 if n <= 3 else 1):
            seated |= {1 + (index * 3 + g * n + seat) % 10 for seat in range(n)}
    assert seated == set(range(1, 11))


def test_cover_plan_finds_a_cover_whenever_one_exists() -> None:
    """Against brute force over all assignments, on random hands and attacks."""
    rng = random.Random(3)
    for _ in range(400):
        cards = deck_cards(36)
        rng.shuffle(cards)
        att = cards[: rng.randint(1, 4)]
        hand_cards = cards[6 : 6 + rng.randint(1, 7)]
        hand = sum(1 << c for c in hand_cards)
        trump = rng.randrange(4)
        beaters = BEATERS[trump]
        exists = any(
            all(beaters[a] >> c & 1 for a, c in zip(att, perm, strict=False))
            for perm in permutations(cards_of(hand), len(att))
        )
        plan = cover_plan(hand, att, [-1] * len(att), beaters, tables(trump, 36))
        assert (plan is not None) == exists
        if plan is not None:
            assert sorted(a for _, a in plan) == sorted(att)
            assert len({c for c, _ in plan}) == len(att)
            assert all(hand >> c & 1 and beaters[a] >> c & 1 for c, a in plan)
