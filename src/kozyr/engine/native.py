"""Whether the engine runs compiled (mypyc) and whether that build is current.

``scripts/build_native.py`` compiles the engine in place.  A compiled module
older than its source would silently run old rules, so importing the engine
warns when that happens.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from . import state

MODULES = ("cards", "actions", "rules", "deal", "state", "view")
COMPILED: bool = not state.__file__.endswith(".py")


def stale_modules() -> list[str]:
    """Compiled modules whose Python source is newer than the compiled file."""
    here = Path(__file__).parent
    out = []
    for name in MODULES:
        source = here / f"{name}.py"
        for built in here.glob(f"{name}.*.so"):
            if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
                out.append(name)
    return out


if COMPILED and (_stale := stale_modules()):
    warnings.warn(
        f"compiled engine modules are older than their source ({', '.join(_stale)}): "
        "run ./setup (or python scripts/build_native.py) to rebuild",
        RuntimeWarning,
        stacklevel=2,
    )
