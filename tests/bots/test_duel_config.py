"""scripts/ismcts_duel.py's sides: the inference's factors are read by name."""

from __future__ import annotations

import pytest

from kozyr.bots.inference import LEVEL4_EVIDENCE, Evidence

from .helpers import load_script


def test_a_side_names_the_inferences_factors() -> None:
    duel = load_script("ismcts_duel")
    cfg = duel.config_of(
        '{"base": "7", "scale": 10,'
        ' "evidence": {"took_instead_of_cover": 0.7, "covered_dearer_trump": 1.2}}'
    )
    assert cfg.evidence == Evidence(took_instead_of_cover=0.7, covered_dearer_trump=1.2)
    assert cfg.evidence.passed_on_rank == LEVEL4_EVIDENCE.passed_on_rank
    assert cfg.iterations == 10 * duel.config_of('{"base": "7"}').iterations
    assert duel.config_of('{"base": "7"}').evidence is None  # the level-4 model's factors


def test_an_unknown_factor_or_knob_is_refused() -> None:
    duel = load_script("ismcts_duel")
    with pytest.raises(TypeError):
        duel.config_of('{"base": "7", "evidence": {"took": 0.7}}')
    with pytest.raises(TypeError):  # a knob issue 29 dropped
        duel.config_of('{"iterations": 50, "halving": true}')
