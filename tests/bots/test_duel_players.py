"""scripts/ismcts_duel.py --players N: side A in each seat in turn, side B in
all the others (issue 29's bars with more players: one new level against
today's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import load_script
from .test_duel_compare import run_duel

TINY = '{"iterations": 50, "endgame_nodes": 50}'


def tables_of(monkeypatch: pytest.MonkeyPatch, duel: Any) -> list[list[Any]]:
    """The bots of every game the duel's module plays from now on, seat by seat."""
    tables: list[list[Any]] = []
    real = duel.play_game

    def spy(rules: Any, cards: Any, bots: list[Any]) -> Any:
        tables.append(bots)
        return real(rules, cards, bots)

    monkeypatch.setattr(duel, "play_game", spy)
    return tables


def test_side_a_sits_in_the_rotations_seat_and_b_in_every_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    duel = load_script("ismcts_duel")
    tables = tables_of(monkeypatch, duel)
    rules = {"players": 4, "deck": 36, "variant": "podkidnoy"}
    for rot in range(4):
        deal, rotation, durak = duel.game((3, rot, TINY, TINY, rules, 9000))
        assert (deal, rotation) == (3, rot) and durak in ("A", "B", None)
    assert [[bot.name for bot in bots] for bots in tables] == [
        ["A", "B", "B", "B"],
        ["B", "A", "B", "B"],
        ["B", "B", "A", "B"],
        ["B", "B", "B", "A"],
    ]
    # The three B's of a game search with seeds of their own.
    assert all(len({bot.seed for bot in bots}) == 4 for bots in tables)


def test_a_two_player_duel_keeps_the_seeds_of_the_first_measurements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Records made before --players resume as they were: the same seeds."""
    duel = load_script("ismcts_duel")
    tables = tables_of(monkeypatch, duel)
    duel.game((5, 1, TINY, TINY, {"players": 2, "deck": 36, "variant": "podkidnoy"}, 9000))
    ((b, a),) = tables
    assert (a.name, b.name) == ("A", "B") and (a.seed, b.seed) == (5 * 2 + 1, 5 * 2 + 1 + 999)


def test_the_players_are_read_from_the_label() -> None:
    duel = load_script("ismcts_duel")
    assert duel.players_of(f"A {TINY} | B {TINY} | perevodnoy, 3 players") == 3
    assert duel.players_of(f"A {TINY} | B {TINY} | podkidnoy") == 2


def test_a_three_player_duel_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "p3.jsonl"
    first = run_duel(TINY, TINY, "--players", 3, "--variant", "perevodnoy", "--deals", 2,
                     "--workers", 1, "--out", out, "--resume")  # fmt: skip
    assert "| perevodnoy, 3 players | durak: A " in first and "draws" in first
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((row["deal"], row["rotation"]) for row in rows) == [
        (d, r) for d in range(2) for r in range(3)
    ]
    # A two-player duel of the same sides is another duel: not these games.
    duel = load_script("ismcts_duel")
    assert duel.load_games(out, f"A {TINY} | B {TINY} | perevodnoy")[0] == {}
    merged = run_duel("--merge", out)
    assert "| 2 deals merged |" in merged
    counts = merged.splitlines()[1]
    assert counts.startswith("per deal (2 played in all 3 seats), A the durak in 0: ")
    tally = [int(part.rpartition(": ")[2]) for part in counts.split(", ")[1:]]
    assert sum(tally) == 2 and len(tally) == 4


def test_more_players_split_the_deals_by_how_often_a_lost_them() -> None:
    duel = load_script("ismcts_duel")
    games = {(0, 0): "A", (0, 1): "B", (0, 2): "A", (1, 0): "B", (1, 1): "B", (1, 2): None}
    games[(2, 0)] = "A"  # deal 2: one seat only
    assert duel.deal_split(games, 3) == (
        "per deal (2 played in all 3 seats), A the durak in 0: 1, 1: 0, 2: 1, 3: 0"
    )
