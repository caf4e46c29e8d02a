"""The one interface every computer opponent implements.

A bot is given a seat's :class:`~kozyr.engine.view.View` — never the full
state — and returns one of ``view.legal``.  Anything a bot remembers between
calls must come from views too; the view already carries all public memory
(discards, cards known in each hand, the trump's holder).
"""

from __future__ import annotations

import random
from typing import Protocol

from kozyr.engine.actions import Action
from kozyr.engine.view import View


class Bot(Protocol):
    """A computer player for one seat."""

    #: Short name for tables and logs, e.g. "level 7".
    name: str

    def choose(self, view: View) -> Action:
        """A legal action for ``view.seat``; only called when ``view.my_turn``."""
        ...


class RandomBot:
    """Plays a uniformly random legal action (a baseline and a test opponent)."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        if not view.legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        return self.rng.choice(view.legal)
