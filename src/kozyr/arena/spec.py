"""Bot specifications: the strings that name a bot on the command line.

``random`` is :class:`~kozyr.bots.base.RandomBot`; ``1`` .. ``10`` are the bot
levels of :func:`kozyr.bots.make_bot`.
"""

from __future__ import annotations

from kozyr.bots.base import Bot, RandomBot

MIN_LEVEL = 1
MAX_LEVEL = 10


class ArenaError(Exception):
    """A tournament that cannot be set up or run; the message is for people."""


def parse_spec(text: str) -> str:
    """The canonical form of a bot spec (``"random"`` or ``"1"``..``"10"``)."""
    s = text.strip().lower()
    if s in ("random", "rand", "r"):
        return "random"
    if s.startswith("level"):
        s = s[len("level") :].strip()
    elif s.startswith("l") and s[1:].isdigit():
        s = s[1:]
    if s.isdigit() and MIN_LEVEL <= int(s) <= MAX_LEVEL:
        return str(int(s))
    raise ArenaError(
        f"unknown bot {text!r}: use 'random' or a level {MIN_LEVEL}..{MAX_LEVEL} (e.g. 7)"
    )


def spec_label(spec: str) -> str:
    """How a spec is shown in tables: ``random``, ``level 7``."""
    return spec if spec == "random" else f"level {spec}"


def spec_order(spec: str) -> tuple[int, int]:
    """Sort key: random first, then levels from weakest to strongest."""
    return (0, 0) if spec == "random" else (1, int(spec))


def make(spec: str, seed: int | None) -> Bot:
    """A new bot for ``spec`` (a canonical spec from :func:`parse_spec`)."""
    if spec == "random":
        return RandomBot(seed)
    from kozyr.bots import make_bot  # the search levels are only loaded when asked for

    try:
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
