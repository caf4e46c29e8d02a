"""Whether the bots' search hot path runs compiled (mypyc) and is current.

``scripts/build_native.py`` compiles these modules together with the engine;
compiled, the same searches make the same moves about twice as fast (budgets
count steps, not seconds).  Like the engine, a stale build warns on import.
"""

from __future__ import annotations

from pathlib import Path

from kozyr.engine.native import stale_modules, warn_if_stale

from . import search

MODULES = ("heuristics", "public", "rollout", "sampler", "endgame", "search")
COMPILED: bool = not search.__file__.endswith(".py")

if COMPILED:
    warn_if_stale(stale_modules(Path(__file__).parent, MODULES))
