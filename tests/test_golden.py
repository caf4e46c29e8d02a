"""Golden game records: one small hand-written record per rule or edge case.

Every ``tests/golden/NAME.json`` is a pure game record (exactly what
``kozyr replay`` reads).  Its sibling ``NAME.expect.json`` holds what the rules
say must come out, worked out by hand from the rules (never copied from the
engine's output)::

    {
      "ok": true | false,
      "index": i | null,            # failures: the first illegal action (null: unreadable)
      "error_contains": "...",      # failures: a piece of the error message
      "state": {...},               # a subset of the replayed state, compared exactly
      "legal_contains": [...],      # actions that must be legal
      "legal_excludes": [...],      # actions that must not be legal
      "legal_count": n,             # the number of legal actions
      "seat": n,                    # optional: replay as ``kozyr replay --seat n``:
                                    # "state" is that seat's view, "legal" its actions
                                    # (at cheating tables: accusations out of turn too)
      "note": "..."                 # why: the rule being checked, for people
    }

Hands (``hand`` of a view) and ``known`` are card *sets*: both sides are put in canonical order
(suit S C D H, then rank) before comparing, so expectations may list a hand in
any order.  The order of ``table`` (play order) and ``out`` (leaving order)
matters and is compared as is.  Cards inside an action are a set as well.

A case that exposes an engine bug keeps the *correct* expectation and is listed
in ``ENGINE_BUGS`` (strict xfail: it fails loudly once the bug is fixed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kozyr.cli.replay import replay_json

GOLDEN = Path(__file__).parent / "golden"

RANKS = "23456789TJQKA"
SUITS = "SCDH"

#: Golden cases whose expectation the engine does not meet: name -> reason.
ENGINE_BUGS: dict[str, str] = {}

EXPECT_KEYS = {
    "ok",
    "index",
    "error_contains",
    "state",
    "legal_contains",
    "legal_excludes",
    "legal_count",
    "seat",
    "note",
}
RECORD_KEYS = {"version", "rules", "deal", "actions"}
CARD_SET_KEYS = {"hands", "known"}


def case_names() -> list[str]:
    return sorted(p.name.removesuffix(".expect.json") for p in GOLDEN.glob("*.expect.json"))


def card_key(card: str) -> tuple[int, int]:
    return SUITS.index(card[1]), RANKS.index(card[0])


def canonical_sets(value: Any) -> Any:
    """A list of card lists (hands, known), each in canonical card order."""
    return [sorted(cards, key=card_key) for cards in value]


def canonical_action(action: dict[str, Any]) -> dict[str, Any]:
    out = dict(action)
    if "cards" in out:
        out["cards"] = sorted(out["cards"], key=card_key)
    return out


def load(name: str) -> tuple[str, dict[str, Any]]:
    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    expect = json.loads((GOLDEN / f"{name}.expect.json").read_text(encoding="utf-8"))
    return text, expect


def check(expect: dict[str, Any], code: int, out: dict[str, Any]) -> None:
    """Assert that a replay's (exit code, output) meets ``expect``."""
    assert out["ok"] == expect["ok"], out
    if not expect["ok"]:
        assert out["index"] == expect["index"], out
        assert code == (2 if expect["index"] is None else 1)
        assert expect["error_contains"] in out["error"], out["error"]
        return
    assert code == 0
    state = out["state"]
    for key, want in expect.get("state", {}).items():
        assert key in state, f"replay output has no state key {key!r}"
        got = state[key]
        if key in CARD_SET_KEYS:
            got, want = canonical_sets(got), canonical_sets(want)
        elif key == "hand":  # a view's own hand
            got, want = canonical_sets([got]), canonical_sets([want])
        assert got == want, f"state[{key!r}]: got {got!r}, expected {want!r}"
    legal = [canonical_action(a) for a in out["legal"]]
    for action in expect.get("legal_contains", []):
        assert canonical_action(action) in legal, f"{action} should be legal; legal: {legal}"
    for action in expect.get("legal_excludes", []):
        assert canonical_action(action) not in legal, f"{action} should not be legal"
    if "legal_count" in expect:
        assert len(legal) == expect["legal_count"], f"legal actions: {legal}"


def golden_params() -> list[Any]:
    params = []
    for name in case_names():
        marks = []
        if name in ENGINE_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=ENGINE_BUGS[name]))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def test_enough_golden_cases() -> None:
    assert len(case_names()) >= 40


def test_every_record_has_an_expectation_and_is_pure() -> None:
    records = {p.name.removesuffix(".json") for p in GOLDEN.glob("*.json")} - {
        p.name.removesuffix(".json") for p in GOLDEN.glob("*.expect.json")
    }
    assert records == set(case_names())
    for name in case_names():
        text, expect = load(name)
        record = json.loads(text)
        assert set(record) <= RECORD_KEYS, f"{name}: a record must hold only {RECORD_KEYS}"
        assert set(expect) <= EXPECT_KEYS, f"{name}: unknown expectation keys"
        assert isinstance(expect["ok"], bool)
        if expect["ok"]:
            assert "index" not in expect and "error_contains" not in expect
        else:
            assert {"index", "error_contains"} <= set(expect)
    assert set(ENGINE_BUGS) <= set(case_names())
    for reason in ENGINE_BUGS.values():
        assert reason.startswith("engine bug: ")


@pytest.mark.parametrize("name", golden_params())
def test_golden(name: str) -> None:
    text, expect = load(name)
    code, out = replay_json(text, expect.get("seat"))
    check(expect, code, out)


# A few cases once more through the real command (subprocess): the output the
# referee prints must be what replay_json returns, and meet the same expectation.
CLI_CASES = [
    "refill_after_chained_transfers",
    "illegal_throw_beyond_limit",
    "cheating_caught_throw_in_cards_go_back",
    "cheating_covered_cheat_called_out_seat_view",
]


@pytest.mark.parametrize("name", CLI_CASES)
def test_golden_through_cli(name: str) -> None:
    assert name not in ENGINE_BUGS
    text, expect = load(name)
    seat = expect.get("seat")
    args = [] if seat is None else ["--seat", str(seat)]
    proc = subprocess.run(
        [sys.executable, "-m", "kozyr.cli.main", "replay", str(GOLDEN / f"{name}.json"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = json.loads(proc.stdout)
    check(expect, proc.returncode, out)
    assert (proc.returncode, out) == replay_json(text, seat)
