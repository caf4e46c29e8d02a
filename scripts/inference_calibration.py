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

``--level`` takes any bot the arena names (``4``, ``10``, ``mc10``, ``is10``),
so the factors can be checked against another program's play too.

With ``--by-kind`` each kind of evidence is measured alone (its factor set to
0.5, every other kind off) and the factor that kind really deserves against
that level is fitted: the ratio's power law in the weight, read at one piece
of evidence.  The fitted factors print as the JSON ``"evidence"`` a side of
``scripts/ismcts_duel.py`` takes (kinds without data keep the level-4 factor).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

from kozyr.arena.spec import make, parse_spec
from kozyr.bots.inference import LEVEL4_EVIDENCE, Evidence, card_weights
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules, Variant
from kozyr.engine.state import GameState
from kozyr.engine.view import view_of

#: Upper edges of the weight bins (a weight w goes to the first edge >= w).
EDGES = (0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 0.99, 1.0)
#: The factor a kind measured alone is given (one piece of it: weight 0.5).
PROBE = 0.5
#: The kinds of evidence, by their names in :class:`Evidence`.
KINDS = tuple(f.name for f in dataclasses.fields(Evidence))


def probe(kind: str) -> Evidence:
    """Only ``kind`` read, at :data:`PROBE`."""
    return Evidence(**{k: (PROBE if k == kind else 1.0) for k in KINDS})


def collect(
    level: int | str,
    games: int,
    seed: int,
    probes: tuple[Evidence, ...] = (LEVEL4_EVIDENCE,),
    variant: Variant = "podkidnoy",
) -> list[list[list[float]]]:
    """Per probe and bin: [cards, of them in the opponent's hand, sum of
    uniform shares, sum of weights], over games of ``level`` (an arena spec)
    against itself."""
    spec = parse_spec(str(level))
    rules = Rules(players=2, variant=variant)
    table = [[[0.0, 0.0, 0.0, 0.0] for _ in EDGES] for _ in probes]
    for g in range(games):
        state = GameState.new(rules, Deal.from_seed(rules, seed + g))
        bots = [make(spec, seed + 10 * g + s) for s in range(2)]
        while not state.game_over:
            seat = state.to_move
            assert seat is not None
            view = view_of(state, seat)
            other = 1 - seat
            unseen = view.unseen()
            hidden_in_hand = view.hand_counts[other] - view.known[other].bit_count()
            for evidence, bins in zip(probes, table, strict=True):
                weights = card_weights(view, evidence)
                if weights is None or not unseen or hidden_in_hand <= 0:
                    continue
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
    return table


def fitted_factor(bins: list[list[float]], minimum: int = 30) -> float | None:
    """The factor one piece of a probed kind deserves: the power p of
    ratio = weight**p, fitted by least squares in logs over the bins with
    evidence (weighted by their cards), read at the probe's weight.  None
    when no bin has enough cards."""
    num = den = 0.0
    for n, hits, share, wsum in bins:
        mean = wsum / n if n else 1.0
        if n < minimum or hits == 0 or mean > 0.99:
            continue
        lw, lr = math.log(mean), math.log((hits / n) / (share / n))
        num += n * lw * lr
        den += n * lw * lw
    if not den:
        return None
    factor: float = PROBE ** (num / den)
    return min(max(factor, 0.05), 2.0)


def print_bins(bins: list[list[float]]) -> None:
    print("| weight up to | cards | mean weight | in the hand | uniform share | ratio |")
    print("|---|---|---|---|---|---|")
    for edge, (n, hits, share, wsum) in zip(EDGES, bins, strict=True):
        if n:
            rate, base = hits / n, share / n
            print(
                f"| {edge:.2f} | {n:.0f} | {wsum / n:.2f} | {100 * rate:.1f} % "
                f"| {100 * base:.1f} % | {rate / base:.2f} |"
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", default="10", help="the bot, as the arena names it: 10, mc10, is10")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--seed", type=int, default=7000)
    p.add_argument("--variant", default="podkidnoy", choices=("podkidnoy", "perevodnoy"))
    p.add_argument("--by-kind", action="store_true", help="measure and fit each kind alone")
    args = p.parse_args()
    start = time.perf_counter()
    probes = tuple(probe(k) for k in KINDS) if args.by_kind else (LEVEL4_EVIDENCE,)
    table = collect(args.level, args.games, args.seed, probes, args.variant)
    print(
        f"level {args.level}, {args.variant}, {args.games} games, "
        f"{time.perf_counter() - start:.0f} s"
    )
    if not args.by_kind:
        print_bins(table[0])
        return
    fitted = {}
    for kind, bins in zip(KINDS, table, strict=True):
        factor = fitted_factor(bins)
        fitted[kind] = round(factor, 3) if factor else getattr(LEVEL4_EVIDENCE, kind)
        said = f"{factor:.3f}" if factor else "no data: the level-4 factor kept"
        print(f"\n{kind} (level-4 factor {getattr(LEVEL4_EVIDENCE, kind):.2f}, fitted {said})")
        print_bins(bins)
    print("\n" + json.dumps({"evidence": fitted}))


if __name__ == "__main__":
    main()
