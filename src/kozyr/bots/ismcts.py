"""Levels 5–10: information-set Monte Carlo tree search in the compiled core.

The flat Monte Carlo of :mod:`kozyr.bots.search` scores each candidate action
by independent playouts and stops gaining from more samples (level 10 ≈ 9).
This search builds one tree over the bot's information set instead
(Cowling, Powley & Whitehouse 2012, "single-observer ISMCTS"): each
iteration deals the hidden cards afresh, walks down the tree among the
actions legal in that deal (UCB with availability counts), adds a node, plays
the game out with the level-4 policy and backs up every mover's own reward.
Opponents' replies, later rounds and the bot's own follow-ups are all searched,
so more iterations keep paying.  The loop runs in C (``kozyr/core/search.c``).

Two things from the flat search stay: the candidate list at the root (all
legal actions, several cards of one rank led together only as the cheapest
set of each size) and the exact endgame solver once nothing is hidden.  Deals
are weighted by what the opponents' play says about their hands
(:mod:`kozyr.bots.inference`) when the view carries the public history.

Budgets are iterations, so a seed and a view give the same action on any
machine; ``time_cap`` is a safety net.  Without the compiled core (no C
compiler when ``./setup`` ran) the same levels fall back to the flat search
with a comparable budget.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, NamedTuple

from kozyr import core
from kozyr.engine.actions import Action
from kozyr.engine.state import GameState
from kozyr.engine.view import View

from .endgame import two_sided
from .evaluation import endgame_weights
from .heuristics import SOLID, Style
from .inference import LEVEL4_EVIDENCE, Evidence, card_weights
from .public import decision_seed
from .rollout import ROLLOUT_CAP, outcome
from .sampler import Slots, sample_state
from .search import SearchConfig, SearchStats, candidates, search, solve_endgame


class IsmctsConfig(NamedTuple):
    """The budget and knobs of one ISMCTS level (see :mod:`kozyr.bots.levels`).

    Issue 29's candidates that measured no better were dropped as knobs ("keep
    what measures better, drop the rest"); docs/bots.md's table of them names
    the commit that still has them, to run their commands again."""

    #: Tree iterations per decision at a two-player table (one deal, one
    #: descent, one playout each); n players get 2/n of them, as a playout is
    #: about n/2 times longer, so every table size thinks about as long.
    iterations: int
    #: Endgame solver positions per decision before falling back to the search.
    endgame_nodes: int
    #: Hard wall-clock cap per decision in seconds (safety net only).
    time_cap: float
    #: UCB exploration constant (rewards are 0..1).
    exploration: float = 0.7
    #: Chance of a random move in playouts.
    epsilon: float = 0.05
    #: Weight deals by the opponents' past play (needs ``View.history``).
    inference: bool = True
    #: Flat-search steps per iteration when the core is missing (fallback).
    fallback_steps: int = 4
    #: Issue 29: the UCB exploration constant at the root (0: ``exploration``).
    root_exploration: float = 0.0
    #: Issue 29: a playout stops at the first round that starts with an empty
    #: stock and two sides, scored by the learned evaluation
    #: (:mod:`kozyr.bots.evaluation`) instead of played out.
    endgame_eval: bool = False
    #: Issue 29: the factors the inference reads the opponents' play with
    #: (None: the level-4 model's, :data:`kozyr.bots.inference.LEVEL4_EVIDENCE`).
    evidence: Evidence | None = None
    #: Issue 29: an opponent's reply in the tree is scored by the deals in which
    #: the opponent held as many trumps (0, 1, 2 or 3+), that mean shrunk towards
    #: the reply's mean over every deal with this many pseudo-visits (0: off):
    #: the tree's opponents choose by what they hold while the subtree below
    #: stays shared (a tree split by class thins its statistics: docs/bots.md).
    opponent_shrink: float = 0.0
    #: Issue 29: Smooth UCT below the root (Heinrich & Silver 2015; 0: off): a
    #: node chooses by UCB only with chance max(0.1, 0.9 / (1 + smooth * sqrt(n)))
    #: (n: its available children's visits), else draws a child in proportion
    #: to its visits, so the tree's players mix their replies as the statistics
    #: say instead of each answering the other's latest choices.
    smooth: float = 0.0
    #: Issue 29: Smooth UCT only at tables of at most this many players (the
    #: table's size as dealt, ``rules.players``): it made level 10 stronger at
    #: two players and not at three or four (docs/bots.md).
    smooth_players: int = 6


#: Level 10's search (the level table, :mod:`kozyr.bots.levels`, uses this one;
#: it lives here so that :func:`evaluate_actions` needs no import of that table,
#: which imports this module).
LEVEL_10: Final = IsmctsConfig(
    iterations=30_000,
    endgame_nodes=25_000,
    time_cap=1.4,
    endgame_eval=True,
    opponent_shrink=10.0,
    smooth=0.1,
    smooth_players=2,
)

#: The search that judges (the analysis, hints and puzzles:
#: :func:`evaluate_actions`, :func:`refine_actions`): level 10's without the
#: shrink and Smooth UCT.  The shrink makes the level play better, but its
#: per-class means make an action's chance vary more between seeds, and a judge
#: must say the same under any seed: with it the analysis's labels agreed across
#: three seeds in 88.1 % of 877 decisions, without it in 91.0 % (the same 20
#: games; docs/analysis.md, "Stable", whose bar is 90 %).  Smooth UCT draws
#: below the root from the average strategy, which values the replies as a mix,
#: not as the best answer a judge gives; as a judge it agreed across seeds no
#: more often (88.7 % against 88.6 % of 913 decisions, docs/analysis.md).
JUDGE_SEARCH: Final = LEVEL_10._replace(opponent_shrink=0.0, smooth=0.0)


def _weights(view: View, config: IsmctsConfig) -> list[list[float]] | None:
    """The deals' weights from the opponents' play (None: uniform deals)."""
    return card_weights(view, config.evidence or LEVEL4_EVIDENCE) if config.inference else None


def style_tuple(style: Style) -> tuple[int, int, int, int, float, float]:
    """A heuristic style as the core reads it."""
    return (
        int(style.trump_aware),
        int(style.take_early),
        int(style.counting),
        int(style.pairs),
        style.random_take,
        style.attention,
    )


ROLLOUT_STYLE: Final = style_tuple(SOLID)


def _smoothing(config: IsmctsConfig, players: int) -> float:
    """Smooth UCT's ``smooth`` at a table of ``players`` (0 above ``smooth_players``).

    A ``smooth_players`` below 2 would switch it off at every table without
    saying so; ``smooth`` 0 is the switch, so such a value is refused."""
    if config.smooth_players < 2:
        raise ValueError(
            f"smooth_players must be at least 2 (a table's smallest size), not "
            f"{config.smooth_players}; smooth 0 switches Smooth UCT off"
        )
    return config.smooth if players <= config.smooth_players else 0.0


def budget(config: IsmctsConfig, players: int) -> int:
    """The iterations of one decision at a table of ``players``."""
    return max(1, config.iterations * 2 // max(2, players))


class RootSearch(NamedTuple):
    """What one search found at its root, per candidate (in the order searched)."""

    candidates: list[Action]
    #: The index of the action the search plays (most visited).
    best: int
    visits: list[int]
    #: Mean reward of each candidate for the searching seat (0 durak .. 1 not).
    values: list[float]
    #: The core's figures: iterations, nodes, rollout_steps, timed_out, and with
    #: ``debug`` a dict of where the iterations went (see ``core/search.c``).
    info: dict[str, Any]


def _search(
    view: View,
    rng: random.Random,
    slots: Slots,
    config: IsmctsConfig,
    cands: list[Action],
    debug: bool = False,
    iterations: int | None = None,
) -> RootSearch:
    """The core's tree search of ``view`` over ``cands`` (the random numbers from
    ``rng``); ``iterations`` overrides the level's budget for the table."""
    template = core.from_state(sample_state(view, rng, slots))
    weights = _weights(view, config)
    best, info = core._require().search(
        template,
        view.seat,
        view.unseen(),
        slots.hands,
        slots.deck,
        weights,
        [tuple(a) for a in cands],
        budget(config, view.rules.players) if iterations is None else iterations,
        rng.getrandbits(64),
        config.exploration,
        config.epsilon,
        ROLLOUT_CAP,
        config.time_cap,
        ROLLOUT_STYLE,
        debug,
        root_c=config.root_exploration,
        eval_weights=endgame_weights() if config.endgame_eval else None,
        opp_shrink=config.opponent_shrink,
        smooth=_smoothing(config, view.rules.players),
    )
    return RootSearch(cands, best, info["visits"], info["values"], info)


