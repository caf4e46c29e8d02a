"""Generate the engine's perft data: tests/perft/NAME.json.

Perft (:mod:`kozyr.engine.perft`) counts the legal action sequences of each
length from a fixed position; any change to move generation or to the rules
that decide who moves next changes some count.

Each file is ``{"name": ..., "record": <a game record>, "counts": [perft(1),
..., perft(d)]}``; the record's actions (usually none) lead to the position.
``d`` is fixed per position (POSITIONS) so that the deepest count takes well
under 2 s.  tests/test_perft.py recomputes every count.

    .venv/bin/python scripts/make_perft.py            # (re)write tests/perft/*.json
    .venv/bin/python scripts/make_perft.py --check    # compare only, write nothing
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kozyr.engine.perft import empty_deck_record, perft, position

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "perft"

# The hands of this explicit deal are listed by seat; the deck is empty.
_ENDGAME_HANDS = [["9S", "JS", "9C", "KD"], ["TS", "JC", "AD"], ["9D", "QC", "KC", "AH"]]


def _record(rules: dict[str, Any], deal: dict[str, Any]) -> dict[str, Any]:
    return {"version": 1, "rules": rules, "deal": deal, "actions": []}


TEAMS_SHOW_TRUMP = {
    "players": 4,
    "deck": 36,
    "variant": "perevodnoy",
    "transfer_show_trump": True,
    "teams": "2v2",
}

#: name -> (record of the position, perft depth).  The depths are fixed so that
#: the data does not depend on the speed of the machine; each deepest count
#: takes well under 2 s with the compiled engine (about 0.5 s when chosen).
POSITIONS: dict[str, tuple[dict[str, Any], int]] = {
    "podkidnoy_2p_36": (_record({"players": 2, "deck": 36}, {"seed": 1}), 7),
    "podkidnoy_4p_36": (_record({"players": 4, "deck": 36}, {"seed": 2}), 9),
    "perevodnoy_2p_36": (
        _record({"players": 2, "deck": 36, "variant": "perevodnoy"}, {"seed": 3}),
        7,
    ),
    "perevodnoy_4p_36": (
        _record({"players": 4, "deck": 36, "variant": "perevodnoy"}, {"seed": 4}),
        9,
    ),
    "podkidnoy_6p_52": (_record({"players": 6, "deck": 52}, {"seed": 5}), 10),
    "teams_show_trump_4p_36": (_record(TEAMS_SHOW_TRUMP, {"seed": 6}), 8),
    # Rule 13: cheats, accusations by the seat to move and last calls widen the tree.
    "cheating_3p_36_perevodnoy": (
        _record({"players": 3, "deck": 36, "variant": "perevodnoy", "cheating": True}, {"seed": 7}),
        6,
    ),
    "endgame_3p_24_empty_deck": (
        empty_deck_record(
            {"players": 3, "deck": 24, "variant": "perevodnoy"}, _ENDGAME_HANDS, "TD"
        ),
        10,
    ),
}


def timed_counts(record: dict[str, Any], depth: int) -> tuple[list[int], list[float]]:
    """perft(1..depth) and the seconds each took."""
    state = position(record)
    counts: list[int] = []
    times: list[float] = []
    for d in range(1, depth + 1):
        t0 = time.perf_counter()
        counts.append(perft(state, d))
        times.append(time.perf_counter() - t0)
    return counts, times


def dumps(name: str, record: dict[str, Any], counts: list[int]) -> str:
    """The data file: one line per field, so a changed count shows as a one-line diff."""
    fields = [("name", name), ("record", record), ("counts", counts)]
    body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in fields)
    return "{\n" + body + "\n}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the files only")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    status = 0
    for name, (record, depth) in POSITIONS.items():
        path = OUT / f"{name}.json"
        if args.check:
            data = json.loads(path.read_text(encoding="utf-8"))
            state = position(data["record"])
            got = [perft(state, d) for d in range(1, len(data["counts"]) + 1)]
            ok = got == data["counts"]
            status |= not ok
            print(f"{name}: " + ("ok" if ok else f"MISMATCH {got} != {data['counts']}"))
            continue
        counts, times = timed_counts(record, depth)
        path.write_text(dumps(name, record, counts), encoding="utf-8")
        print(f"{name}: {counts} (depth {depth}: {times[-1]:.2f} s)")
        if times[-1] > 2.0:
            print(f"  warning: depth {depth} took over 2 s; choose a smaller depth")
    return status


if __name__ == "__main__":
    sys.exit(main())
