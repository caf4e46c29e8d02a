"""Bot-against-bot games: the one referee loop, and duplicate deals.

:func:`play_game` is the referee every bot game goes through (``kozyr arena``
adds records and its own errors on top).  Beyond it, this module is the minimum
the bot package needs to measure itself: play *duplicate* deals (each deal
twice with the seats swapped, so neither side gets the luckier cards).

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
from kozyr.engine.view import view_of

from .base import Bot

#: Actions after which a bot game is abandoned (a real game has a few hundred).
GAME_CAP = 20_000


class RefereeError(Exception):
    """A bot game could not be played to the end (see :class:`BotFailure`)."""


class GameTooLong(RefereeError):
    """The game passed :data:`GAME_CAP` actions; ``state`` is where it stood.

    With the default rules every game ends (a third repetition of a position is
    a draw), so only tables with ``repetition_draw`` off can get here."""

    def __init__(self, message: str, state: GameState) -> None:
        super().__init__(message)
        self.state = state


class BotFailure(RefereeError):
    """A bot raised, returned something that is not an action, or an illegal
    action; the message names the bot and its seat."""


def play_game(
    rules: Rules,
    deal: Deal,
    bots: Sequence[Bot],
    labels: Sequence[str] | None = None,
    on_action: Callable[[Action], object] | None = None,
) -> GameState:
    """Play ``deal`` to the end with ``bots[seat]`` choosing for each seat, each
    seeing only its own view; every answer is refereed by :meth:`GameState.apply`.

    ``labels`` name the bots in error messages (default: each bot's ``name``);
    ``on_action`` sees every applied action (``kozyr arena`` records them).
    Returns the final state.
    """
    if len(bots) != rules.players:
        raise RefereeError(f"{len(bots)} bots for a {rules.players}-player table")
    names = list(labels) if labels is not None else [str(getattr(b, "name", b)) for b in bots]
    state = GameState.new(rules, deal)
    steps = 0
    while not state.game_over:
        seat = state.to_move
        assert seat is not None
        who = f"bot {names[seat]!r} in seat {seat}"
        try:
            action = bots[seat].choose(view_of(state, seat))
        except Exception as exc:
            raise BotFailure(f"{who} failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(action, Action):
            raise BotFailure(f"{who} returned {action!r}, which is not an Action")
        try:
            state.apply(action)
        except IllegalAction as exc:
            raise BotFailure(
                f"{who} returned an illegal action ({action}) on deal seed {deal.seed}, "
                f"move {steps + 1}: {exc}"
            ) from None
        if on_action is not None:
            on_action(action)
        steps += 1
        if steps > GAME_CAP:
            raise GameTooLong(f"the game on deal seed {deal.seed} passed {GAME_CAP} actions", state)
    return state


def play_seed(rules: Rules, bots: Sequence[Bot], seed: int) -> GameState:
    """:func:`play_game` on the deal of ``seed``."""
    return play_game(rules, Deal.from_seed(rules, seed), bots)


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
            result = play_seed(rules, bots, seed).result
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
