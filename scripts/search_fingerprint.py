"""A short hash of the tree search's root visits and values over seeded real
decisions: whether a trial core or a refactor searches as before, visit for
visit (issue 29's trial patches, docs/runs/issue29/README.md).

    PYTHONPATH=<worktree>/src python scripts/search_fingerprint.py --level 10
    PYTHONPATH=<worktree>/src python scripts/search_fingerprint.py --config '{"regret": 0.1}'

Two cores print the same hash for the same arguments exactly when every one of
the decisions got the same visits and (to nine decimals) the same values.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_probe import collect_decisions

from kozyr.bots.ismcts import IsmctsConfig, search_root
from kozyr.bots.levels import LEVELS
from kozyr.engine.rules import Rules


def fingerprint(config: IsmctsConfig, players: list[int], views: int, seed: int) -> str:
    """The hash of ``views`` decisions per table size in ``players`` (taken
    from seeded level-7 games, as search_probe.py takes them)."""
    digest = hashlib.sha256()
    for count in players:
        for decision_seed, view, _ in collect_decisions(Rules(players=count), views, 7, seed, 0.3):
            root = search_root(view, decision_seed, config)
            digest.update(repr((root.visits, [round(v, 9) for v in root.values])).encode())
    return digest.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", type=int, default=10, choices=range(5, 11))
    p.add_argument("--config", default="{}", help="JSON IsmctsConfig fields to override")
    p.add_argument("--players", default="2,3", help="table sizes, comma-separated")
    p.add_argument("--views", type=int, default=12, help="decisions per table size")
    p.add_argument("--seed", type=int, default=4242)
    args = p.parse_args(argv)
    config = LEVELS[args.level].search
    assert isinstance(config, IsmctsConfig)
    # no time cap: a loaded machine must not cut a search short
    config = config._replace(time_cap=1e6, **json.loads(args.config))
    players = [int(x) for x in args.players.split(",")]
    print(fingerprint(config, players, args.views, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
