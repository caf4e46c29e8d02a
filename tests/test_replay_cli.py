"""The real ``kozyr replay`` command, run as a subprocess.

Exit codes and output shape are the referee's contract: 0 with
``{"ok": true, "state", "legal"}``; 1 with the index of the first illegal
action; 2 (index null) for a record that cannot be read.  ``--seat N`` prints
what seat N may know, and nothing else.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kozyr.cli.replay import replay_json
from kozyr.engine.record import GameRecord

GOLDEN = Path(__file__).parent / "golden"


def kozyr_command() -> list[str]:
    """The installed ``kozyr`` script next to this interpreter, else ``python -m``."""
    script = Path(sys.executable).parent / "kozyr"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "kozyr.cli.main"]


def run(*args: str, stdin: str | None = None, module: bool = False) -> tuple[int, Any]:
    cmd = [sys.executable, "-m", "kozyr.cli.main"] if module else kozyr_command()
    proc = subprocess.run(
        [*cmd, "replay", *args], input=stdin, capture_output=True, text=True, timeout=60
    )
    lines = proc.stdout.strip().splitlines()
    assert proc.stdout.strip(), proc.stderr
    if "--pretty" not in args:
        assert len(lines) == 1, "replay prints exactly one JSON object on one line"
    return proc.returncode, json.loads(proc.stdout)


def random_record(seed: int, plies: int) -> dict[str, Any]:
    """A seeded 4-player perevodnoy game (show-trump on) played ``plies`` random
    legal actions in, preferring takes so that hands hold publicly known cards."""
    rules = {"players": 4, "deck": 36, "variant": "perevodnoy", "transfer_show_trump": True}
    record = GameRecord.from_json({"version": 1, "rules": rules, "deal": {"seed": seed}})
    state = record.start()
    rng = random.Random(seed)
    for _ in range(plies):
        if state.game_over:
            break
        legal = state.legal_actions()
        takes = [a for a in legal if a.kind.label in ("take", "show_trump")]
        action = takes[0] if takes and rng.random() < 0.5 else rng.choice(legal)
        state.apply(action)
        record.append(action)
    return record.to_json()


STATE_KEYS = {
    "hands",
    "deck",
    "trump",
    "table",
    "discard",
    "attacker",
    "defender",
    "to_move",
    "out",
    "result",
    "known",
    "trump_holder",
    "limit",
    "taking",
    "phase",
}


def test_success_output() -> None:
    path = GOLDEN / "take_throw_ins_then_pick_up.json"
    code, out = run(str(path))
    assert code == 0
    assert set(out) == {"ok", "state", "legal"} and out["ok"] is True
    state = out["state"]
    assert set(state) >= STATE_KEYS
    assert isinstance(state["deck"], int) and isinstance(state["discard"], int)
    assert state["hands"] == [["KD"], ["9S", "TS", "9C", "KC", "9D", "JD", "QH"], ["AS"]]
    assert state["attacker"] == 2 and state["defender"] == 0 and state["to_move"] == 2
    assert state["table"] == [] and state["out"] == [] and state["result"] is None
    assert out["legal"] == [{"seat": 2, "type": "attack", "cards": ["AS"]}]
    assert (code, out) == replay_json(path.read_text(encoding="utf-8"))


def test_module_entry_point_and_pretty() -> None:
    path = GOLDEN / "transfer_chain.json"
    code, out = run("--pretty", str(path), module=True)
    assert code == 0
    assert (code, out) == replay_json(path.read_text(encoding="utf-8"))


def public_cards(view: dict[str, Any]) -> set[str]:
    """Cards a seat may see: its hand, the table, the discards, the face-up
    trump and the cards publicly known to be in a hand."""
    seen = set(view["hand"]) | set(view["discarded"]) | {view["trump"]}
    for pair in view["table"]:
        seen |= {pair["attack"], pair["defense"]} - {None}
    for known in view["known"]:
        seen |= set(known)
    return seen


def cards_in(obj: Any) -> set[str]:
    """Every string in ``obj`` that is a card."""
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    if isinstance(obj, str) and len(obj) == 2 and obj[0] in "23456789TJQKA" and obj[1] in "SCDH":
        return {obj}
    return set()


def check_view(full: dict[str, Any], seat: int, view_out: dict[str, Any]) -> None:
    view = view_out["state"]
    hands = full["state"]["hands"]
    assert view["seat"] == seat and view["hand"] == hands[seat]
    assert "hands" not in view and "deck_cards" not in view
    assert view["hand_counts"] == [len(h) for h in hands]
    assert view["known"] == full["state"]["known"]
    public = public_cards(view)
    leaked = cards_in(view_out) - public
    assert not leaked, f"seat {seat} sees {leaked}"
    for other, hand in enumerate(hands):
        if other != seat:
            visible = set(hand) & cards_in(view_out)
            assert visible <= set(full["state"]["known"][other]), (other, visible)
    if full["state"]["to_move"] == seat:
        assert view_out["legal"] == full["legal"]
    else:
        assert view_out["legal"] == []


@pytest.mark.parametrize("seed,plies", [(11, 40), (12, 25), (13, 60)])
def test_seat_views_hide_other_hands(seed: int, plies: int) -> None:
    text = json.dumps(random_record(seed, plies))
    code, full = replay_json(text)
    assert code == 0
    assert any(full["state"]["known"]) or seed != 11  # the first game has known cards
    for seat in range(4):
        code, view_out = replay_json(text, seat)
        assert code == 0
        check_view(full, seat, view_out)


def test_seat_view_through_cli(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(random_record(11, 40)), encoding="utf-8")
    _, full = replay_json(path.read_text(encoding="utf-8"))
    seat = 1
    code, view_out = run("--seat", str(seat), str(path))
    assert code == 0
    check_view(full, seat, view_out)
    assert set(full["state"]["hands"][2]) - set(full["state"]["known"][2])  # something to hide


def test_seat_view_shown_trump_and_picked_up_cards_are_public() -> None:
    # show_trump_transfer: seat 1 showed 9H; it is in seat 1's hand and public.
    text = (GOLDEN / "show_trump_transfer.json").read_text(encoding="utf-8")
    code, view_out = replay_json(text, 2)
    assert code == 0
    assert "9H" in cards_in(view_out)
    assert "TC" not in cards_in(view_out) and "QS" not in cards_in(view_out)  # seat 1's others


def test_illegal_action_exit_1(tmp_path: Path) -> None:
    record = json.loads((GOLDEN / "lead_several_same_rank.json").read_text(encoding="utf-8"))
    record["actions"] += [
        {"seat": 1, "type": "defend", "card": "TS", "target": "9C"},
        {"seat": 1, "type": "defend", "card": "QH", "target": "9D"},  # hearts on diamonds
    ]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out = run(str(path))
    assert code == 1
    assert out == {"ok": False, "index": 2, "error": "QH does not beat 9D"}


def test_malformed_json_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1, "deal": ', encoding="utf-8")
    code, out = run(str(path))
    assert code == 2
    assert out["ok"] is False and out["index"] is None and "JSON" in out["error"]
    # malformed JSON given to the function behind the command
    assert replay_json("[1, 2")[0] == 2


def test_missing_file_exit_2(tmp_path: Path) -> None:
    code, out = run(str(tmp_path / "nope.json"))
    assert code == 2 and out["ok"] is False and out["index"] is None


def test_stdin_dash() -> None:
    path = GOLDEN / "refill_order_short_deck.json"
    text = path.read_text(encoding="utf-8")
    code, out = run("-", stdin=text)
    assert code == 0
    assert (code, out) == replay_json(text)
    assert out["state"]["trump_holder"] == 1


def test_seat_out_of_range_exit_2() -> None:
    code, out = replay_json((GOLDEN / "transfer_basic.json").read_text(encoding="utf-8"), 3)
    assert code == 2 and out["ok"] is False and out["index"] is None
