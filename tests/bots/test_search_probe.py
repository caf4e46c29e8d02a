"""scripts/search_probe.py's judge (issue 29): the choices a larger budget
changed, valued in the deal as it really was by an oracle search."""

from __future__ import annotations

import json
from pathlib import Path

from kozyr.bots.ismcts import IsmctsConfig, search_root, with_hands_known
from kozyr.engine.rules import Rules

from ..core.helpers import needs_core
from .helpers import load_script

probe = load_script("search_probe")
RULES = Rules(players=2)
SMALL = IsmctsConfig(iterations=400, endgame_nodes=100, time_cap=60.0, root_exploration=2.0)


def test_the_oracle_views_are_the_decisions_with_the_true_hands_told() -> None:
    decisions = probe.collect_decisions(RULES, 5, 4, 1000, 0.3)
    told = probe.views_of(decisions, oracle=True)
    assert [s for s, _ in told] == [s for s, _, _ in decisions]
    assert probe.views_of(decisions) == [(s, view) for s, view, _ in decisions]
    for (_, view, hands), (_, oracle) in zip(decisions, told, strict=True):
        assert oracle == with_hands_known(view, hands)
        assert oracle.known[view.seat] == view.known[view.seat]
        assert all(oracle.known[s] == hands[s] for s in range(2) if s != view.seat)


@needs_core
def test_the_judge_values_only_the_changed_choices_in_the_true_deal() -> None:
    decisions = probe.collect_decisions(RULES, 4, 4, 1000, 0.3)
    base = [{"best": 0} for _ in decisions]
    # the oracle's own favourite in the first decision, the same choice in the others
    seed, view, hands = decisions[0]
    values = search_root(with_hands_known(view, hands), seed + 1, SMALL).values
    favourite = max(range(len(values)), key=values.__getitem__)
    other = 1 if favourite == 0 else 0
    base[0]["best"] = other
    rows = [{"best": favourite}] + [{"best": 0} for _ in decisions[1:]]
    found, gains = probe.judge(decisions, base, rows, SMALL)
    assert found["judged"] == len(gains) == 1
    assert found["judged_gain"] == values[favourite] - values[other] > 0
    assert (found["judged_better"], found["judged_worse"]) == (1, 0)
    # the same change the other way round is judged a loss of the same size
    back, _ = probe.judge(decisions, rows, base, SMALL)
    assert back["judged_gain"] == -found["judged_gain"]
    assert (back["judged_better"], back["judged_worse"]) == (0, 1)


@needs_core
def test_a_candidate_at_the_larger_budget_only_is_judged_against_plain_1x(tmp_path: Path) -> None:
    out = tmp_path / "probe.json"
    argv = ["--views", "6", "--multiples", "1,3", "--level", "5", "--judge", "1"]
    argv += ["--scaled-config", '{"exploration": 0.1}', "--json", str(out)]
    assert probe.main(argv) == 0
    found = json.loads(out.read_text())["multiples"]
    assert found["1"]["config"]["exploration"] == 0.7
    assert found["3"]["config"]["exploration"] == 0.1
    assert found["3"]["config"]["iterations"] == 3 * found["1"]["config"]["iterations"]
    summary = found["3"]["summary"]
    changed = sum(
        a["best"] != b["best"] for a, b in zip(found["1"]["rows"], found["3"]["rows"], strict=True)
    )
    assert summary["judged"] == changed == len(found["3"]["judged_gains"]) > 0
    assert "judged" not in found["1"]["summary"]
