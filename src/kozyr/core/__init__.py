"""The compiled core: the rules, the rollout policy and the search in C.

``src/kozyr/core/*.c`` is a second implementation of :mod:`kozyr.engine.state`
(the readable reference) built for speed: the same state on plain C structs,
the same legal actions in the same order, the same transitions for every
rule option.  The bots' search and the arena use it; the server, records and
``kozyr replay`` keep the reference.  ``tests/core`` proves the two agree
(differential tests over hundreds of thousands of positions, perft, seeded
playouts), and ``scripts/build_native.py`` (run by ``./setup``) builds it.

Without a C compiler the extension is missing: :data:`AVAILABLE` is False and
everything falls back to the reference engine and the pure-Python search.

The two engines meet through the *fields* tuple (:func:`fields_of`), every
field of a :class:`~kozyr.engine.state.GameState` in a fixed order, which
:meth:`State.snapshot` returns and :func:`from_state` reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kozyr.engine.native import built_from, changed_since_build, warn_if_stale
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState, Result

try:
    from . import _core  # type: ignore[attr-defined]
except ImportError:  # no compiler when ./setup ran: the reference engine serves
    _core = None

AVAILABLE: bool = _core is not None


def stale_sources(here: Path | None = None) -> list[str]:
    """C sources newer than the built core (which would run old rules); in an
    installed wheel, sources that differ from those compiled (a wheel ships no C
    sources, so normally none: see kozyr/engine/native.py)."""
    here = here if here is not None else Path(__file__).parent
    if built_from(here.parent) is not None:
        names = [f"{here.name}/{p.name}" for p in sorted(here.glob("*.[ch]"))]
        return [Path(c).name for c in changed_since_build(here.parent, names)]
    built = [p.stat().st_mtime for p in here.glob("_core.*.so")]
    if not built:
        return []
    oldest = min(built)
    return sorted(p.name for p in here.glob("*.[ch]") if p.stat().st_mtime > oldest)


if AVAILABLE:
    warn_if_stale(stale_sources())

_FRC = {"off": 0, "first_round": 1, "until_first_bito": 2}


def rules_tuple(rules: Rules) -> tuple[int, ...]:
    """The rules as the core reads them (every option, in a fixed order)."""
    return (
        rules.players,
        rules.deck,
        int(rules.variant == "perevodnoy"),
        int(rules.lead_multiple),
        _FRC[rules.first_round_cap],
        int(rules.throw_in == "neighbours"),
        int(rules.transfer_show_trump),
        rules.team_count,
        int(rules.pogony),
        int(rules.repetition_draw),
        int(rules.throw_in_after_take),
        int(rules.cheating),
    )


def _result_tuple(result: Result | None) -> tuple[Any, ...] | None:
    if result is None:
        return None
    return (result.durak, tuple(result.team), result.pogony, result.repetition)


def fields_of(state: GameState) -> tuple[Any, ...]:
    """Every field of a reference state, in the order of ``State.snapshot()``."""
    return (
        tuple(state.hands),
        tuple(state.known),
        tuple(state.stock),
        state.trump,
        state.trump_holder,
        state.discard,
        tuple(state.att),
        tuple(state.dfn),
        state.uncovered,
        state.table_ranks,
        state.phase,
        state.to_move,
        state.attacker,
        state.defender,
        state.starter,
        state.limit,
        state.taking,
        state.passed,
        state.shown,
        tuple(state.order),
        state.active,
        tuple(state.out),
        _result_tuple(state.result),
        state.rounds,
        state.bitos,
        state.last_play,
        state.history_len,
        tuple((tuple(hands), attacker, cap) for hands, attacker, cap in state.seen),
        state.marked,
        state.cleared,
        state.pending,
        tuple(state.plays),
        tuple(_cheat_tuple(rec) for rec in state.cheats),
    )


def _cheat_tuple(rec: tuple[Any, ...]) -> tuple[Any, ...]:
    """A cheat record (``GameState._note_play``) with its throw order as a tuple."""
    return (*rec[:-1], tuple(rec[-1]))


def _require() -> Any:
    if _core is None:
        raise RuntimeError("the compiled core is not built: run ./setup (needs a C compiler)")
    return _core


def from_state(state: GameState) -> Any:
    """A core ``State`` equal to the reference ``state``."""
    return _require().from_fields(rules_tuple(state.rules), fields_of(state))


def new_seeded(rules: Rules, seed: int) -> Any:
    """The core's ``GameState.from_seed(rules, seed)``."""
    return _require().new_seeded(rules_tuple(rules), seed)


def bench_random(rules: Rules, seed: int, games: int) -> int:
    """Play ``games`` random games from seeded deals in C; the actions played."""
    return int(_require().bench_random(rules_tuple(rules), seed, games))
