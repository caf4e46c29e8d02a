"""The steps/s benchmark runs and counts what it played."""

from __future__ import annotations

import json

from kozyr.bench import rl as bench


def test_measure_counts_whole_games():
    f = bench.measure("2p", {"players": 2}, seconds=0.05, seed=3)
    assert f.games >= 1 and f.steps > 20 * f.games
    assert f.cpu_s > 0 and f.steps_per_cpu_s > 0


def test_the_command_prints_json(capsys, monkeypatch):
    monkeypatch.setattr(bench, "TABLES", {"2p": {"players": 2}})
    assert bench.main(["--seconds", "0.05", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["table"] for r in rows] == ["2p"] and rows[0]["steps"] > 0
