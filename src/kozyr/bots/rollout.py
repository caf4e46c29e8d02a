"""Heuristic playouts on a sampled :class:`GameState` (the search's rollouts).

Every simulated player plays the level-4 rules of thumb of
:mod:`kozyr.bots.heuristics`, fed only with its own hand and public facts of
the sampled state, plus a small chance ``epsilon`` of a uniformly random move
so that rollouts from one deal do not all repeat the same game.  Lead and
throw-in actions are built straight from bit masks (no legal-move list); the
defender's list is only generated when a transfer may be possible.  A rollout
stops after ``cap`` actions — a safety net, as heuristic games always end well
before it — and then scores the position by hand sizes.
"""

from __future__ import annotations

import random
from typing import Final

from kozyr.engine.actions import Action, Kind, fast_action
from kozyr.engine.cards import CARD_RANK, RANK_MASK
from kozyr.engine.state import DEFEND, LAST_CALL, LEAD, OVER, GameState, Result

from .heuristics import SOLID, Style, Tables, choose_defense, choose_lead, choose_throw, tables
from .public import state_threat

#: Actions after which a rollout gives up (heuristic games last ~60-300).
ROLLOUT_CAP: Final = 3000

_ATTACK: Final = Kind.ATTACK
_THROW: Final = Kind.THROW
_PASS: Final = Kind.PASS
_TRANSFER: Final = Kind.TRANSFER
_SHOW: Final = Kind.SHOW_TRUMP
_ACCUSE: Final = Kind.ACCUSE


def policy_action(state: GameState, t: Tables, style: Style, u: float) -> Action:
    """The heuristic action of the seat to move in ``state`` (not over)."""
    rules = state.rules
    return _policy(state, t, style, u, rules.lead_multiple, rules.variant == "perevodnoy")


def _policy(
    state: GameState, t: Tables, style: Style, u: float, multiple: bool, transfers_on: bool
) -> Action:
    """:func:`policy_action` with the table's rule flags looked up once per rollout."""
    seat = state.to_move
    assert seat is not None
    phase = state.phase
    hand = state.hands[seat]
    deck_count = len(state.stock)
    if phase == LEAD:
        threat = -1
        if deck_count == 0 and style.counting:
            threat = state_threat(state, seat, state.defender)
        cards = choose_lead(
            hand, t, deck_count, state.limit, multiple, threat, state.beaters, style
        )
        return fast_action(seat, _ATTACK, cards)
    if phase == DEFEND:
        transfers: list[Action] = []
        att = state.att
        if transfers_on and state.uncovered == len(att) and hand & RANK_MASK[CARD_RANK[att[0]]]:
            transfers = [a for a in state.legal_actions() if a.kind == _TRANSFER or a.kind == _SHOW]
        return choose_defense(
            seat, hand, att, state.dfn, state.beaters, t, deck_count, transfers, style, u
        )
    if phase == LAST_CALL:
        return last_call(state, seat, style, u)
    # THROW
    threat = -1
    if deck_count == 0 and style.counting:
        threat = state_threat(state, seat, state.defender)
    card = choose_throw(
        hand, state.table_ranks, state.taking, t, deck_count, threat, state.beaters, style
    )
    if card:
        return fast_action(seat, _THROW, card)
    return fast_action(seat, _PASS)


def last_call(state: GameState, seat: int, style: Style, u: float) -> Action:
    """Rule 13's last call: with chance ``style.attention`` call out the oldest
    cheat on the table that somebody else played, else pass."""
    if u < style.attention:
        for rec in state.cheats:
            if rec[2] != seat:
                return fast_action(seat, _ACCUSE, 1 << rec[1])
    return fast_action(seat, _PASS)


def playout(
    state: GameState,
    rng: random.Random,
    epsilon: float = 0.05,
    style: Style = SOLID,
    cap: int = ROLLOUT_CAP,
) -> int:
    """Play ``state`` to the end (in place) with the heuristic; the actions played.

    If ``cap`` actions did not finish the game the state is left unfinished;
    :func:`reward` then scores it by hand sizes.
    """
    rules = state.rules
    t = tables(state.trump_suit, rules.deck, style.trump_aware)
    multiple = rules.lead_multiple
    transfers_on = rules.variant == "perevodnoy"
    rand = rng.random
    steps = 0
    while state.phase != OVER and steps < cap:
        if rand() < epsilon:
            action = state.sample_action(rand())
        else:
            action = _policy(state, t, style, rand(), multiple, transfers_on)
        state.do(action)
        steps += 1
    return steps


def outcome(result: Result | None, seat: int, team: tuple[int, ...]) -> float:
    """1 if ``seat`` (with its team) is not the durak, 0 if it is, 0.5 for a draw."""
    if result is None or result.durak is None:
        return 0.5
    return 0.0 if team[result.durak] == team[seat] else 1.0


def reward(state: GameState, seat: int) -> float:
    """``seat``'s reward in a finished state, or an estimate if a rollout was cut
    off: the share of players (or teams) holding more cards than ``seat``."""
    if state.phase == OVER:
        return outcome(state.result, seat, state.team)
    mine = state.hands[seat].bit_count()
    others = [s for s in range(state.n) if state.team[s] != state.team[seat]]
    more = sum(1 for s in others if state.hands[s].bit_count() > mine)
    return more / len(others) if others else 0.5
