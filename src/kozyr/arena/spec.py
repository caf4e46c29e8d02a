"""Bot specifications: the strings that name a bot on the command line.

``random`` is :class:`~kozyr.bots.base.RandomBot`; ``1`` .. ``10`` are the bot
levels of :func:`kozyr.bots.make_bot`; ``mc5`` .. ``mc10`` are the frozen flat
Monte Carlo bots of :mod:`kozyr.bots.flat_mc` (levels 5–10 as they played
before issue 12, kept so that the new search can be measured against them).

Canonical specs (what :func:`parse_spec` returns, and what saved runs, records
and ``--json`` hold) are ``random``, ``1`` .. ``10`` and ``mc5`` .. ``mc10``.
"""

from __future__ import annotations

from kozyr.bots.base import Bot, RandomBot

MIN_LEVEL = 1
MAX_LEVEL = 10
#: The frozen flat Monte Carlo bots: ``mc5`` .. ``mc10``.
MIN_MC = 5
MAX_MC = 10
MC_PREFIX = "mc"


class ArenaError(Exception):
    """A tournament that cannot be set up or run; the message is for people."""


def parse_spec(text: str) -> str:
    """The canonical form of a bot spec (``"random"``, ``"1"``..``"10"`` or
    ``"mc5"``..``"mc10"``); case and spaces around the number do not matter."""
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
    if s.startswith("level"):
        s = s[len("level") :].strip()
    elif s.startswith("l") and s[1:].isdigit():
        s = s[1:]
    if s.isdigit() and MIN_LEVEL <= int(s) <= MAX_LEVEL:
        return str(int(s))
    raise ArenaError(
        f"unknown bot {text!r}: use 'random', a level {MIN_LEVEL}..{MAX_LEVEL} (e.g. 7) "
        f"or a frozen flat Monte Carlo bot {MC_PREFIX}{MIN_MC}..{MC_PREFIX}{MAX_MC}"
    )


def is_flat_mc(spec: str) -> bool:
    """Whether canonical ``spec`` is one of the frozen ``mcN`` bots."""
    return spec.startswith(MC_PREFIX)


def spec_label(spec: str) -> str:
    """How a spec is shown in tables: ``random``, ``level 7``, ``mc7``."""
    return spec if spec == "random" or is_flat_mc(spec) else f"level {spec}"


def spec_order(spec: str) -> tuple[int, int]:
    """Sort key: random first, then levels from weakest to strongest, then the
    frozen ``mc5`` .. ``mc10`` after all the levels."""
    if spec == "random":
        return (0, 0)
    if is_flat_mc(spec):
        return (2, int(spec[len(MC_PREFIX) :]))
    return (1, int(spec))


def make(spec: str, seed: int | None) -> Bot:
    """A new bot for ``spec`` (a canonical spec from :func:`parse_spec`)."""
    if spec == "random":
        return RandomBot(seed)
    # The search bots are only loaded when asked for.
    from kozyr.bots import make_bot
    from kozyr.bots.auto import random_seed
    from kozyr.bots.cheating import PROFILES, CheatingTableBot
    from kozyr.bots.flat_mc import flat_mc_bot

    try:
        if is_flat_mc(spec):
            level = int(spec[len(MC_PREFIX) :])
            seed = random_seed() if seed is None else seed
            # mcN catches and cheats like level N at a cheating table (rule 13).
            return CheatingTableBot(flat_mc_bot(level, seed, spec), PROFILES[level], seed, True)
        return make_bot(int(spec), seed=seed)
    except ArenaError:
        raise
    except Exception as exc:
        raise ArenaError(f"cannot create bot {spec_label(spec)}: {exc}") from exc


def check(spec: str) -> None:
    """Create ``spec`` once so that a missing or broken bot fails before a run starts."""
    bot = make(spec, 0)
    if not callable(getattr(bot, "choose", None)):
        raise ArenaError(f"{spec_label(spec)} is not a bot: it has no choose(view) method")
