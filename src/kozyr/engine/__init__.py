"""The rules engine: cards, rules, deals, the referee state and per-seat views."""

from .actions import Action, ActionError, Kind
from .cards import CardError, card_str, cards_of, cards_str, mask_of, parse_card, parse_cards
from .deal import Deal, DealError
from .rules import Rules, RulesError
from .state import GameState, IllegalAction, Result
from .view import View, view_of

__all__ = [
    "Action",
    "ActionError",
    "CardError",
    "Deal",
    "DealError",
    "GameState",
    "IllegalAction",
    "Kind",
    "Result",
    "Rules",
    "RulesError",
    "View",
    "card_str",
    "cards_of",
    "cards_str",
    "mask_of",
    "native",
    "parse_card",
    "parse_cards",
    "view_of",
]

from . import native  # warns when the compiled engine is out of date
