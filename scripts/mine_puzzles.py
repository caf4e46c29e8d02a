"""Mine Durak puzzles from bot games (issue 27 §5; docs/puzzles.md).

Plays ``--games`` games between the level-4 heuristic and level-5 search bots
on four tables in turn (2 and 3 players, podkidnoy and perevodnoy), and keeps,
from each game, one position where the exact solver finds an only move for the
seat to move (see :mod:`kozyr.bots.puzzles`).  Everything follows from
``--seed``: run it in parts with different seeds, then ``--merge`` the parts::

    nice -n 10 .venv/bin/python scripts/mine_puzzles.py --seed 1 --games 400 --out /tmp/p1.json
    .venv/bin/python scripts/mine_puzzles.py --merge /tmp/p1.json /tmp/p2.json \\
        --out src/kozyr/bots/puzzles.json

``--search`` mines the other kind instead: 3-player positions (podkidnoy and
perevodnoy in turn) with an empty stock and all three players holding cards,
where a deep search of the player's view finds one move far better than every
other (:func:`kozyr.bots.puzzles.search_only_move`).  A quick search screens
each position first; only the promising ones get the deep, two-seed look.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from kozyr.bots.ismcts import evaluate_actions
from kozyr.bots.levels import level_bot
from kozyr.bots.match import play_game
from kozyr.bots.puzzles import (
    Puzzle,
    dump,
    encode,
    hardness,
    load,
    only_move,
    search_only_move,
    solution_line,
)
from kozyr.bots.sampler import Slots
from kozyr.engine.actions import Action
from kozyr.engine.cards import count
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import view_of

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
#: The search puzzles' tables (``--search``).
SEARCH_TABLES = [Rules(players=3, variant="podkidnoy"), Rules(players=3, variant="perevodnoy")]
#: The quick screen's iterations, and the lead its best move needs to earn the deep look.
SCREEN_BUDGET, SCREEN_MARGIN = 60_000, 0.2
#: At most this many legal moves (each gets a deep search of its own).
SEARCH_WIDTH = 8


def fits_exact(state: GameState, seat: int) -> bool:
    """Worth solving: empty stock, two players left, at most MAX_CARDS cards in
    their hands, a real choice."""
    return (
        state.deck_count == 0
        and sum(count(h) for h in state.hands) <= MAX_CARDS
        and len(state.legal_actions()) >= 2
    )


def fits_search(state: GameState, seat: int) -> bool:
    """Worth a search puzzle: empty stock, every player still holding cards,
    2..SEARCH_WIDTH legal moves, and the places of some cards unknown to the
    seat (when one opponent's hand is all known, the other holds the rest:
    nothing is hidden)."""
    return (
        state.deck_count == 0
        and all(state.hands)
        and 2 <= len(state.legal_actions()) <= SEARCH_WIDTH
        and not Slots(view_of(state, seat)).determined()
    )


def spots(
    rules: Rules, seed: int, rng: random.Random, fits: Callable[[GameState, int], bool]
) -> Iterator[tuple[int, int, GameState, list[Action]]]:
    """Plays one game between the level-4 and level-5 bots and yields up to
    SPOTS of its decisions that ``fits`` (at random, from ``rng``): the action
    index, the seat to move, the position and the game's actions."""
    bots = [level_bot(4 + (seat + seed) % 2, seed * 7 + seat) for seat in range(rules.players)]
    actions: list[Action] = []
    play_game(rules, Deal.from_seed(rules, seed), bots, on_action=actions.append)
    state = GameState.new(rules, Deal.from_seed(rules, seed))
    found = []
    for i, act in enumerate(actions):
        seat = state.to_move
        if seat is not None and fits(state, seat):
            found.append((i, seat))
        state.apply(act)
    rng.shuffle(found)
    for index, seat in found[:SPOTS]:
        state = GameState.new(rules, Deal.from_seed(rules, seed))
        for act in actions[:index]:
            state.apply(act)
        yield index, seat, state, actions


def mine_game(rules: Rules, seed: int, rng: random.Random) -> Puzzle | None:
    found: list[Puzzle] = []
    for index, seat, state, actions in spots(rules, seed, rng, fits_exact):
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


