"""scripts/belief_information.py (issue 29): how much the opponents' play tells
about their hands, measured as the held-out log loss of a belief."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from kozyr.arena.match import play_game
from kozyr.arena.spec import make, parse_spec
from kozyr.bots.inference import card_weights
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.view import view_of

from .helpers import load_script

belief = load_script("belief_information")
RULES = Rules(players=2)


def save_games(directory: Path, games: int, level: str = "4", rules: Rules = RULES) -> None:
    """Seeded games of ``level`` against itself, saved as records."""
    for g in range(games):
        bots = [make(parse_spec(level), 10 * g + s) for s in range(rules.players)]
        record = play_game(rules, Deal.from_seed(rules, 100 + g), bots, record=True).record
        assert record is not None
        (directory / f"g{g:03}.json").write_text(record.dumps())


def test_a_decisions_rows_are_its_unseen_cards_with_the_uniform_and_todays_odds() -> None:
    state = GameRecord(RULES, Deal.from_seed(RULES, 5)).start()
    bots = [make(parse_spec("4"), s) for s in range(2)]
    checked = 0
    while not state.game_over:
        seat = state.to_move
        assert seat is not None
        view = view_of(state, seat)
        found = belief.rows_of(view)
        other = 1 - seat
        hidden = view.hand_counts[other] - view.known[other].bit_count()
        if found is None:
            assert hidden <= 0 or hidden >= view.unseen().bit_count()
        else:
            cards, rows, base, k = found
            assert k == hidden and sorted(cards) == cards
            assert sum(1 << c for c in cards) == view.unseen()
            share = hidden / len(cards)
            assert base == pytest.approx(math.log(share / (1 - share)))
            today = card_weights(view)
            for c, row in zip(cards, rows, strict=True):
                assert row[0] == base and row[-1] == 1.0
                assert row[1] == pytest.approx(math.log(today[other][c]) if today else 0.0)
            assert len({len(row) for row in rows}) == 1
            checked += 1
        state.apply(bots[seat].choose(view))
    assert checked > 10


def test_the_loss_is_shifted_so_that_the_hand_gets_its_hidden_cards() -> None:
    # two decisions: 2 of 6 cards in the hand, then 1 of 3
    d = np.array([0] * 6 + [1] * 3)
    y = np.array([1, 1, 0, 0, 0, 0, 1, 0, 0], dtype=float)
    k = np.array([2.0, 1.0])
    uniform = belief.normalised_loss(np.zeros(9), y, d, k)

    def binary_entropy(p: float) -> float:
        return -(p * math.log(p) + (1 - p) * math.log(1 - p))

    # whatever the common offset, the uniform belief is the binary entropy of each share
    expected = (6 * binary_entropy(2 / 6) + 3 * binary_entropy(1 / 3)) / 9
    assert uniform == pytest.approx(expected)
    assert belief.normalised_loss(np.full(9, 3.0), y, d, k) == pytest.approx(expected)
    # a belief that points at the right cards scores better, the wrong ones worse
    assert belief.normalised_loss(4 * (2 * y - 1), y, d, k) < 0.05
    assert belief.normalised_loss(-4 * (2 * y - 1), y, d, k) > uniform
    # the uniform belief is as wide as a belief can be that expects k cards in the hand
    assert belief.entropy(belief.normalised(np.zeros(9), d, k)) == pytest.approx(expected)
    assert belief.entropy(belief.normalised(4 * (2 * y - 1), d, k)) < expected


def test_todays_factors_and_the_fits_know_more_than_a_uniform_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # on the level-4 player that today's factors model, the evidence is real
    save_games(tmp_path, 30)
    data = belief.collect(sorted(str(p) for p in tmp_path.glob("*.json")))
    assert len(data["Y"]) == len(data["D"]) == len(data["X"]) > 1000
    assert int(data["D"].max()) + 1 == len(data["K"])
    held = data["G"] % 5 == 0
    assert held.any() and (~held).any()
    out = tmp_path / "w.json"
    belief.main([str(tmp_path), "--weights-out", str(out)])
    table = {
        line.split("|")[1].strip(): float(line.split("|")[2])
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ") and not line.startswith("| belief")
    }
    assert set(table) == {"uniform", "today", "logistic"}
    assert table["today"] < table["uniform"]
    assert table["logistic"] < table["uniform"]
    assert len(json.loads(out.read_text())) == len(data["X"][0])


def test_the_network_learns_what_a_logistic_fit_cannot() -> None:
    # a card is in the hand when exactly one of two signs is there (an xor):
    # no weighted sum of the signs tells, one hidden layer does
    rng = np.random.default_rng(1)
    signs = rng.integers(0, 2, (4000, 2)).astype(float)
    y = (signs[:, 0] != signs[:, 1]).astype(float)
    X = np.column_stack([np.zeros(4000), signs, np.ones(4000)])
    d = np.arange(4000) // 8
    k = np.bincount(d, y).astype(float)
    keep = (k > 0) & (k < 8)
    rows = keep[d]
    d_kept = np.searchsorted(np.flatnonzero(keep), d[rows])
    z_logistic = X[rows] @ belief.fit_logistic(X, y)
    W1, W2, mu, sd = belief.fit_network(X, y)
    z_network = X[rows, 0] + np.tanh(((X[rows] - mu) / sd) @ W1) @ W2
    logistic = belief.normalised_loss(z_logistic, y[rows], d_kept, k[keep])
    network = belief.normalised_loss(z_network, y[rows], d_kept, k[keep])
    assert network < 0.5 * logistic


@pytest.mark.parametrize(
    "rules", [Rules(players=3), Rules(players=2, deck=24), Rules(players=2, deck=52)]
)
def test_games_the_features_do_not_fit_are_refused_by_name(tmp_path: Path, rules: Rules) -> None:
    save_games(tmp_path, 1, rules=rules)
    with pytest.raises(SystemExit, match=r"g000\.json: (two-player|36-card) games only"):
        belief.collect([str(tmp_path / "g000.json")])
