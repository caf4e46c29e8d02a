"""scripts/ismcts_duel.py's sides: the inference's factors are read by name,
for the root (``evidence``) and for the tree alone (``tree_evidence``)."""

from __future__ import annotations

import pytest

from kozyr.bots.inference import LEVEL4_EVIDENCE, Evidence

from .helpers import load_script


def test_a_side_names_the_roots_and_the_trees_factors_apart() -> None:
    duel = load_script("ismcts_duel")
    cfg = duel.config_of(
        '{"base": "7", "scale": 10, "tree_inference": 1.0,'
        ' "tree_evidence": {"took_instead_of_cover": 0.7, "covered_dearer_trump": 1.2}}'
    )
    assert cfg.evidence is None  # the root keeps the level-4 model's factors
    assert cfg.tree_evidence == Evidence(took_instead_of_cover=0.7, covered_dearer_trump=1.2)
    assert cfg.tree_evidence.passed_on_rank == LEVEL4_EVIDENCE.passed_on_rank
    both = duel.config_of('{"base": "7", "evidence": {"led_dearer": 0.9}}')
    assert both.evidence == Evidence(led_dearer=0.9) and both.tree_evidence is None


def test_an_unknown_factor_is_refused() -> None:
    duel = load_script("ismcts_duel")
    with pytest.raises(TypeError):
        duel.config_of('{"base": "7", "tree_evidence": {"took": 0.7}}')
