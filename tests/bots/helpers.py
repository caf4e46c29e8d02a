"""Shared helpers for the bot tests: rule sets, positions and reduced levels.

Search levels (5–10) are played here with their budgets divided by
``REDUCE`` so that whole games fit in the test time; the code paths (sampling,
rollouts, endgame solver, time cap) are the same as at full budget.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from kozyr.bots.base import Bot
from kozyr.bots.cheating import CheatingTableBot
from kozyr.bots.ismcts import IsmctsBot
from kozyr.bots.levels import LEVELS, bot_for, reduced
from kozyr.bots.search import SearchBot
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of

#: The repository's root (``scripts/`` lives there, outside the package).
ROOT = Path(__file__).resolve().parents[2]

#: Budget divisor for search levels in tests.
REDUCE = 40

RULE_SETS: list[Rules] = [
    Rules(players=2),
    Rules(players=2, deck=24),
    Rules(players=2, deck=52, variant="perevodnoy"),
    Rules(players=3, deck=24, lead_multiple=False, first_round_cap="first_round"),
    Rules(players=4, teams="2v2"),
    Rules(players=4, variant="perevodnoy", transfer_show_trump=True),
    Rules(players=4, deck=24, variant="perevodnoy", throw_in="neighbours"),
    Rules(players=5, deck=52, first_round_cap="until_first_bito"),
    Rules(players=6, deck=52),
    Rules(players=6, teams="3v3", variant="perevodnoy", transfer_show_trump=True),
    Rules(players=6, teams="2v2v2", deck=36),
    Rules(players=3, deck=24, variant="perevodnoy", throw_in_after_take=False),
]


def searcher_of(bot: Bot) -> IsmctsBot | SearchBot:
    """The search inside a level, ``mcN`` or ``isN`` bot (which catches and cheats around it)."""
    assert isinstance(bot, CheatingTableBot)
    assert isinstance(bot.inner, IsmctsBot | SearchBot)
    return bot.inner


def reduced_bot(level: int, seed: int) -> Bot:
    """The bot of ``level``; search levels with their budget divided by REDUCE."""
    return bot_for(reduced(LEVELS[level], REDUCE, floor=200), seed)


def random_position(rules: Rules, seed: int, steps: int) -> GameState:
    """The state after up to ``steps`` random actions from the deal of ``seed``
    (stops one action before the end, so the game is never over)."""
    state = GameState.from_seed(rules, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        before = state.copy()
        state.do(state.sample_action(rng.random()))
        if state.game_over:
            return before
    return state


def choice_views(rules: Rules, count: int, seed: int = 0, base_steps: int = 8) -> list[View]:
    """Views of the seat to move in mid-game positions with a real choice
    (``base_steps`` plus a few dozen random actions into seeded games)."""
    out: list[View] = []
    while len(out) < count:
        state = random_position(rules, seed, base_steps + seed * 7 % 40)
        seed += 1
        seat = state.to_move
        assert seat is not None
        view = view_of(state, seat)
        if len(view.legal) > 1:
            out.append(view)
    return out


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
