"""Train the learned endgame evaluation of the search (issue 29), reproducibly.

Once the stock is empty and two players are left, Durak is a game of perfect
information, and the level-4 policy of the playouts gets about one such
endgame in four wrong.  The search can score those positions with a small
network instead (``core/eval.c``).  This script makes that network:

1. **Data.**  Seeded two-player deals (36 cards, podkidnoy and perevodnoy
   alternately) are played by the level-4 policy with a varying share of random
   moves until the first round that starts with an empty stock; that position
   is solved exactly by the core's solver (``core.solve``), and its features
   (``core.eval_features``, read from the C code the search runs) are kept with
   the exact value for the attacker (1 not the durak, ½ a draw, 0 the durak).
   For comparison each position is also played out once by the policy.
2. **Training.**  A network with one hidden layer (tanh) and a sigmoid output,
   cross-entropy against the exact values, Adam on mini-batches, in plain
   Python with ``random.Random(seed)``: no dependency, and the same seed gives
   the same weights.
3. **Output.**  ``src/kozyr/bots/endgame_eval.json``: the flat weights the
   core loads, with the seed, the sample counts and the held-out accuracy.

    python scripts/train_endgame_eval.py --positions 60000 --seed 29 \\
        --out src/kozyr/bots/endgame_eval.json

``--data FILE`` keeps the generated positions (JSON lines) so that training
can be repeated (``--reuse``) without solving them again.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

from kozyr import core
from kozyr.bots.ismcts import ROLLOUT_STYLE
from kozyr.engine.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "src" / "kozyr" / "bots" / "endgame_eval.json"
#: Solver nodes per position; harder positions are skipped (and counted).
SOLVE_BUDGET = 1_000_000
ATTACKER_FIELD = 12  # index of ``attacker`` in State.snapshot()


def generate(count: int, seed: int) -> tuple[list[dict[str, Any]], int]:
    """``count`` solved endgame positions from deals ``seed * 1_000_000 + i``."""
    rows: list[dict[str, Any]] = []
    skipped = 0
    rules_of = [Rules(players=2), Rules(players=2, variant="perevodnoy")]
    solve = core._require().solve
    features = core._require().eval_features
    i = 0
    start = time.perf_counter()
    while len(rows) < count:
        deal = seed * 1_000_000 + i
        rng = random.Random(deal)
        rules = rules_of[i % 2]
        i += 1
        state = core.new_seeded(rules, deal)
        eps = rng.choice([0.0, 0.05, 0.1, 0.2, 0.35])
        f = None
        while not state.over:
            f = features(state)
            if f is not None:
                break
            if rng.random() < eps:
                legal = state.legal()
                state.apply(legal[rng.randrange(len(legal))])
            else:
                state.apply(state.policy_action(ROLLOUT_STYLE, rng.random()))
        if f is None:
            continue
        attacker = state.snapshot()[ATTACKER_FIELD]
        solved = solve(state, attacker, SOLVE_BUDGET)
        if solved is None:
            skipped += 1
            continue
        value = solved[0] / 2
        playout = state.copy()
        playout.policy_playout(deal, ROLLOUT_STYLE, 0.05, 3000)
        rows.append(
            {"f": list(f), "v": value, "policy": playout.reward(attacker), "nodes": solved[1]}
        )
        if len(rows) % 5000 == 0:
            print(
                f"  {len(rows)} positions, {skipped} skipped, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    return rows, skipped


class Net:
    """features -> hidden (tanh) -> sigmoid, trained with Adam."""

    def __init__(self, n_in: int, hidden: int, rng: random.Random) -> None:
        scale = 1.0 / math.sqrt(n_in)
        self.n_in = n_in
        self.hidden = hidden
        self.w1 = [[rng.gauss(0.0, scale) for _ in range(n_in)] for _ in range(hidden)]
        self.b1 = [0.0] * hidden
        self.w2 = [rng.gauss(0.0, 1.0 / math.sqrt(hidden)) for _ in range(hidden)]
        self.b2 = 0.0

    def forward(self, f: list[float]) -> tuple[list[float], float]:
        hs = []
        out = self.b2
        for w, b, v in zip(self.w1, self.b1, self.w2, strict=True):
            h = math.tanh(b + sum(wi * fi for wi, fi in zip(w, f, strict=True)))
            hs.append(h)
            out += v * h
        return hs, 1.0 / (1.0 + math.exp(-out))

    def flat(self) -> list[float]:
        out: list[float] = [float(self.n_in), float(self.hidden)]
        for w in self.w1:
            out += w
        return out + self.b1 + self.w2 + [self.b2]


def train(rows: list[dict[str, Any]], hidden: int, epochs: int, seed: int, lr: float = 0.01) -> Net:
    """Cross-entropy against the exact values; Adam on mini-batches of 32."""
    rng = random.Random(seed)
    n_in = len(rows[0]["f"])
    net = Net(n_in, hidden, rng)
    params = [("w1", h, i) for h in range(hidden) for i in range(n_in)]
    params += [("b1", h, -1) for h in range(hidden)] + [("w2", h, -1) for h in range(hidden)]
    params += [("b2", -1, -1)]
    m = [0.0] * len(params)
    v = [0.0] * len(params)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    t = 0
    order = list(range(len(rows)))
    batch = 32
    for epoch in range(epochs):
        rng.shuffle(order)
        loss = 0.0
        for start in range(0, len(order), batch):
            g_w1 = [[0.0] * n_in for _ in range(hidden)]
            g_b1 = [0.0] * hidden
            g_w2 = [0.0] * hidden
            g_b2 = 0.0
            idx = order[start : start + batch]
            for k in idx:
                f, y = rows[k]["f"], rows[k]["v"]
                hs, p = net.forward(f)
                p = min(max(p, 1e-9), 1 - 1e-9)
                loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
                d = p - y
                g_b2 += d
                for h in range(hidden):
                    g_w2[h] += d * hs[h]
                    dh = d * net.w2[h] * (1 - hs[h] * hs[h])
                    if dh:
                        g_b1[h] += dh
                        row = g_w1[h]
                        for i in range(n_in):
                            row[i] += dh * f[i]
            t += 1
            scale = 1.0 / len(idx)
            for j, (name, h, i) in enumerate(params):
                if name == "w1":
                    g = g_w1[h][i]
                elif name == "b1":
                    g = g_b1[h]
                elif name == "w2":
                    g = g_w2[h]
                else:
                    g = g_b2
                g *= scale
                m[j] = beta1 * m[j] + (1 - beta1) * g
                v[j] = beta2 * v[j] + (1 - beta2) * g * g
                step = lr * (m[j] / (1 - beta1**t)) / (math.sqrt(v[j] / (1 - beta2**t)) + eps)
                if name == "w1":
                    net.w1[h][i] -= step
                elif name == "b1":
                    net.b1[h] -= step
                elif name == "w2":
                    net.w2[h] -= step
                else:
                    net.b2 -= step
        print(f"  epoch {epoch + 1}: loss {loss / len(rows):.4f}", file=sys.stderr, flush=True)
    return net


def accuracy(net: Net, rows: list[dict[str, Any]]) -> dict[str, float]:
    """How often the net (rounded) and one policy playout get the winner right,
    on positions that are not draws, and the net's mean absolute error."""
    decided = [r for r in rows if r["v"] != 0.5]
    net_right = sum((net.forward(r["f"])[1] >= 0.5) == (r["v"] == 1.0) for r in decided)
    policy_right = sum((r["policy"] >= 0.5) == (r["v"] == 1.0) for r in decided)
    mae = sum(abs(net.forward(r["f"])[1] - r["v"]) for r in rows) / len(rows)
    return {
        "positions": len(rows),
        "net_right": net_right / len(decided),
        "policy_playout_right": policy_right / len(decided),
        "net_mean_abs_error": mae,
    }


