"""Exact play once nothing is hidden: alpha-beta with a transposition table.

When the deck is (nearly) empty and only two players still hold cards, every
card's place follows from the view (see :meth:`Slots.determined`), so the game
is one of perfect information between two sides and can be solved.  Values are
the root seat's reward: 1 if it is not the durak, 0 if it is, 0.5 for a draw
(teams: the team's outcome).

Podkidnoy endgames cannot cycle — each pick-up shrinks the attacker's hand and
each bito removes cards — but in perevodnoy a transfer followed by a pick-up
hands the attack back, and a position can come round again.  A position that
repeats on the current search path is scored as a draw (0.5); the table may
then keep a value that depended on the path, a small inexactness accepted for
perevodnoy only.  Lines longer than :data:`MAX_DEPTH` give up like the budget.

The transposition table keys a position by everything that decides the rest
of the game (hands, table, phase, whose turn, round bookkeeping, cards left in
the stock) and stores lower/upper bounds, the usual fail-soft scheme.  Moves
are tried heuristic-choice first, which makes cut-offs come early.  The search
gives up (returns None) after ``node_budget`` positions or at ``deadline``;
the caller then falls back to sampling search.
"""

from __future__ import annotations

import time
from typing import Final, NamedTuple

from kozyr.engine.actions import Action, Kind
from kozyr.engine.state import OVER, GameState

from .heuristics import SOLID, tables
from .rollout import outcome, policy_action

Key = tuple[object, ...]

#: Plies below the root after which the solver gives up (keeps recursion shallow).
MAX_DEPTH: Final = 300


class OutOfBudget(Exception):
    """The node budget or the deadline ran out (internal to the solver)."""


class Solution(NamedTuple):
    action: Action
    value: float
    nodes: int


def position_key(s: GameState) -> Key:
    """Everything about ``s`` that decides how the game can go on."""
    return (
        tuple(s.hands),
        tuple(s.att),
        tuple(s.dfn),
        s.phase,
        s.to_move,
        s.attacker,
        s.defender,
        s.starter,
        s.limit,
        s.taking,
        s.passed,
        s.shown,
        len(s.stock),
        s.active,
        s.rounds == 0,
        s.bitos == 0,
    )


def two_sided(s: GameState) -> bool:
    """True when exactly two players (of different teams) still hold cards."""
    active = [seat for seat in range(s.n) if s.active >> seat & 1]
    return len(active) == 2 and s.team[active[0]] != s.team[active[1]]


class Solver:
    """Solves two-sided perfect-information positions for ``root``'s side."""

    def __init__(self, root: int, node_budget: int, deadline: float = float("inf")) -> None:
        self.root = root
        self.node_budget = node_budget
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[Key, tuple[float, float]] = {}
        #: Positions on the current search path (repetition detection).
        self.path: set[Key] = set()

    def ordered(self, s: GameState) -> list[Action]:
        """Legal actions, the heuristic's choice first, passing and taking last."""
        acts = s.legal_actions()
        if len(acts) > 1:
            first = policy_action(s, tables(s.trump_suit, s.rules.deck), SOLID, 1.0)
            rest = [a for a in acts if a != first and a.kind not in (Kind.PASS, Kind.TAKE)]
            quiet = [a for a in acts if a != first and a.kind in (Kind.PASS, Kind.TAKE)]
            acts = [first, *rest, *quiet] if first in acts else rest + quiet
        return acts

    def value(self, s: GameState, alpha: float, beta: float) -> float:
        """The exact value if it lies in (alpha, beta), else a bound on the right side."""
        if s.phase == OVER:
            return outcome(s.result, self.root, s.team)
        key = position_key(s)
        if key in self.path:
            return 0.5  # the position came round again: call it a draw
        lo, hi = self.table.get(key, (0.0, 1.0))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        alpha = max(alpha, lo)
        beta = min(beta, hi)
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise OutOfBudget
        if self.nodes & 255 == 0 and time.perf_counter() > self.deadline:
            raise OutOfBudget
        if len(self.path) >= MAX_DEPTH:
            raise OutOfBudget
        self.path.add(key)
        a0, b0 = alpha, beta
        to_move = s.to_move
        assert to_move is not None
        maximize = s.team[to_move] == s.team[self.root]
        best = -1.0 if maximize else 2.0
        for act in self.ordered(s):
            child = s.copy()
            child.do(act)
            v = self.value(child, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        self.path.discard(key)
        if best <= a0:
            hi = best
        elif best >= b0:
            lo = best
        else:
            lo = hi = best
        self.table[key] = (lo, hi)
        return best

    def solve(self, s: GameState) -> Solution | None:
        """The best action for the root (to move in ``s``) and its value, or
        None when the budget ran out first."""
        assert s.to_move == self.root and s.phase != OVER
        try:
            best_act: Action | None = None
            best = -1.0
            for act in self.ordered(s):
                child = s.copy()
                child.do(act)
                # Only a value above the best so far matters: (best, 1] window.
                v = self.value(child, best, 1.0)
                if v > best:
                    best, best_act = v, act
                if best >= 1.0:
                    break
        except OutOfBudget:
            return None
        assert best_act is not None
        return Solution(best_act, best, self.nodes)


def solve(s: GameState, node_budget: int, deadline: float = float("inf")) -> Solution | None:
    """Solve ``s`` for the seat to move; None if over budget or not two-sided."""
    if s.phase == OVER or s.to_move is None or not two_sided(s):
        return None
    return Solver(s.to_move, node_budget, deadline).solve(s)
