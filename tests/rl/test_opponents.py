"""Levels 1-10 as opponents inside the environment."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kozyr.bots.base import Bot
from kozyr.bots.levels import LEVELS, bot_for, reduced
from kozyr.engine.record import GameRecord
from kozyr.rl import durak_v0
from kozyr.rl.env import DurakEnv
from kozyr.rl.opponents import BotOpponents

from .test_env import run_api_test


def _play(env: BotOpponents, seed: int) -> tuple[list[str], dict[str, float]]:
    """A random learner; returns the agents it was asked about while the game
    was on, and every agent's final reward."""
    rng = random.Random(seed)
    asked: list[str] = []
    rewards: dict[str, float] = {}
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            rewards[agent] = reward
            env.step(None)
            continue
        asked.append(agent)
        allowed = np.flatnonzero(obs["action_mask"])
        env.step(int(allowed[rng.randrange(len(allowed))]))
    return asked, rewards


@pytest.mark.parametrize("level", range(1, 11))
def test_every_level_plays_a_game_against_the_learner(level):
    """Levels 1-5 as they are; 6-10 with their search budgets cut (the same
    bots, fewer iterations), so that a whole game stays quick."""
    bot: int | Bot = level
    if level > 5:
        bot = bot_for(reduced(LEVELS[level], 40), seed=level)
    env = BotOpponents(durak_v0.env(players=2), {"player_1": bot})
    asked, rewards = _play(env, seed=level)
    assert asked and set(asked) == {"player_0"}  # the learner only sees its own turns
    assert set(rewards) == {"player_0", "player_1"}
    base = env.unwrapped
    bot_moves = sum(1 for a in base.game.log if a.seat == 1)
    assert bot_moves > 0
    replay = GameRecord.loads(base.record().dumps()).replay()
    assert replay.ok and replay.state.to_json() == base.game.to_json()
    assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_seeded_episode_repeats_move_for_move():
    def record(seed: int) -> str:
        env = BotOpponents(
            durak_v0.env(players=3, variant="perevodnoy"), {"player_1": 3, "player_2": 5}
        )
        _play(env, seed)
        base = env.unwrapped
        assert isinstance(base, DurakEnv)
        return base.record().dumps()

    assert record(11) == record(11)
    assert record(11) != record(12)


def test_a_numpy_seed_replays_as_the_same_int_and_a_bad_seed_changes_nothing():
    def record(seed: int | np.integer) -> str:
        env = BotOpponents(durak_v0.env(players=2), {"player_1": 3})
        env.reset(seed=seed)
        for _agent in env.agent_iter(max_iter=60):
            obs, _, terminated, truncated, _ = env.last()
            mask = np.asarray(obs["action_mask"])
            env.step(None if terminated or truncated else int(np.flatnonzero(mask)[0]))
        base = env.unwrapped
        assert isinstance(base, DurakEnv)
        return base.record().dumps()

    assert record(np.int64(5)) == record(5)

    env = BotOpponents(durak_v0.env(players=2), {"player_1": 3})
    env.reset(seed=5)
    bots, base = dict(env.bots), env.unwrapped
    assert isinstance(base, DurakEnv)
    before = base.record().dumps()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    assert env.bots == bots
    assert base.record().dumps() == before


def test_bots_at_a_cheating_table_and_the_api_test():
    env = BotOpponents(durak_v0.env(players=3, cheating=True), {"player_1": 4, "player_2": 2})
    asked, _ = _play(env, seed=5)
    assert set(asked) == {"player_0"}
    run_api_test(BotOpponents(durak_v0.env(players=4), {"player_1": 1, "player_3": 2}))


def test_bad_seats_and_levels_are_refused():
    with pytest.raises(ValueError):
        BotOpponents(durak_v0.env(players=2), {"player_2": 4})
    with pytest.raises(ValueError):
        BotOpponents(durak_v0.env(players=2), {"player_1": 11})
    with pytest.raises(ValueError):
        BotOpponents(durak_v0.env(players=2), {"player_0": 1, "player_1": 1})
