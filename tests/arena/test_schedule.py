"""Duplicate deals, seat rotation, derived seeds and reproducible runs."""

from collections import Counter

import pytest

from kozyr.arena import runner
from kozyr.arena.runner import GameResult
from kozyr.arena.schedule import (
    Entrant,
    Pairing,
    build_schedule,
    derive,
    make_pairing,
    rotations,
)
from kozyr.arena.spec import ArenaError, make, parse_spec, spec_label, spec_order
from kozyr.arena.summary import summarize
from kozyr.bots.ismcts import IsmctsBot
from kozyr.engine.rules import Rules

from ..bots.helpers import searcher_of


def test_rotations_cover_every_seat():
    assert rotations((0, 1)) == [(0, 1), (1, 0)]
    four = rotations((0, 1, 2, 3))
    assert len(four) == 4
    for seat in range(4):
        # each entrant sits in each seat exactly once over the rotations
        assert sorted(r[seat] for r in four) == [0, 1, 2, 3]
    # Periodic line-ups (teams) only have their distinct rotations.
    assert rotations((0, 1, 0, 1)) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert rotations((0, 1, 2, 0, 1, 2)) == [
        (0, 1, 2, 0, 1, 2),
        (2, 0, 1, 2, 0, 1),
        (1, 2, 0, 1, 2, 0),
    ]


def test_make_pairing_labels_and_checks():
    p = make_pairing(0, ["10", "4", "4", "4"], 4, 0)
    assert [e.label for e in p.entrants] == ["level 10", "level 4 #1", "level 4 #2", "level 4 #3"]
    assert p.label == "level 10, 3 × level 4"
    assert make_pairing(0, ["10", "4"], 2, 0).label == "level 10 vs level 4"
    with pytest.raises(ArenaError, match="4-player table needs 4 bots"):
        make_pairing(0, ["10", "4"], 4, 0)
    teams = make_pairing(0, ["10", "4"], 4, 2)
    assert teams.base == (0, 1, 0, 1) and len(teams.rotations()) == 2
    assert make_pairing(0, ["10", "4", "10", "4"], 4, 2).entrants == teams.entrants
    with pytest.raises(ArenaError, match="must be one bot"):
        make_pairing(0, ["10", "4", "4", "10"], 4, 2)


def test_parse_spec():
    assert parse_spec("random") == "random"
    assert parse_spec(" Random ") == "random"
    assert parse_spec("07") == "7"
    assert parse_spec("level10") == "10"
    assert parse_spec("L3") == "3"
    for bad in ("0", "11", "minimax", "", "-1"):
        with pytest.raises(ArenaError, match="unknown bot"):
            parse_spec(bad)
    assert spec_label("7") == "level 7" and spec_label("random") == "random"


def test_flat_monte_carlo_specs():
    for text in ("mc10", "MC10", " Mc10 ", "mc 10", "mc010"):
        assert parse_spec(text) == "mc10"
    assert [parse_spec(f"mc{n}") for n in range(5, 11)] == [f"mc{n}" for n in range(5, 11)]
    for bad in ("mc4", "mc11", "mc", "mc-5", "mc5.0", "mcts"):
        with pytest.raises(ArenaError, match=r"frozen flat Monte Carlo bots are mc5\.\.mc10"):
            parse_spec(bad)
    assert spec_label("mc10") == "mc10"
    assert make_pairing(0, ["10", "mc10"], 2, 0).label == "level 10 vs mc10"
    assert [e.label for e in make_pairing(0, ["mc7", "mc7"], 2, 0).entrants] == [
        "mc7 #1",
        "mc7 #2",
    ]
    # random, then the levels, then the frozen mc bots
    specs = ["mc10", "10", "mc5", "random", "5", "1"]
    assert sorted(specs, key=spec_order) == ["random", "1", "5", "10", "mc5", "mc10"]
    bot = make("mc6", 3)
    assert bot.name == "mc6"


def test_each_deal_is_played_in_every_rotation():
    pairings = [make_pairing(0, ["random"] * 3, 3, 0), make_pairing(1, ["random"] * 3, 3, 0)]
    blocks = build_schedule(pairings, deals=5, seed=42)
    assert len(blocks) == 2 * 5
    deal_seeds_by_pairing: dict[int, list[int]] = {0: [], 1: []}
    for block in blocks:
        assert len(block) == 3
        assert len({g.deal_seed for g in block}) == 1  # one deal per block
        assert len({g.game_seed for g in block}) == 3  # distinct games
        assert sorted(g.seats for g in block) == sorted(rotations((0, 1, 2)))
        deal_seeds_by_pairing[block[0].pairing].append(block[0].deal_seed)
    # Every pairing plays the same deals, and the deals differ.
    assert deal_seeds_by_pairing[0] == deal_seeds_by_pairing[1]
    assert len(set(deal_seeds_by_pairing[0])) == 5


