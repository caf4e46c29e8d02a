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

At a cheating table (rule 13) a cheat is made only on purpose, with ``cheat``
(a plain command that would be a cheat is refused with a hint)::

    cheat 9s        throw in 9S although no 9 is on the table
    cheat 7c on 8c  cover 8C with 7C, which does not beat it (also ``cheat 7c>8c``)
    cheat 8c 8h ks  lead 8C 8H with KS alongside
    x 9s            call out 9S on the table as a cheat (``accuse 9s``)
    p or Enter      in the last call: call nothing out

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
from kozyr.engine.state import DEFEND, LAST_CALL, LEAD, PLAY_SEAT_SHIFT, THROW
from kozyr.engine.view import View

from .cards import card_input, card_name, cards_name, suit_mark


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

#: Calling out a card at a cheating table (rule 13).
ACCUSE_WORDS = frozenset({"x", "accuse", "call"})
#: Cheating on purpose; an optional move verb may follow (``cheat th 9s``).
CHEAT_WORD = "cheat"

#: The short verb of each kind, as :func:`command_text` writes it.
SHORT: dict[Kind, str] = {
    Kind.ATTACK: "a",
    Kind.DEFEND: "d",
    Kind.THROW: "th",
    Kind.TAKE: "t",
    Kind.PASS: "p",
    Kind.TRANSFER: "tr",
    Kind.SHOW_TRUMP: "s",
    Kind.ACCUSE: "x",
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


def command_text(action: Action, view: View | None = None) -> str:
    """The shortest full command for ``action``: ``a 8c 8h``, ``d jc>8c``, ``t``;
    ``cheat 9s``, ``cheat 7c>8c``, ``x 9s`` at a cheating table (a cheat is
    recognised only with the ``view`` it is played in)."""
    cheat = view is not None and cheat_card(view, action) >= 0
    verb = CHEAT_WORD if cheat else SHORT[Kind(action.kind)]
    cards = [card_input(c) for c in cards_of(action.cards)]
    if action.kind == Kind.DEFEND:
        return f"{verb} {cards[0]}>{card_input(action.target)}"
    return " ".join([verb, *cards])


# ------------------------------------------------------------ cheating (rule 13)
def table_ranks(view: View) -> set[int]:
    """The ranks on the table (a throw-in of another rank is a cheat)."""
    return {CARD_RANK[c] for pair in view.table for c in pair if c >= 0}


def cheat_card(view: View, action: Action) -> int:
    """The card that makes ``action`` a cheat in the position ``view`` shows, or -1
    (docs/rules.md, rule 13; judged by the engine's ``View.cheat_card``)."""
    return view.cheat_card(action)


def is_marked(view: View, seat: int | None = None) -> bool:
    """Whether ``seat`` (the viewer by default) is marked: no more cheats for it."""
    return bool(view.marked >> (view.seat if seat is None else seat) & 1)


def played_by(view: View, card: int) -> int | None:
    """Who put ``card`` on the table (cheating tables keep who played each card)."""
    for p in view.plays:
        if p & 63 == card:
            return p >> PLAY_SEAT_SHIFT & 7
    return None


def may_answer_last_call(view: View) -> bool:
    """Whether the viewer still has to answer the last call."""
    return view.phase == LAST_CALL and bool(view.pending >> view.seat & 1)


def honest_moves(view: View) -> list[Action]:
    """``view.legal`` without accusations and cheats."""
    return [a for a in view.legal if a.kind != Kind.ACCUSE and cheat_card(view, a) < 0]


def hints(view: View) -> list[tuple[str, str]]:
    """(command form, meaning) for each kind of move ``view.legal`` allows."""
    accusations = any(a.kind == Kind.ACCUSE for a in view.legal)
    if view.phase == LAST_CALL:
        out = [("x CARD", "call out a card")] if accusations else []
        if any(a.kind == Kind.PASS for a in view.legal):
            out.append(("p / Enter", "pass"))
        return out
    kinds = {Kind(a.kind) for a in honest_moves(view)}
    cheats = view.rules.cheating and any(cheat_card(view, a) >= 0 for a in view.legal)
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
    if cheats:
        out.append(_CHEAT_FORM[view.phase])
    if accusations:
        out.append(("x CARD", "call out a cheat"))
    return out


#: The form of a cheat in each phase and what it does, for the hint line.
_CHEAT_FORM = {
    LEAD: ("cheat CARD… ODD", "lead ODD alongside (a cheat)"),
    DEFEND: ("cheat CARD on TARGET", "cover without beating (a cheat)"),
    THROW: ("cheat CARD", "throw in any rank (a cheat)"),
}


def parse_command(text: str, view: View, ascii: bool = False) -> Command:
    """Read one line typed by ``view.seat``; raises :class:`CommandError`."""
    tokens = _PAIR.sub(">", text.strip().lower().translate(_SYMBOLS)).replace(",", " ").split()
    last_call = may_answer_last_call(view)
    if not tokens:
        if last_call:  # Enter: nothing to call out
            return Move((Action(view.seat, Kind.PASS),))
        raise CommandError("type a move, or ? for help")
    head, args = tokens[0], tokens[1:]
    if head in META:
        if args:
            raise CommandError(f"{head!r} takes nothing after it")
        return Meta(META[head])
    if head in ACCUSE_WORDS:
        return Move((_accusation(head, args, view, ascii),))
    if last_call:
        if VERBS.get(head) == Kind.PASS and not args:
            return Move((Action(view.seat, Kind.PASS),))
        raise CommandError(role_hint(view))
    if not view.my_turn:
        raise CommandError("it is not your turn")
    if head == CHEAT_WORD:
        return Move(_cheat(args, view, ascii))
    if head in VERBS:
        kind = VERBS[head]
    else:
        try:
            items = [_item(t, ascii) for t in tokens]
        except CommandError:
            raise CommandError(f"unknown command {head!r}: type ? for help") from None
        kind = _infer(items, view, ascii)
        args = tokens
    actions = _build(kind, args, view, ascii)
    if view.rules.cheating:
        for action in actions:
            _refuse_cheat(action, view, ascii)
    return Move(actions)


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
    kinds = {Kind(a.kind) for a in honest_moves(view) if a.cards == mask and a.kind != Kind.PASS}
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
    if view.phase == LAST_CALL:
        return "last call: call out a card (x CARD) or pass (p / Enter)"
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
        why = f"you don't hold {' '.join(card_name(c, ascii) for c in missing)}"
        callable_ = [c for c in missing if Action(view.seat, Kind.ACCUSE, 1 << c) in view.legal]
        if len(callable_) == 1:
            why += f" (to call it out as a cheat: x {card_input(callable_[0])})"
        raise CommandError(why)
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


def _covers(args: list[str], view: View, ascii: bool, cheat: bool = False) -> tuple[Action, ...]:
    """Covers; with ``cheat`` a card named without its target covers a card it does
    not beat, and an explicit pair may be fair or not."""
    if not args:
        if cheat:
            raise CommandError("cheat: which card? e.g. cheat 7c on 8c")
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
    legal = [a for a in view.legal if a.kind == Kind.DEFEND]
    fair = {(cards_of(a.cards)[0], a.target) for a in legal if cheat_card(view, a) < 0}
    pairs = {(cards_of(a.cards)[0], a.target) for a in legal} if cheat else fair
    inferred = pairs - fair if cheat else fair
    used: set[int] = set()
    actions = []
    name = card_name
    verb = CHEAT_WORD if cheat else "d"
    for card, target in items:
        if target is None:
            options = [t for t in uncovered if t not in used and (card, t) in inferred]
            if len(options) > 1:
                choices = " or ".join(name(t, ascii) for t in options)
                can = "could cheat over" if cheat else "can cover"
                raise CommandError(
                    f"{name(card, ascii)} {can} {choices}: say which, "
                    f"e.g. {verb} {card_input(card)}>{card_input(options[0])}"
                )
            if not options:
                left = [t for t in uncovered if t not in used]
                if not left:
                    raise CommandError("there is nothing left to cover")
                if cheat:
                    what = " or ".join(name(t, ascii) for t in left)
                    raise CommandError(
                        f"{name(card, ascii)} beats {what}: that is no cheat, "
                        f"cover with d {card_input(card)}"
                    )
                if len(left) == 1:
                    raise CommandError(_why_not_beat(card, left[0], view, ascii))
                what = " or ".join(name(t, ascii) for t in left)
                raise CommandError(
                    f"{name(card, ascii)} cannot cover {what}" + _cheat_hint(view, card, left[0])
                )
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
    hint = _cheat_hint(view, card, target)
    if CARD_SUIT[target] == trump:
        return f"{c} does not beat {t}: a trump is covered only by a higher trump{hint}"
    if CARD_SUIT[card] == CARD_SUIT[target] and CARD_RANK[card] < CARD_RANK[target]:
        return f"{c} does not beat {t}: it is lower{hint}"
    suit, trumps = suit_mark(CARD_SUIT[target], ascii), suit_mark(trump, ascii)
    return f"{c} does not beat {t}: cover with a higher {suit} or a trump ({trumps}){hint}"


def _cheat_hint(view: View, card: int, target: int) -> str:
    """At a cheating table: how to make the refused cover on purpose (or why not)."""
    if not view.rules.cheating:
        return ""
    if is_marked(view):
        return " (you are marked: no more cheats for you)"
    return (
        f". Covering with it anyway would be a cheat: "
        f"to cheat on purpose, type cheat {card_input(card)} on {card_input(target)}"
    )


def _refuse_cheat(action: Action, view: View, ascii: bool) -> None:
    """An ordinary command never cheats: say what the move would be and how to
    make it on purpose (covers are refused in :func:`_covers`)."""
    cheat = cheat_card(view, action)
    if cheat < 0:
        return
    cards = sorted(cards_of(action.cards), key=lambda c: c == cheat)  # the odd card last
    typed = " ".join(card_input(c) for c in cards)
    c = card_name(cheat, ascii)
    if action.kind == Kind.THROW:
        what = f"{c}: its rank is not on the table, so throwing it in would be a cheat"
    elif action.kind == Kind.ATTACK:
        what = (
            f"{cards_name(cards, ascii)} are not all of one rank: leading {c} alongside "
            "would be a cheat"
        )
    else:
        what = f"covering {card_name(action.target, ascii)} with {c} would be a cheat"
        typed = f"{card_input(cheat)} on {card_input(action.target)}"
    if is_marked(view):
        raise CommandError(f"{what}, and you are marked: no more cheats for you")
    raise CommandError(f"{what}. To cheat on purpose, type cheat {typed}")


def _cheat(args: list[str], view: View, ascii: bool) -> tuple[Action, ...]:
    """``cheat 9s`` (throw in), ``cheat 7c on 8c`` (cover), ``cheat 8c 8h ks`` (lead)."""
    if not view.rules.cheating:
        raise CommandError("there is no cheating at this table (rule cheating is off)")
    if is_marked(view):
        raise CommandError(
            "you are marked: you may no longer cheat (you may still call out cards: x CARD)"
        )
    if args and args[0] in VERBS:
        kind = VERBS[args[0]]
        if kind not in (Kind.ATTACK, Kind.THROW, Kind.DEFEND):
            raise CommandError("only a throw-in, a cover or a lead can be a cheat")
        args = args[1:]
    phase = view.phase
    if phase == DEFEND:
        actions = _covers(args, view, ascii, cheat=True)
        if not any(cheat_card(view, a) >= 0 for a in actions):
            fair = " ".join(command_text(a)[2:] for a in actions)
            raise CommandError(f"that is no cheat: every card beats its target; type d {fair}")
        return actions
    if not args:
        example = "cheat 8c 8h ks" if phase == LEAD else "cheat 9s"
        raise CommandError(f"cheat: which card? e.g. {example}")
    cards = _plain_cards(args, CHEAT_WORD, ascii)
    mask = _held(cards, view, ascii)
    typed = " ".join(card_input(c) for c in cards)
    if phase == THROW:
        if len(cards) > 1:
            raise CommandError("throw in one card at a time")
        action = Action(view.seat, Kind.THROW, mask)
        if cheat_card(view, action) < 0:
            raise CommandError(
                f"{card_name(cards[0], ascii)} is a fair throw-in (its rank is on the table): "
                f"type th {typed}"
            )
        return (action,)
    # LEAD
    if not view.rules.lead_multiple:
        raise CommandError("a lead is one card at this table, and a one-card lead is always fair")
    if len(cards) == 1:
        raise CommandError(
            "a one-card lead is always fair: to cheat, lead a card of another rank "
            "alongside, e.g. cheat 8c 8h ks"
        )
    action = Action(view.seat, Kind.ATTACK, mask)
    if cheat_card(view, action) < 0:
        if len({CARD_RANK[c] for c in cards}) == 1:
            raise CommandError(f"that lead is fair (one rank): type a {typed}")
        raise CommandError(
            "a cheating lead is cards of one rank and one card of another rank, e.g. cheat 8c 8h ks"
        )
    return (action,)


def _accusation(head: str, args: list[str], view: View, ascii: bool) -> Action:
    """``x 9s``: call out a card on the table (rule 13)."""
    if not view.rules.cheating:
        raise CommandError("there are no accusations at this table (rule cheating is off)")
    if len(args) != 1:
        raise CommandError(f"{head}: call out one card on the table, e.g. {head} 9s")
    card, target = _item(args[0], ascii)
    if target is not None:
        raise CommandError(f"{head}: name one card on the table, e.g. {head} 9s")
    action = Action(view.seat, Kind.ACCUSE, 1 << card)
    if action in view.legal:
        return action
    c = card_name(card, ascii)
    owner = played_by(view, card)
    if view.seat in view.out:
        raise CommandError("you are out of the game")
    if owner is None:
        raise CommandError(f"{c} is not on the table")
    if owner == view.seat:
        raise CommandError(f"you played {c} yourself")
    if view.cleared >> card & 1:
        raise CommandError(f"{c} was called out already and found fair")
    raise CommandError(f"you cannot call out {c} now")
