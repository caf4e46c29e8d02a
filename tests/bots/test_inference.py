"""Inference from the opponents' play (bots/inference.py) and the weighted deal
sampler of the core (core/search.c)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from kozyr import core
from kozyr.arena.spec import ArenaError
from kozyr.bots.inference import FLOOR, TOOK_INSTEAD_OF_COVER, Evidence, card_weights
from kozyr.bots.sampler import Slots, sample_state
from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import HIGHER_IN_SUIT, SUIT_MASK, cards_of, deck_mask, parse_card
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of

from .helpers import RULE_SETS, load_script

needs_core = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")


def test_no_history_no_weights():
    state = GameState.from_seed(Rules(players=2), 1)
    assert card_weights(view_of(state, 0)) is None


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_the_public_replay_tracks_every_table(rules: Rules) -> None:
    """Replaying the history on hand counts lands on the view's counts and deck
    (else no weights would be given) in every position of random games, for
    every seat; weights stay within (FLOOR, 1] and the viewer's row is all 1."""
    rng = random.Random(3)
    checked = 0
    for seed in range(3):
        state = GameState.from_seed(rules, seed)
        while not state.game_over:
            for seat in range(rules.players) if state.history_len % 4 == 1 else ():
                view = view_of(state, seat)
                w = card_weights(view)
                if view.history:
                    assert w is not None, (seed, state.history_len, seat)
                    assert all(FLOOR <= x <= 1.0 for row in w for x in row)
                    assert w[seat] == [1.0] * 52
                    checked += 1
            state.do(state.sample_action(rng.random()))
    assert checked > 40


def _took_position() -> tuple[View, int, int]:
    """A two-player game where the defender took a plain card at once."""
    rules = Rules(players=2)
    for seed in range(200):
        state = GameState.from_seed(rules, seed)
        attacker = state.attacker
        lead = next(
            a
            for a in state.legal_actions()
            if a.cards.bit_count() == 1 and not a.cards & SUIT_MASK[state.trump_suit]
        )
        state.do(lead)
        state.do(Action(1 - attacker, Kind.TAKE))
        while not state.game_over and state.to_move == attacker and state.phase == 2:
            state.do(Action(attacker, Kind.PASS))
        if state.to_move is not None:
            return view_of(state, attacker), 1 - attacker, lead.cards.bit_length() - 1
    raise AssertionError("no position found")


def test_a_take_makes_plain_covers_less_likely():
    view, taker, card = _took_position()
    w = card_weights(view)
    assert w is not None
    covers = HIGHER_IN_SUIT[card] & ~SUIT_MASK[view.trump_suit] & view.unseen()
    assert covers, "the attack card has unseen plain covers"
    for c in cards_of(covers):
        assert w[taker][c] <= TOOK_INSTEAD_OF_COVER + 1e-9
    others = view.unseen() & ~covers & ~SUIT_MASK[view.trump_suit]
    assert any(w[taker][c] == 1.0 for c in cards_of(others))


def test_each_kind_of_evidence_has_its_own_factor():
    """The take is read with the take's factor alone: other kinds at 1.0 leave
    the covers at exactly that factor; a factor above 1 makes them likelier;
    every factor at 1.0 reads nothing at all."""
    view, taker, card = _took_position()
    covers = HIGHER_IN_SUIT[card] & ~SUIT_MASK[view.trump_suit] & view.unseen()
    off = dict.fromkeys(
        ("covered_dearer", "covered_dearer_trump", "passed_on_rank", "led_dearer", "led_trump"),
        1.0,
    )
    for factor in (0.3, 0.9, 1.5):
        w = card_weights(view, Evidence(took_instead_of_cover=factor, **off))
        assert w is not None
        assert all(w[taker][c] == pytest.approx(factor) for c in cards_of(covers))
        assert {w[taker][c] for c in cards_of(view.unseen() & ~covers)} == {1.0}
    nothing = card_weights(view, Evidence(took_instead_of_cover=1.0, no_transfer=1.0, **off))
    assert nothing is not None and {x for row in nothing for x in row} == {1.0}


def _template(view: View) -> tuple[Any, Slots]:
    """A core state of one deal that fits ``view`` (a template for the core's
    sampler) and the hidden places of ``view``."""
    rng = random.Random(1)
    slots = Slots(view)
    return core.from_state(sample_state(view, rng, slots)), slots


