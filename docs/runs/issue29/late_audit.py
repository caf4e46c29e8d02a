"""A measurement (issue 29), not part of the package: how far level 10 is from
exact play where the stock hides a single card.

    python docs/runs/issue29/late_audit.py GAMES_DIR FIRST LAST MINDECK-MAXDECK OUT.jsonl
    python docs/runs/issue29/late_audit.py --summary OUT.jsonl

GAMES_DIR holds two-player games saved by ``kozyr arena A B --save DIR``.  At
every decision of games FIRST..LAST-1 (sorted by name) with a choice, two
sides left and a stock of MINDECK..MAXDECK cards whose deal is not yet
determined, every deal of the unseen cards that fits the mover's view is
listed (which unseen cards lie in the stock above the face-up trump, in
which order; the rest in the opponent's hand) and every legal action is
solved exactly in each (the search's own ``_exact_values``: the compiled
solver, at most 2,000,000 positions an action; a decision where one solve
runs out is written as skipped).  The mean over the deals is
perfect-information Monte Carlo made exact; the row also keeps each
action's exact value in the true deal and the index of the action the
game's player chose.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))

from analysis_figures import records_in

from kozyr.bots.endgame import two_sided
from kozyr.bots.ismcts import _exact_values
from kozyr.bots.sampler import Slots
from kozyr.engine.actions import Action
from kozyr.engine.record import GameRecord
from kozyr.engine.state import GameState
from kozyr.engine.view import View, state_from_view, view_of


def deals(view: View, slots: Slots) -> Iterator[GameState]:
    """Every deal that fits a two-player ``view``: each ordered choice of the
    stock's hidden cards, the other unseen cards in the opponent's hand."""
    opponent = 1 - view.seat
    for top in itertools.permutations(slots.pool, slots.deck):
        hands = [0, 0]
        hands[view.seat] = view.hand
        hands[opponent] = view.known[opponent]
        for c in slots.pool:
            if c not in top:
                hands[opponent] |= 1 << c
        yield state_from_view(view, hands, [*top, view.trump])


def audit(paths: list[Path], least: int, most: int, out: str) -> None:
    with open(out, "a") as sink:
        for path in paths:
            record = GameRecord.load(str(path))
            state = record.start()
            for data in record.actions:
                action = Action.from_json(data)
                seat = state.to_move
                if seat is not None and state.rules.players == 2 and two_sided(state):
                    view = view_of(state, seat)
                    legal = list(view.legal)
                    slots = Slots(view)
                    if (
                        len(legal) > 1
                        and least <= view.deck_count <= most
                        and not slots.determined()
                    ):
                        start = time.perf_counter()
                        row: dict[str, object] = {"game": path.name, "deck": view.deck_count}
                        total = [0.0] * len(legal)
                        fitting = list(deals(view, slots))
                        for deal in fitting:
                            values = _exact_values(view, deal)
                            if values is None:
                                row["skipped"] = True
                                break
                            total = [t + v for t, v in zip(total, values, strict=True)]
                        else:
                            row |= {
                                "worlds": len(fitting),
                                "legal": len(legal),
                                "chosen": legal.index(action),
                                "pimc": [t / len(fitting) for t in total],
                                "true": _exact_values(view, state),
                            }
                        row["sec"] = round(time.perf_counter() - start, 3)
                        sink.write(json.dumps(row) + "\n")
                        sink.flush()
                state.apply(action)


def summary(path: str) -> None:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    skipped = sum(1 for r in rows if r.get("skipped"))
    rows = [r for r in rows if not r.get("skipped")]
    best = [r["pimc"].index(max(r["pimc"])) for r in rows]
    regret = [max(r["pimc"]) - r["pimc"][r["chosen"]] for r in rows]
    gain = [r["true"][b] - r["true"][r["chosen"]] for r, b in zip(rows, best, strict=True)]
    undecided = sum(1 for r in rows if max(r["pimc"]) > 0 and min(r["pimc"]) < 1)
    print(f"games read: {len({r['game'] for r in rows})} with a solved decision")
    print(f"decisions solved {len(rows)}, skipped {skipped}; not decided in every deal {undecided}")
    print(
        f"regret of the choice under exact PIMC: sum {sum(regret):.2f}, "
        f"above 0.01 in {sum(g > 0.01 for g in regret)}"
    )
    print(
        f"exact PIMC's best against the choice in the true deal: sum {sum(gain):+.2f}, "
        f"better in {sum(g > 0 for g in gain)}, worse in {sum(g < 0 for g in gain)}"
    )
    print(f"seconds: {sum(r['sec'] for r in rows):.0f} solved, max {max(r['sec'] for r in rows)}")


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2])
    else:
        least, most = map(int, sys.argv[4].split("-"))
        files = records_in([sys.argv[1]])
        audit(files[int(sys.argv[2]) : int(sys.argv[3])], least, most, sys.argv[5])
