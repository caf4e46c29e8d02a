"""Moves and round changes in words, from one seat's point of view.

Narration compares two views of the same seat (before and after a move), so
it can only ever tell that seat what the seat may know: which cards *it* drew,
how many the others drew.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import cards_of
from kozyr.engine.state import OVER
from kozyr.engine.view import View

from .cards import card_text, cards_text, hand_order

#: (base form, third person) of each move's verb.
_VERBS = {
    Kind.ATTACK: ("attack", "attacks"),
    Kind.THROW: ("throw in", "throws in"),
    Kind.DEFEND: ("cover", "covers"),
    Kind.TAKE: ("take", "takes"),
    Kind.PASS: ("pass", "passes"),
    Kind.TRANSFER: ("transfer", "transfers"),
    Kind.SHOW_TRUMP: ("show", "shows"),
}


def _name(seat: int, view: View, labels: Sequence[str], start: bool = False) -> str:
    if seat == view.seat:
        return "You" if start else "you"
    return labels[seat]


def _verb(seat: int, view: View, base: str, third: str) -> str:
    return base if seat == view.seat else third


def next_defender(view: View, seat: int) -> int:
    """Who defends after ``seat`` transfers: the next opponent still in the game."""
    n = view.rules.players
    tc = view.rules.team_count
    s = seat
    for _ in range(n):
        s = (s + 1) % n
        if s not in view.out and (not tc or s % tc != seat % tc):
            return s
    return seat


def describe(
    action: Action, view: View, labels: Sequence[str], ascii: bool = False, subject: bool = True
) -> Text:
    """``West covers 8♣ with J♣`` for ``action`` played in the position ``view`` shows.

    ``subject=False`` leaves out the player: ``cover 8♣ with J♣`` (the move list).
    """
    kind = Kind(action.kind)
    seat = action.seat
    ts = view.trump_suit
    base, third = _VERBS[kind]
    verb = _verb(seat, view, base, third) if subject else base
    out = Text(f"{_name(seat, view, labels, start=True)} {verb}" if subject else verb)
    cards = cards_text(cards_of(action.cards), ascii, ts)
    if kind == Kind.ATTACK:
        out.append(f" {_name(view.defender, view, labels)} with ")
        out.append_text(cards)
    elif kind == Kind.THROW:
        out.append(" ")
        out.append_text(cards)
    elif kind == Kind.DEFEND:
        out.append(" ")
        out.append_text(card_text(action.target, ascii, trump_suit=ts))
        out.append(" with ")
        out.append_text(cards)
    elif kind == Kind.TAKE:
        out.append(" the cards")
    elif kind == Kind.PASS:
        out.append(" (done throwing in)")
    else:
        if kind == Kind.SHOW_TRUMP:
            out.append(" the trump ")
            out.append_text(cards)
            and_then = _verb(seat, view, "transfer", "transfers") if subject else "transfer"
            out.append(f" and {and_then}")
        else:
            out.append(" with ")
            out.append_text(cards)
        out.append(f" to {_name(next_defender(view, seat), view, labels)}")
    return out


def _cards(k: int) -> str:
    return f"{k} card" if k == 1 else f"{k} cards"


def after_move(
    action: Action, before: View, after: View, labels: Sequence[str], ascii: bool = False
) -> list[Text]:
    """What else happened: the round's end, refills, the trump drawn, players out."""
    if after.rounds == before.rounds:
        return []
    lines = []
    ts = before.trump_suit
    table = before.table_cards | (action.cards if action.kind != Kind.SHOW_TRUMP else 0)
    n = table.bit_count()
    d = before.defender
    if after.discard != before.discard:
        lines.append(Text(f"Bito: {_cards(n)} go to the discard."))
    else:
        who = _name(d, before, labels, start=True)
        lines.append(Text(f"{who} {_verb(d, before, 'pick', 'picks')} up {_cards(n)}."))
    drawn = before.deck_count - after.deck_count
    if drawn:
        line = Text(f"{_cards(drawn)} drawn, {after.deck_count or 'none'} left in the deck.")
        mine = hand_order(cards_of(after.hand & ~before.hand & ~table), ts)
        if mine:
            line.append(" You draw ")
            line.append_text(cards_text(mine, ascii, ts))
            line.append(".")
        lines.append(line)
    if before.trump_holder is None and after.trump_holder is not None:
        who = _name(after.trump_holder, before, labels, start=True)
        line = Text(f"{who} {_verb(after.trump_holder, before, 'take', 'takes')} the trump ")
        line.append_text(card_text(after.trump, ascii, trump_suit=ts))
        lines.append(line.append(" from under the deck."))
    for s in after.out:
        if s not in before.out:
            if s == before.seat:
                lines.append(Text("You are out of cards: you are safe!", style="bold green"))
            else:
                lines.append(Text(f"{labels[s]} is out of cards."))
    if after.phase != OVER:
        lines.append(round_line(after, labels))
    return lines


def round_line(view: View, labels: Sequence[str]) -> Text:
    """``Round 3: West attacks you.``"""
    a, d = view.attacker, view.defender
    return Text(
        f"Round {view.rounds + 1}: {_name(a, view, labels, start=True)} "
        f"{_verb(a, view, 'attack', 'attacks')} {_name(d, view, labels)}.",
        style="bold",
    )
