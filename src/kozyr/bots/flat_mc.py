"""The frozen flat Monte Carlo bots ``mc5`` .. ``mc10``: levels 5–10 before issue 12.

Until issue 12, levels 5–10 were the determinized Monte Carlo search of
:mod:`kozyr.bots.search` (sequential halving over sampled deals, level-4
rollouts, exact endgame solver) with the budgets below.  Issue 12 replaces
the search behind those levels; these bots keep the old ones playable in
``kozyr arena`` (specs ``mc5`` .. ``mc10``) so that the gain can be measured
against exactly what shipped.

The budgets are copied here, not read from :data:`kozyr.bots.levels.LEVELS`,
so that later changes to the level table leave ``mcN`` as it is.  What keeps
their moves the same is :mod:`kozyr.bots.search` and the modules it plays
with (heuristics, rollout, sampler, endgame, public): a change of behaviour
there changes ``mcN`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .search import SearchBot, SearchConfig

MIN_MC = 5
MAX_MC = 10

#: The search budgets of levels 5–10 as they were before issue 12 (read-only).
FLAT_MC_LEVELS: Final[Mapping[int, SearchConfig]] = MappingProxyType(
    {
        5: SearchConfig(steps=1_000, endgame_nodes=500, time_cap=0.5, epsilon=0.05),
        6: SearchConfig(steps=2_500, endgame_nodes=1_500, time_cap=0.6, epsilon=0.05),
        7: SearchConfig(steps=6_000, endgame_nodes=4_000, time_cap=0.8, epsilon=0.05),
        8: SearchConfig(steps=14_000, endgame_nodes=8_000, time_cap=1.2, epsilon=0.05),
        9: SearchConfig(steps=30_000, endgame_nodes=15_000, time_cap=2.0, epsilon=0.05),
        10: SearchConfig(steps=60_000, endgame_nodes=25_000, time_cap=3.0, epsilon=0.05),
    }
)


def flat_mc_bot(level: int, seed: int, name: str | None = None) -> SearchBot:
    """``mc<level>`` (5..10): the flat Monte Carlo search level ``level`` played
    before issue 12, with ``seed``; named ``mc<level>`` unless ``name`` is given."""
    if type(level) is not int or level not in FLAT_MC_LEVELS:
        raise ValueError(f"the flat Monte Carlo bots are mc{MIN_MC}..mc{MAX_MC}, not mc{level!r}")
    return SearchBot(FLAT_MC_LEVELS[level], seed, name or f"mc{level}")
