"""Levels 5–10: determinized Monte Carlo search over sampled deals.

For each candidate action the search plays the game out on many deals of the
unseen cards (:mod:`kozyr.bots.sampler`) with the level-4 heuristic as every
player's rollout policy (:mod:`kozyr.bots.rollout`) and averages the reward of
the bot's seat: 1 not durak, 0 durak, 0.5 draw (teams: the team's outcome).
Every candidate is scored on the same deals with the same rollout random
numbers, so the comparison between actions is not drowned by the luck of the
deal.

The budget is spread by *sequential halving*: in each round the surviving
candidates get an equal share of rollouts, then the worse half is dropped, so
clear blunders cost little and close calls get most of the rollouts.

Once nothing is hidden — the deck is (nearly) empty and only one opponent
holds cards — the position is solved exactly instead (:mod:`kozyr.bots.endgame`),
falling back to sampling if the solver's node budget runs out.

**Reproducibility.**  The budget is counted in simulated engine actions
(``steps``; a rollout of 40 actions counts 40) and solver nodes, never in
time, so a given seed and view give the same action on any machine.  Counting
actions rather than rollouts makes a 6-player game cost about the same time
as a 2-player one.  The wall-clock cap ``time_cap`` is only a safety net for a
slow machine; when it triggers, the result may depend on the machine's speed.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from math import ceil, log2
from typing import NamedTuple

from kozyr.engine.actions import Action
from kozyr.engine.cards import CARD_RANK
from kozyr.engine.state import LEAD
from kozyr.engine.view import View

from .endgame import Solver, two_sided
from .heuristic_bot import heuristic_action
from .heuristics import SOLID, cheapest, tables
from .public import decision_seed
from .rollout import playout, reward
from .sampler import Slots, sample_state


class SearchConfig(NamedTuple):
    """The budget of one search level (see :mod:`kozyr.bots.levels`)."""

    #: Simulated engine actions per decision (the reproducible budget).
    steps: int
    #: Endgame solver positions per decision before falling back to sampling.
    endgame_nodes: int
    #: Hard wall-clock cap per decision in seconds (safety net only).
    time_cap: float
    #: Chance of a random move in rollouts.
    epsilon: float = 0.05


@dataclass
class SearchStats:
    """What the last decision cost (for ``kozyr bench bots`` and logs)."""

    #: "forced" (one legal action), "endgame" (solved) or "sampling".
    method: str = "forced"
    #: Rollouts played (one per candidate per sampled deal).
    rollouts: int = 0
    #: Engine actions simulated in rollouts.
    steps: int = 0
    #: Positions the endgame solver visited.
    nodes: int = 0
    #: Sampled deals.
    deals: int = 0
    #: Candidate actions considered.
    candidates: int = 1
    #: Expected reward of the chosen action (solver value or rollout mean).
    value: float = 0.0
    #: True if the wall-clock cap cut the search short.
    timed_out: bool = False
    seconds: float = 0.0

    @property
    def iterations(self) -> int:
        """Rollouts plus solver positions: the search's units of work."""
        return self.rollouts + self.nodes


def candidates(view: View) -> list[Action]:
    """The actions worth searching, the heuristic's choice first.

    All legal actions, except that of several cards of one rank led together
    only the cheapest set of each size is kept (the rest differ only in suits
    and would split the budget for little gain).
    """
    legal = list(view.legal)
    if view.phase == LEAD and len(legal) > 1:
        t = tables(view.trump_suit, view.rules.deck)
        best: dict[tuple[int, int], Action] = {}
        singles: list[Action] = []
        for a in legal:
            k = a.cards.bit_count()
            if k == 1:
                singles.append(a)
                continue
            key = (CARD_RANK[a.cards.bit_length() - 1], k)
            old = best.get(key)
            if old is None or _cost(a.cards, t.cost) < _cost(old.cards, t.cost):
                best[key] = a
        legal = singles + list(best.values())
    first = heuristic_action(view, SOLID, 1.0)
    if first in view.legal:
        if first in legal:
            legal.remove(first)
        legal.insert(0, first)
    return legal


def _cost(cards: int, cost: tuple[int, ...]) -> int:
    total = 0
    while cards:
        c = cheapest(cards, cost)
        total += cost[c]
        cards &= ~(1 << c)
    return total


def search(view: View, seed: int, config: SearchConfig) -> tuple[Action, SearchStats]:
    """The action to play in ``view`` and what finding it cost."""
    start = time.perf_counter()
    deadline = start + config.time_cap
    stats = SearchStats()
    legal = view.legal
    if not legal:
        raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
    if len(legal) == 1:
        return legal[0], stats
    rng = random.Random(decision_seed(seed, view))
    slots = Slots(view)
    half_time = start + config.time_cap / 2
    solved = solve_endgame(view, rng, slots, config.endgame_nodes, half_time, stats)
    if solved is not None:
        stats.seconds = time.perf_counter() - start
        return solved, stats
    action = _sample_search(view, rng, slots, config, deadline, stats)
    stats.seconds = time.perf_counter() - start
    return action, stats


def solve_endgame(
    view: View, rng: random.Random, slots: Slots, nodes: int, deadline: float, stats: SearchStats
) -> Action | None:
    """The solver's action once nothing is hidden and two sides are left, else
    None (the solver's node count is kept in ``stats`` either way)."""
    if not slots.determined():
        return None
    state = sample_state(view, rng, slots)
    if not two_sided(state):
        return None
    solver = Solver(view.seat, nodes, deadline)
    solution = solver.solve(state)
    stats.nodes = solver.nodes  # counted even when the budget ran out
    if solution is None:
        return None
    stats.method = "endgame"
    stats.nodes = solution.nodes
    stats.value = solution.value
    return solution.action


def _sample_search(
    view: View,
    rng: random.Random,
    slots: Slots,
    config: SearchConfig,
    deadline: float,
    stats: SearchStats,
) -> Action:
    """Sequential halving over the candidates with shared sampled deals."""
    cands = candidates(view)
    stats.method = "sampling"
    stats.candidates = len(cands)
    seat = view.seat
    eps = config.epsilon
    k = len(cands)
    totals = [0.0] * k
    played = [0] * k
    alive = list(range(k))
    rollout_rng = random.Random()
    rounds = max(1, ceil(log2(k)))
    per_round = max(1, config.steps // rounds)
    for _ in range(rounds):
        if len(alive) == 1:
            break
        spent = 0
        while spent < per_round:
            base = sample_state(view, rng, slots)
            rollout_seed = rng.getrandbits(64)
            stats.deals += 1
            for i in alive:
                s = base.copy()
                s.do(cands[i])
                rollout_rng.seed(rollout_seed)  # the same numbers for every candidate
                n = playout(s, rollout_rng, eps)
                totals[i] += reward(s, seat)
                played[i] += 1
                spent += n + 1
            if time.perf_counter() > deadline:
                stats.timed_out = True
                break
        stats.steps += spent
        # Ties go to the earlier candidate (the heuristic's choice first).
        alive.sort(key=lambda i: (-totals[i] / played[i], i))
        if stats.timed_out:
            break
        alive = alive[: (len(alive) + 1) // 2]
    best = alive[0]
    stats.rollouts = sum(played)
    stats.value = totals[best] / played[best]
    return cands[best]


class SearchBot:
    """A sampling-search bot (levels 5–10).  ``last`` describes its last decision."""

    def __init__(self, config: SearchConfig, seed: int, name: str) -> None:
        self.config = config
        self.seed = seed
        self.name = name
        self.last = SearchStats()

    def choose(self, view: View) -> Action:
        action, self.last = search(view, self.seed, self.config)
        return action