def search_root(
    view: View,
    seed: int,
    config: IsmctsConfig,
    cands: list[Action] | None = None,
    debug: bool = False,
) -> RootSearch:
    """The tree search of ``view`` as a level with ``config`` and ``seed`` runs it,
    without the endgame solver, over ``cands`` (default: the level's candidates).

    With the default candidates it draws the same random numbers as
    :func:`ismcts` (when the solver does not settle the decision), so it shows
    what that decision saw; ``debug`` adds the core's statistics of where the
    iterations went (``scripts/search_probe.py`` reads them).  Needs the core."""
    if len(view.legal) < 1:
        raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
    rng = random.Random(decision_seed(seed, view))
    slots = Slots(view)
    if slots.determined():
        sample_state(view, rng, slots)  # the solver's deal in ismcts(): same numbers after it
    return _search(
        view, rng, slots, config, cands if cands is not None else candidates(view), debug
    )


def with_hands_known(view: View, hands: Sequence[int]) -> View:
    """``view`` as if the opponents' hands were public: ``hands[s]`` for every
    other seat (a sampled deal's, for a search of one deal; the true ones, for
    a diagnostic); the seat's own entry stays as it was."""
    known = tuple(view.known[s] if s == view.seat else hands[s] for s in range(len(view.known)))
    return dataclasses.replace(view, known=known)


