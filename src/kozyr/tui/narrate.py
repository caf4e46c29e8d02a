"""Moves and round changes in words, from one seat's point of view.

Narration compares two views of the same seat (before and after a move), so
it can only ever tell that seat what the seat may know: which cards *it* drew,
how many the others drew.

At a cheating table (rule 13) a cheat is narrated like any other move (the
cards are on the table face up: noticing is the game), and only an accusation
says what a card was: :func:`verdict` words the engine's
``GameState.cheat_event`` judged before the accusation is played.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import cards_of
from kozyr.engine.state import LAST_CALL, OVER
from kozyr.engine.view import View

from .cards import card_text, cards_text, hand_order
from .commands import played_by

#: (base form, third person) of each move's verb.
_VERBS = {
    Kind.ATTACK: ("attack", "attacks"),
    Kind.THROW: ("throw in", "throws in"),
    Kind.DEFEND: ("cover", "covers"),
    Kind.TAKE: ("take", "takes"),
    Kind.PASS: ("pass", "passes"),
    Kind.TRANSFER: ("transfer", "transfers"),
    Kind.SHOW_TRUMP: ("show", "shows"),
    Kind.ACCUSE: ("call out", "calls out"),
}

#: A rule-13 event from ``GameState.cheat_event``: (what, seat, card, other seat).
CheatEvent = tuple[str, int, int, int]


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
        out.append(" (no call)" if view.phase == LAST_CALL else " (done throwing in)")
    elif kind == Kind.ACCUSE:
        card = action.cards.bit_length() - 1
        owner = played_by(view, card)
        out.append(" ")
        out.append_text(cards)
        if owner is not None and not subject:
            out.append(f" (played by {_name(owner, view, labels)})")
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


def verdict(
    event: CheatEvent, before: View, after: View, labels: Sequence[str], ascii: bool = False
) -> Text:
    """An accusation and its outcome, from ``before.seat``'s side: ``You called out
    9♠ — a cheat by North: the card goes back, North is marked.``"""
    what, accuser, card, player = event
    ts = before.trump_suit
    me = before.seat
    line = Text(f"{_name(accuser, before, labels, start=True)} called out ")
    if player == me:
        line.append("your ")
    line.append_text(card_text(card, ascii, trump_suit=ts))
    if what == "caught":
        back = hand_order(cards_of(before.table_cards & ~after.table_cards), ts)
        line.append(" — caught" if player == me else f" — a cheat by {labels[player]}")
        if len(back) == 1:
            line.append(": the card goes back")
        else:
            line.append(": the cards go back (").append_text(cards_text(back, ascii, ts))
            line.append(")")
        marked = "you are marked" if player == me else f"{labels[player]} is marked"
        line.append(f", {marked}.")
        if before.phase == LAST_CALL:
            line.append(" The round goes on from before the cheat.")
        return line
    line.append(" — it was fair: ")
    again = before.marked >> accuser & 1
    if accuser == me:
        line.append("you were marked already." if again else "you are marked.")
    else:
        line.append(f"{labels[accuser]} {'was marked already' if again else 'is marked'}.")
    return line


def after_move(
    action: Action, before: View, after: View, labels: Sequence[str], ascii: bool = False
) -> list[Text]:
    """What else happened: the last call, the round's end, refills, the trump
    drawn, players out."""
    if after.rounds == before.rounds:
        if after.phase == LAST_CALL and before.phase != LAST_CALL:
            return [
                Text(
                    "Last call: the round is over — before the cards leave the table, "
                    "anyone may call out a card.",
                    style="bold",
                )
            ]
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
