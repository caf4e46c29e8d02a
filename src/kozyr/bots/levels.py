"""The ten levels: what each one is, in one table.

=====  ===========================================================  ============
level  player                                                       budget
=====  ===========================================================  ============
1      heuristic, trump-blind, takes at random, 30 % random moves   —
2      heuristic, knows trumps, no take-early, 15 % random moves    —
3      heuristic, no card counting, 5 % random moves                —
4      the full heuristic (take early, count cards, press)          —
5–10   ISMCTS in the compiled core, inference, exact endgame,       250–30,000
       learned endgame evaluation in the playouts
=====  ===========================================================  ============

Levels 5–10 search with information-set MCTS (:mod:`kozyr.bots.ismcts`);
budgets are tree iterations and solver positions (reproducible from the
seed), for two players (n players get 2/n of them); ``time_cap`` is the
wall-clock safety net.  On one core of the reference machine level 10 takes
about 0.1–0.3 s per real decision and level 5 about a millisecond;
``kozyr bench bots`` measures them (docs/bots.md).

Why the budgets grow about 2.5× a level: each step should be a real but
modest gain for the auto level.  Measured on 1,000 duplicate deals (two
players, podkidnoy), 5 over 4, 6 over 5 and 7 over 6 are clear gains; 8 over
7 is small (docs/bots.md, Strength).  The flat search of before issue 12
keeps its budgets in :mod:`kozyr.bots.flat_mc` (the arena's mc5..mc10).

Issue 29: every search level's playouts stop at the first round that starts
with an empty stock and two players, scored by the learned evaluation
(``endgame_eval``) instead of the noisy policy: same budgets, same time, and
at level 7's and level 10's budgets it beats the issue-12 search it replaces
(docs/bots.md, Issue 29).  Issue 12's levels stay frozen as the arena's
is5..is10 (:mod:`kozyr.bots.frozen`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import Bot
from .cheating import PROFILES, CheatingTableBot
from .heuristic_bot import HeuristicBot
from .heuristics import SOLID, Style
from .ismcts import LEVEL_10, IsmctsBot, IsmctsConfig
from .search import SearchBot, SearchConfig

MIN_LEVEL = 1
MAX_LEVEL = 10


@dataclass(frozen=True)
class LevelSpec:
    """One level: a heuristic player (``search`` is None) or a search budget."""

    level: int
    style: Style = SOLID
    #: Chance of a uniformly random legal move (heuristic levels).
    mistake: float = 0.0
    #: The search: information-set MCTS (levels 5-10), or the flat Monte Carlo
    #: of before issue 12 (kept for the arena's mc5..mc10 and for tests).
    search: IsmctsConfig | SearchConfig | None = None


LEVELS: dict[int, LevelSpec] = {
    1: LevelSpec(
        1,
        Style(trump_aware=False, take_early=False, counting=False, pairs=False, random_take=0.25),
        mistake=0.30,
    ),
    2: LevelSpec(
        2, Style(take_early=False, counting=False, pairs=False, random_take=0.10), mistake=0.15
    ),
    3: LevelSpec(3, Style(counting=False), mistake=0.05),
    4: LevelSpec(4),
    5: LevelSpec(
        5, search=IsmctsConfig(iterations=250, endgame_nodes=500, time_cap=0.5, endgame_eval=True)
    ),
    6: LevelSpec(
        6, search=IsmctsConfig(iterations=700, endgame_nodes=1_500, time_cap=0.6, endgame_eval=True)
    ),
    7: LevelSpec(
        7,
        search=IsmctsConfig(iterations=2_000, endgame_nodes=4_000, time_cap=0.8, endgame_eval=True),
    ),
    8: LevelSpec(
        8,
        search=IsmctsConfig(iterations=5_000, endgame_nodes=8_000, time_cap=1.0, endgame_eval=True),
    ),
    9: LevelSpec(
        9,
        search=IsmctsConfig(
            iterations=12_000, endgame_nodes=15_000, time_cap=1.2, endgame_eval=True
        ),
    ),
    10: LevelSpec(10, search=LEVEL_10),
}


def bot_for(spec: LevelSpec, seed: int, name: str | None = None) -> Bot:
    """The bot that plays ``spec`` (tests use reduced specs through this)."""
    label = name or f"level {spec.level}"
    inner: Bot
    if spec.search is None:
        inner = HeuristicBot(spec.style, spec.mistake, seed, label)
    elif isinstance(spec.search, IsmctsConfig):
        inner = IsmctsBot(spec.search, seed, label)
    else:
        inner = SearchBot(spec.search, seed, label)
    # At a cheating table (rule 13) the level catches and cheats as
    # kozyr.bots.cheating says; elsewhere the wrapper only passes the view on.
    return CheatingTableBot(inner, PROFILES[spec.level], seed, searches=spec.search is not None)


def reduced(spec: LevelSpec, divisor: int, floor: int = 50) -> LevelSpec:
    """``spec`` with its search budget (iterations or steps, solver nodes)
    divided by ``divisor``, at least ``floor`` each: cheaper bots for tests."""
    cfg = spec.search
    if cfg is None:
        return spec
    nodes = max(floor, cfg.endgame_nodes // divisor)
    if isinstance(cfg, IsmctsConfig):
        small: IsmctsConfig | SearchConfig = cfg._replace(
            iterations=max(floor, cfg.iterations // divisor), endgame_nodes=nodes
        )
    else:
        small = cfg._replace(steps=max(floor, cfg.steps // divisor), endgame_nodes=nodes)
    return replace(spec, search=small)


def scaled(spec: LevelSpec, factor: int) -> LevelSpec:
    """``spec`` with its search budget (iterations or steps, solver nodes) and
    its time cap multiplied by ``factor``: the same search thinking longer, for
    measuring how strength grows with the budget (the arena's ``10x3``)."""
    cfg = spec.search
    if type(factor) is not int or factor < 1:
        raise ValueError(f"a budget multiple is a whole number >= 1, not {factor!r}")
    if cfg is None or factor == 1:
        return spec
    nodes = cfg.endgame_nodes * factor
    cap = cfg.time_cap * factor
    if isinstance(cfg, IsmctsConfig):
        big: IsmctsConfig | SearchConfig = cfg._replace(
            iterations=cfg.iterations * factor, endgame_nodes=nodes, time_cap=cap
        )
    else:
        big = cfg._replace(steps=cfg.steps * factor, endgame_nodes=nodes, time_cap=cap)
    return replace(spec, search=big)


def lift_time_cap(bot: Bot, seconds: float) -> Bot:
    """``bot`` (a level, ``mcN`` or ``isN``) with its wall-clock cap raised to at
    least ``seconds``, in place; other bots are returned as they are.

    The cap is a safety net for an overloaded server.  The arena raises it so
    that a measurement run at low priority on a busy machine plays exactly the
    moves its seeds say (budgets count iterations, not seconds)."""
    inner = getattr(bot, "inner", bot)
    if isinstance(inner, IsmctsBot | SearchBot) and inner.config.time_cap < seconds:
        inner.config = inner.config._replace(time_cap=seconds)
    return bot


def level_bot(level: int, seed: int) -> Bot:
    """The bot of ``level`` (1..10) with ``seed``."""
    if type(level) is not int or not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"level must be an integer {MIN_LEVEL}..{MAX_LEVEL}, not {level!r}")
    return bot_for(LEVELS[level], seed)
