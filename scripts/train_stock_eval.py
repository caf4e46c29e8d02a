"""Train the learned evaluation of positions with cards in the stock (issue 29).

The search's playouts play the level-4 policy with 5 % noise until the stock
runs out (then the endgame network scores them).  This script makes a network
that scores a position earlier, at the first round that starts with cards in
the stock, from what a *strong* player's games say such positions are worth:

1. **Data.**  Seeded two-player deals (36 cards, podkidnoy and perevodnoy
   alternately) are played by a level against itself (``--level``, default 8);
   at every round that starts with two sides and cards in the stock the
   position's features (``core.stock_features``, read from the C code the
   search runs: the two hands, the stock's size, its trumps, the face-up card)
   are kept, and when the game ends each is labelled with what the attacker
   of that round got (1 not the durak, ½ a draw, 0 the durak).
2. **Training.**  The endgame network's trainer (``train_endgame_eval.py``):
   one hidden tanh layer, a sigmoid output, cross-entropy, Adam, seeded.
3. **Output.**  ``src/kozyr/bots/stock_eval.json``: the flat weights the core
   loads, with the seed, the counts, the held-out log loss against always
   saying the mean, and the command.

    python scripts/train_stock_eval.py --games 2000 --level 8 --seed 29 --workers 2

Games are split between ``--workers`` processes in a fixed way, so the same
command makes the same file.  ``--data FILE`` keeps the positions (JSON lines);
``--reuse`` trains on them again.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from kozyr import core
from kozyr.bots.levels import level_bot
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import view_of

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the endgame network's trainer
from train_endgame_eval import Net, train, write_network

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "src" / "kozyr" / "bots" / "stock_eval.json"


def play(args: tuple[int, int]) -> list[dict[str, Any]]:
    """The labelled stock positions of deal ``deal``'s self-play game at ``level``."""
    level, deal = args
    rules = Rules(players=2, variant="perevodnoy" if deal % 2 else "podkidnoy")
    state = GameState.new(rules, Deal.from_seed(rules, deal))
    bots = [level_bot(level, deal * 10 + s) for s in range(2)]
    seen: list[tuple[list[float], int]] = []
    while not state.game_over:
        f = core._require().stock_features(core.from_state(state))
        if f is not None:
            seen.append((list(f), state.attacker))
        seat = state.to_move
        assert seat is not None
        state.apply(bots[seat].choose(view_of(state, seat)))
    result = state.result
    assert result is not None
    rows = []
    for f, attacker in seen:
        value = 0.5 if result.durak is None else float(result.durak != attacker)
        rows.append({"f": f, "v": value, "deal": deal})
    return rows


def generate(games: int, level: int, seed: int, workers: int) -> list[dict[str, Any]]:
    """The positions of ``games`` self-play games, deals ``seed * 1_000_000 + i``."""
    deals = [(level, seed * 1_000_000 + i) for i in range(games)]
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    pool = Pool(workers) if workers > 1 else None
    parts = pool.imap(play, deals, chunksize=4) if pool else map(play, deals)
    for i, part in enumerate(parts):
        rows += part
        if (i + 1) % 100 == 0:
            print(
                f"  {i + 1} games, {len(rows)} positions, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    if pool:
        pool.close()
    return rows


def log_loss(predict: Any, rows: list[dict[str, Any]]) -> float:
    """Mean cross-entropy of the predictions ``predict(row)`` against the labels."""
    total = 0.0
    for r in rows:
        p = min(max(predict(r), 1e-9), 1 - 1e-9)
        total -= r["v"] * math.log(p) + (1 - r["v"]) * math.log(1 - p)
    return total / len(rows)


def held_out(
    net: Net, train_rows: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """The net's log loss and accuracy on ``rows`` against the base rate's."""
    mean = sum(r["v"] for r in train_rows) / len(train_rows)
    decided = [r for r in rows if r["v"] != 0.5]
    right = sum((net.forward(r["f"])[1] >= 0.5) == (r["v"] == 1.0) for r in decided)
    return {
        "positions": len(rows),
        "net_log_loss": round(log_loss(lambda r: net.forward(r["f"])[1], rows), 4),
        "base_rate_log_loss": round(log_loss(lambda r: mean, rows), 4),
        "net_right": round(right / max(1, len(decided)), 4),
        "base_rate_right": round(max(mean, 1 - mean), 4),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--level", type=int, default=8)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--holdout", type=float, default=0.1, help="share of the games held out")
    p.add_argument("--data", help="JSON lines of the positions (written, or read with --reuse)")
    p.add_argument("--reuse", action="store_true", help="read --data instead of playing")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    args = p.parse_args(argv)
    start = time.perf_counter()
    if args.reuse:
        assert args.data, "--reuse needs --data"
        with open(args.data, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
    else:
        rows = generate(args.games, args.level, args.seed, args.workers)
        if args.data:
            with open(args.data, "w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row) + "\n")
    made = time.perf_counter() - start
    # Held out by game, so that no game's positions are on both sides.
    deals = sorted({r["deal"] for r in rows})
    cut = deals[int(len(deals) * (1 - args.holdout))]
    train_rows = [r for r in rows if r["deal"] < cut]
    test_rows = [r for r in rows if r["deal"] >= cut]
    net = train(train_rows, args.hidden, args.epochs, args.seed, lr=0.003)
    report = {
        "seed": args.seed,
        "level": args.level,
        "games": len(deals),
        "positions": len(rows),
        "hidden": args.hidden,
        "epochs": args.epochs,
        "held_out": held_out(net, train_rows, test_rows),
        "seconds": {"data": round(made), "total": round(time.perf_counter() - start)},
        "command": "python scripts/train_stock_eval.py "
        + f"--games {args.games} --level {args.level} --hidden {args.hidden} "
        + f"--epochs {args.epochs} --seed {args.seed} --workers {args.workers}",
    }
    write_network(args.out, report, net)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
