"""Compile the rules engine and the bots' search hot path to C with mypyc, in place.

The engine and the bots are plain, fully typed Python and run as such;
compiled, the engine plays random games about three times faster and the
search (rollouts, sampling, endgame solver) about twice as fast, with
exactly the same moves — the budgets count steps, not seconds.  ``./setup``
and ``./test`` run this script; it rebuilds only when a source is newer than
its compiled module.  ``--clean`` removes the compiled modules (pure Python is
then used); ``--force`` rebuilds anyway.

It also builds the compiled core (``src/kozyr/core/*.c``, a plain CPython C
extension: the rules, rollout policy and search the bots use), again only
when a C source is newer than the built module.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def listed_modules(package: str) -> list[str]:
    """The ``MODULES`` tuple of kozyr/<package>/native.py (the list its
    import-time freshness check uses), read as text: this script cannot import
    the package it is about to rebuild."""
    path = SRC / "kozyr" / package / "native.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "MODULES"
        ):
            return list(ast.literal_eval(node.value))
    raise SystemExit(f"build-native: no MODULES = (...) in {path}")


#: The compiled modules, per package.
PACKAGES = {package: listed_modules(package) for package in ("engine", "bots")}
#: One group: calls and attribute reads between the modules stay native.
GROUP = "kozyr._native"


def sources() -> list[Path]:
    return [SRC / "kozyr" / pkg / f"{name}.py" for pkg, names in PACKAGES.items() for name in names]


def compiled(source: Path) -> list[Path]:
    here, stem = source.parent, source.stem
    return sorted(here.glob(f"{stem}.*.so")) + sorted(here.glob(f"{stem}.*.pyd"))


def shared_libraries() -> list[Path]:
    root = SRC / "kozyr"
    return [p for d in (root, root / "engine") for p in d.glob("_native__mypyc.*") if p.is_file()]


def stale() -> bool:
    for source in sources():
        built = compiled(source)
        if not built or source.stat().st_mtime > min(p.stat().st_mtime for p in built):
            return True
    return False


def clean() -> None:
    for source in sources():
        for p in compiled(source):
            p.unlink()
    for p in shared_libraries():
        p.unlink()


def build_in_place(name: str, ext_modules: list[Any], work: str, into: Path | None = None) -> None:
    """setuptools' build_ext, intermediate files under build/<work>-*: in place
    (next to the sources), or with ``into`` under that directory (a wheel's)."""
    from setuptools import Distribution

    dist = Distribution({"name": name, "ext_modules": ext_modules})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = into is None
    cmd.build_temp = str(ROOT / "build" / f"{work}-temp")
    cmd.build_lib = str(into or ROOT / "build" / f"{work}-lib")
    cmd.force = True
    dist.run_command("build_ext")


def build(into: Path | None = None) -> None:
    """Compile with mypyc: in place, or with ``into`` into that directory (as
    ``kozyr/...``, for a wheel; the in-place build is left alone)."""
    from mypyc.build import mypycify

    if into is None:
        clean()  # an older layout (another group name) must not shadow the new build
    os.chdir(SRC)
    paths = [str(p.relative_to(SRC)) for p in sources()]
    ext_modules = mypycify(
        paths, opt_level="3", group_name=GROUP, target_dir=str(ROOT / "build" / "mypyc")
    )
    build_in_place("kozyr-native", ext_modules, "mypyc", into)
    if into is not None:
        return
    for source in sources():  # a copied build keeps its old mtime: mark it fresh
        for p in compiled(source):
            os.utime(p)


CORE = SRC / "kozyr" / "core"


def core_sources() -> list[Path]:
    return sorted(CORE.glob("*.c")) + sorted(CORE.glob("*.h"))


def core_built() -> list[Path]:
    return sorted(CORE.glob("_core.*.so")) + sorted(CORE.glob("_core.*.pyd"))


def core_stale() -> bool:
    built = core_built()
    if not built:
        return True
    newest = max(p.stat().st_mtime for p in core_sources())
    return newest > min(p.stat().st_mtime for p in built)


def core_flags() -> list[str]:
    """-O3, and on x86-64 the v2 level (POPCNT: card counts are popcounts);
    every x86-64 CPU since about 2009 has it."""
    import platform

    flags = ["-O3", "-std=c11", "-Wall", "-Wno-unused-function"]
    if platform.machine() in ("x86_64", "AMD64"):
        flags.append("-march=x86-64-v2")
    return flags


def build_core(into: Path | None = None) -> None:
    """Compile the C core: in place, or with ``into`` into that directory."""
    from setuptools import Extension

    if into is None:
        for p in core_built():
            p.unlink()
    os.chdir(SRC)
    ext = Extension(
        "kozyr.core._core",
        sources=[str(p.relative_to(SRC)) for p in sorted(CORE.glob("*.c"))],
        extra_compile_args=core_flags(),
    )
    build_in_place("kozyr-core", [ext], "core", into)
    if into is not None:
        return
    for p in core_built():
        os.utime(p)


#: The file an installed wheel carries next to its compiled modules: the
#: SHA-256 of every source compiled into it (kozyr/engine/native.py reads it).
MANIFEST = "_native_build.json"


def manifest() -> dict[str, Any]:
    """What the compiled modules were built from, by path under ``kozyr/``."""
    import hashlib

    files = sources() + core_sources()
    return {
        "sources": {
            str(p.relative_to(SRC / "kozyr")): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files
        }
    }


def build_for_wheel(into: Path) -> list[Path]:
    """Compile the engine, the bots' search and the core into ``into`` (which
    then holds ``kozyr/...``) with the manifest; the built files, for a wheel's
    build hook (hatch_build.py).  The in-place build is not touched."""
    import json

    here = Path.cwd()
    try:
        build(into)
        build_core(into)
    finally:
        os.chdir(here)
    (into / "kozyr" / MANIFEST).write_text(json.dumps(manifest(), indent=1), encoding="utf-8")
    return sorted(p for p in (into / "kozyr").rglob("*") if p.is_file())


def main() -> int:
    if "--clean" in sys.argv:
        clean()
        for p in core_built():
            p.unlink()
        print("build-native: removed the compiled modules")
        return 0
    force = "--force" in sys.argv
    if stale() or force:
        print("build-native: compiling the engine and the bots' search with mypyc (about a minute)")
        build()
    else:
        print("build-native: mypyc modules are up to date")
    if core_stale() or force:
        print("build-native: compiling the core (src/kozyr/core/*.c)")
        build_core()
    else:
        print("build-native: the core is up to date")
    print("build-native: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
