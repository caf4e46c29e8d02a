"""Typed commands: what a person types, read into engine actions (and back).

::

    a 8c 8h     attack / lead (while throwing in, ``a 9s`` throws 9S in)
    d jc>8c     defend: cover 8C with JC (``d jc`` when JC can cover only one card;
                ``d jc 8c`` and ``d jc on 8c`` work too; several covers in one line)
    t           take
    p           pass / done throwing in
    tr 8d       transfer (perevodnoy)
    th 9s       throw in
    s 8d        show the trump 8D to transfer (perevodnoy, when the table allows it)
    h ?         help, m moves, b board, q quit

Cards are rank then suit in any case: ``8c``, ``10d`` or ``td``, ``QH``, ``8♣``.
Bare cards (``jc``) mean whatever single move they can mean here.

:func:`parse_command` only reads the text against the seat's view: it checks
that the cards are held and the verb fits the moment, and resolves the target
of a cover.  Whether the move is legal is the engine's call
(``GameState.apply``), which the game loop makes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import CARD_RANK, CARD_SUIT, CardError, cards_of, parse_card
from kozyr.engine.state import DEFEND, LEAD, THROW
from kozyr.engine.view import View

from .cards import card_input, card_name, suit_mark


class CommandError(ValueError):
    """Text that is not a command, or a command that cannot be made here."""


MetaName = Literal["help", "quit", "moves", "board"]


@dataclass(frozen=True)
class Meta:
    """A command about the client, not the game."""

    name: MetaName


@dataclass(frozen=True)
class Move:
    """One or more actions of the player to move, in order (several covers)."""

    actions: tuple[Action, ...]


Command = Meta | Move

META: dict[str, MetaName] = {
    "h": "help",
    "?": "help",
    "help": "help",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
    "m": "moves",
    "moves": "moves",
    "b": "board",
    "board": "board",
}

VERBS: dict[str, Kind] = {
    "a": Kind.ATTACK,
    "attack": Kind.ATTACK,
    "lead": Kind.ATTACK,
    "d": Kind.DEFEND,
    "defend": Kind.DEFEND,
    "cover": Kind.DEFEND,
    "t": Kind.TAKE,
    "take": Kind.TAKE,
    "p": Kind.PASS,
    "pass": Kind.PASS,
    "done": Kind.PASS,
    "tr": Kind.TRANSFER,
    "transfer": Kind.TRANSFER,
    "th": Kind.THROW,
    "throw": Kind.THROW,
    "s": Kind.SHOW_TRUMP,
    "show": Kind.SHOW_TRUMP,
}

#: The short verb of each kind, as :func:`command_text` writes it.
SHORT: dict[Kind, str] = {
    Kind.ATTACK: "a",
    Kind.DEFEND: "d",
    Kind.THROW: "th",
    Kind.TAKE: "t",
    Kind.PASS: "p",
    Kind.TRANSFER: "tr",
    Kind.SHOW_TRUMP: "s",
}

#: How an ambiguous bare card is explained.
_VERB_WORD = {
    Kind.ATTACK: "attack",
    Kind.DEFEND: "cover",
    Kind.THROW: "throw in",
    Kind.TRANSFER: "transfer",
    Kind.SHOW_TRUMP: "show the trump",
}


_SYMBOLS = str.maketrans({"♠": "s", "♣": "c", "♦": "d", "♥": "h"})
_PAIR = re.compile(r"\s*(?:>|\bon\b)\s*")

Item = tuple[int, int | None]  # (card, explicit cover target or None)


def command_text(action: Action) -> str:
    """The shortest full command for ``action``: ``a 8c 8h``, ``d jc>8c``, ``t``."""
    verb = SHORT[Kind(action.kind)]
    cards = [card_input(c) for c in cards_of(action.cards)]
    if action.kind == Kind.DEFEND:
        return f"{verb} {cards[0]}>{card_input(action.target)}"
    return " ".join([verb, *cards])


def hints(view: View) -> list[tuple[str, str]]:
    """(command form, meaning) for each kind of move ``view.legal`` allows."""
    kinds = {Kind(a.kind) for a in view.legal}
    out = []
    if Kind.ATTACK in kinds:
        several = view.rules.lead_multiple and view.limit > 1
        out.append(("a CARD" + (" [CARD…]" if several else ""), "attack"))
    if Kind.DEFEND in kinds:
        out.append(("d CARD[>TARGET]", "cover"))
    if Kind.THROW in kinds:
        out.append(("th CARD", "throw in"))
    if Kind.TRANSFER in kinds:
        out.append(("tr CARD [CARD…]", "transfer"))
    if Kind.SHOW_TRUMP in kinds:
        out.append(("s CARD", "show trump to transfer"))
    if Kind.TAKE in kinds:
        out.append(("t", "take"))
    if Kind.PASS in kinds:
        out.append(("p", "pass / done"))
    return out


def parse_command(text: str, view: View, ascii: bool = False) -> Command:
    """Read one line typed by ``view.seat``; raises :class:`CommandError`."""
    tokens = _PAIR.sub(">", text.strip().lower().translate(_SYMBOLS)).replace(",", " ").split()
    if not tokens:
        raise CommandError("type a move, or ? for help")
    head, args = tokens[0], tokens[1:]
    if head in META:
        if args:
            raise CommandError(f"{head!r} takes nothing after it")
        return Meta(META[head])
    if not view.my_turn:
        raise CommandError("it is not your turn")
    if head in VERBS:
        kind = VERBS[head]
    else:
        try:
            items = [_item(t, ascii) for t in tokens]
        except CommandError:
            raise CommandError(f"unknown command {head!r}: type ? for help") from None
        kind = _infer(items, view, ascii)
        args = tokens
    return Move(_build(kind, args, view, ascii))


# --------------------------------------------------------------------- helpers
def _card(token: str) -> int:
    try:
        return parse_card(token)
    except CardError:
        raise CommandError(
            f"{token!r} is not a card: type a rank (2-9, 10 or t, j, q, k, a) "
            "then a suit (s, c, d, h), e.g. 8c or 10d"
        ) from None


def _item(token: str, ascii: bool) -> Item:
    if ">" in token:
        card, _, target = token.partition(">")
        if not card or not target:
            raise CommandError(f"{token!r}: write a cover as CARD>TARGET, e.g. jc>8c")
        return _card(card), _card(target)
    return _card(token), None


def _infer(items: list[Item], view: View, ascii: bool) -> Kind:
    """The kind of move bare cards mean here."""
    if any(t is not None for _, t in items):
        return Kind.DEFEND
    mask = 0
    for c, _ in items:
        mask |= 1 << c
    kinds = {Kind(a.kind) for a in view.legal if a.cards == mask and a.kind != Kind.PASS}
    if len(items) > 1 and view.phase == DEFEND and Kind.TRANSFER not in kinds:
        return Kind.DEFEND  # several covers
    if len(kinds) == 1:
        return kinds.pop()
    if len(kinds) > 1:
        typed = " ".join(card_input(c) for c, _ in items)
        ways = " or ".join(f"{_VERB_WORD[k]} ({SHORT[k]} {typed})" for k in sorted(kinds))
        shown = " ".join(card_name(c, ascii) for c, _ in items)
        raise CommandError(f"{shown} could {ways}: type the command")
    return {LEAD: Kind.ATTACK, THROW: Kind.THROW}.get(view.phase, Kind.DEFEND)


def role_hint(view: View) -> str:
    """What the player to move may do now, in words."""
    if view.phase == LEAD:
        return "you lead the attack: a CARD"
    if view.phase == THROW:
        return "you may throw in (th CARD) or pass (p)"
    extra = ", tr CARD to transfer" if view.rules.transfers else ""
    return f"you are defending: d CARD to cover, t to take{extra}"


def _held(cards: list[int], view: View, ascii: bool) -> int:
    mask = 0
    for c in cards:
        if mask >> c & 1:
            raise CommandError(f"{card_name(c, ascii)} is listed twice")
        mask |= 1 << c
    missing = [c for c in cards if not view.hand >> c & 1]
    if missing:
        raise CommandError(f"you don't hold {' '.join(card_name(c, ascii) for c in missing)}")
    return mask


def _plain_cards(args: list[str], verb: str, ascii: bool) -> list[int]:
    if not args:
        raise CommandError(f"{verb}: which card? e.g. {verb} 8c")
    out = []
    for token in args:
        card, target = _item(token, ascii)
        if target is not None:
            raise CommandError(f"{token!r}: only a cover (d) names a target")
        out.append(card)
    return out


def _build(kind: Kind, args: list[str], view: View, ascii: bool) -> tuple[Action, ...]:
    seat = view.seat
    phase = view.phase
    if kind in (Kind.TAKE, Kind.PASS):
        word = "take" if kind == Kind.TAKE else "pass"
        if args:
            raise CommandError(f"{word} takes no cards")
        if not any(a.kind == kind for a in view.legal):
            why = "only the defender can take" if kind == Kind.TAKE else "you cannot pass now"
            raise CommandError(f"{why}: {role_hint(view)}")
        return (Action(seat, kind),)
    if kind in (Kind.ATTACK, Kind.THROW):
        if phase == DEFEND:
            raise CommandError(role_hint(view))
        kind = Kind.ATTACK if phase == LEAD else Kind.THROW
        verb = "a" if kind == Kind.ATTACK else "th"
        cards = _plain_cards(args, verb, ascii)
        mask = _held(cards, view, ascii)
        if kind == Kind.THROW and len(cards) > 1:
            raise CommandError("throw in one card at a time")
        return (Action(seat, kind, mask),)
    if phase != DEFEND:
        raise CommandError(f"you are not defending: {role_hint(view)}")
    if kind == Kind.DEFEND:
        return _covers(args, view, ascii)
    if not view.rules.transfers:
        raise CommandError(f"no transfers in {view.rules.variant}: {role_hint(view)}")
    verb = SHORT[kind]
    cards = _plain_cards(args, verb, ascii)
    mask = _held(cards, view, ascii)
    if kind == Kind.SHOW_TRUMP:
        if not view.rules.transfer_show_trump:
            raise CommandError("transfer by showing a trump is off at this table")
        if len(cards) != 1:
            raise CommandError("show exactly one trump")
    return (Action(seat, kind, mask),)


def _covers(args: list[str], view: View, ascii: bool) -> tuple[Action, ...]:
    if not args:
        raise CommandError("d: which card? e.g. d jc>8c, or d jc when it can cover only one card")
    attacks = [a for a, _ in view.table]
    uncovered = [a for a, d in view.table if d < 0]
    items: list[Item] = []
    for token in args:
        card, target = _item(token, ascii)
        # "d jc 8c": a bare attack card right after a card without a target is its target.
        if target is None and card in uncovered and items and items[-1][1] is None:
            items[-1] = (items[-1][0], card)
            continue
        items.append((card, target))
    _held([c for c, _ in items], view, ascii)
    pairs = {(cards_of(a.cards)[0], a.target) for a in view.legal if a.kind == Kind.DEFEND}
    used: set[int] = set()
    actions = []
    name = card_name
    for card, target in items:
        if target is None:
            options = [t for t in uncovered if t not in used and (card, t) in pairs]
            if len(options) > 1:
                choices = " or ".join(name(t, ascii) for t in options)
                raise CommandError(
                    f"{name(card, ascii)} can cover {choices}: say which, "
                    f"e.g. d {card_input(card)}>{card_input(options[0])}"
                )
            if not options:
                left = [t for t in uncovered if t not in used]
                if not left:
                    raise CommandError("there is nothing left to cover")
                if len(left) == 1:
                    raise CommandError(_why_not_beat(card, left[0], view, ascii))
                what = " or ".join(name(t, ascii) for t in left)
                raise CommandError(f"{name(card, ascii)} cannot cover {what}")
            target = options[0]
        elif target not in attacks:
            raise CommandError(f"{name(target, ascii)} is not an attack card on the table")
        elif target not in uncovered or target in used:
            raise CommandError(f"{name(target, ascii)} is already covered")
        elif (card, target) not in pairs:
            raise CommandError(_why_not_beat(card, target, view, ascii))
        used.add(target)
        actions.append(Action(view.seat, Kind.DEFEND, 1 << card, target))
    return tuple(actions)


def _why_not_beat(card: int, target: int, view: View, ascii: bool) -> str:
    trump = view.trump_suit
    c, t = card_name(card, ascii), card_name(target, ascii)
    if CARD_SUIT[target] == trump:
        return f"{c} does not beat {t}: a trump is covered only by a higher trump"
    if CARD_SUIT[card] == CARD_SUIT[target] and CARD_RANK[card] < CARD_RANK[target]:
        return f"{c} does not beat {t}: it is lower"
    suit, trumps = suit_mark(CARD_SUIT[target], ascii), suit_mark(trump, ascii)
    return f"{c} does not beat {t}: cover with a higher {suit} or a trump ({trumps})"
