"""``kozyr arena --merge DIR...``: one table from a long run played in parts.

A run can be played in parts (``--first-deal``), each saved with ``--save
DIR``.  Merging reads every part's ``arena.json`` (the command that made it)
and replays every saved record, so the merged table is counted from the games
themselves, exactly as one run over the same deals would count them (Elo
included).  The parts must be of the same line-up, rules and seed, and cover
adjoining, non-overlapping ranges of deals.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from kozyr.arena.runner import GameResult, game_result
from kozyr.arena.schedule import GameSlot, Pairing, derive
from kozyr.arena.spec import ArenaError
from kozyr.bots import match as referee
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord, RecordError
from kozyr.engine.rules import Rules

from .arena_report import Report
from .arena_setup import build_pairings, build_rules, canonical_command

RECORD_NAME = re.compile(r"p(\d{3})-d(\d{5})-r(\d+)\.json")


@dataclass(frozen=True)
class Part:
    """One saved part: its run's parameters and its games."""

    path: Path
    args: argparse.Namespace
    rules: Rules
    pairings: list[Pairing]
    seed: int
    first: int
    deals: int
    elapsed: float
    workers: int
    games: int


def read_part(path: Path) -> Part:
    """A part's parameters, from the ``arena.json`` that ``--save`` wrote."""
    summary_file = path / "arena.json"
    try:
        data = json.loads(summary_file.read_text(encoding="utf-8"))
        words = shlex.split(data["command"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ArenaError(f"{summary_file} is not an arena summary: {exc}") from None
    from .main import build_parser  # the same parser, so the command means the same

    try:
        args: argparse.Namespace = build_parser().parse_args(words[1:])
    except SystemExit:
        raise ArenaError(f"{summary_file}: cannot read its command {data['command']!r}") from None
    rules = build_rules(args, len(args.bots))
    return Part(
        path,
        args,
        rules,
        build_pairings(args, rules),
        args.seed,
        args.first_deal,
        args.deals,
        float(data.get("elapsed_s") or 0.0),
        int(data.get("workers") or 1),
        int(data.get("games", -1)),
    )


def part_results(part: Part) -> list[GameResult]:
    """Every game of a part, replayed from its record and checked against the schedule."""
    results = []
    for file in sorted(part.path.glob("p*-d*-r*.json")):
        name = RECORD_NAME.fullmatch(file.name)
        if name is None:
            continue
        pairing, deal, rotation = (int(g) for g in name.groups())
        if pairing >= len(part.pairings) or not part.first <= deal < part.deals:
            raise ArenaError(f"{file} is not a game of this part")
        seats = part.pairings[pairing].rotations()[rotation]
        deal_seed = derive(part.seed, deal)
        try:
            record = GameRecord.load(file)
        except RecordError as exc:
            raise ArenaError(f"{file}: {exc}") from None
        if record.rules != part.rules or record.deal != Deal.from_seed(part.rules, deal_seed):
            raise ArenaError(f"{file} was not played on this run's rules and deal")
        replay = record.replay()
        finished = replay.state.result is not None
        abandoned = len(record.actions) > referee.GAME_CAP  # an unfinished game, kept
        if not replay.ok or not (finished or abandoned):
            raise ArenaError(f"{file} does not replay to a finished game")
        slot = GameSlot(pairing, deal, rotation, deal_seed, derive(deal_seed, rotation), seats)
        results.append(game_result(slot, replay.state, record.deal))
    if len(results) != part.games:
        raise ArenaError(f"{part.path} holds {len(results)} records, its summary {part.games}")
    return results


def merge(dirs: list[str]) -> tuple[Report, str, int]:
    """The merged report of the parts saved in ``dirs``, the command of the one
    run it equals, and its seed."""
    parts = sorted((read_part(Path(d)) for d in dirs), key=lambda p: p.first)
    head = parts[0]
    for part in parts[1:]:
        same = (part.rules, part.pairings, part.seed) == (head.rules, head.pairings, head.seed)
        if not same:
            raise ArenaError(f"{part.path} is not a part of the same run as {head.path}")
    for a, b in itertools.pairwise(parts):
        if a.deals != b.first:
            raise ArenaError(
                f"the parts do not adjoin: {a.path} holds deals {a.first}–{a.deals - 1}, "
                f"{b.path} starts at deal {b.first}"
            )
    results = sorted(
        (r for part in parts for r in part_results(part)),
        key=lambda r: (r.pairing, r.deal, r.rotation),
    )
    report = Report(
        head.rules,
        head.pairings,
        results,
        parts[-1].deals,
        head.first,
        sum(p.elapsed for p in parts),
        max(p.workers for p in parts),
        merged_from=[str(p.path) for p in parts],
    )
    whole = argparse.Namespace(**{**vars(head.args), "first_deal": head.first})
    return report, canonical_command(whole, head.rules, parts[-1].deals), head.seed
