"""Every sampled deal agrees with everything public in the view."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.bots.sampler import Slots, sample_deal, sample_state, shuffle
from kozyr.engine.cards import deck_mask
from kozyr.engine.state import OVER
from kozyr.engine.view import view_of

from .helpers import RULE_SETS, random_position


@settings(max_examples=150, deadline=None)
@given(
    rules_index=st.integers(0, len(RULE_SETS) - 1),
    deal_seed=st.integers(0, 10**6),
    steps=st.integers(0, 400),
    seat_pick=st.integers(0, 5),
    sample_seed=st.integers(0, 2**32),
)
def test_samples_agree_with_the_view(
    rules_index: int, deal_seed: int, steps: int, seat_pick: int, sample_seed: int
) -> None:
    rules = RULE_SETS[rules_index]
    state = random_position(rules, deal_seed, steps)
    assert state.phase != OVER
    seat = seat_pick % rules.players
    view = view_of(state, seat)
    hands, deck = sample_deal(view, random.Random(sample_seed))
    # Hand sizes, known cards, own hand, the face-up trump at the bottom.
    assert hands[seat] == view.hand
    for s in range(rules.players):
        assert hands[s].bit_count() == view.hand_counts[s]
        assert view.known[s] & ~hands[s] == 0
    assert len(deck) == view.deck_count
    if deck:
        assert deck[-1] == view.trump
    # Every card exactly once, and none of the discards or table cards moved.
    placed = view.discard | view.table_cards
    for h in hands:
        assert placed & h == 0
        placed |= h
    for c in deck:
        assert not placed >> c & 1
        placed |= 1 << c
    assert placed == deck_mask(rules.deck)
    # The unseen cards are the only ones that move.
    assert state.hands[seat] == hands[seat]
    # The sampled world shows the seat exactly the same view (this also runs
    # state_from_view's own consistency checks), except the public history: a
    # sampled world keeps no log (search pays nothing for it).
    world = sample_state(view, random.Random(sample_seed))
    assert world.log is None
    assert view_of(world, seat) == replace(view, history=())


@given(st.integers(0, 2**64 - 1), st.integers(0, 40))
def test_shuffle_is_python_3_11_shuffle(seed: int, n: int) -> None:
    """The sampler's own shuffle gives the permutation ``random.shuffle`` gives
    and leaves the generator in the same state (so sampled deals, and with them
    every recorded bot game, are unchanged by it)."""
    ours, theirs = list(range(n)), list(range(n))
    r1, r2 = random.Random(seed), random.Random(seed)
    shuffle(ours, r1)
    r2.shuffle(theirs)
    assert ours == theirs and r1.getstate() == r2.getstate()


def test_shuffle_is_pinned() -> None:
    """The permutation of a fixed seed, written down: a later Python whose
    ``random.shuffle`` differs must not change the bots' deals."""
    items = list(range(10))
    shuffle(items, random.Random(2026))
    assert items == [0, 6, 2, 3, 8, 4, 7, 9, 5, 1]


def test_determined_views_have_one_deal() -> None:
    """When Slots says only one deal fits, different samples agree and match
    the real state (2-player endgames, and multi-player ones down to 2 holders)."""
    found = 0
    for rules in RULE_SETS:
        for deal_seed in range(8):
            state = random_position(rules, deal_seed, 0)
            rng = random.Random(deal_seed)
            while state.phase != OVER:
                seat = state.to_move
                assert seat is not None
                view = view_of(state, seat)
                if Slots(view).determined():
                    found += 1
                    a = sample_deal(view, random.Random(1))
                    assert a == sample_deal(view, random.Random(2))
                    assert a[0] == state.hands
                    assert a[1] == list(reversed(state.stock))
                state.do(state.sample_action(rng.random()))
    assert found > 100


def test_sampling_is_uniform_enough() -> None:
    """Each unseen card lands in the opponent's hand about as often as its share."""
    rules = RULE_SETS[0]
    state = random_position(rules, 5, 4)
    view = view_of(state, 0)
    slots = Slots(view)
    share = slots.hands[1] / len(slots.pool)
    counts = dict.fromkeys(slots.pool, 0)
    rng = random.Random(0)
    n = 3000
    for _ in range(n):
        hands, _ = sample_deal(view, rng, slots)
        for c in slots.pool:
            counts[c] += hands[1] >> c & 1
    for c in slots.pool:
        assert abs(counts[c] / n - share) < 0.05
