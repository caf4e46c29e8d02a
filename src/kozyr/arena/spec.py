"""Bot specifications: the strings that name a bot on the command line.

``random`` is :class:`~kozyr.bots.base.RandomBot`; ``1`` .. ``10`` are the bot
levels of :func:`kozyr.bots.make_bot`; ``mc5`` .. ``mc10`` are the frozen flat
Monte Carlo bots of :mod:`kozyr.bots.flat_mc` (levels 5–10 as they played
before issue 12); ``is5`` .. ``is10`` are the frozen information-set search
bots of :mod:`kozyr.bots.frozen` (levels 5–10 as issue 12 shipped them,
before issue 29).  A search level or ``isN`` followed by ``x`` and a whole
number ``k`` (``10x3``, ``is10x30``) is the same search with ``k`` times its
budget, to measure how strength grows with thinking time.

Canonical specs (what :func:`parse_spec` returns, and what saved runs, records
and ``--json`` hold) are ``random``, ``1`` .. ``10``, ``mc5`` .. ``mc10``,
``is5`` .. ``is10`` and the multiples ``5x2`` .. ``10x100``, ``is5x2`` ..
``is10x100`` (``x1`` is dropped: ``10x1`` is ``10``).

Every search bot the arena makes has its wall-clock cap raised to
:data:`TIME_CAP` seconds per unit of budget (a safety net only), so that a
run at low priority on a busy machine plays exactly the moves the seeds say.
"""

from __future__ import annotations

import re
from typing import Final

from kozyr.bots.base import Bot, RandomBot

MIN_LEVEL = 1
MAX_LEVEL = 10
#: The frozen flat Monte Carlo bots: ``mc5`` .. ``mc10``.
MIN_MC = 5
MAX_MC = 10
MC_PREFIX = "mc"
#: The frozen information-set search bots of issue 12: ``is5`` .. ``is10``.
MIN_IS = 5
MAX_IS = 10
IS_PREFIX = "is"
#: The largest budget multiple (``10x100``).
MAX_SCALE = 100
#: The arena's wall-clock cap per decision and unit of budget, in seconds.
TIME_CAP: Final = 60.0

_SCALED = re.compile(r"^(is|level|l)?\s*(\d+)\s*(?:x\s*(\d+))?$")


class ArenaError(Exception):
    """A tournament that cannot be set up or run; the message is for people."""


def parse_spec(text: str) -> str:
    """The canonical form of a bot spec (``"random"``, ``"1"``..``"10"``,
    ``"mc5"``..``"mc10"``, ``"is5"``..``"is10"``, or a multiple such as
    ``"10x3"``); case and spaces around the numbers do not matter."""
    s = text.strip().lower()
    if s in ("random", "rand", "r"):
        return "random"
    if s.startswith(MC_PREFIX):
        n = s[len(MC_PREFIX) :].strip()
        if n.isdigit() and MIN_MC <= int(n) <= MAX_MC:
            return f"{MC_PREFIX}{int(n)}"
        raise ArenaError(
            f"unknown bot {text!r}: the frozen flat Monte Carlo bots are "
            f"{MC_PREFIX}{MIN_MC}..{MC_PREFIX}{MAX_MC}"
        )
    m = _SCALED.match(s)
    if m is None:
        raise ArenaError(_unknown(text))
    prefix, number, times = m.group(1), int(m.group(2)), m.group(3)
    scale = int(times) if times is not None else 1
    if prefix == IS_PREFIX:
        if not MIN_IS <= number <= MAX_IS:
            raise ArenaError(
                f"unknown bot {text!r}: the frozen search bots of issue 12 are "
                f"{IS_PREFIX}{MIN_IS}..{IS_PREFIX}{MAX_IS}"
            )
        base = f"{IS_PREFIX}{number}"
    else:
        if not MIN_LEVEL <= number <= MAX_LEVEL:
            raise ArenaError(_unknown(text))
        base = str(number)
    if times is None or scale == 1:
        return base
    if number < MIN_IS or not 1 <= scale <= MAX_SCALE:
        raise ArenaError(
            f"unknown bot {text!r}: a budget multiple is a search level or "
            f"{IS_PREFIX}{MIN_IS}..{IS_PREFIX}{MAX_IS} followed by x2..x{MAX_SCALE} (e.g. 10x3)"
        )
    return f"{base}x{scale}"


