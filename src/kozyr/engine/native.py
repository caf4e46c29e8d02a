"""Whether the engine runs compiled (mypyc) and whether that build is current.

``scripts/build_native.py`` compiles the engine (and the bots' search, see
``kozyr/bots/native.py``) in place.  A compiled module older than its source
would silently run old code, so importing the package warns when that happens.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

from . import state

MODULES = ("cards", "actions", "rules", "deal", "state", "view")
COMPILED: bool = not state.__file__.endswith(".py")


def stale_modules(here: Path | None = None, modules: Sequence[str] = MODULES) -> list[str]:
    """Compiled ``modules`` of the package directory ``here`` (default: the
    engine's) whose Python source is newer than the compiled file."""
    here = here if here is not None else Path(__file__).parent
    out = []
    for name in modules:
        source = here / f"{name}.py"
        for built in here.glob(f"{name}.*.so"):
            if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
                out.append(name)
    return out


def warn_if_stale(stale: Sequence[str]) -> None:
    """The warning that a test run turns into an error (pytest: warnings are errors)."""
    if stale:
        warnings.warn(
            f"compiled modules are older than their source ({', '.join(stale)}): "
            "run ./setup (or python scripts/build_native.py) to rebuild",
            RuntimeWarning,
            stacklevel=3,
        )


if COMPILED:
    warn_if_stale(stale_modules())
