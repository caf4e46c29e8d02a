"""Shared by the core's tests: random tables over every rule option, and the
lock-step comparison of the compiled core with the reference engine."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from kozyr import core
from kozyr.bots.ismcts import IsmctsConfig, RootSearch, search_root
from kozyr.engine.actions import Action
from kozyr.engine.rules import Rules, RulesError
from kozyr.engine.state import GameState
from kozyr.engine.view import View

needs_core = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")


def random_rules(rng: random.Random, players: int | None = None) -> Rules:
    """A valid table drawn over every option :meth:`Rules.options` lists (so an
    option added later is swept without touching this file)."""
    options = Rules.options()
    while True:
        chosen = {name: rng.choice(values) for name, values in options.items()}
        if players is not None:
            chosen["players"] = players
        try:
            return Rules.from_dict(chosen)
        except RulesError:
            continue


def assert_same(ref: GameState, mine: Any, context: str) -> None:
    expected = core.fields_of(ref)
    got = mine.snapshot()
    if got != expected:
        names = [
            "hands", "known", "stock", "trump", "trump_holder", "discard", "att", "dfn",
            "uncovered", "table_ranks", "phase", "to_move", "attacker", "defender",
            "starter", "limit", "taking", "passed", "shown", "order", "active", "out",
            "result", "rounds", "bitos", "last_play", "history_len", "seen",
            "marked", "cleared", "pending", "plays", "cheats",
        ]  # fmt: skip
        diff = [
            f"{n}: core {g!r} != reference {e!r}"
            for n, g, e in zip(names, got, expected, strict=True)
            if g != e
        ]
        raise AssertionError(f"{context}: " + "; ".join(diff))


Chooser = Callable[[GameState, list[Action]], Action]


def lockstep(
    state: GameState,
    rng: random.Random,
    every_successor: bool = True,
    choose: Chooser | None = None,
    limit: int = 100_000,
) -> int:
    """Play ``state`` to the end with random actions, the core beside it.

    At every position: the legal lists are equal (same actions, same order),
    and (with ``every_successor``) every legal action leads both engines to the
    same state.  Returns the number of positions compared.
    """
    mine = core.from_state(state)
    assert_same(state, mine, "conversion")
    positions = 0
    cheating = state.rules.cheating
    while not state.game_over and positions < limit:
        legal = state.legal_actions()
        got = mine.legal()
        assert got == [tuple(a) for a in legal], f"legal sets differ at action {state.history_len}"
        if cheating:  # accusations (and last-call passes) out of turn, every seat
            for seat in range(state.n):
                if seat != state.to_move:
                    others = [tuple(a) for a in state.legal_actions_for(seat)]
                    assert mine.legal_for(seat) == others, f"seat {seat}'s actions differ"
                    legal = legal + state.legal_actions_for(seat)
        if every_successor:
            for a in legal:
                ref_child = state.copy()
                ref_child.do(a)
                child = mine.copy()
                child.apply(tuple(a))
                assert_same(ref_child, child, f"after {a} at action {state.history_len}")
        positions += 1
        a = choose(state, legal) if choose else legal[rng.randrange(len(legal))]
        state.do(a)
        mine.apply(tuple(a))
    assert_same(state, mine, "last position")
    return positions


def raw_search(view: View, **extra: Any) -> dict[str, Any]:
    """The core's search of ``view`` (2,000 iterations, level-4 playouts, no
    inference) with ``extra`` knobs; its figures."""
    from kozyr.bots.sampler import Slots, sample_state

    slots = Slots(view)
    _best, info = core._require().search(
        core.from_state(sample_state(view, random.Random(1), slots)),
        view.seat,
        view.unseen(),
        slots.hands,
        slots.deck,
        None,
        [tuple(a) for a in view.legal],
        2_000,
        7,
        0.7,
        0.05,
        3000,
        60.0,
        (1, 1, 1, 1, 0.0, 0.6),
        **extra,
    )
    return dict(info)


#: A search of issue 29's size for the tests of the tree's shape.
TREE_CONFIG = IsmctsConfig(iterations=6_000, endgame_nodes=100, time_cap=60.0, endgame_eval=True)

#: The tree's nodes by whose move they hold: the opponents' and the searching seat's.
WHO = ("opponent_nodes", "own_nodes")


def tree_searches(config: IsmctsConfig) -> list[RootSearch]:
    """The debug searches of the few mid-game decisions the tree's shape is
    measured over (:func:`tree_children` reads them)."""
    from ..bots.helpers import choice_views

    views = choice_views(Rules(players=2), 4, seed=11, base_steps=10)
    return [search_root(view, 1, config, debug=True) for view in views]


def tree_children(
    config: IsmctsConfig | list[RootSearch], measure: str = "children"
) -> tuple[dict[str, float], float]:
    """Children (or the effective number, ``measure="effective"``) per expanded
    node of the opponents and of the searching seat (keys of ``WHO``), over the
    decisions of :func:`tree_searches` (run with ``config``, or given), and the
    mean depth of the walks summed over those decisions."""
    searches = tree_searches(config) if isinstance(config, IsmctsConfig) else config
    nodes = dict.fromkeys(WHO, 0.0)
    children = dict.fromkeys(WHO, 0.0)
    depth = 0.0
    for search in searches:
        info = search.info
        for who in WHO:
            found = info["debug"][who]
            nodes[who] += found["count"]
            children[who] += found[measure]
        hist = info["debug"]["depths"]
        depth += sum(d * k for d, k in enumerate(hist)) / max(1, sum(hist))
    return {who: children[who] / max(1.0, nodes[who]) for who in WHO}, depth


def search_twice(view: View, config: IsmctsConfig, seed: int = 7) -> RootSearch:
    """The search of ``view`` with ``config`` and one seed, run twice: it must
    choose the same and spread the same visits (the knobs draw their chances
    from the search's own seeded numbers)."""
    first, second = search_root(view, seed, config), search_root(view, seed, config)
    assert (first.best, first.visits) == (second.best, second.visits)
    return first