def stored(chances: list[tuple[Action, float]]) -> tuple[tuple[str, float], ...]:
    """A search puzzle's chances as the file keeps them (encoded, 3 places)."""
    return tuple((encode(a), round(c, 3)) for a, c in chances)


def mine_search_game(rules: Rules, seed: int, rng: random.Random) -> Puzzle | None:
    """The first search puzzle among up to SPOTS decisions of one game."""
    for index, seat, state, actions in spots(rules, seed, rng, fits_search):
        quick = sorted(v.chance for v in evaluate_actions(view_of(state, seat), SCREEN_BUDGET))
        if quick[-1] - quick[-2] < SCREEN_MARGIN:
            continue
        chances = search_only_move(state, seat)
        if chances is None:
            continue
        alternatives = len(chances)
        return Puzzle(
            id=f"{seed}-{index}",
            rules=rules,
            seed=seed,
            actions=tuple(encode(a) for a in actions[:index]),
            seat=seat,
            solution=(encode(chances[0][0]),),
            moves=1,
            critical=1,
            alternatives=alternatives,
            hardness=hardness(1, 1, alternatives),
            kind="search",
            chances=stored(chances),
        )
    return None


def mine(seed: int, games: int, out: Path, search: bool = False) -> None:
    rng = random.Random(seed)
    found: list[Puzzle] = []
    start = time.perf_counter()
    tables = SEARCH_TABLES if search else TABLES
    for g in range(games):
        rules = tables[g % len(tables)]
        deal_seed = seed * 1_000_000 + g
        p = (mine_search_game if search else mine_game)(rules, deal_seed, rng)
        if p is not None:
            found.append(p)
        if (g + 1) % (10 if search else 100) == 0:  # a part stopped early keeps what it found
            meta = {
                "seed": seed,
                "search": search,
                "games": g + 1,
                "wall_s": round(time.perf_counter() - start, 1),
            }
            dump(found, out, meta)
        if (g + 1) % 20 == 0:
            print(
                f"{g + 1} games, {len(found)} puzzles, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - start
    dump(found, out, {"seed": seed, "search": search, "games": games, "wall_s": round(wall, 1)})
    print(f"{len(found)} puzzles from {games} games in {wall:.0f} s -> {out}")


def hides_cards(p: Puzzle) -> bool:
    return not Slots(view_of(p.position(), p.seat)).determined()


def rejudge(p: Puzzle) -> Puzzle | None:
    """A search puzzle judged again by today's search (level 10's, which the
    puzzles' test uses too): its chances anew, or None when its move is no
    longer the only one (another best move, or one within the margin)."""
    chances = search_only_move(p.position(), p.seat)
    if chances is None or encode(chances[0][0]) != p.solution[0]:
        return None
    return replace(p, chances=stored(chances))


def merge(parts: list[Path], out: Path, again: bool = False) -> None:
    """The parts' puzzles, once each; a search puzzle whose position hides no
    card is dropped (parts mined before that check existed had a few), and
    with ``again`` every search puzzle is judged anew (:func:`rejudge`)."""
    seen: dict[str, Puzzle] = {}
    for part in parts:
        for p in load(part):
            if p.kind == "search" and not hides_cards(p):
                print(f"dropped {p.id}: every card's place is known", file=sys.stderr)
                continue
            if p.kind == "search" and again and p.id not in seen:
                judged = rejudge(p)
                if judged is None:
                    print(f"dropped {p.id}: no longer an only move", file=sys.stderr)
                    continue
                p = judged
            seen.setdefault(p.id, p)
    meta: dict[str, object] = {"parts": len(parts), "script": "scripts/mine_puzzles.py"}
    if again:
        meta["rejudged"] = True
    dump(list(seen.values()), out, meta)
    print(f"{len(seen)} puzzles -> {out}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--search", action="store_true", help="mine search puzzles (3 players)")
    ap.add_argument("--merge", nargs="+", type=Path, help="merge these parts into --out")
    ap.add_argument(
        "--rejudge",
        action="store_true",
        help="with --merge: judge every search puzzle again with today's search",
    )
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.merge:
        merge(args.merge, args.out, args.rejudge)
    else:
        mine(args.seed, args.games, args.out, args.search)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
