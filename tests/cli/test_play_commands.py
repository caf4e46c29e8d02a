"""The typed commands of ``kozyr play``: text to actions, against real positions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import deck_cards, parse_card
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of
from kozyr.tui.commands import (
    CommandError,
    Meta,
    MetaName,
    Move,
    command_text,
    parse_command,
)


def mask(text: str) -> int:
    m = 0
    for t in text.split():
        m |= 1 << parse_card(t)
    return m


def start(hands: list[str], trump: str, **rules: Any) -> GameState:
    """A game where seat 0 leads, with these hands and ``trump`` at the bottom of the deck."""
    r = Rules.from_dict({"players": len(hands), **rules})
    held = [mask(h) for h in hands]
    taken = sum(held) | mask(trump)
    rest = [c for c in deck_cards(r.deck) if not taken >> c & 1]
    deal = Deal(tuple(held), (*rest, parse_card(trump)), parse_card(trump), first_attacker=0)
    return GameState.new(r, deal)


# seat 0 leads; hearts are trumps.
HANDS = ["8C 8D 8S 9S KS 6H", "JC QC 9D TD 7H AS"]


def act(state: GameState, seat: int, text: str) -> View:
    """Apply ``text`` typed by ``seat``; return that seat's view before it."""
    view = view_of(state, seat)
    cmd = parse_command(text, view)
    assert isinstance(cmd, Move)
    for a in cmd.actions:
        state.apply(a)
    return view


def parse(state: GameState, seat: int, text: str) -> tuple[Action, ...]:
    cmd = parse_command(text, view_of(state, seat))
    assert isinstance(cmd, Move)
    return cmd.actions


def error(state: GameState, seat: int, text: str) -> str:
    with pytest.raises(CommandError) as info:
        parse_command(text, view_of(state, seat))
    return str(info.value)


def test_attack_with_one_or_several_cards_any_case():
    s = start(HANDS, "AH")
    assert parse(s, 0, "a 8c 8d") == (Action(0, Kind.ATTACK, mask("8C 8D")),)
    assert parse(s, 0, "A 8C,8D") == (Action(0, Kind.ATTACK, mask("8C 8D")),)
    assert parse(s, 0, "attack 8♣") == (Action(0, Kind.ATTACK, mask("8C")),)
    assert parse(s, 0, "ks") == (Action(0, Kind.ATTACK, mask("KS")),)  # a bare card leads


def test_ten_is_10_or_t():
    s = start(["TD 8D 8S 9S KS 6H", "JC QC 9D 7D 7H AS"], "AH")
    assert parse(s, 0, "a 10d") == parse(s, 0, "a td") == (Action(0, Kind.ATTACK, mask("TD")),)


def test_cover_forms():
    s = start(HANDS, "AH")
    act(s, 0, "a 8c 8d")
    want = Action(1, Kind.DEFEND, mask("JC"), parse_card("8C"))
    for text in ("d jc>8c", "d jc > 8c", "d jc on 8c", "d jc 8c", "d jc", "defend JC>8C", "jc"):
        assert parse(s, 1, text) == (want,), text
    two = parse(s, 1, "d jc>8c 9d>8d")
    assert two == (want, Action(1, Kind.DEFEND, mask("9D"), parse_card("8D")))
    assert parse(s, 1, "d jc 9d") == two  # each card has one target


def test_cover_errors_say_why():
    s = start(HANDS, "AH")
    act(s, 0, "a 8c 8d")
    assert "7♥ can cover 8♣ or 8♦" in error(s, 1, "d 7h")
    assert "d 7h>8c" in error(s, 1, "d 7h")
    assert "J♣ does not beat 8♦" in error(s, 1, "d jc>8d")
    assert "a trump (♥)" in error(s, 1, "d jc>8d")
    assert "9♠ is not an attack card on the table" in error(s, 1, "d as>9s")
    assert "you don't hold K♠" in error(s, 1, "d ks>8c")
    assert "d: which card?" in error(s, 1, "d")
    assert "'jc>': write a cover as CARD>TARGET" in error(s, 1, "d jc>")
    act(s, 1, "d jc")
    assert "8♣ is already covered" in error(s, 1, "d qc>8c")
    assert "Q♣ does not beat 8♦" in error(s, 1, "d qc")


