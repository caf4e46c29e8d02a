"""docs/library.md's examples are doctests: they must print what they show."""

from __future__ import annotations

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_library_docs_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read examples/short-game.json
    result = doctest.testfile(
        str(ROOT / "docs" / "library.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.attempted > 30
    assert result.failed == 0, f"{result.failed} example(s) of docs/library.md failed"
