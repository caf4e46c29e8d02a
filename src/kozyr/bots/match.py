"""Bot-against-bot games for tests, benchmarks and strength checks.

``kozyr arena`` is the full tool; this module is the minimum the bot package
needs to measure itself: play one seeded deal with a bot in every seat, and
play *duplicate* deals (each deal twice with the seats swapped, so neither
side gets the luckier cards).

A strength sample from the command line (2 players, 36 cards, podkidnoy)::

    python -m kozyr.bots.match 10 4 --deals 15 --first 0
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kozyr.engine.actions import Action
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState, IllegalAction
from kozyr.engine.view import View, view_of

from .base import Bot

#: Actions after which a bot game is abandoned (no real game comes close).
GAME_CAP = 5000

#: Called after each real decision: (seat, view, action, seconds).
DecisionHook = Callable[[int, View, Action, float], None]


def play_game(
    rules: Rules,
    bots: Sequence[Bot],
    seed: int,
    on_decision: DecisionHook | None = None,
) -> GameState:
    """Play the deal of ``seed`` to the end, ``bots[seat]`` playing each seat;
    returns the final state.  An illegal action raises :class:`IllegalAction`."""
    state = GameState.new(rules, Deal.from_seed(rules, seed))
    for _ in range(GAME_CAP):
        if state.game_over:
            return state
        seat = state.to_move
        assert seat is not None
        view = view_of(state, seat)
        start = time.perf_counter()
        action = bots[seat].choose(view)
        spent = time.perf_counter() - start
        if len(view.legal) > 1 and on_decision is not None:
            on_decision(seat, view, action, spent)
        state.apply(action)
    raise IllegalAction(f"the game of seed {seed} did not end within {GAME_CAP} actions")


@dataclass
class DuplicateScore:
    """Results of duplicate 2-player games between bots A and B."""

    games: int = 0
    a_durak: int = 0
    b_durak: int = 0
    draws: int = 0
    #: Per deal: (A's reward in the first game, A's reward in the swapped one).
    deals: list[tuple[float, float]] = field(default_factory=list)

    @property
    def a_score(self) -> float:
        """A's mean reward (1 not durak, 0 durak, 0.5 draw)."""
        return sum(x + y for x, y in self.deals) / max(1, self.games)


def duplicate(
    rules: Rules,
    make_a: Callable[[int], Bot],
    make_b: Callable[[int], Bot],
    seeds: Sequence[int],
) -> DuplicateScore:
    """Each seed's deal played twice by 2 players, A in seat 0 then in seat 1.
    ``make_a(seed)`` / ``make_b(seed)`` build the bots for a game."""
    if rules.players != 2:
        raise ValueError("duplicate games here are for 2 players")
    score = DuplicateScore()
    for seed in seeds:
        rewards = []
        for a_seat in (0, 1):
            a, b = make_a(seed * 2 + a_seat), make_b(seed * 2 + a_seat + 1_000_003)
            bots = [a, b] if a_seat == 0 else [b, a]
            result = play_game(rules, bots, seed).result
            assert result is not None
            score.games += 1
            if result.durak is None:
                score.draws += 1
                rewards.append(0.5)
            elif result.durak == a_seat:
                score.a_durak += 1
                rewards.append(0.0)
            else:
                score.b_durak += 1
                rewards.append(1.0)
        score.deals.append((rewards[0], rewards[1]))
    return score


def main(argv: Sequence[str] | None = None) -> int:
    """Duplicate games between two levels; prints one line of results."""
    from .levels import level_bot

    p = argparse.ArgumentParser(prog="python -m kozyr.bots.match", description=main.__doc__)
    p.add_argument("a", type=int, help="level of bot A (1..10)")
    p.add_argument("b", type=int, help="level of bot B (1..10)")
    p.add_argument("--deals", type=int, default=10, help="deals, each played twice")
    p.add_argument("--first", type=int, default=0, help="seed of the first deal")
    p.add_argument("--variant", default="podkidnoy", choices=["podkidnoy", "perevodnoy"])
    args = p.parse_args(argv)
    rules = Rules(players=2, deck=36, variant=args.variant)
    start = time.perf_counter()
    score = duplicate(
        rules,
        lambda seed: level_bot(args.a, seed),
        lambda seed: level_bot(args.b, seed),
        range(args.first, args.first + args.deals),
    )
    print(
        f"level {args.a} vs level {args.b} ({args.variant}, seeds {args.first}.."
        f"{args.first + args.deals - 1}, each deal twice): {score.games} games; "
        f"durak: level {args.a} {score.a_durak}, level {args.b} {score.b_durak}, "
        f"draws {score.draws}; level {args.a} scores {score.a_score:.3f} "
        f"({time.perf_counter() - start:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
