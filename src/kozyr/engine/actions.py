"""Actions and their JSON notation.

An :class:`Action` is an immutable tuple ``(seat, kind, cards, target)``:
``cards`` is a bit mask of the cards played (the single card for ``defend`` and
``show_trump``) and ``target`` is the covered attack card for ``defend``
(``-1`` otherwise).  The JSON notation is the contract used by records, the
protocol and logs::

    {"seat": 0, "type": "attack", "cards": ["8C", "8H"]}
    {"seat": 1, "type": "defend", "card": "JC", "target": "8C"}
    {"seat": 2, "type": "throw", "cards": ["9S"]}
    {"seat": 1, "type": "take"}
    {"seat": 3, "type": "pass"}
    {"seat": 1, "type": "transfer", "cards": ["8D"]}
    {"seat": 1, "type": "show_trump", "card": "8D"}
    {"seat": 2, "type": "accuse", "card": "9S"}

``accuse`` exists only at cheating tables (rule 13): any seat still in the game
may call out a card on the table that someone else played, out of turn too.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final, NamedTuple

from .cards import CardError, card_str, cards_of, cards_str, parse_card


class Kind(IntEnum):
    ATTACK = 0
    DEFEND = 1
    THROW = 2
    TAKE = 3
    PASS = 4
    TRANSFER = 5
    SHOW_TRUMP = 6
    ACCUSE = 7

    @property
    def label(self) -> str:
        return _NAMES[self]


_NAMES: Final[dict[Kind, str]] = {
    Kind.ATTACK: "attack",
    Kind.DEFEND: "defend",
    Kind.THROW: "throw",
    Kind.TAKE: "take",
    Kind.PASS: "pass",
    Kind.TRANSFER: "transfer",
    Kind.SHOW_TRUMP: "show_trump",
    Kind.ACCUSE: "accuse",
}
_KINDS: Final[dict[str, Kind]] = {name: kind for kind, name in _NAMES.items()}
#: The names by value: ``Kind(value)`` is a slow Python call, and to_json runs for
#: every legal action of every frame a server sends.
_NAME_OF_VALUE: Final[tuple[str, ...]] = tuple(_NAMES[kind] for kind in sorted(Kind))
_WITH_CARD_LIST: Final = (Kind.ATTACK, Kind.THROW, Kind.TRANSFER)
_WITH_ONE_CARD: Final = (Kind.DEFEND, Kind.SHOW_TRUMP, Kind.ACCUSE)


_tuple_new: Final = tuple.__new__


class ActionError(ValueError):
    """An action that cannot be read (bad shape, unknown type, bad card)."""


class Action(NamedTuple):
    seat: int
    kind: Kind
    cards: int = 0
    target: int = -1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "type": _NAME_OF_VALUE[self.kind]}
        if self.kind in _WITH_CARD_LIST:
            out["cards"] = cards_str(self.cards)
        elif self.kind in _WITH_ONE_CARD:
            out["card"] = card_str(cards_of(self.cards)[0])
            if self.kind == Kind.DEFEND:
                out["target"] = card_str(self.target)
        return out

    def __str__(self) -> str:
        data = self.to_json()
        parts = [f"seat {self.seat}", data["type"]]
        if "cards" in data:
            parts.append(" ".join(data["cards"]))
        if "card" in data:
            parts.append(data["card"])
        if "target" in data:
            parts.append("on " + data["target"])
        return " ".join(parts)

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Read an action in JSON notation; raises :class:`ActionError`."""
        if not isinstance(data, dict):
            raise ActionError(f"an action must be an object, not {type(data).__name__}")
        seat = data.get("seat")
        if type(seat) is not int:
            raise ActionError("an action needs an integer 'seat'")
        name = data.get("type")
        if not isinstance(name, str) or name not in _KINDS:
            raise ActionError(f"unknown action type {name!r} (expected one of {list(_KINDS)})")
        kind = _KINDS[name]
        allowed = {"seat", "type"}
        cards = 0
        target = -1
        try:
            if kind in _WITH_CARD_LIST:
                allowed.add("cards")
                raw = data.get("cards")
                if not isinstance(raw, list) or not raw:
                    raise ActionError(f"'{name}' needs a non-empty list 'cards'")
                for text in raw:
                    c = parse_card(text)
                    if cards >> c & 1:
                        raise ActionError(f"card {card_str(c)} is listed twice")
                    cards |= 1 << c
            elif kind in _WITH_ONE_CARD:
                allowed.add("card")
                cards = 1 << parse_card(data.get("card"))
                if kind == Kind.DEFEND:
                    allowed.add("target")
                    target = parse_card(data.get("target"))
        except CardError as exc:
            raise ActionError(str(exc)) from None
        if len(data) > len(allowed):  # every allowed field was read above, so it is there
            extra = sorted(map(str, set(data) - allowed))
            raise ActionError(f"unexpected field(s) for '{name}': {', '.join(extra)}")
        return fast_action(seat, kind, cards, target)  # checked: no NamedTuple __new__


def fast_action(seat: int, kind: Kind, cards: int = 0, target: int = -1) -> Action:
    """``Action(seat, kind, cards, target)`` without NamedTuple's Python-level
    ``__new__``: move generation and the bots' rollouts build millions of them.
    The arguments are trusted (no checks either way)."""
    return _tuple_new(Action, (seat, kind, cards, target))
