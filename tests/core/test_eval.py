"""The learned endgame evaluation: features in C, weights from the training script."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kozyr import core
from kozyr.bots.evaluation import EVAL_PATH, endgame_weights, load
from kozyr.bots.ismcts import IsmctsConfig, search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views, load_script
from .helpers import needs_core, raw_search


@needs_core
def test_features_exist_only_for_endgames_at_the_start_of_a_round() -> None:
    features = core._require().eval_features
    assert features(core.new_seeded(Rules(players=2), 3)) is None  # a full stock
    found = 0
    for seed in range(40):
        state = core.new_seeded(Rules(players=2), seed)
        rng = random.Random(seed)
        while not state.over:
            f = features(state)
            if f is not None:
                assert len(f) == 24 and f[0] == 1.0
                assert all(-5.0 <= x <= 5.0 for x in f) and min(f[1:22]) >= 0.0
                found += 1
                break
            legal = state.legal()
            state.apply(legal[rng.randrange(len(legal))])
    assert found > 10
    with pytest.raises(TypeError):
        features("not a state")


def test_the_shipped_network_beats_the_policy_it_replaces() -> None:
    """The file's own held-out figures: exact endgame values, the network right
    more often than a level-4 playout from the same positions."""
    data = load(EVAL_PATH)
    held = data["held_out"]
    assert held["net_right"] > held["policy_playout_right"] + 0.03
    weights = endgame_weights()
    assert weights[0] == 24 and len(weights) == 2 + int(weights[1]) * 26 + 1


@needs_core
def test_the_search_scores_endgames_with_the_network() -> None:
    config = IsmctsConfig(iterations=3_000, endgame_nodes=100, time_cap=60.0, endgame_eval=True)
    evaluated = 0
    for view in choice_views(Rules(players=2), 4, seed=30, base_steps=30):
        root = search_root(view, 1, config)
        evaluated += root.info["evaluated"]
        assert root.info["evaluated"] <= root.info["iterations"]
    assert evaluated > 0
    view = choice_views(Rules(players=2), 1, seed=3)[0]
    root = search_root(view, 1, config._replace(endgame_eval=False))
    assert "evaluated" not in root.info
    with pytest.raises(ValueError, match="eval_weights do not fit"):
        raw_search(view, eval_weights=(24.0, 2.0, 1.0))


@needs_core
def test_training_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    script = load_script("train_endgame_eval")
    rows, skipped = script.generate(60, seed=5)
    again, _ = script.generate(60, seed=5)
    assert rows == again and len(rows) == 60 and skipped >= 0
    assert all(r["v"] in (0.0, 0.5, 1.0) and len(r["f"]) == 24 for r in rows)
    first = script.train(rows, hidden=4, epochs=2, seed=5).flat()
    second = script.train(rows, hidden=4, epochs=2, seed=5).flat()
    assert first == second
    assert script.train(rows, hidden=4, epochs=2, seed=6).flat() != first
