"""The frozen ISMCTS bots ``is5`` .. ``is10``: levels 5–10 as issue 12 shipped them.

Issue 29 changes the search behind levels 5–10.  To measure the new levels
against exactly what played before (as ``mc5`` .. ``mc10`` keep the flat
search of before issue 12, :mod:`kozyr.bots.flat_mc`), the arena knows
``is5`` .. ``is10``: the information-set search of issue 12 with the budgets
and every knob it had then, copied here so that later changes to the level
table or to :class:`IsmctsConfig`'s defaults leave them alone.

What keeps their moves the same is the core's search with these settings
(``core/search.c`` keeps issue 12's code path for them) and the Python around
it (candidates, inference, endgame solver); ``tests/bots/test_frozen.py``
pins ``is5``'s and ``is10``'s choices on seeded views.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .base import Bot
from .ismcts import IsmctsConfig
from .levels import LevelSpec, bot_for, scaled

MIN_FROZEN = 5
MAX_FROZEN = 10


def _issue12(iterations: int, endgame_nodes: int, time_cap: float) -> IsmctsConfig:
    """A level of issue 12, every field spelled out (defaults may change later)."""
    return IsmctsConfig(
        iterations=iterations,
        endgame_nodes=endgame_nodes,
        time_cap=time_cap,
        exploration=0.7,
        epsilon=0.05,
        inference=True,
        fallback_steps=4,
        root_exploration=0.0,
        endgame_eval=False,
        evidence=None,
        opponent_shrink=0.0,
        smooth=0.0,
        smooth_players=6,
    )


#: Levels 5–10 as issue 12 shipped them (read-only).
FROZEN_LEVELS: Final[Mapping[int, IsmctsConfig]] = MappingProxyType(
    {
        5: _issue12(250, 500, 0.5),
        6: _issue12(700, 1_500, 0.6),
        7: _issue12(2_000, 4_000, 0.8),
        8: _issue12(5_000, 8_000, 1.0),
        9: _issue12(12_000, 15_000, 1.2),
        10: _issue12(30_000, 25_000, 1.4),
    }
)


def frozen_spec(level: int, scale: int = 1) -> LevelSpec:
    """``is<level>`` as a level spec, its budget multiplied by ``scale``."""
    if type(level) is not int or level not in FROZEN_LEVELS:
        raise ValueError(
            f"the frozen ISMCTS bots are is{MIN_FROZEN}..is{MAX_FROZEN}, not is{level!r}"
        )
    return scaled(LevelSpec(level, search=FROZEN_LEVELS[level]), scale)


def frozen_bot(level: int, seed: int, name: str | None = None, scale: int = 1) -> Bot:
    """``is<level>`` (5..10) with ``seed`` (budget × ``scale``), catching and
    cheating like level ``level`` at a cheating table; named ``is<level>``
    unless ``name`` is given."""
    return bot_for(frozen_spec(level, scale), seed, name or f"is{level}")
