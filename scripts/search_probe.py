"""Where do the search's iterations go?  Diagnostics of the ISMCTS of levels 5-10.

Issue 29: level 10 gains little from more iterations.  This script collects
real decisions (views of seeded self-play games, decisions the endgame solver
does not settle) and runs the core's search on each at several multiples of a
level's budget with ``debug=True`` (``kozyr.bots.ismcts.search_root``).  It
prints, per multiple:

- how many distinct determinizations (deals of the hidden cards) a decision saw;
- the tree's depth (edges walked per iteration) and how many rounds (each
  ending in a refill from the hidden deck) the walk went past;
- the branching at the opponents' and at the bot's own nodes below the root
  (children, and the effective number: exp of the entropy of their visits);
- how the root's visits are spread (share of the most visited candidate, and
  how many candidates got more visits between half and full budget);
- how often the most visited root action changes between half and full
  budget, and between 1x and each multiple;

and, with ``--endgames N``, how far the playouts' results are from the exact
value once a playout reaches a perfect-information endgame (stock empty, two
players left): from sampled deals of the same views the level-4 policy plays
on to such an endgame, the exact solver gives its value, and noisy playouts
(5 % random moves, as in the search) from the same position are compared.

With ``--judge M``, every decision where a multiple chose otherwise than 1x
is valued in the deal as it really was: an oracle search of M times the
budget (the opponents' true hands told, only the stock's order sampled)
values both choices, and the mean difference says whether the larger budget
changes its choices for the better (``judged_gain``, in the reward's units:
0 to 1, the durak 0).  ``--scaled-config`` changes the larger budgets only,
so that a candidate at 10x is judged against plain 1x as the duel plays it.
The judge values positions as if both sides saw the hands: on 400 decisions
it found plain 10x's changes even, where the duel finds 10x far stronger
(docs/bots.md, issue 29), so it explains, it does not replace a duel.

    python scripts/search_probe.py --views 60 --multiples 1,3,10,30 --json out.json
    python scripts/search_probe.py --views 20 --config '{"exploration": 1.5}'

Views come from games of ``--players-level`` bots (default level 7: cheap to
play, realistic positions), seeds ``--seed``, ``--seed+1``, ...; a view is
kept with chance ``--keep`` so that they spread over the game.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from typing import Any

from kozyr.bots.endgame import Solver, two_sided
from kozyr.bots.frozen import FROZEN_LEVELS
from kozyr.bots.heuristics import SOLID, tables
from kozyr.bots.ismcts import IsmctsConfig, search_root, with_hands_known
from kozyr.bots.levels import LEVELS, level_bot
from kozyr.bots.rollout import playout, policy_action, reward
from kozyr.bots.sampler import Slots, sample_state
from kozyr.bots.search import candidates
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of


def collect_decisions(
    rules: Rules, count: int, level: int, seed: int, keep: float
) -> list[tuple[int, View, tuple[int, ...]]]:
    """``count`` (seed, view, every seat's true hand) triples of real decisions
    the tree search would make."""
    rng = random.Random(seed)
    out: list[tuple[int, View, tuple[int, ...]]] = []
    game = 0
    while len(out) < count:
        state = GameState.new(rules, Deal.from_seed(rules, seed + game))
        bots = [level_bot(level, seed + game * 10 + s) for s in range(rules.players)]
        while not state.game_over and len(out) < count:
            seat = state.to_move
            assert seat is not None
            view = view_of(state, seat)
            if len(candidates(view)) > 1 and rng.random() < keep:
                slots = Slots(view)
                if not (slots.determined() and two_sided(sample_state(view, random.Random(0)))):
                    out.append((seed + game * 1000 + len(out), view, tuple(state.hands)))
            state.apply(bots[seat].choose(view))
        game += 1
    return out


def views_of(
    decisions: list[tuple[int, View, tuple[int, ...]]], oracle: bool = False
) -> list[tuple[int, View]]:
    """The (seed, view) pairs of ``decisions`` (with ``oracle``, the same
    decisions with the opponents' hands made known)."""
    return [(s, with_hands_known(view, hands) if oracle else view) for s, view, hands in decisions]


def judge(
    decisions: list[tuple[int, View, tuple[int, ...]]],
    base: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    config: IsmctsConfig,
) -> tuple[dict[str, float], list[float]]:
    """Where a multiple chose otherwise than 1x, which choice was better in the
    deal as it really was: an oracle search (the opponents' true hands told,
    the stock's order still sampled) with ``config`` values both, its root
    exploration wide so that every candidate is valued on many visits.  The
    mean over decisions of that value's difference estimates what the changed
    choices are worth: a good choice under uncertainty can be the worse one
    in the true deal, but not on average.  Returns the summary and each
    changed decision's difference."""
    gains = []
    for (seed, view, hands), b, r in zip(decisions, base, rows, strict=True):
        if r["best"] == b["best"]:
            continue
        values = search_root(with_hands_known(view, hands), seed + 1, config).values
        gains.append(values[r["best"]] - values[b["best"]])
    spread = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else float("nan")
    return {
        "judged": len(gains),
        "judged_gain": statistics.fmean(gains) if gains else float("nan"),
        "judged_gain_se": spread,
        "judged_better": sum(g > 0 for g in gains),
        "judged_worse": sum(g < 0 for g in gains),
    }, gains


def probe(view: View, seed: int, config: IsmctsConfig) -> dict[str, Any]:
    """One search of ``view`` with the core's debug statistics."""
    root = search_root(view, seed, config, debug=True)
    info = root.info
    dbg = info["debug"]
    visits = root.visits
    half = dbg["half_visits"]
    total = sum(visits)
    grew = sum(1 for a, b in zip(half, visits, strict=True) if b - a > (total - sum(half)) // 100)
    depths = dbg["depths"]
    n = sum(depths)
    rounds = dbg["rounds"]
    return {
        "best": root.best,
        "half_best": max(range(len(half)), key=lambda i: (half[i], -i)),
        "candidates": len(visits),
        "iterations": info["iterations"],
        "distinct_deals": dbg["distinct_deals"],
        "depth_mean": sum(d * k for d, k in enumerate(depths)) / n,
        "depth_max": max(d for d, k in enumerate(depths) if k),
        "rounds_mean": sum(r * k for r, k in enumerate(rounds)) / n,
        "beyond_first_round": sum(rounds[1:]) / n,
        "beyond_two_rounds": sum(rounds[2:]) / n,
        "best_share": visits[root.best] / total,
        "grew_in_second_half": grew,
        "value_best": root.values[root.best],
        "value_gap": root.values[root.best]
        - max((v for i, v in enumerate(root.values) if i != root.best), default=0.0),
        "endgame_leaves": dbg["endgame_leaves"] / n,
        "opp_children": _ratio(dbg["opponent_nodes"], "children"),
        "opp_effective": _ratio(dbg["opponent_nodes"], "effective"),
        "own_children": _ratio(dbg["own_nodes"], "children"),
        "own_effective": _ratio(dbg["own_nodes"], "effective"),
        **_classes(dbg["opponent_classes"]),
        "seconds": 0.0,
    }


def _classes(figures: dict[str, float] | None) -> dict[str, float]:
    """With ``opponent_shrink``: over the opponents' replies of 100 visits or
    more, the classes of hand each was played with, and how far a class's mean
    lies from the reply's mean over every deal (nan without the knob)."""
    if not figures or not figures["replies"]:
        return {"reply_classes": float("nan"), "class_gap": float("nan")}
    return {"reply_classes": figures["classes_per_reply"], "class_gap": figures["mean_gap"]}


def _ratio(d: dict[str, float], key: str) -> float:
    return d[key] / d["count"] if d["count"] else float("nan")


def summarize(rows: list[dict[str, Any]], base: list[dict[str, Any]] | None) -> dict[str, float]:
    """Means over the views, and how often the decision differs from ``base``'s."""

    def mean(key: str) -> float:
        vals = [r[key] for r in rows if not math.isnan(r[key])]
        return statistics.fmean(vals) if vals else float("nan")

    out = {
        k: mean(k)
        for k in (
            "candidates",
            "iterations",
            "distinct_deals",
            "depth_mean",
            "depth_max",
            "rounds_mean",
            "beyond_first_round",
            "beyond_two_rounds",
            "best_share",
            "grew_in_second_half",
            "value_gap",
            "endgame_leaves",
            "opp_children",
            "opp_effective",
            "own_children",
            "own_effective",
            "reply_classes",
            "class_gap",
            "seconds",
        )
    }
    out["changed_half_to_full"] = statistics.fmean(r["best"] != r["half_best"] for r in rows)
    if base is not None:
        out["differs_from_1x"] = statistics.fmean(
            r["best"] != b["best"] for r, b in zip(rows, base, strict=True)
        )
    return out


def endgame_noise(
    views: list[tuple[int, View]], deals: int, playouts: int, eps: float, nodes: int
) -> dict[str, float]:
    """From sampled deals of each view the level-4 policy plays on to a
    perfect-information endgame (stock empty, two sides); the exact solver's
    value there against ``playouts`` noisy policy playouts from it."""
    errors: list[float] = []
    wrong: list[float] = []
    wrong_greedy: list[float] = []
    exact_values: list[float] = []
    cards: list[int] = []
    solver_nodes: list[int] = []
    unsolved = 0
    for seed, view in views:
        rng = random.Random(seed)
        slots = Slots(view)
        for _ in range(deals):
            state = sample_state(view, rng, slots)
            t = tables(state.trump_suit, state.rules.deck)
            while not state.game_over and not (not state.stock and two_sided(state)):
                state.do(policy_action(state, t, SOLID, rng.random()))
            if state.game_over or state.to_move is None:
                continue
            mover = state.to_move
            solution = Solver(mover, nodes).solve(state)
            if solution is None:
                unsolved += 1
                continue
            got = []
            for _ in range(playouts):
                s = state.copy()
                playout(s, rng, eps)
                got.append(reward(s, mover))
            greedy = state.copy()
            playout(greedy, rng, 0.0)
            errors.append(abs(statistics.fmean(got) - solution.value))
            wrong.append(statistics.fmean(abs(g - solution.value) >= 0.5 for g in got))
            wrong_greedy.append(abs(reward(greedy, mover) - solution.value) >= 0.5)
            exact_values.append(solution.value)
            cards.append(sum(h.bit_count() for h in state.hands))
            solver_nodes.append(solution.nodes)
    return {
        "endgames": len(errors),
        "unsolved": unsolved,
        "mean_abs_error_of_playout_mean": statistics.fmean(errors) if errors else float("nan"),
        "share_of_playouts_with_the_wrong_outcome": statistics.fmean(wrong)
        if wrong
        else float("nan"),
        "mover_exact_value_mean": statistics.fmean(exact_values) if exact_values else float("nan"),
        "wrong_outcome_without_random_moves": statistics.fmean(wrong_greedy)
        if wrong_greedy
        else float("nan"),
        "cards_in_hands_median": statistics.median(cards) if cards else float("nan"),
        "solver_nodes_median": statistics.median(solver_nodes) if solver_nodes else float("nan"),
        "solver_nodes_p90": sorted(solver_nodes)[int(0.9 * len(solver_nodes))]
        if solver_nodes
        else float("nan"),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--views", type=int, default=40)
    p.add_argument("--multiples", default="1,3,10,30")
    p.add_argument("--level", type=int, default=10, help="the level whose budget is multiplied")
    p.add_argument("--frozen", action="store_true", help="the frozen issue-12 level (isN) instead")
    p.add_argument("--config", default="{}", help="JSON IsmctsConfig fields to override")
    p.add_argument("--players-level", type=int, default=7)
    p.add_argument("--variant", default="podkidnoy", choices=["podkidnoy", "perevodnoy"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--keep", type=float, default=0.3)
    p.add_argument("--endgames", type=int, default=0, help="views for the endgame-noise probe")
    p.add_argument("--json", help="write every row and the summary here")
    p.add_argument(
        "--oracle", action="store_true", help="tell the search the opponents' hands (a diagnostic)"
    )
    p.add_argument(
        "--scaled-config",
        default="{}",
        help="JSON fields for the multiples above 1 only (a candidate at the larger budget)",
    )
    p.add_argument(
        "--judge",
        type=int,
        default=0,
        help="value each changed choice with an oracle search of this multiple (0: off)",
    )
    args = p.parse_args(argv)
    rules = Rules(players=args.players, variant=args.variant)
    base_cfg = FROZEN_LEVELS[args.level] if args.frozen else LEVELS[args.level].search
    assert isinstance(base_cfg, IsmctsConfig)
    base_cfg = base_cfg._replace(time_cap=1e6, **json.loads(args.config))
    multiples = [int(x) for x in args.multiples.split(",")]
    start = time.perf_counter()
    decisions = collect_decisions(rules, args.views, args.players_level, args.seed, args.keep)
    views = views_of(decisions, args.oracle)
    print(f"{len(views)} views in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    results: dict[str, Any] = {"config": base_cfg._asdict(), "multiples": {}}
    base_rows: list[dict[str, Any]] | None = None
    judge_cfg = base_cfg._replace(iterations=base_cfg.iterations * args.judge, root_exploration=2.0)
    for k in multiples:
        cfg = base_cfg._replace(iterations=base_cfg.iterations * k)
        if k > 1:
            cfg = cfg._replace(**json.loads(args.scaled_config))
        rows = []
        for seed, view in views:
            t0 = time.process_time()
            row = probe(view, seed, cfg)
            row["seconds"] = time.process_time() - t0
            rows.append(row)
        summary = summarize(rows, base_rows)
        if base_rows is None:
            base_rows = rows
        results["multiples"][k] = {"config": cfg._asdict(), "summary": summary, "rows": rows}
        if args.judge and rows is not base_rows:
            judged, gains = judge(decisions, base_rows, rows, judge_cfg)
            summary.update(judged)
            results["multiples"][k]["judged_gains"] = gains
        print(f"x{k}: " + ", ".join(f"{a} {b:.3g}" for a, b in summary.items()), flush=True)
    if args.endgames:
        t0 = time.perf_counter()
        noise = endgame_noise(views[: args.endgames], 4, 20, base_cfg.epsilon, 2_000_000)
        results["endgame_noise"] = noise
        print(
            "endgames: "
            + ", ".join(f"{a} {b:.3g}" for a, b in noise.items())
            + f" ({time.perf_counter() - t0:.0f} s)"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