def _unknown(text: str) -> str:
    return (
        f"unknown bot {text!r}: use 'random', a level {MIN_LEVEL}..{MAX_LEVEL} (e.g. 7), "
        f"a frozen flat Monte Carlo bot {MC_PREFIX}{MIN_MC}..{MC_PREFIX}{MAX_MC}, "
        f"a frozen search bot {IS_PREFIX}{MIN_IS}..{IS_PREFIX}{MAX_IS}, "
        f"or a search with k times its budget (e.g. 10x3, is10x10)"
    )


def split_spec(spec: str) -> tuple[str, int, int]:
    """A canonical spec's (kind, number, budget multiple): kind is ``"random"``,
    ``"level"``, ``"mc"`` or ``"is"``."""
    if spec == "random":
        return ("random", 0, 1)
    if spec.startswith(MC_PREFIX):
        return ("mc", int(spec[len(MC_PREFIX) :]), 1)
    kind = "level"
    if spec.startswith(IS_PREFIX):
        kind, spec = "is", spec[len(IS_PREFIX) :]
    number, _, times = spec.partition("x")
    return (kind, int(number), int(times) if times else 1)


def is_flat_mc(spec: str) -> bool:
    """Whether canonical ``spec`` is one of the frozen ``mcN`` bots."""
    return spec.startswith(MC_PREFIX)


def spec_label(spec: str) -> str:
    """How a spec is shown in tables: ``random``, ``level 7``, ``mc7``,
    ``is10``, ``level 10 ×3``, ``is10 ×3``."""
    kind, number, scale = split_spec(spec)
    if kind == "random":
        return spec
    base = f"level {number}" if kind == "level" else f"{kind}{number}"
    return base if scale == 1 else f"{base} ×{scale}"


def spec_order(spec: str) -> tuple[int, int, int]:
    """Sort key: random first, then levels from weakest to strongest (each
    before its budget multiples), then the frozen ``mc5`` .. ``mc10``, then the
    frozen ``is5`` .. ``is10``."""
    kind, number, scale = split_spec(spec)
    return ({"random": 0, "level": 1, "mc": 2, "is": 3}[kind], number, scale)


def make(spec: str, seed: int | None) -> Bot:
    """A new bot for ``spec`` (a canonical spec from :func:`parse_spec`)."""
    if spec == "random":
        return RandomBot(seed)
    # The search bots are only loaded when asked for.
    from kozyr.bots import make_bot
    from kozyr.bots.auto import random_seed
    from kozyr.bots.cheating import PROFILES, CheatingTableBot
    from kozyr.bots.flat_mc import flat_mc_bot
    from kozyr.bots.frozen import frozen_bot
    from kozyr.bots.levels import LEVELS, bot_for, lift_time_cap, scaled

    kind, number, scale = split_spec(spec)
    seed = random_seed() if seed is None else seed
    label = spec_label(spec)
    try:
        bot: Bot
        if kind == "mc":
            # mcN catches and cheats like level N at a cheating table (rule 13).
            bot = CheatingTableBot(flat_mc_bot(number, seed, spec), PROFILES[number], seed, True)
        elif kind == "is":
            bot = frozen_bot(number, seed, label, scale)
        elif scale > 1:
            bot = bot_for(scaled(LEVELS[number], scale), seed, label)
        else:
            bot = make_bot(number, seed=seed)
        return lift_time_cap(bot, TIME_CAP * scale)
    except ArenaError:
        raise
    except Exception as exc:
        raise ArenaError(f"cannot create bot {label}: {exc}") from exc


def check(spec: str) -> None:
    """Create ``spec`` once so that a missing or broken bot fails before a run starts."""
    bot = make(spec, 0)
    if not callable(getattr(bot, "choose", None)):
        raise ArenaError(f"{spec_label(spec)} is not a bot: it has no choose(view) method")
