"""Levels 1–4: the rule-of-thumb player of :mod:`kozyr.bots.heuristics` on a view.

Weaker levels are the same player with a worse :class:`Style` (trump-blind,
no counting, panicky takes) and a chance of a plain random move.
"""

from __future__ import annotations

import random
import warnings

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import CARD_RANK, RANK_MASK
from kozyr.engine.state import BEATERS, DEFEND, LEAD, THROW
from kozyr.engine.view import View

from .heuristics import Style, choose_defense, choose_lead, choose_throw, tables
from .public import decision_seed, view_threat


def heuristic_action(view: View, style: Style, u: float) -> Action:
    """What the heuristic player with ``style`` does in ``view`` (``u`` in [0, 1)
    feeds the style's random takes).  Uses only the view."""
    seat = view.seat
    rules = view.rules
    t = tables(view.trump_suit, rules.deck, style.trump_aware)
    beaters = BEATERS[view.trump_suit]
    phase = view.phase
    if phase == LEAD:
        threat = -1
        if view.deck_count == 0 and style.counting:
            threat = view_threat(view, view.defender)
        cards = choose_lead(
            view.hand,
            t,
            view.deck_count,
            view.limit,
            rules.lead_multiple,
            threat,
            beaters,
            style,
        )
        return Action(seat, Kind.ATTACK, cards)
    att = [a for a, _ in view.table]
    dfn = [d for _, d in view.table]
    if phase == DEFEND:
        transfers = [a for a in view.legal if a.kind in (Kind.TRANSFER, Kind.SHOW_TRUMP)]
        return choose_defense(
            seat, view.hand, att, dfn, beaters, t, view.deck_count, transfers, style, u
        )
    if phase == THROW:
        table_ranks = 0
        for a, d in view.table:
            table_ranks |= RANK_MASK[CARD_RANK[a]]
            if d >= 0:
                table_ranks |= RANK_MASK[CARD_RANK[d]]
        threat = -1
        if view.deck_count == 0 and style.counting:
            threat = view_threat(view, view.defender)
        card = choose_throw(
            view.hand, table_ranks, view.taking, t, view.deck_count, threat, beaters, style
        )
        return Action(seat, Kind.THROW, card) if card else Action(seat, Kind.PASS)
    raise ValueError("the game is over: there is nothing to choose")


class HeuristicBot:
    """A heuristic player that makes a random legal move with chance ``mistake``."""

    def __init__(self, style: Style, mistake: float, seed: int, name: str) -> None:
        self.style = style
        self.mistake = mistake
        self.seed = seed
        self.name = name

    def choose(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if len(legal) == 1:
            return legal[0]
        rng = random.Random(decision_seed(self.seed, view))
        if rng.random() < self.mistake:
            return legal[rng.randrange(len(legal))]
        action = heuristic_action(view, self.style, rng.random())
        if action not in legal:  # a bug in the heuristics: never let it reach the table
            warnings.warn(
                f"{self.name}: heuristic chose illegal {action}", RuntimeWarning, stacklevel=2
            )
            return legal[0]
        return action