def ismcts(view: View, seed: int, config: IsmctsConfig) -> tuple[Action, SearchStats]:
    """The action to play in ``view`` and what finding it cost."""
    start = time.perf_counter()
    legal = view.legal
    if not legal:
        raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
    stats = SearchStats()
    if len(legal) == 1:
        return legal[0], stats
    if not core.AVAILABLE:
        steps = config.iterations * config.fallback_steps
        flat = SearchConfig(steps, config.endgame_nodes, config.time_cap, config.epsilon)
        return search(view, seed, flat)
    rng = random.Random(decision_seed(seed, view))
    slots = Slots(view)
    solved = solve_endgame(
        view, rng, slots, config.endgame_nodes, start + config.time_cap / 2, stats
    )
    if solved is not None:
        stats.seconds = time.perf_counter() - start
        return solved, stats
    root = _search(view, rng, slots, config, candidates(view))
    info = root.info
    stats.method = "ismcts"
    stats.candidates = len(root.candidates)
    stats.deals = info["iterations"]
    stats.rollouts = info["iterations"]
    stats.steps = info["rollout_steps"]
    stats.value = root.values[root.best]
    stats.timed_out = info["timed_out"]
    stats.seconds = time.perf_counter() - start
    return root.candidates[root.best], stats


class ActionValue(NamedTuple):
    """One legal action of a view as the search sees it (:func:`evaluate_actions`)."""

    action: Action
    #: The estimated chance that the acting seat (with its team) is not the
    #: durak after this action, a draw counting ½.
    chance: float
    #: Search iterations spent below this action; 0 when the chance is exact
    #: (an endgame solved to the end).
    visits: int


#: Solver positions per action before :func:`evaluate_actions` gives up on an
#: exact endgame and searches instead.
EXACT_NODES: Final = 2_000_000


def _judging(config: IsmctsConfig | None) -> IsmctsConfig:
    """The search a judgement runs (``config``, else :data:`JUDGE_SEARCH`),
    with no wall-clock cap: its result must not depend on the machine."""
    return (JUDGE_SEARCH if config is None else config)._replace(time_cap=float("inf"))


