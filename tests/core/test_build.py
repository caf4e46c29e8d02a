"""The core's build: where it is, whether it is current, what runs without it."""

from __future__ import annotations

import os
from pathlib import Path

from kozyr import core


def test_a_c_source_newer_than_the_build_is_reported(tmp_path: Path) -> None:
    built = tmp_path / "_core.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"")
    old, new = tmp_path / "engine.c", tmp_path / "core.h"
    old.write_text("")
    new.write_text("")
    os.utime(old, (1_000, 1_000))
    os.utime(built, (2_000, 2_000))
    os.utime(new, (3_000, 3_000))
    assert core.stale_sources(tmp_path) == ["core.h"]
    os.utime(built, (4_000, 4_000))
    assert core.stale_sources(tmp_path) == []
    built.unlink()
    assert core.stale_sources(tmp_path) == []  # nothing built: nothing stale


def test_the_core_in_this_checkout_is_current() -> None:
    if core.AVAILABLE:
        assert core.stale_sources() == []


def test_rules_reach_the_core_with_every_option():
    """rules_tuple covers every option Rules has (a new option must be added)."""
    from kozyr.engine.rules import Rules

    covered = {
        "players", "deck", "variant", "lead_multiple", "first_round_cap", "throw_in",
        "transfer_show_trump", "teams", "first_attacker", "pogony", "repetition_draw",
        "throw_in_after_take", "cheating",
    }  # fmt: skip
    # first_attacker only decides the deal's first attacker, which from_state takes
    # from the reference state; every other option changes how the core plays.
    assert set(Rules.options()) == covered
    assert len(core.rules_tuple(Rules())) == len(covered) - 1
