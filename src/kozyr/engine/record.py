"""Game records: the JSON file that describes and replays a whole game.

A record holds the rules, the deal (a seed, or explicit hands and deck) and
the list of actions in the notation of :mod:`kozyr.engine.actions`.  Replaying
a record through the referee reproduces the game exactly; docs/records.md is
the format's specification.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import Action, ActionError
from .cards import CardError, card_str, cards_str, parse_card
from .deal import Deal, DealError
from .rules import Rules, RulesError
from .state import GameState, IllegalAction

FORMAT_VERSION = 1
_DEAL_KEYS = {"seed", "hands", "deck", "trump", "discard", "first_attacker", "previous_durak"}
_RECORD_KEYS = {"version", "rules", "deal", "actions", "result", "meta"}


class RecordError(ValueError):
    """A record that cannot be read: bad JSON, unknown fields, bad rules or deal."""


@dataclass
class GameRecord:
    rules: Rules
    deal: Deal
    actions: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    # ----------------------------------------------------------------- reading
    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError("a record must be a JSON object")
        unknown = sorted(set(data) - _RECORD_KEYS)
        if unknown:
            raise RecordError(f"unknown record field(s): {', '.join(unknown)}")
        version = data.get("version", FORMAT_VERSION)
        if type(version) is not int or version != FORMAT_VERSION:
            raise RecordError(f"record version {version!r} is not supported (expected 1)")
        try:
            rules = Rules.from_dict(data.get("rules"))
        except (RulesError, TypeError) as exc:
            raise RecordError(f"rules: {exc}") from None
        if "deal" not in data:
            raise RecordError("a record needs a 'deal' (a seed, or hands and deck)")
        deal = deal_from_json(rules, data["deal"])
        actions = data.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("'actions' must be a list")
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("'meta' must be an object")
        return cls(rules, deal, list(actions), dict(meta))

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc}") from None
        return cls.from_json(data)

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise RecordError(f"{path} is not UTF-8 text") from None
        return cls.loads(text)

    # ----------------------------------------------------------------- writing
    def to_json(self, result: dict[str, Any] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": FORMAT_VERSION,
            "rules": self.rules.to_dict(),
            "deal": deal_to_json(self.deal),
            "actions": list(self.actions),
        }
        if result is not None:
            out["result"] = result
        if self.meta:
            out["meta"] = self.meta
        return out

    def dumps(self, result: dict[str, Any] | None = None) -> str:
        return json.dumps(self.to_json(result), separators=(",", ":"))

    # -------------------------------------------------------------- replaying
    def start(self) -> GameState:
        return GameState.new(self.rules, self.deal)

    def replay(self) -> Replay:
        """Play the actions in order; stop at the first one that is illegal."""
        state = self.start()
        for i, data in enumerate(self.actions):
            try:
                state.apply(Action.from_json(data))
            except (ActionError, IllegalAction) as exc:
                return Replay(state, i, str(exc))
        return Replay(state, None, None)

    def append(self, action: Action) -> None:
        self.actions.append(action.to_json())


@dataclass
class Replay:
    """The state after replaying a record, and the first illegal action if any."""

    state: GameState
    error_index: int | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise RecordError(f"deal: {what} must be a list of cards")
    try:
        return [parse_card(v) for v in value]
    except CardError as exc:
        raise RecordError(f"deal: {what}: {exc}") from None


def _mask(cards: list[int], what: str) -> int:
    m = 0
    for c in cards:
        if m >> c & 1:
            raise RecordError(f"deal: {what} lists {card_str(c)} twice")
        m |= 1 << c
    return m


def _seat(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise RecordError(f"deal: {what} must be a seat number")
    return value


def deal_from_json(rules: Rules, data: Any) -> Deal:
    """Read the ``deal`` object of a record."""
    if not isinstance(data, dict):
        raise RecordError("'deal' must be an object")
    unknown = sorted(set(data) - _DEAL_KEYS)
    if unknown:
        raise RecordError(f"unknown deal field(s): {', '.join(unknown)}")
    first = _seat(data.get("first_attacker"), "first_attacker")
    previous = _seat(data.get("previous_durak"), "previous_durak")
    try:
        if "seed" in data:
            if {"hands", "deck", "trump", "discard"} & set(data):
                raise RecordError("deal: give either a seed or hands and deck, not both")
            seed = data["seed"]
            if type(seed) is not int or not 0 <= seed < 2**64:
                raise RecordError("deal: seed must be an integer from 0 to 2**64 - 1")
            deal = Deal.from_seed(rules, seed, first, previous)
        else:
            if "hands" not in data or not isinstance(data["hands"], list):
                raise RecordError("deal: needs 'seed', or 'hands' (a list per seat) and 'deck'")
            hands = tuple(
                _mask(_cards(h, f"hand {i}"), f"hand {i}") for i, h in enumerate(data["hands"])
            )
            deck = tuple(_cards(data.get("deck", []), "deck"))
            discard = _mask(_cards(data.get("discard", []), "discard"), "discard")
            if "trump" in data:
                trump = _cards([data["trump"]], "trump")[0]
                if deck and deck[-1] != trump:
                    raise RecordError("deal: trump must be the last card of the deck")
            elif deck:
                trump = deck[-1]
            else:
                raise RecordError("deal: 'trump' is required when the whole deck is dealt")
            deal = Deal(hands, deck, trump, discard, first, previous)
        deal.validate(rules)
    except DealError as exc:
        raise RecordError(f"deal: {exc}") from None
    return deal


def deal_to_json(deal: Deal) -> dict[str, Any]:
    out: dict[str, Any]
    if deal.seed is not None:
        out = {"seed": deal.seed}
    else:
        out = {
            "hands": [cards_str(h) for h in deal.hands],
            "deck": [card_str(c) for c in deal.deck],
            "trump": card_str(deal.trump),
        }
        if deal.discard:
            out["discard"] = cards_str(deal.discard)
    if deal.first_attacker is not None:
        out["first_attacker"] = deal.first_attacker
    if deal.previous_durak is not None:
        out["previous_durak"] = deal.previous_durak
    return out
