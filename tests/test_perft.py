"""Perft: the number of legal action sequences of each length from fixed positions.

``tests/perft/*.json`` (written by ``scripts/make_perft.py``) hold a record
and ``counts = [perft(1), ..., perft(d)]``; every count is recomputed here.
A finished game has no legal action, so a line that ends the game early adds
nothing to the deeper counts.

The stored numbers were not simply trusted: the first two depths of three
positions were counted by hand (``test_hand_checked_shallow_counts``), two tiny
endgames are counted by hand to the end of the game (``test_tiny_endgame_*``),
and the move generator is compared with the move validator (``check``) on every
candidate action at many positions.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import CARD_RANK, cards_of, parse_card
from kozyr.engine.perft import empty_deck_record, perft, position
from kozyr.engine.state import LAST_CALL, GameState

PERFT = Path(__file__).parent / "perft"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PERFT / f"{name}.json").read_text(encoding="utf-8"))
    return data


def perft_names() -> list[str]:
    return sorted(p.stem for p in PERFT.glob("*.json"))


# ------------------------------------------------------------------ stored data
def test_perft_files_present() -> None:
    names = perft_names()
    assert len(names) >= 7
    for name in names:
        data = load(name)
        assert set(data) == {"name", "record", "counts"} and data["name"] == name
        assert data["counts"] and all(isinstance(n, int) and n >= 0 for n in data["counts"])


@pytest.mark.parametrize("name", perft_names())
def test_perft(name: str) -> None:
    data = load(name)
    state = position(data["record"])
    got = [perft(state, d) for d in range(1, len(data["counts"]) + 1)]
    assert got == data["counts"]


# Hand counts of the first two depths (the deals are the seeded ones; the hands
# were also rebuilt independently from the documented shuffle).
#
# podkidnoy_2p_36 (seed 1): seat 0 TS 6C QC KC AC KH, seat 1 8S 7C JD 6H 7H 8H,
# trump AH.  Lowest trump 6H: seat 1 attacks seat 0, limit 6.
#   depth 1: 8S, 8H, 8S+8H, 7C, 7H, 7C+7H, JD, 6H = 8
#   depth 2 (take + covers): 8S: take TS KH = 3; 8H: take KH = 2; 8S+8H: take
#   TS/8S KH/8S KH/8H = 4; 7C: take QC KC AC KH = 5; 7H: 2; 7C+7H: take + 4 + 1 = 6;
#   JD: take KH = 2; 6H: take KH = 2  ->  26
#
# perevodnoy_2p_36 (seed 3): seat 0 7S TC AC 8D 6H 9H, seat 1 JS KS AS QD QH AH,
# trump KH.  Lowest trump 6H: seat 0 attacks, 6 distinct ranks = 6 leads.
#   depth 2: 7S: take JS KS AS QH AH = 6; TC: take QH AH = 3; AC: take QH AH and
#   transfers AS, AH, AS+AH (seat 0 keeps 5 cards: room 4) = 6; 8D: take QD QH AH = 4;
#   6H: take QH AH = 3; 9H: take QH AH = 3  ->  25
#
# teams_show_trump_4p_36 (seed 6, 2v2, perevodnoy, show-trump): seat 2 (6D, lowest
# trump; trump KD) attacks seat 3 = 8S TS 8C JC 7D TH; transfers go to seat 0.
#   depth 1: JS, 6C, 6D, 6C+6D, 9C, 8D, QD = 7
#   depth 2: JS: take 7D transfer-JC = 3; 6C: take 8C JC 7D = 4; 6D: take 7D = 2;
#   6C+6D: take + 3 + 1 = 5; 9C: take JC 7D = 3; 8D: take + transfers 8S, 8C,
#   8S+8C = 4 (no show: the 8 of trumps is the attack card); QD: take = 1  ->  22
HAND_CHECKED = {
    "podkidnoy_2p_36": [8, 26],
    "perevodnoy_2p_36": [6, 25],
    "teams_show_trump_4p_36": [7, 22],
    "podkidnoy_4p_36": [7, 12],
}


@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_hand_checked_shallow_counts(name: str) -> None:
    assert load(name)["counts"][:2] == HAND_CHECKED[name]


# ------------------------------------------------------------ tiny endgames
def test_tiny_endgame_podkidnoy() -> None:
    """2 players, 24 cards, empty deck, trump hearts (no heart in a hand).

    Seat 0: 9S 9C; seat 1: TS TC.  No trump held: the lowest card (9S) leads, so
    seat 0 attacks seat 1; limit min(6, 2) = 2.

    depth 1: 9S | 9C | 9S+9C                                                = 3
    depth 2: 9S -> take, TS; 9C -> take, TC; 9S+9C -> take, TS/9S, TC/9C    = 7
    depth 3: 9S-take: seat 0 throws 9C or passes (2); 9S-TS: 9 on the table,
             pass / throw 9C (2); 9C lines likewise (2 + 2); 9S+9C-take: the
             limit is reached, seat 1 picks up, seat 0 is empty: durak (0);
             9S+9C-TS: take or TC on 9C (2); 9S+9C-TC: take or TS (2)        = 12
    depth 4: 9S-take-pass: seat 1 picks up, seat 0 attacks again with 9C (1);
             9S-take-9C: limit reached, game over (0); 9S-TS-pass: bito, seat 1
             leads TC (1); 9S-TS-9C: take or TC (2); the 9C lines: 1, 0, 1, 2;
             the four 9S+9C lines all end the game (take: durak; cover: draw) = 8
    depth 5: 9S-take-pass-9C: seat 1 takes or covers with TC (2); 9S-TS-pass-TC:
             seat 0 (9C) can only take (1); 9S-TS-9C-*: over (0); 9C lines
             likewise 2 + 1                                                    = 6
    depth 6: every line above has ended the game                              = 0
    """
    record = empty_deck_record({"players": 2, "deck": 24}, [["9S", "9C"], ["TS", "TC"]], "9H")
    state = position(record)
    assert [perft(state, d) for d in range(1, 7)] == [3, 7, 12, 8, 6, 0]


def test_tiny_endgame_perevodnoy() -> None:
    """2 players, 24 cards, perevodnoy, empty deck, trump hearts (none held).

    Seat 0: 9S JD QD; seat 1: 9C TS.  Lowest card 9S: seat 0 attacks, limit 2.

    depth 1: 9S | JD | QD                                                   = 3
    depth 2: 9S -> take, TS, transfer 9C (seat 0 keeps 2 cards: room 1);
             JD -> take; QD -> take                                         = 5
    depth 3: 9S-take: seat 0 has no 9, seat 1 picks up; seat 0 attacks
             again: JD or QD (2); 9S-TS: bito, seat 1 leads 9C (1);
             9S-transfer: seat 0 must defend 9S+9C with JD QD: take only (1);
             JD-take: seat 1 picks up, seat 0 leads 9S or QD (2); QD-take: 2 = 8
    depth 4: 9S-take-JD, 9S-take-QD: seat 1 (9S 9C TS) can only take (1 + 1);
             9S-TS-9C: seat 0 (JD QD) takes (1); 9S-transfer-take: limit 2
             reached, seat 0 picks up, seat 1 leads TS (1); JD-take-9S: take or
             TS; no transfer: seat 0 keeps 1 card (2); JD-take-QD: take (1);
             QD-take-9S: take or TS (2); QD-take-JD: take or QD (2)           = 11
    """
    record = empty_deck_record(
        {"players": 2, "deck": 24, "variant": "perevodnoy"},
        [["9S", "JD", "QD"], ["9C", "TS"]],
        "9H",
    )
    state = position(record)
    assert [perft(state, d) for d in range(1, 5)] == [3, 5, 8, 11]


def test_tiny_endgame_single_line() -> None:
    """Seat 0: 9S, seat 1: TS.  9S leads; seat 1 takes (seat 0 is out: durak 1)
    or covers (both empty: draw).  perft = [1, 2, 0]."""
    state = position(empty_deck_record({"players": 2, "deck": 24}, [["9S"], ["TS"]], "9H"))
    assert [perft(state, d) for d in range(1, 4)] == [1, 2, 0]


# ---------------------------------------------- generator against validator
def candidates(state: GameState) -> set[Action]:
    """Every action of the seat to move worth asking ``check`` about: any one,
    two or three cards, every group of one rank, every cover, take, pass."""
    seat = state.to_move
    assert seat is not None
    hand = cards_of(state.hands[seat])
    groups: list[tuple[int, ...]] = []
    for k in (1, 2, 3):
        groups += itertools.combinations(hand, k)
    for rank in range(13):
        same = tuple(c for c in hand if CARD_RANK[c] == rank)
        if len(same) > 3:
            groups.append(same)
        if state.rules.cheating:  # leads alongside (rule 13): a rank's cards and one more
            for k in range(2, len(same) + 1):
                for part in itertools.combinations(same, k):
                    groups += [(*part, c) for c in hand if CARD_RANK[c] != rank]
    out = {Action(seat, Kind.TAKE), Action(seat, Kind.PASS)}
    for p in state.plays:  # accusations (rule 13): every card on the table
        out.add(Action(seat, Kind.ACCUSE, 1 << (p & 63)))
    for group in groups:
        mask = sum(1 << c for c in group)
        for kind in (Kind.ATTACK, Kind.THROW, Kind.TRANSFER):
            out.add(Action(seat, kind, mask))
    for c in hand:
        out.add(Action(seat, Kind.SHOW_TRUMP, 1 << c))
        for target in [*state.att, parse_card("2S")]:
            out.add(Action(seat, Kind.DEFEND, 1 << c, target))
    return out


def assert_generator_matches_validator(state: GameState) -> None:
    legal = state.legal_actions()
    assert len(set(legal)) == len(legal), "duplicate legal actions"
    accepted = {a for a in candidates(state) if state.check(a) is None}
    assert accepted == set(legal)
    other = (state.to_move or 0) + 1
    if other < state.n and state.phase != LAST_CALL:  # the last call takes any pending seat
        assert state.check(Action(other, Kind.PASS)) is not None


@pytest.mark.parametrize("name", perft_names())
def test_generator_matches_validator(name: str) -> None:
    """At every position within two actions of the perft position, and along
    two random games from it, the legal actions are exactly the candidate
    actions that ``check`` accepts."""
    root = position(load(name)["record"])
    frontier = [root]
    for _ in range(3):
        nxt = []
        for state in frontier:
            if state.game_over:
                continue
            assert_generator_matches_validator(state)
            for action in state.legal_actions():
                child = state.copy()
                child.do(action)
                nxt.append(child)
        frontier = nxt
    rng = random.Random(name)
    for _ in range(2):
        state = root.copy()
        while not state.game_over:
            assert_generator_matches_validator(state)
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
