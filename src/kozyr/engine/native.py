"""Whether the engine runs compiled (mypyc) and whether that build is current.

``scripts/build_native.py`` compiles the engine (and the bots' search, see
``kozyr/bots/native.py``) in place.  A compiled module older than its source
would silently run old code, so importing the package warns when that happens.

An installed wheel is judged differently: an install does not keep meaningful
modification times (which file is newer depends on the order pip wrote them),
so the wheel carries ``kozyr/_native_build.json``, the SHA-256 of every source
it compiled (hatch_build.py writes it), and a source is stale when its content
differs from that.  In a checkout (no such file) the times are compared.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from . import state

MODULES = ("cards", "actions", "rules", "deal", "state", "view")
COMPILED: bool = not state.__file__.endswith(".py")
#: Beside the package's top (``kozyr/``) in an installed wheel only.
MANIFEST = "_native_build.json"


def built_from(package: Path) -> dict[str, str] | None:
    """The sources a wheel's compiled modules were built from (path under
    ``kozyr/`` -> SHA-256), or None outside an installed wheel."""
    path = package / MANIFEST
    if not path.exists():
        return None
    sources = json.loads(path.read_text(encoding="utf-8"))["sources"]
    return {str(k): str(v) for k, v in sources.items()}


def changed_since_build(package: Path, names: Sequence[str]) -> list[str]:
    """Of the source files ``names`` (paths under ``package``, the ``kozyr``
    directory of a wheel), those whose content is not what was compiled."""
    sources = built_from(package)
    assert sources is not None
    out = []
    for name in names:
        path = package / name
        if (
            name in sources
            and path.exists()
            and hashlib.sha256(path.read_bytes()).hexdigest() != sources[name]
        ):
            out.append(name)
    return out


def stale_modules(here: Path | None = None, modules: Sequence[str] = MODULES) -> list[str]:
    """Compiled ``modules`` of the package directory ``here`` (default: the
    engine's) whose Python source is newer than the compiled file (in a wheel:
    whose source differs from the one compiled)."""
    here = here if here is not None else Path(__file__).parent
    if built_from(here.parent) is not None:
        changed = changed_since_build(here.parent, [f"{here.name}/{m}.py" for m in modules])
        return [Path(c).stem for c in changed]
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
