"""Computer opponents.  Bots see only views (kozyr.engine.view), never the state.

The API (used by ``kozyr arena``, ``kozyr play`` and the server)::

    from kozyr.bots import make_bot, AutoLevel, PlayerRecord

    bot = make_bot(7, seed=42)          # levels 1..10
    action = bot.choose(view)           # view = view_of(state, seat), view.my_turn
    bot.name                            # "level 7"

    make_bot("auto", seed, record=rec)  # the level AutoLevel(rec) would play
    auto = AutoLevel(PlayerRecord.load("anna"))
    bot = auto.bot(seed); ...; auto.record_game("win"); auto.record.save()

* ``make_bot(level, seed=None, *, record=None) -> Bot``: ``level`` is an int
  1..10 or ``"auto"``.  With ``seed=None`` a random seed is drawn.  A bot is
  deterministic: the same seed and view always give the same action, whatever
  it was asked before (each decision seeds itself from the seed and the view).
* ``Bot.choose(view) -> Action`` returns one of ``view.legal``; a forced move
  (one legal action) returns at once.  ``Bot.name`` is a short label.
* Levels 1–4 are heuristic players (1 is a beginner; 4 a solid club player);
  5–10 search with information-set MCTS in the compiled core (deals weighted
  by the opponents' public play, heuristic playouts) and solve endgames exactly.
  ``IsmctsBot.last`` (levels 5–10) holds a :class:`SearchStats` of the last
  decision.  :mod:`kozyr.bots.levels` documents each level, :mod:`kozyr.bots.auto`
  the adaptive level and the players file.

Modules: heuristics (rules of thumb on bit masks), heuristic_bot (levels 1–4),
sampler (deals consistent with a view), rollout (heuristic playouts on a state),
endgame (exact solver), ismcts (levels 5–10: information-set MCTS in the
compiled core), inference (what the opponents' play says about their hands),
search (the flat Monte Carlo of before; the fallback without the core),
levels (the level table),
flat_mc (mc5..mc10 for the arena: levels 5–10 frozen as before issue 12),
auto (adaptive level and records), public (seeding and public knowledge),
native (is the search compiled with mypyc?).
"""

from __future__ import annotations

from typing import Literal

from .auto import AutoLevel, LevelStats, Outcome, PlayerRecord, players_path, random_seed
from .base import Bot, RandomBot
from .ismcts import IsmctsBot, IsmctsConfig
from .levels import LEVELS, MAX_LEVEL, MIN_LEVEL, LevelSpec, level_bot
from .native import COMPILED as SEARCH_COMPILED
from .search import SearchBot, SearchStats


def make_bot(
    level: int | Literal["auto"],
    seed: int | None = None,
    *,
    record: PlayerRecord | None = None,
) -> Bot:
    """A bot of ``level`` (1..10), or of the auto level for ``record`` (a new
    player's starting level when ``record`` is None)."""
    if seed is None:
        seed = random_seed()
    if level == "auto":
        return AutoLevel(record if record is not None else PlayerRecord("player")).bot(seed)
    if record is not None:
        raise ValueError("record is only used with level='auto'")
    return level_bot(level, seed)


__all__ = [
    "LEVELS",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "SEARCH_COMPILED",
    "AutoLevel",
    "Bot",
    "IsmctsBot",
    "IsmctsConfig",
    "LevelSpec",
    "LevelStats",
    "Outcome",
    "PlayerRecord",
    "RandomBot",
    "SearchBot",
    "SearchStats",
    "make_bot",
    "players_path",
]
