"""Environment steps per second with uniformly random masked actions.

The loop is what a learner's rollout does, minus the network: ``env.last()``
(the observation and its action mask), one random index among those the mask
allows, ``env.step``; dead agents are stepped with ``None`` as PettingZoo
requires.  Run it as ``kozyr bench rl`` or ``python -m kozyr.bench.rl``.

Two clocks are read: wall time, and the process's CPU time, which is what
"one core" means on a shared machine (other processes' load stretches the
wall clock, not the CPU time this loop used).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from kozyr.rl import durak_v0


@dataclass(frozen=True)
class Figures:
    table: str
    steps: int
    games: int
    wall_s: float
    cpu_s: float

    @property
    def steps_per_cpu_s(self) -> float:
        return self.steps / self.cpu_s

    @property
    def steps_per_wall_s(self) -> float:
        return self.steps / self.wall_s

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["steps_per_cpu_s"] = round(self.steps_per_cpu_s)
        out["steps_per_wall_s"] = round(self.steps_per_wall_s)
        return out


#: The tables measured by default: name -> keyword arguments of ``durak_v0.env``.
TABLES: dict[str, dict[str, Any]] = {
    "2p podkidnoy": {"players": 2},
    "4p podkidnoy": {"players": 4},
    "2p perevodnoy": {"players": 2, "variant": "perevodnoy"},
    "6p perevodnoy": {"players": 6, "variant": "perevodnoy"},
    "4p cheating": {"players": 4, "cheating": True},
}


def measure(table: str, options: dict[str, Any], seconds: float, seed: int) -> Figures:
    """Play whole games for at least ``seconds`` of CPU time."""
    env = durak_v0.env(**options)
    rng = random.Random(seed)
    flat = np.flatnonzero
    steps = games = 0
    env.reset(seed=seed)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = flat(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
        if time.process_time() - cpu0 >= seconds:
            break
        env.reset()
    return Figures(table, steps, games, time.perf_counter() - wall0, time.process_time() - cpu0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="kozyr bench rl", description="Steps per second of the durak_v0 environment."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    from kozyr import machine
    from kozyr.engine import native

    rows = [measure(name, opts, args.seconds, args.seed) for name, opts in TABLES.items()]
    if args.json:
        print(json.dumps([r.to_json() for r in rows], indent=2))
        return 0
    engine = "compiled with mypyc" if native.COMPILED else "pure Python"
    print(f"kozyr bench rl  (durak_v0, random masked actions, one core; engine {engine})")
    for r in rows:
        print(
            f"  {r.table:14} {r.steps_per_cpu_s:8.0f} steps per CPU second"
            f"  ({r.steps_per_wall_s:8.0f} per wall second, {r.steps / r.games:.0f} steps/game,"
            f" {r.games} games)"
        )
    print(f"  machine: {machine.describe().summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
