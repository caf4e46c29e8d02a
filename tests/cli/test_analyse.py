"""``kozyr analyse``: the table, the JSON contract, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kozyr import core
from kozyr.cli.main import main

needs_core = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")

_ALL = [r + s for s in "SCDH" for r in "6789TJQKA"]
#: Seat 0 throws a won endgame away (docs/analysis.md, "Exact where exact").
THROWN: dict[str, Any] = {
    "rules": {"players": 2},
    "deal": {
        "hands": [["AS", "6H"], ["7H"]],
        "deck": [],
        "trump": "9S",
        "discard": [c for c in _ALL if c not in ("AS", "6H", "7H")],
        "first_attacker": 0,
    },
    "actions": [
        {"seat": 0, "type": "attack", "cards": ["6H"]},
        {"seat": 1, "type": "defend", "card": "7H", "target": "6H"},
    ],
}


@needs_core
def test_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "thrown.json"
    path.write_text(json.dumps(THROWN))
    assert main(["analyse", str(path), "--json", "--budget", "100", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"seats", "budget", "seed"} and out["budget"] == 100
    seat = out["seats"]["0"]
    assert seat["accuracy"] == 0.0 and seat["not_judged"] == 0
    (d,) = seat["decisions"]
    assert d == {
        "index": 0,
        "played": {"seat": 0, "type": "attack", "cards": ["6H"]},
        "best": {"seat": 0, "type": "attack", "cards": ["AS"]},
        "chance_played": 0.0,
        "chance_best": 1.0,
        "label": "blunder",
        "exact": True,
    }
    # Seat 1 alone: covering (rather than taking) wins it the game.
    assert main(["analyse", str(path), "--json", "--budget", "100", "--seat", "1"]) == 0
    only = json.loads(capsys.readouterr().out)["seats"]
    assert list(only) == ["1"] and only["1"]["accuracy"] == 100.0
    assert [x["label"] for x in only["1"]["decisions"]] == ["best"]


@needs_core
def test_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "thrown.json"
    path.write_text(json.dumps(THROWN))
    assert main(["analyse", str(path), "--budget", "100"]) == 0
    text = capsys.readouterr().out
    assert "blunder" in text and "accuracy 0.0" in text and "attack AS" in text


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(tmp_path / "missing.json")]) == 2
    path = tmp_path / "thrown.json"
    path.write_text(json.dumps(THROWN))
    assert main(["analyse", str(path), "--seat", "5"]) == 2
    assert main(["analyse", str(path), "--budget", "0"]) == 2
    assert main(["analyse", str(path), "--workers", "0"]) == 2
    unfinished = dict(THROWN, actions=THROWN["actions"][:1])
    path.write_text(json.dumps(unfinished))
    assert main(["analyse", str(path)]) == 2
    err = capsys.readouterr().err
    assert "no seat 5" in err and "does not reach the end" in err