def test_seeds_are_derived_and_portable():
    assert derive(1, 2) == derive(1, 2)
    assert derive(1, 2) != derive(2, 1)
    assert all(0 <= derive(s, d) < 2**53 for s in range(20) for d in range(20))
    a = build_schedule([make_pairing(0, ["random"] * 2, 2, 0)], 3, seed=5)
    b = build_schedule([make_pairing(0, ["random"] * 2, 2, 0)], 3, seed=5)
    c = build_schedule([make_pairing(0, ["random"] * 2, 2, 0)], 3, seed=6)
    assert a == b and a != c


def _run(seed: int, players: int = 2, deals: int = 6) -> tuple[list[Pairing], list[GameResult]]:
    rules = Rules(players=players)
    pairings = [make_pairing(0, ["random"] * players, players, 0)]
    blocks = build_schedule(pairings, deals, seed)
    return pairings, runner.run(rules, pairings, blocks, workers=1)


def test_same_seed_same_results():
    p, first = _run(9, players=3)
    _, second = _run(9, players=3)
    _, other = _run(10, players=3)
    assert first == second
    assert first != other
    assert len(first) == 6 * 3
    assert [(g.deal, g.rotation) for g in first] == [(d, r) for d in range(6) for r in range(3)]
    summary = summarize(p, first, 6)
    assert summary.games == 18
    assert sum(s.duraks for s in summary.pairings[0].sides) + summary.pairings[0].draws == 18


def test_chunks_keep_blocks_whole():
    pairings = [make_pairing(0, ["random"] * 4, 4, 0)]
    blocks = build_schedule(pairings, 100, 1)
    chunks = runner.chunk_blocks(blocks, workers=2)
    assert sum(len(c) for c in chunks) == 400
    assert all(len(c) % 4 == 0 for c in chunks)
    assert len(chunks) > 2
    count = Counter(g.deal for c in chunks for g in c)
    assert set(count.values()) == {4}


def test_worker_errors_reach_the_caller():
    """A bot that fails inside a worker process stops the run with its message."""
    rules = Rules(players=2)
    broken = Pairing(0, (Entrant("random", "random"), Entrant("99", "level 99")), (0, 1))
    blocks = build_schedule([broken], 40, 1)
    with pytest.raises(ArenaError, match="cannot create bot level 99"):
        runner.run(rules, [broken], blocks, workers=2)


def test_frozen_search_and_budget_multiple_specs():
    for text in ("is10", "IS10", " is 10 ", "is010"):
        assert parse_spec(text) == "is10"
    assert parse_spec("10x3") == "10x3" and parse_spec("Level 10 x 30") == "10x30"
    assert parse_spec("is10x10") == "is10x10" and parse_spec("10x1") == "10"
    assert parse_spec("is9x1") == "is9"
    for bad in ("is4", "is11", "is", "4x3", "10x0", "10x101", "10x", "x3", "is10x2.5"):
        with pytest.raises(ArenaError):
            parse_spec(bad)
    assert spec_label("is10") == "is10" and spec_label("10x3") == "level 10 ×3"
    assert spec_label("is10x30") == "is10 ×30"
    assert make_pairing(0, ["10x10", "is10"], 2, 0).label == "level 10 ×10 vs is10"
    specs = ["is10", "10x3", "mc10", "is10x3", "10", "random", "5"]
    assert sorted(specs, key=spec_order) == ["random", "5", "10", "10x3", "mc10", "is10", "is10x3"]
    bot = make("is10x3", 3)
    assert bot.name == "is10 ×3"
    inner = searcher_of(bot)
    assert isinstance(inner, IsmctsBot)
    assert inner.config.iterations == 90_000 and inner.config.time_cap == 180.0
    level = searcher_of(make("10", 3))
    assert level.config.time_cap == 60.0  # the arena's safety net, not the server's 1.4 s
    assert searcher_of(make("mc10", 3)).config.time_cap == 60.0
