"""Compile the rules engine's hot modules to C with mypyc, in place.

The engine is plain, fully typed Python and runs as such; compiled, the same
source plays random games about three times faster, which is what the bots'
search needs.  ``./setup`` and ``./test`` run this script; it rebuilds only
when a source is newer than its compiled module.  ``--clean`` removes the
compiled modules (the pure-Python engine is then used).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
ENGINE = SRC / "kozyr" / "engine"
#: The modules that are compiled (kozyr/engine/native.py lists them for the
#: import-time freshness check too).
MODULES = ["cards", "actions", "rules", "deal", "state", "view"]
GROUP = "kozyr.engine._native"


def compiled(name: str) -> list[Path]:
    return sorted(ENGINE.glob(f"{name}.*.so")) + sorted(ENGINE.glob(f"{name}.*.pyd"))


def stale() -> bool:
    for name in MODULES:
        built = compiled(name)
        if not built:
            return True
        if (ENGINE / f"{name}.py").stat().st_mtime > min(p.stat().st_mtime for p in built):
            return True
    return False


def clean() -> None:
    for name in [*MODULES, "_native__mypyc"]:
        for p in compiled(name):
            p.unlink()


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import Distribution

    os.chdir(SRC)
    paths = [f"kozyr/engine/{name}.py" for name in MODULES]
    ext_modules = mypycify(
        paths, opt_level="3", group_name=GROUP, target_dir=str(ROOT / "build" / "mypyc")
    )
    dist = Distribution({"name": "kozyr-engine-native", "ext_modules": ext_modules})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = True  # type: ignore[attr-defined]
    cmd.build_temp = str(ROOT / "build" / "mypyc-temp")  # type: ignore[attr-defined]
    cmd.build_lib = str(ROOT / "build" / "mypyc-lib")  # type: ignore[attr-defined]
    cmd.force = True  # type: ignore[attr-defined]
    dist.run_command("build_ext")
    for name in MODULES:  # a copied build keeps its old mtime: mark it fresh
        for p in compiled(name):
            os.utime(p)


def main() -> int:
    if "--clean" in sys.argv:
        clean()
        print("build-native: removed compiled engine modules")
        return 0
    if not stale() and "--force" not in sys.argv:
        print("build-native: compiled engine is up to date")
        return 0
    print("build-native: compiling the engine with mypyc (about half a minute)")
    build()
    print("build-native: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
