"""``kozyr replay FILE``: the omniscient referee for game records.

Prints one JSON object.  On success ``{"ok": true, "state": ..., "legal": [...]}``;
on the first illegal action it exits 1 with ``{"ok": false, "index": i,
"error": "why"}``; a record that cannot be read exits 2 with ``"index": null``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kozyr.engine.record import GameRecord, RecordError
from kozyr.engine.view import view_of


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a game record and print the state (the referee)",
        description="Replay a JSON game record; print the final state and the legal actions.",
    )
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.add_argument("--seat", type=int, help="print this seat's view instead of the full state")
    p.add_argument("--pretty", action="store_true", help="indent the JSON output")
    p.set_defaults(run=run)


def replay_json(text: str, seat: int | None = None) -> tuple[int, dict[str, Any]]:
    """(exit code, output object) for a record's text."""
    try:
        record = GameRecord.loads(text)
    except RecordError as exc:
        return 2, {"ok": False, "index": None, "error": str(exc)}
    result = record.replay()
    state = result.state
    if not result.ok:
        return 1, {"ok": False, "index": result.error_index, "error": result.error}
    if seat is not None:
        if not 0 <= seat < state.n:
            return 2, {
                "ok": False,
                "index": None,
                "error": f"there is no seat {seat} at a {state.n}-player table",
            }
        view = view_of(state, seat)
        return 0, {"ok": True, "state": view.to_json(), "legal": [a.to_json() for a in view.legal]}
    return 0, {
        "ok": True,
        "state": state.to_json(),
        "legal": [a.to_json() for a in state.legal_actions()],
    }


def run(args: argparse.Namespace) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            error = f"cannot read {args.file}: {exc}"
            print(json.dumps({"ok": False, "index": None, "error": error}))
            return 2
    code, out = replay_json(text, args.seat)
    print(json.dumps(out, indent=2 if args.pretty else None, ensure_ascii=False))
    return code
