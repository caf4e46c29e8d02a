"""The figures of docs/analysis.md (issue 27, section 2): stability across seeds,
the meaningful check on arena games, and speed.

Each analysed game is cached as one JSON file under ``--cache`` (named by the
record, the seed and the budget), so a long run can be stopped and resumed in
parts and the summaries re-read without analysing again::

    # 20 games, 3 seeds, at the default budget: the label agreement
    python scripts/analysis_figures.py stability RECORDS... --seeds 0 1 2
    # arena games (kozyr arena 10 4 --save DIR): accuracy and errors per bot
    python scripts/analysis_figures.py meaningful DIR [DIR ...] [--budget N]
    # CPU and wall time of one record, both seats
    python scripts/analysis_figures.py speed RECORD [--workers 2]

Run it with ``nice -n 10`` on a shared machine; ``--workers`` threads analyse
decisions in parallel (the figures do not depend on it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from kozyr.bots.analysis import REFINE_SHARE, analyse, label_of
from kozyr.engine.record import GameRecord

ERRORS = ("mistake", "blunder")
ERRORS_ANY = ("inaccuracy", *ERRORS)


def cached(
    path: Path, seed: int, budget: int | None, workers: int, cache: Path, only: bool = False
) -> dict[str, Any] | None:
    """The analysis JSON of every seat of ``path`` (computed once per key; with
    ``only``, None for a game not analysed yet)."""
    text = path.read_text()
    # The method is part of the key: figures from before the refinement
    # (REFINE_SHARE) stay cached under their own names.
    method = f"|refine{REFINE_SHARE}" if REFINE_SHARE else ""
    key = hashlib.sha256(f"{text}|{seed}|{budget}{method}".encode()).hexdigest()[:20]
    out = cache / f"{path.stem}-{key}.json"
    if out.exists():
        data: dict[str, Any] = json.loads(out.read_text())
        return data
    if only:
        return None
    start, cpu0 = time.perf_counter(), time.process_time()
    result = analyse(GameRecord.loads(text), None, budget, seed, workers).to_json()
    result["wall"] = time.perf_counter() - start
    result["cpu"] = time.process_time() - cpu0
    result["record"] = str(path)
    cache.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result))
    return result


def relabel(d: dict[str, Any]) -> str:
    """A cached decision's label under today's rule (the chances do not change)."""
    loss = max(0.0, d["chance_best"] - d["chance_played"])
    return label_of(loss, d["played"] == d["best"], d["label"] == "forced")


def records_in(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.glob("*.json") if q.name != "arena.json")
        else:
            out.append(p)
    return out


def stability(args: argparse.Namespace) -> None:
    games = records_in(args.records)[: args.games]
    agree = total = exact = done = errors_agree = serious_agree = 0
    for i, path in enumerate(games):
        found = [
            cached(path, s, args.budget, args.workers, args.cache, args.cached_only)
            for s in args.seeds
        ]
        runs = [r for r in found if r is not None]
        if len(runs) < len(found):
            continue
        done += 1
        labels: dict[tuple[str, int], list[str]] = defaultdict(list)
        for run in runs:
            for seat, sa in run["seats"].items():
                for d in sa["decisions"]:
                    if d["label"] != "forced":
                        labels[(seat, d["index"])].append(relabel(d))
                        exact += d.get("exact", False) and run is runs[0]
        for got in labels.values():
            total += 1
            agree += len(set(got)) == 1
            errors_agree += len({g in ERRORS_ANY for g in got}) == 1
            serious_agree += len({g in ERRORS for g in got}) == 1
        print(f"{i + 1}/{len(games)} {path.name}: {agree}/{total} agree so far", file=sys.stderr)
    print(
        json.dumps(
            {
                "games": done,
                "seeds": args.seeds,
                "budget": args.budget,
                "decisions": total,
                "exact": exact,
                "agree": agree,
                "agreement": round(agree / total, 4) if total else None,
                # Whether a decision is an error at all (inaccuracy or worse),
                # and whether it is a mistake or worse: the verdicts' agreement.
                "error_or_not_agreement": round(errors_agree / total, 4) if total else None,
                "mistake_or_not_agreement": round(serious_agree / total, 4) if total else None,
            }
        )
    )


def meaningful(args: argparse.Namespace) -> None:
    per_bot: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for d in args.dirs:
        games = records_in([d])[: args.games]
        for i, path in enumerate(games):
            record = json.loads(path.read_text())
            bots = record["meta"]["arena"]["bots"]
            run = cached(path, args.seed, args.budget, args.workers, args.cache, args.cached_only)
            if run is None:
                continue
            for seat, sa in run["seats"].items():
                bot = f"{d}:{bots[int(seat)]}"
                stats = per_bot[bot]
                stats["games"] += 1
                if sa["accuracy"] is not None:
                    stats["accuracy_sum"] += sa["accuracy"]
                    stats["accuracy_n"] += 1
                for dec in sa["decisions"]:
                    if dec["label"] != "forced":
                        stats["decisions"] += 1
                    stats[relabel(dec)] += 1
            print(f"{d} {i + 1}/{len(games)}", file=sys.stderr)
    table = {}
    for bot, s in sorted(per_bot.items()):
        g = s["games"] or 1
        table[bot] = {
            "games": int(s["games"]),
            "mean_accuracy": round(s["accuracy_sum"] / (s["accuracy_n"] or 1), 1),
            "decisions_per_game": round(s["decisions"] / g, 1),
            "inaccuracies_per_game": round(s["inaccuracy"] / g, 2),
            "mistakes_per_game": round(s["mistake"] / g, 2),
            "blunders_per_game": round(s["blunder"] / g, 2),
        }
    print(json.dumps({"budget": args.budget, "seed": args.seed, "bots": table}, indent=1))


def speed(args: argparse.Namespace) -> None:
    record = GameRecord.load(args.record)
    start, cpu0 = time.perf_counter(), time.process_time()
    result = analyse(record, None, args.budget, args.seed, args.workers)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    decisions = sum(len(s.decisions) for s in result.seats.values())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "record": args.record,
                "actions": len(record.actions),
                "decisions": decisions,
                "budget": result.budget,
                "workers": args.workers,
                "wall_s": round(wall, 2),
                "cpu_s": round(cpu, 2),
                "max_rss_mb": round(usage.ru_maxrss / 1024, 1),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--budget", type=int, default=None)
    common.add_argument("--workers", type=int, default=1)
    common.add_argument("--cache", type=Path, default=Path("test-artifacts/analysis-cache"))
    common.add_argument("--games", type=int, default=20)
    common.add_argument(
        "--cached-only", action="store_true", help="summarise the games analysed so far"
    )
    s = sub.add_parser("stability", parents=[common])
    s.add_argument("records", nargs="+")
    s.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    m = sub.add_parser("meaningful", parents=[common])
    m.add_argument("dirs", nargs="+")
    m.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("speed", parents=[common])
    p.add_argument("record")
    p.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    {"stability": stability, "meaningful": meaningful, "speed": speed}[args.what](args)


if __name__ == "__main__":
    main()
