"""The compiled (mypyc) search plays exactly the moves of the pure-Python source.

Budgets count steps, not seconds, so compiling may only change the speed.  The
pure-Python side runs in a subprocess whose import system ignores the compiled
``.so`` files under ``src/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import kozyr
from kozyr.bots import SEARCH_COMPILED
from kozyr.engine import native

SRC = Path(kozyr.__file__).resolve().parent.parent

GAME = """
import json
from kozyr.arena.match import play_game
from kozyr.arena.spec import make
from kozyr.bots import native
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules

out = {"compiled": native.COMPILED, "games": []}
for variant, seed in (("podkidnoy", 5), ("perevodnoy", 6)):
    rules = Rules(players=2, variant=variant)
    bots = [make("mc6", seed), make("4", seed + 1)]
    played = play_game(rules, Deal.from_seed(rules, seed), bots, record=True)
    out["games"].append([list(a) for a in played.record.actions])
print(json.dumps(out))
"""

SOURCE_ONLY = f"""
import sys
from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader
_source_only = FileFinder.path_hook((SourceFileLoader, SOURCE_SUFFIXES))
def _hook(path):
    if not path.startswith({str(SRC)!r}):
        raise ImportError(path)
    return _source_only(path)
sys.path_hooks.insert(0, _hook)
sys.path_importer_cache.clear()
"""


def _games(source_only: bool) -> dict[str, object]:
    code = (SOURCE_ONLY if source_only else "") + GAME
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        timeout=300,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.skipif(not SEARCH_COMPILED, reason="the search is not compiled (./setup compiles it)")
def test_compiled_search_plays_the_moves_of_the_source() -> None:
    compiled, source = _games(False), _games(True)
    assert compiled["compiled"] is True
    assert source["compiled"] is False
    assert compiled["games"] == source["games"]


def test_a_source_newer_than_its_build_is_reported(tmp_path: Path) -> None:
    (tmp_path / "rollout.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (tmp_path / "rollout.py").write_text("# newer\n")
    (tmp_path / "search.py").write_text("# never built\n")
    built = tmp_path / "rollout.cpython-311-x86_64-linux-gnu.so"
    source = tmp_path / "rollout.py"
    os.utime(built, (1_000_000, 1_000_000))
    assert native.stale_modules(tmp_path, ("rollout", "search")) == ["rollout"]
    os.utime(source, (500_000, 500_000))
    assert native.stale_modules(tmp_path, ("rollout", "search")) == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        native.warn_if_stale(["rollout"])
        native.warn_if_stale([])
    assert [str(w.message).split(" (")[0] for w in caught] == [
        "compiled modules are older than their source"
    ]
