"""The PettingZoo AEC environment: the rules engine as a multi-agent environment.

One game of Durak per episode, refereed by :class:`~kozyr.engine.state.GameState`
(the same engine as the server and ``kozyr replay``, so every episode is a
game record that replays exactly: :meth:`DurakEnv.record`).

**Turn order.**  The agent selected is always the engine's ``to_move``, and
its action mask is the engine's ``legal_actions()``: at a cheating table that
includes calling out a card on its own turn.  Out-of-turn accusations
(``GameState.legal_actions_for`` for a seat that is not to move) are not
offered: AEC steps one agent at a time, and every seat still gets its chance
before a cheat leaves the table, since each round of a cheating game ends with
the last call, which asks every seat that may call something out (rule 13;
the terminal client makes the same choice).  Agents who have left the game
(rule 9) stay in ``agents`` and are simply never selected until the game ends.

**Rewards.**  At the end: -1 for the durak (and the durak's whole team), +1 for
everyone else, 0 for everyone on a draw or a truncation; 0 on every other step.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from kozyr.engine.actions import Action
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import OVER, GameState
from kozyr.engine.view import View, view_of

from . import actions, observation

_MAX_SEED: Final = 2**64


class IllegalIndex(ValueError):
    """An action index that is masked out for the agent to move."""


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class DurakEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """Durak as a PettingZoo AEC environment (build it with ``durak_v0.env``).

    Keyword arguments are the options of :class:`~kozyr.engine.rules.Rules`
    (``players=2, variant="perevodnoy", cheating=True, ...``) plus
    ``render_mode`` (``"ansi"`` or ``"human"``) and ``max_steps`` (truncate an
    episode after that many actions; only tables with ``repetition_draw=False``
    can play for ever).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "durak_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self, render_mode: str | None = None, max_steps: int | None = None, **options: Any
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be a positive number of actions")
        self.rules = Rules.from_dict(options)
        self.render_mode = render_mode
        self.max_steps = max_steps
        n = self.rules.players
        self.possible_agents: list[str] = [agent_name(s) for s in range(n)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self._n_actions = actions.size(self.rules)
        # One space object per agent, the same at each call (api_test checks it),
        # so that seeding or sampling one agent's space leaves the others alone.
        self.action_spaces = {a: spaces.Discrete(self._n_actions) for a in self.possible_agents}
        top = observation.high()
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0, high=top, dtype=np.uint8),
                    "action_mask": spaces.Box(0, 1, shape=(self._n_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._rng = random.Random()
        self.game: GameState = GameState(self.rules)
        self.deal: Deal | None = None
        self._legal: dict[int, Action] | None = None
        self._steps = 0
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = ""

    # ------------------------------------------------------------ the spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------- episodes
    def reset(
        self, seed: int | np.integer[Any] | None = None, options: dict[str, Any] | None = None
    ) -> None:
        """Deal a new game.  ``seed`` is the deal's seed: ``reset(seed=29)`` deals
        what the record ``{"deal": {"seed": 29}}`` deals, and later resets
        without a seed continue a stream drawn from it.  ``options`` may name a
        ``"deal"`` (a :class:`~kozyr.engine.deal.Deal`), or ``"first_attacker"``
        / ``"previous_durak"`` seats for a seeded deal; other keys are ignored."""
        if seed is not None:
            if not 0 <= seed < _MAX_SEED:
                raise ValueError("seed must be an integer from 0 to 2**64 - 1")
            deal_seed = int(seed)  # numpy integers too
            self._rng = random.Random(deal_seed)
        else:
            deal_seed = self._rng.getrandbits(64)
        opts = options or {}
        deal = opts.get("deal")
        if deal is None:
            deal = Deal.from_seed(
                self.rules, deal_seed, opts.get("first_attacker"), opts.get("previous_durak")
            )
        elif not isinstance(deal, Deal):
            raise TypeError("options['deal'] must be a kozyr.engine.deal.Deal")
        self.deal = deal
        self.game = GameState.new(self.rules, deal)
        self._legal = None
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._after_move()

    def step(self, action: Any) -> None:
        if self.deal is None:
            raise RuntimeError("reset() the environment before stepping it")
        if not self.agents:
            raise RuntimeError("the episode is over: reset() the environment")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._legal_actions()
        chosen = legal.get(int(action))
        if chosen is None:
            raise IllegalIndex(
                f"action {int(action)} ({actions.name(int(action))}) is not legal for {agent} now"
            )
        self._cumulative_rewards[agent] = 0.0
        self.game.do(chosen)
        self._legal = None
        self._steps += 1
        self._after_move()

    def _after_move(self) -> None:
        game = self.game
        if game.phase == OVER:
            self._finish(self._final_rewards())
        elif self.max_steps is not None and self._steps >= self.max_steps:
            self._finish(None)
        else:
            assert game.to_move is not None
            self.agent_selection = self.possible_agents[game.to_move]
        if self.render_mode == "human":
            self.render()

    def _final_rewards(self) -> dict[str, float]:
        result = self.game.result
        assert result is not None
        if result.durak is None:
            return dict.fromkeys(self.agents, 0.0)
        losers = set(result.team) if result.team else {result.durak}
        return {a: -1.0 if self._seat_of[a] in losers else 1.0 for a in self.agents}

    def _finish(self, rewards: dict[str, float] | None) -> None:
        """Every agent is done: terminated with ``rewards``, or truncated (None)."""
        if rewards is None:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.terminations = dict.fromkeys(self.agents, True)
            self.rewards = rewards
            self._accumulate_rewards()

    # ---------------------------------------------------------- observation
    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's observation (what its View shows: ``observation.encode``)
        and, for the agent to move, the mask of its legal indices (all zeros for
        everyone else)."""
        if self.deal is None:
            raise RuntimeError("reset() the environment before observing it")
        seat = self._seat_of[agent]
        game = self.game
        mask = np.zeros(self._n_actions, dtype=np.int8)
        if (
            agent == self.agent_selection
            and game.to_move == seat
            and not self.truncations.get(agent, True)
        ):
            mask[list(self._legal_actions())] = 1
        return {"observation": observation.encode_state(game, seat), "action_mask": mask}

    def _legal_actions(self) -> dict[int, Action]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._index(self.game.legal_actions())
        return legal

    def _index(self, legal: tuple[Action, ...] | list[Action]) -> dict[int, Action]:
        return dict(zip(actions.indices(legal, self.game.att), legal, strict=True))

    # -------------------------------------------------------------- helpers
    def legal_indices(self) -> list[int]:
        """The indices the agent to move may play (its mask's ones), without
        building an observation: for scripted or random players."""
        if self.deal is None or self.game.phase == OVER or any(self.truncations.values()):
            return []
        return list(self._legal_actions())

    def view(self, agent: str) -> View:
        """What ``agent`` may know now (the engine's per-seat view)."""
        return view_of(self.game, self._seat_of[agent])

    def action_of(self, index: int) -> Action:
        """The engine action ``index`` stands for, for the agent to move."""
        seat = self._seat_of[self.agent_selection]
        return actions.decode(int(index), seat, self.game.att)

    def index_of(self, action: Action) -> int:
        """The index of an engine ``action`` at the current table."""
        return actions.encode(action, self.game.att)

    def record(self) -> GameRecord:
        """The episode so far as a game record (docs/records.md)."""
        if self.deal is None:
            raise RuntimeError("reset() first")
        log = self.game.log or []
        out = GameRecord(self.rules, self.deal, [a.to_json() for a in log])
        if self.game.result is not None:
            out.meta["result"] = self.game.result.to_json()
        return out

    def render(self) -> str | None:
        """The table as the referee sees it (every hand), one line per seat."""
        if self.render_mode is None:
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game lives in memory."""


def render_text(game: GameState) -> str:
    from kozyr.engine.cards import card_str, cards_str

    lines = [
        f"trump {card_str(game.trump)}, deck {len(game.stock)}, "
        f"discard {game.discard.bit_count()}, phase {game.to_json()['phase']}"
    ]
    for seat, hand in enumerate(game.hands):
        marks = [
            tag
            for tag, on in (
                ("attacker", seat == game.attacker),
                ("defender", seat == game.defender),
                ("to move", seat == game.to_move),
                ("out", seat in game.out),
            )
            if on and (game.phase != OVER or tag == "out")
        ]
        lines.append(f"  {agent_name(seat)}: {' '.join(cards_str(hand)) or '-'}  {' '.join(marks)}")
    table = "  ".join(
        card_str(a) + ("/" + card_str(d) if d >= 0 else "")
        for a, d in zip(game.att, game.dfn, strict=True)
    )
    lines.append(f"  table: {table or '-'}")
    if game.result is not None:
        lines.append(f"  result: {game.result.to_json()}")
    return "\n".join(lines)
