"""``kozyr bench bots`` runs and prints one row per level."""

from __future__ import annotations

import json

import pytest

from kozyr.bench.bots import parse_levels
from kozyr.cli.main import main
from kozyr.machine import Machine, describe


def test_parse_levels() -> None:
    assert parse_levels("1-10") == list(range(1, 11))
    assert parse_levels("5,10") == [5, 10]
    assert parse_levels("1-3, 8") == [1, 2, 3, 8]
    for bad in ("0-3", "x", "", "9-11", "5-3"):
        with pytest.raises(ValueError):
            parse_levels(bad)


def test_bench_bots_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "bots", "--levels", "2,5", "--seconds", "0.2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["level"] for r in rows] == [2, 5]
    for r in rows:
        assert r["decisions"] > 0 and r["median_ms"] > 0 and r["max_ms"] >= r["median_ms"]
    assert rows[1]["iterations_per_s"] > 0 and rows[1]["steps_per_s"] > 0
    assert rows[0]["iterations_per_s"] == 0


def test_bench_bots_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "bots", "--levels", "1", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "level" in out and "median" in out
    assert main(["bench", "bots", "--levels", "12"]) == 2


def test_match_command(capsys: pytest.CaptureFixture[str]) -> None:
    from kozyr.bots.match import main as match_main

    assert match_main(["4", "1", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "level 4 vs level 1" in out and "4 games" in out


def test_bench_bots_at_a_bigger_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "bots", "--levels", "5", "--players", "4", "--seconds", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "4 players" in out and "ISMCTS" in out
    assert f"machine: {describe().summary()}" in out


def test_bench_engine_prints_reference_and_core(capsys: pytest.CaptureFixture[str]) -> None:
    """One run, both engines, on the same measurement (issue 12)."""
    from kozyr import core

    assert main(["bench", "engine", "--seconds", "0.1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    for players in (2, 4):
        ref = figures[f"playout_{players}p"]
        assert ref["games_per_s"] > 0 and ref["actions_per_game"] > 20
        if core.AVAILABLE:
            mine = figures[f"core_playout_{players}p"]
            assert mine["games_per_s"] > ref["games_per_s"]  # measured 17-25x
            # the same kind of games: random play from seeded deals
            assert 0.8 < mine["actions_per_game"] / ref["actions_per_game"] < 1.25
    assert main(["bench", "engine", "--seconds", "0.1"]) == 0
    text = capsys.readouterr().out
    assert "reference:" in text
    assert ("core:" in text) == core.AVAILABLE
    assert figures["machine"]["cpus"] >= 1
    assert f"machine: {Machine(**figures['machine']).summary()}" in text