@needs_core
def test_sampled_deals_agree_with_the_view():
    rules = Rules(players=3, variant="perevodnoy")
    state = GameState.from_seed(rules, 4)
    rng = random.Random(4)
    for _ in range(25):
        state.do(state.sample_action(rng.random()))
    view = view_of(state, state.to_move or 0)
    template, slots = _template(view)
    deals = core._require().sample_deals(
        template, view.seat, view.unseen(), slots.hands, slots.deck, None, 300, 9
    )
    for hands, stock in deals:
        assert hands[view.seat] == view.hand
        for seat in range(rules.players):
            assert hands[seat].bit_count() == view.hand_counts[seat]
            assert view.known[seat] & ~hands[seat] == 0
        assert len(stock) == view.deck_count
        if stock:
            assert stock[0] == view.trump
        placed = 0
        for h in hands:
            assert not placed & h
            placed |= h
        for c in stock:
            assert not placed >> c & 1
            placed |= 1 << c
        assert placed | view.table_cards | view.discard == deck_mask(rules.deck)
    assert len({d[0] for d in deals}) > 100  # really random


@needs_core
def test_weights_shift_the_deals():
    """Uniform weights: a hidden card is in the opponent's hand about as often as
    its share of the hidden places says; weight 0.05 makes it rare."""
    rules = Rules(players=2)
    state = GameState.from_seed(rules, 8)
    view = view_of(state, state.to_move or 0)
    template, slots = _template(view)
    other = 1 - view.seat
    card = cards_of(view.unseen())[0]
    share = slots.hands[other] / (slots.hands[other] + slots.deck)
    sample = core._require().sample_deals

    def freq(weights: list[list[float]] | None) -> float:
        pool = view.unseen()
        deals = sample(template, view.seat, pool, slots.hands, slots.deck, weights, 4000, 2)
        return Counter(bool(h[other] >> card & 1) for h, _ in deals)[True] / 4000

    assert abs(freq(None) - share) < 0.04
    ones = [[1.0] * 52 for _ in range(2)]
    assert abs(freq(ones) - share) < 0.04
    low = [row[:] for row in ones]
    low[other][card] = 0.05
    assert freq(low) < share / 4


@needs_core
def test_the_sampler_refuses_a_wrong_pool():
    state = GameState.new(Rules(players=2), Deal.from_seed(Rules(players=2), 1))
    view = view_of(state, 0)
    template, slots = _template(view)
    sample = core._require().sample_deals
    with pytest.raises(ValueError):
        sample(template, 0, view.unseen() | view.hand, slots.hands, slots.deck, None, 1, 1)
    with pytest.raises(ValueError):
        sample(template, 0, view.unseen(), [0, slots.hands[1] + 1], slots.deck, None, 1, 1)
    assert parse_card("6S") >= 0


def test_the_calibration_script_finds_the_evidence_real_for_the_player_it_models() -> None:
    # scripts/inference_calibration.py, on the level-4 player the factors model:
    # cards the inference marks down are in the hand far less often than a
    # uniform deal says, unmarked cards more often.
    bins = load_script("inference_calibration").collect(level=4, games=40, seed=7000)[0]
    n, hits, share, _ = (sum(row[i] for row in bins[:4]) for i in range(4))
    low_ratio = hits / share
    n1, hits1, share1, _ = bins[-1]
    assert n > 500 and n1 > 500
    assert low_ratio < 0.5 < 1.0 < hits1 / share1


def test_the_calibration_fits_each_kinds_factor() -> None:
    calibration = load_script("inference_calibration")
    # a ratio that is exactly weight**p is fitted as p, read at one piece
    for p in (0.0, 0.5, 2.0):
        bins = [[100.0, 100 * w**p * 0.3, 100 * 0.3, 100 * w] for w in (0.25, 0.5, 0.7, 1.0)]
        assert calibration.fitted_factor(bins) == pytest.approx(calibration.PROBE**p)
    assert calibration.fitted_factor([[10.0, 3.0, 3.0, 5.0]]) is None  # too few cards
    # on the level-4 player: a lead and a cover with the cheapest card say much
    # (it always does so); a pass says little (it passes when it keeps cards back)
    probes = tuple(calibration.probe(k) for k in ("covered_dearer", "led_dearer", "passed_on_rank"))
    fitted = [
        calibration.fitted_factor(bins)
        for bins in calibration.collect(level=4, games=40, seed=7000, probes=probes)
    ]
    assert fitted[0] < 0.4 and fitted[1] < 0.4
    assert fitted[2] > fitted[0] and fitted[2] > fitted[1]


def test_the_calibration_reads_any_bot_the_arena_names() -> None:
    # --level takes an arena spec: a level by number or name, a frozen bot such as mc5
    calibration = load_script("inference_calibration")
    by_number = calibration.collect(level=4, games=2, seed=7000)
    assert calibration.collect(level="4", games=2, seed=7000) == by_number
    flat = calibration.collect(level="mc5", games=2, seed=7000)[0]
    assert sum(row[0] for row in flat) > 50  # the flat search's games were read
    assert flat != by_number[0]
    with pytest.raises(ArenaError, match="unknown bot"):
        calibration.collect(level="mc4", games=1, seed=7000)
