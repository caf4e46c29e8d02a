"""How well the inference's fixed factors fit how a level really plays (issue 29).

The search samples the hidden cards with the weights of
:func:`kozyr.bots.inference.card_weights`, whose factors model the level-4
player.  This plays seeded two-player games of one level against itself and,
at every decision, compares each unseen card's weight for the opponent with
where the card really was: for cards grouped by weight, how often they were
in the opponent's hand, against the share a uniform deal gives (the
opponent's unknown cards over the unseen cards).  If the factors fit, the
ratio of the two falls with the weight as the weight does; if a weight-0.4
card is in the hand as often as a weight-1 card, the evidence is misread::

    python scripts/inference_calibration.py --level 10 --games 40
"""

from __future__ import annotations

import argparse
import time

from kozyr.bots.inference import card_weights
from kozyr.bots.levels import level_bot
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import view_of

#: Upper edges of the weight bins (a weight w goes to the first edge >= w).
EDGES = (0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 0.99, 1.0)


def collect(level: int, games: int, seed: int) -> list[list[float]]:
    """Per bin: [cards, of them in the opponent's hand, sum of uniform shares, sum of weights]."""
    rules = Rules(players=2)
    bins = [[0.0, 0.0, 0.0, 0.0] for _ in EDGES]
    for g in range(games):
        state = GameState.new(rules, Deal.from_seed(rules, seed + g))
        bots = [level_bot(level, seed + 10 * g + s) for s in range(2)]
        while not state.game_over:
            seat = state.to_move
            assert seat is not None
            view = view_of(state, seat)
            weights = card_weights(view)
            other = 1 - seat
            unseen = view.unseen()
            hidden_in_hand = view.hand_counts[other] - view.known[other].bit_count()
            if weights is not None and unseen and hidden_in_hand > 0:
                share = hidden_in_hand / unseen.bit_count()
                cards = unseen
                while cards:
                    low = cards & -cards
                    c = low.bit_length() - 1
                    cards ^= low
                    w = weights[other][c]
                    row = bins[next(i for i, edge in enumerate(EDGES) if w <= edge)]
                    row[0] += 1
                    row[1] += bool(state.hands[other] & low)
                    row[2] += share
                    row[3] += w
            state.apply(bots[seat].choose(view))
    return bins


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", type=int, default=10)
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--seed", type=int, default=7000)
    args = p.parse_args()
    start = time.perf_counter()
    bins = collect(args.level, args.games, args.seed)
    print(f"level {args.level}, {args.games} games, {time.perf_counter() - start:.0f} s")
    print("| weight up to | cards | mean weight | in the hand | uniform share | ratio |")
    print("|---|---|---|---|---|---|")
    for edge, (n, hits, share, wsum) in zip(EDGES, bins, strict=True):
        if n:
            rate, base = hits / n, share / n
            print(
                f"| {edge:.2f} | {n:.0f} | {wsum / n:.2f} | {100 * rate:.1f} % "
                f"| {100 * base:.1f} % | {rate / base:.2f} |"
            )


if __name__ == "__main__":
    main()
