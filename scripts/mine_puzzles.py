"""Mine Durak puzzles from bot games (issue 27 §5; docs/puzzles.md).

Plays ``--games`` games between the level-4 heuristic and level-5 search bots
on four tables in turn (2 and 3 players, podkidnoy and perevodnoy), and keeps,
from each game, one position where the exact solver finds an only move for the
seat to move (see :mod:`kozyr.bots.puzzles`).  Everything follows from
``--seed``: run it in parts with different seeds, then ``--merge`` the parts::

    nice -n 10 .venv/bin/python scripts/mine_puzzles.py --seed 1 --games 400 --out /tmp/p1.json
    .venv/bin/python scripts/mine_puzzles.py --merge /tmp/p1.json /tmp/p2.json \\
        --out src/kozyr/bots/puzzles.json
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from kozyr.bots.levels import level_bot
from kozyr.bots.match import play_game
from kozyr.bots.puzzles import (
    Puzzle,
    dump,
    encode,
    hardness,
    load,
    only_move,
    solution_line,
)
from kozyr.engine.actions import Action
from kozyr.engine.cards import count
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState

TABLES = [
    Rules(players=2, variant="podkidnoy"),
    Rules(players=2, variant="perevodnoy"),
    Rules(players=3, variant="podkidnoy"),
    Rules(players=3, variant="perevodnoy"),
]
#: Positions with more cards than this in the hands are left alone (solver time).
MAX_CARDS = 13
#: Solver positions for the first question (is there an only move?): a position
#: that needs more is left alone, which keeps mining and the server's answers quick.
MINE_BUDGET = 20_000
#: Decisions of a game put to the solver (at random, from the seed).
SPOTS = 10


def candidates(rules: Rules, seed: int, actions: list[Action]) -> list[tuple[int, int]]:
    """(action index, seat) of every decision worth solving: empty stock, two
    players left, at most MAX_CARDS cards in their hands, a real choice."""
    state = GameState.new(rules, Deal.from_seed(rules, seed))
    out = []
    for i, act in enumerate(actions):
        seat = state.to_move
        if (
            seat is not None
            and state.deck_count == 0
            and sum(count(h) for h in state.hands) <= MAX_CARDS
            and len(state.legal_actions()) >= 2
        ):
            out.append((i, seat))
        state.apply(act)
    return out


def mine_game(rules: Rules, seed: int, rng: random.Random) -> Puzzle | None:
    bots = [level_bot(4 + (seat + seed) % 2, seed * 7 + seat) for seat in range(rules.players)]
    actions: list[Action] = []
    play_game(rules, Deal.from_seed(rules, seed), bots, on_action=actions.append)
    spots = candidates(rules, seed, actions)
    rng.shuffle(spots)
    found: list[Puzzle] = []
    for index, seat in spots[:SPOTS]:
        state = GameState.new(rules, Deal.from_seed(rules, seed))
        for act in actions[:index]:
            state.apply(act)
        only = only_move(state, seat, MINE_BUDGET)
        if only is None:
            continue
        line = solution_line(state, seat)
        if line is None:
            continue
        alternatives = only[1]
        found.append(
            Puzzle(
                id=f"{seed}-{index}",
                rules=rules,
                seed=seed,
                actions=tuple(encode(a) for a in actions[:index]),
                seat=seat,
                solution=tuple(encode(a) for a in line.plies),
                moves=line.moves,
                critical=line.critical,
                alternatives=alternatives,
                hardness=hardness(line.moves, line.critical, alternatives),
            )
        )
    # The hardest of the game's puzzles: easy ones are the commonest by far.
    return max(found, key=lambda p: p.hardness, default=None)
    return None


def mine(seed: int, games: int, out: Path) -> None:
    rng = random.Random(seed)
    found: list[Puzzle] = []
    start = time.perf_counter()
    for g in range(games):
        rules = TABLES[g % len(TABLES)]
        deal_seed = seed * 1_000_000 + g
        p = mine_game(rules, deal_seed, rng)
        if p is not None:
            found.append(p)
        if (g + 1) % 100 == 0:  # a part stopped early keeps what it found
            meta = {"seed": seed, "games": g + 1, "wall_s": round(time.perf_counter() - start, 1)}
            dump(found, out, meta)
        if (g + 1) % 20 == 0:
            print(
                f"{g + 1} games, {len(found)} puzzles, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - start
    dump(found, out, {"seed": seed, "games": games, "wall_s": round(wall, 1)})
    print(f"{len(found)} puzzles from {games} games in {wall:.0f} s -> {out}")


def merge(parts: list[Path], out: Path) -> None:
    seen: dict[str, Puzzle] = {}
    for part in parts:
        for p in load(part):
            seen.setdefault(p.id, p)
    dump(list(seen.values()), out, {"parts": len(parts), "script": "scripts/mine_puzzles.py"})
    print(f"{len(seen)} puzzles -> {out}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--merge", nargs="+", type=Path, help="merge these parts into --out")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.merge:
        merge(args.merge, args.out)
    else:
        mine(args.seed, args.games, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