def write_network(path: str, report: dict[str, Any], net: Net) -> None:
    """Print ``report`` and write it with the net's flat weights to ``path``."""
    print(json.dumps(report, indent=1))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({**report, "weights": [round(w, 9) for w in net.flat()]}, f)
        f.write("\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=60_000)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--holdout", type=float, default=0.1)
    p.add_argument("--data", help="JSON lines of the positions (written, or read with --reuse)")
    p.add_argument("--reuse", action="store_true", help="read --data instead of generating")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    args = p.parse_args(argv)
    start = time.perf_counter()
    skipped = 0
    if args.reuse:
        assert args.data, "--reuse needs --data"
        with open(args.data, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f][: args.positions]
    else:
        rows, skipped = generate(args.positions, args.seed)
        if args.data:
            with open(args.data, "w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row) + "\n")
    made = time.perf_counter() - start
    cut = int(len(rows) * (1 - args.holdout))
    net = train(rows[:cut], args.hidden, args.epochs, args.seed)
    held = accuracy(net, rows[cut:])
    report = {
        "seed": args.seed,
        "positions": len(rows),
        "skipped_unsolved": skipped,
        "hidden": args.hidden,
        "epochs": args.epochs,
        "held_out": held,
        "seconds": {"data": round(made), "total": round(time.perf_counter() - start)},
        "command": "python scripts/train_endgame_eval.py "
        + f"--positions {args.positions} --hidden {args.hidden} --epochs {args.epochs} "
        + f"--seed {args.seed}",
    }
    write_network(args.out, report, net)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
