"""The learned evaluation of positions with cards in the stock (issue 29): its
features in C, the search's use of it, and the script that trains it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kozyr import core
from kozyr.bots.evaluation import STOCK_EVAL_PATH, load, stock_weights
from kozyr.bots.ismcts import IsmctsConfig, search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views, load_script
from .helpers import needs_core, raw_search

STOCK_INDEX = 2  # ``stock`` in State.snapshot()


def constant_network(logit: float) -> tuple[float, ...]:
    """A network of the stock's shape that always says sigmoid(``logit``)."""
    hidden = 1
    return (30.0, float(hidden), *([0.0] * 30), 0.0, 0.0, logit)


@needs_core
def test_features_exist_only_at_round_starts_with_cards_in_the_stock() -> None:
    features = core._require().stock_features
    found = 0
    for seed in range(30):
        state = core.new_seeded(Rules(players=2), seed)
        rng = random.Random(seed)
        while not state.over:
            f = features(state)
            stock = state.snapshot()[STOCK_INDEX]
            if f is not None:
                assert len(f) == 30 and f[0] == 1.0
                assert stock, "features only while cards are left to draw"
                assert f[24] == pytest.approx(len(stock) / 24)
                assert all(-5.0 <= x <= 5.0 for x in f)
                found += 1
            elif stock and core._require().eval_features(state) is not None:
                raise AssertionError("an endgame position has a stock")
            legal = state.legal()
            state.apply(legal[rng.randrange(len(legal))])
    assert found > 100
    # Three players: not two-sided, no features.
    assert features(core.new_seeded(Rules(players=3), 1)) is None
    with pytest.raises(TypeError):
        features("not a state")


@needs_core
def test_the_search_scores_stock_positions_with_the_network() -> None:
    view = choice_views(Rules(players=2), 1, seed=3, base_steps=2)[0]
    plain = raw_search(view)
    assert "stock_evaluated" not in plain
    says_win = raw_search(view, stock_eval_weights=constant_network(20.0))
    says_loss = raw_search(view, stock_eval_weights=constant_network(-20.0))
    # Early in the game every playout reaches a round start with cards to draw.
    assert says_win["stock_evaluated"] == says_win["iterations"] == 2_000
    # What the network says is what the search backs up.
    assert says_win["values"] != says_loss["values"] != plain["values"]
    with pytest.raises(ValueError, match="stock_eval_weights do not fit"):
        raw_search(view, stock_eval_weights=(24.0, 1.0, *([0.0] * 24), 0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="stock_eval_weights do not fit"):
        raw_search(view, stock_eval_weights=(30.0, 2.0, 1.0))


@needs_core
def test_the_config_turns_the_shipped_network_on() -> None:
    config = IsmctsConfig(iterations=1_000, endgame_nodes=100, time_cap=60.0, stock_eval=True)
    view = choice_views(Rules(players=2), 1, seed=5, base_steps=2)[0]
    root = search_root(view, 1, config)
    assert 0 < root.info["stock_evaluated"] <= root.info["iterations"]
    off = search_root(view, 1, config._replace(stock_eval=False))
    assert "stock_evaluated" not in off.info


def test_the_shipped_network_fits_and_beats_the_base_rate() -> None:
    """The file's own held-out figures (games the training never saw)."""
    data = load(STOCK_EVAL_PATH)
    held = data["held_out"]
    assert held["net_log_loss"] < held["base_rate_log_loss"]
    weights = stock_weights()
    assert weights[0] == 30 and len(weights) == 2 + int(weights[1]) * 32 + 1


@needs_core
def test_training_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    script = load_script("train_stock_eval")
    rows = script.generate(2, level=4, seed=5, workers=1)
    assert rows == script.generate(2, level=4, seed=5, workers=1)
    assert rows and all(r["v"] in (0.0, 0.5, 1.0) and len(r["f"]) == 30 for r in rows)
    # Each game's positions carry its outcome, from each round's attacker's side.
    first = script.train(rows, hidden=4, epochs=2, seed=5).flat()
    assert first == script.train(rows, hidden=4, epochs=2, seed=5).flat()
    out = tmp_path / "net.json"
    data = tmp_path / "rows.jsonl"
    assert script.main(["--games", "3", "--level", "4", "--epochs", "1", "--hidden", "4",
                        "--data", str(data), "--out", str(out)]) == 0  # fmt: skip
    made = load(out)
    assert made["games"] == 3 and len(made["weights"]) == 2 + 4 * 32 + 1
