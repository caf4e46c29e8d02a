"""Kozyr's bots (levels 1-10) as opponents inside the environment.

:class:`BotOpponents` wraps a ``durak_v0`` environment and plays the seats it
is given with bots: after ``reset`` and after every ``step``, while a bot's
seat is to move, the bot chooses from that seat's View (as in every bot game:
:func:`kozyr.bots.match.play_game`) and its action goes through the
environment's own ``step``, so it is in the record and the rewards like any
other.  The learner's loop sees only its own seats' turns::

    env = BotOpponents(durak_v0.env(players=2), {"player_1": 7})
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else policy(obs)
        env.step(action)

When the game ends every agent, the bots' included, is terminated, and the
loop steps each with ``None`` as PettingZoo requires (bot seats only then).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from kozyr.bots import Bot, make_bot
from kozyr.engine.view import view_of

from .env import DurakEnv


class BotOpponents(BaseWrapper):  # type: ignore[misc]  # pettingzoo ships no types
    """Seats played by bots: ``{"player_1": 7, "player_2": some_bot}`` maps an
    agent to a level (1-10) or to any object with the Bot protocol
    (``choose(view) -> Action``).  Bots are made anew at each reset, seeded
    from ``reset``'s seed (or ``seed``), so a seeded episode replays exactly."""

    def __init__(self, env: DurakEnv, opponents: Mapping[str, int | Bot], seed: int | None = None):
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, DurakEnv):
            raise TypeError("BotOpponents wraps a durak_v0 environment")
        unknown = set(opponents) - set(base.possible_agents)
        if unknown:
            raise ValueError(f"no such agent(s): {', '.join(sorted(unknown))}")
        if len(opponents) == len(base.possible_agents):
            raise ValueError("leave at least one seat to the learner")
        for who in opponents.values():
            if isinstance(who, int) and not 1 <= who <= 10:
                raise ValueError(f"bot levels are 1..10, not {who}")
        self._base = base
        self._spec = dict(opponents)
        self._rng = random.Random(seed)
        self.bots: dict[str, Bot] = {}

    def reset(
        self, seed: int | np.integer[Any] | None = None, options: dict[str, Any] | None = None
    ) -> None:
        """Deal a new game and let the bots move up to the learner's first turn.
        The environment checks the seed first (numpy integers too, as in
        :meth:`DurakEnv.reset`), so a refused seed leaves the bots as they were."""
        self.env.reset(seed=seed, options=options)
        if seed is not None:
            self._rng = random.Random(int(seed))
        self.bots = {
            agent: make_bot(who, self._rng.getrandbits(63)) if isinstance(who, int) else who
            for agent, who in self._spec.items()
        }
        self._play_bots()

    def step(self, action: Any) -> None:
        self.env.step(action)
        self._play_bots()

    def _play_bots(self) -> None:
        """Let the bots move while one of them is to move and the game is on."""
        base = self._base
        while base.agents:
            agent = base.agent_selection
            bot = self.bots.get(agent)
            if bot is None or base.terminations[agent] or base.truncations[agent]:
                return
            seat = base.possible_agents.index(agent)
            action = bot.choose(view_of(base.game, seat))
            base.step(base.index_of(action))