def test_why_a_card_does_not_cover():
    s = start(["7H QD 8S 9S KS 6C", "JC QC 9D TD 6H AS"], "AH")
    act(s, 0, "a 7h")
    assert "6♥ does not beat 7♥: a trump is covered only by a higher trump" in error(s, 1, "d 6h")
    assert "J♣ does not beat 7♥" in error(s, 1, "d jc")
    s = start(["7H QD 8S 9S KS 6C", "JC QC 9D TD 6H AS"], "AH")
    act(s, 0, "a qd")
    assert "9♦ does not beat Q♦: it is lower" in error(s, 1, "d 9d")
    s = start(HANDS, "AH")
    act(s, 0, "a 8c 8d")
    assert "A♠ cannot cover 8♣ or 8♦" in error(s, 1, "d as")


def test_throw_in_pass_and_take():
    s = start(HANDS, "AH")
    act(s, 0, "a 8c 8d")
    act(s, 1, "d jc>8c 9d>8d")  # both covered: seat 0 may throw 8S or 9S
    throw = (Action(0, Kind.THROW, mask("9S")),)
    assert parse(s, 0, "th 9s") == parse(s, 0, "a 9s") == parse(s, 0, "9s") == throw
    assert parse(s, 0, "p") == parse(s, 0, "done") == (Action(0, Kind.PASS),)
    assert error(s, 0, "th 8s 9s") == "throw in one card at a time"
    assert "only the defender can take" in error(s, 0, "t")
    assert "you are not defending" in error(s, 0, "d 8s>9d")
    assert "take takes no cards" in error(s, 0, "t 8s")
    act(s, 0, "th 8s")
    assert parse(s, 1, "t") == parse(s, 1, "take") == (Action(1, Kind.TAKE),)
    assert "you cannot pass now" in error(s, 1, "p")
    assert "you are defending" in error(s, 1, "a qc")


def test_transfer_and_show_trump():
    hands = ["8C 8D 8S 9S KS 6C", "JC QC 9D TD 8H AS", "7C 7D 7S 9C KC 6D"]
    s = start(hands, "AH", variant="perevodnoy", transfer_show_trump=True)
    act(s, 0, "a 8c")
    assert parse(s, 1, "tr 8h") == (Action(1, Kind.TRANSFER, mask("8H")),)
    assert parse(s, 1, "s 8h") == (Action(1, Kind.SHOW_TRUMP, mask("8H")),)
    message = error(s, 1, "8h")  # a bare card that could mean three moves
    assert "could cover (d 8h) or transfer (tr 8h) or show the trump (s 8h)" in message
    s2 = start(hands, "AH")
    act(s2, 0, "a 8c")
    assert "no transfers in podkidnoy" in error(s2, 1, "tr 8h")


def test_meta_commands_and_garbage():
    s = start(HANDS, "AH")
    view = view_of(s, 0)
    names: list[tuple[str, MetaName]] = [
        ("?", "help"),
        ("h", "help"),
        ("q", "quit"),
        ("m", "moves"),
        ("b", "board"),
    ]
    for text, name in names:
        assert parse_command(text, view) == Meta(name)
    assert "unknown command 'xyzzy'" in error(s, 0, "xyzzy")
    assert "unknown command '!!!'" in error(s, 0, "!!! ???")
    assert "'zz' is not a card" in error(s, 0, "a zz")
    assert "you don't hold J♣" in error(s, 0, "a jc")
    assert "8♣ is listed twice" in error(s, 0, "a 8c 8c")
    assert error(s, 0, "   ") == "type a move, or ? for help"
    assert "it is not your turn" in error(s, 1, "d jc")
    assert "q' takes nothing" in error(s, 0, "q now")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2),
        Rules(players=4, variant="perevodnoy", transfer_show_trump=True),
        Rules(players=3, deck=24, lead_multiple=False),
    ],
    ids=["2p", "4p-perevodnoy", "3p-24"],
)
def test_every_legal_move_reads_back_from_its_command(rules: Rules) -> None:
    """command_text (what the move list shows) parses back to the same action."""
    rng = random.Random(7)
    for seed in range(4):
        state = GameState.from_seed(rules, seed)
        while not state.game_over:
            seat = state.to_move
            assert seat is not None
            view = view_of(state, seat)
            for a in view.legal:
                assert parse_command(command_text(a), view) == Move((a,)), command_text(a)
            state.apply(rng.choice(view.legal))