def evaluate_actions(
    view: View,
    budget: int,
    seed: int = 0,
    config: IsmctsConfig | None = None,
    workers: int = 1,
) -> list[ActionValue]:
    """A value for **every** legal action of ``view``, in ``view.legal``'s order:
    for analysis and hints (issue 27), where a deeper look should be a better one.

    ``budget`` is the number of search iterations (whatever the table size);
    ``config`` the search's other settings (default: :data:`JUDGE_SEARCH`).  The result
    depends only on the view, the budget, the seed and the config, never on the
    machine or the time it takes (no wall-clock cap applies).  Once nothing is
    hidden and two sides are left, every action is solved exactly instead
    (``visits`` 0), within :data:`EXACT_NODES` positions each; otherwise one
    tree search over all legal actions spreads ``budget`` over them, so an
    action the search finds poor gets few iterations and a rougher value.
    Needs the compiled core; only ``view`` is read (never hidden cards).

    ``workers`` > 1 splits the budget over that many independent searches run
    in parallel threads (root parallelization: the core releases the GIL), each
    seeded from ``seed`` and its index; visits add up and each chance is the
    visit-weighted mean.  The result is as deterministic as with one worker
    (though not equal to it), and the wall-clock time divides by the cores."""
    legal = list(view.legal)
    if not legal:
        raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
    if budget < len(legal):
        raise ValueError(f"a budget of {budget} cannot visit {len(legal)} actions")
    config = _judging(config)
    rng = random.Random(decision_seed(seed, view))
    slots = Slots(view)
    if slots.determined():
        exact = _exact_values(view, sample_state(view, rng, slots))
        if exact is not None:
            return [ActionValue(a, v, 0) for a, v in zip(legal, exact, strict=True)]
    if workers <= 1:
        root = _search(view, rng, slots, config, legal, iterations=budget)
        return [
            ActionValue(a, v, n) for a, v, n in zip(legal, root.values, root.visits, strict=True)
        ]
    if budget < workers * len(legal):
        raise ValueError(f"a budget of {budget} cannot give {workers} workers every action")
    shares = [budget // workers + (1 if i < budget % workers else 0) for i in range(workers)]
    base = decision_seed(seed, view)
    rngs = [random.Random(base ^ (i * 0x9E3779B97F4A7C15)) for i in range(workers)]

    def one(i: int) -> RootSearch:
        return _search(view, rngs[i], Slots(view), config, legal, iterations=shares[i])

    with ThreadPoolExecutor(max_workers=workers) as pool:
        roots = list(pool.map(one, range(workers)))
    out = []
    for k, action in enumerate(legal):
        visits = sum(r.visits[k] for r in roots)
        total = sum(r.values[k] * r.visits[k] for r in roots)
        out.append(ActionValue(action, total / visits if visits else 0.0, visits))
    return out


def refine_actions(
    view: View,
    actions: Sequence[Action],
    iterations: int,
    seed: int = 0,
    config: IsmctsConfig | None = None,
) -> list[float]:
    """Each of ``actions``' chance from a search of its own: the tree is rooted
    after that action alone, with ``iterations`` for it.

    Why: in :func:`evaluate_actions` the budget goes where the search sees the
    best play, so an action it finds poorer gets a small tree and a rough
    value (its spread between seeds is several times the best one's).  The
    analysis compares the played action with the best one; giving both the
    same deep look makes their difference steady (measured in
    docs/analysis.md, "Stable").  Deterministic in the view, actions,
    iterations, seed and config (default: :data:`JUDGE_SEARCH`)."""
    config = _judging(config)
    base = decision_seed(seed, view) ^ 0x5DEECE66D
    out = []
    for action in actions:
        if action not in view.legal:
            raise ValueError(f"{action} is not legal for seat {view.seat}")
        rng = random.Random(base + 0x9E3779B9 * (view.legal.index(action) + 1))
        root = _search(view, rng, Slots(view), config, [action], iterations=iterations)
        out.append(float(root.values[0]))
    return out


def _exact_values(view: View, state: GameState) -> list[float] | None:
    """Each legal action's exact value for ``view.seat`` in a determined
    two-sided ``state``, or None (not two-sided, a cheating table, a budget spent)."""
    if state.rules.cheating or not two_sided(state):
        return None
    solve = core._require().solve
    values = []
    for action in view.legal:
        child = state.copy()
        child.do(action)
        if child.game_over:
            values.append(outcome(child.result, view.seat, child.team))
            continue
        solved = solve(core.from_state(child), view.seat, EXACT_NODES)
        if solved is None:
            return None
        values.append(solved[0] / 2)
    return values


class IsmctsBot:
    """An ISMCTS bot (levels 5–10).  ``last`` describes its last decision."""

    def __init__(self, config: IsmctsConfig, seed: int, name: str) -> None:
        self.config = config
        self.seed = seed
        self.name = name
        self.last = SearchStats()

    def choose(self, view: View) -> Action:
        action, self.last = ismcts(view, self.seed, self.config)
        return action
