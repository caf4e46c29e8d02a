"""scripts/search_fingerprint.py (issue 29): the hash that says a core searches
as another does, visit for visit."""

from __future__ import annotations

import pytest

from kozyr.bots.ismcts import IsmctsConfig

from ..core.helpers import needs_core
from .helpers import load_script

script = load_script("search_fingerprint")
SMALL = IsmctsConfig(iterations=300, endgame_nodes=100, time_cap=1e6)


@needs_core
def test_the_same_search_gives_the_same_hash_and_a_changed_one_another() -> None:
    first = script.fingerprint(SMALL, [2], 3, 4242)
    assert len(first) == 16 and int(first, 16) >= 0
    assert script.fingerprint(SMALL, [2], 3, 4242) == first
    # one knob that changes where the visits go, and one more iteration
    assert script.fingerprint(SMALL._replace(smooth=0.1), [2], 3, 4242) != first
    assert script.fingerprint(SMALL._replace(iterations=301), [2], 3, 4242) != first
    # other decisions, other hash
    assert script.fingerprint(SMALL, [2], 3, 4243) != first


@needs_core
def test_the_command_prints_the_hash_of_the_level_with_its_overrides(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--level", "5", "--players", "2", "--views", "2"]
    assert script.main(argv) == 0
    plain = capsys.readouterr().out.strip()
    assert script.main([*argv, "--config", '{"smooth": 0.1}']) == 0
    smoothed = capsys.readouterr().out.strip()
    assert len(plain) == len(smoothed) == 16 and plain != smoothed
