"""``kozyr bench engine|bots|server|players|rl``: the command; the drivers that
measure are in :mod:`kozyr.bench` (engine, bots, server, players: profiles,
candies, ratings and history; rl: the durak_v0 environment, which needs the
[rl] extra)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kozyr import core, machine
from kozyr.bench import players as players_bench
from kozyr.bench import server as server_bench
from kozyr.bench.engine import core_playout_rate, legal_rate, playout_rate
from kozyr.engine import native
from kozyr.engine.rules import Rules


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench", help="benchmarks (engine, bots)", description="Print benchmark figures."
    )
    p.add_argument(
        "target", choices=["engine", "bots", "server", "players", "rl"], help="what to measure"
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=3.0,
        help="time per measurement; for bots, per level (default 3)",
    )
    p.add_argument("--levels", default="1-10", help="bots: levels to time, e.g. 1-10 or 5,10")
    p.add_argument("--variant", default="podkidnoy", choices=["podkidnoy", "perevodnoy"])
    p.add_argument(
        "--players",
        type=int,
        default=2,
        choices=range(2, 7),
        metavar="2-6",
        help="bots: players at the table (the level timed against level-4 bots; default 2)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--cheating", action="store_true", help="bots: time the levels at a cheating table"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    server_bench.add_arguments(p)
    players_bench.add_arguments(p)
    p.set_defaults(run=run)


def run_bots(args: argparse.Namespace) -> int:
    from kozyr.bench.bots import parse_levels, print_table, run_bench

    try:
        levels = parse_levels(args.levels)
    except ValueError as exc:
        print(f"kozyr bench bots: {exc}")
        return 2
    rows = run_bench(levels, args.seconds, args.seed, args.players, args.variant, args.cheating)
    if args.json:
        print(json.dumps([r.to_json() for r in rows], indent=2))
    else:
        print_table(rows, args.players, args.variant, args.cheating)
        print(f"machine: {machine.describe().summary()}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.target == "bots":
        return run_bots(args)
    if args.target == "server":
        return server_bench.run(args)
    if args.target == "players":
        return players_bench.run(args)
    if args.target == "rl":
        from kozyr.bench import rl as rl_bench

        return rl_bench.run(args)
    figures: dict[str, Any] = {
        "compiled": native.COMPILED,
        "core": core.AVAILABLE,
        "variant": args.variant,
    }
    for players in (2, 4):
        rules = Rules(players=players, deck=36, variant=args.variant)
        figures[f"playout_{players}p"] = playout_rate(rules, args.seconds, args.seed)
        if core.AVAILABLE:
            figures[f"core_playout_{players}p"] = core_playout_rate(rules, args.seconds, args.seed)
    figures["legal_4p"] = legal_rate(Rules(variant=args.variant), args.seconds, args.seed)
    here = machine.describe()
    figures["machine"] = here.to_json()
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"kozyr bench engine  ({args.variant}, 36 cards, one core; reference engine "
        f"{'compiled with mypyc' if native.COMPILED else 'pure Python'}, compiled core "
        f"{'built' if core.AVAILABLE else 'not built (run ./setup)'})"
    )
    for players in (2, 4):
        f = figures[f"playout_{players}p"]
        print(
            f"  random playouts, {players} players, reference: {f['games_per_s']:8.0f} games/s"
            f"  ({f['actions_per_game']:.0f} actions/game, {f['us_per_action']:.2f} us/action)"
        )
        c = figures.get(f"core_playout_{players}p")
        if c is not None:
            print(
                f"  random playouts, {players} players, core:      {c['games_per_s']:8.0f} games/s"
                f"  ({c['actions_per_game']:.0f} actions/game, {c['us_per_action']:.2f} us/action)"
                f"  {c['games_per_s'] / f['games_per_s']:.0f}x the reference"
            )
    f = figures["legal_4p"]
    print(
        f"  legal-move generation, 4 players: {f['generations_per_s']:8.0f} /s"
        f"  ({f['moves_per_generation']:.1f} moves each)"
    )
    print(f"  machine: {here.summary()}")
    return 0
