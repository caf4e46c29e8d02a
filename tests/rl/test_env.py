"""durak_v0 against PettingZoo's own checks and against the engine."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from kozyr.engine.cards import deck_mask, parse_card
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules, RulesError
from kozyr.rl import actions, durak_v0
from kozyr.rl.env import DurakEnv, IllegalIndex

from .helpers import random_rules

#: api_test's soft warnings that it gives every environment not on its own lists
#: of names (connect_four_v3, chess_v6, ...), though those use the same dict of
#: "observation" and "action_mask"; any other warning fails the test.
EXPECTED_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}

TABLES = [
    {"players": 2},
    {"players": 4},
    {"players": 6},
    {"players": 2, "variant": "perevodnoy"},
    {"players": 4, "variant": "perevodnoy", "transfer_show_trump": True},
    {"players": 6, "variant": "perevodnoy"},
    {"players": 4, "cheating": True},
    {"players": 4, "teams": "2v2", "cheating": True, "variant": "perevodnoy"},
]


def run_api_test(env: object) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=400)
    assert {str(w.message) for w in caught} <= EXPECTED_WARNINGS


@pytest.mark.parametrize("options", TABLES, ids=lambda o: "-".join(map(str, o.values())))
def test_pettingzoo_api_test(options):
    run_api_test(durak_v0.env(**options))


def test_pettingzoo_seed_test():
    seed_test(lambda: durak_v0.env(players=3, variant="perevodnoy"), num_cycles=200)


def test_every_rule_option_is_a_keyword():
    for name, values in Rules.options().items():
        for value in values:
            options = {name: value}
            if name == "transfer_show_trump" and value:
                options["variant"] = "perevodnoy"
            if name == "teams" and value != "none":
                options["players"] = {"2v2": 4, "3v3": 6, "2v2v2": 6}[value]
            if name == "players" and value == 6:
                options["deck"] = 36
            assert getattr(durak_v0.env(**options).rules, name) == value
    with pytest.raises(RulesError):
        durak_v0.env(players=7)
    with pytest.raises(RulesError):
        durak_v0.env(trumps=2)


def _play(env: DurakEnv, rng: random.Random, check_mask: bool) -> int:
    steps = 0
    for agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert agent == f"player_{env.game.to_move}"
        allowed = np.flatnonzero(obs["action_mask"])
        if check_mask:
            legal = env.game.legal_actions()
            assert sorted(allowed.tolist()) == sorted(actions.indices(legal, env.game.att))
        env.step(int(allowed[rng.randrange(len(allowed))]))
        steps += 1
    return steps


def test_a_thousand_seeded_games_replay_from_their_records():
    """1,000 games on random tables (every option drawn; a fifth cheating), each
    from a seeded reset with random legal indices: the mask is the engine's
    legal list at every step (checked in every tenth game: observations are the
    slow part), and the record replays to the same final state, result and
    rewards."""
    rng = random.Random(2028)
    outcomes = set()
    for g in range(1000):
        rules = random_rules(rng)
        if g % 5 == 0:
            rules = Rules.from_dict({**rules.to_dict(), "cheating": True})
        env = durak_v0.env(max_steps=3000, **rules.to_dict())
        seed = rng.getrandbits(64)
        env.reset(seed=seed)
        rewards: dict[str, float] = {}
        full = g % 10 == 0  # observations and masks are slow: every tenth game
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last(observe=full)
            if terminated or truncated:
                rewards[agent] = reward
                env.step(None)
                continue
            allowed = env.legal_indices()
            if full:
                assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(allowed)
                legal = env.game.legal_actions()
                assert sorted(allowed) == sorted(actions.indices(legal, env.game.att))
            env.step(allowed[rng.randrange(len(allowed))])
        record = env.record()
        assert record.deal.seed == seed
        replay = GameRecord.loads(record.dumps()).replay()
        assert replay.ok, replay.error
        assert replay.state.to_json() == env.game.to_json()
        result = env.game.result
        if result is None:  # truncated (repetition_draw off): nobody won
            assert set(rewards.values()) == {0.0}
            outcomes.add("truncated")
            continue
        assert replay.state.result == result
        losers = set(result.team) if result.team else {result.durak}
        for agent, reward in rewards.items():
            seat = int(agent.split("_")[1])
            expected = 0.0 if result.durak is None else (-1.0 if seat in losers else 1.0)
            assert reward == expected, (agent, result)
        outcomes.add("draw" if result.durak is None else "team" if result.team else "durak")
    assert {"team", "durak"} <= outcomes  # draws are rare: test_a_draw_gives_everyone_nothing


def test_a_draw_gives_everyone_nothing():
    """Seat 0 leads 7S, seat 1 covers with 8S: both hands are empty, a draw."""
    rules = Rules(players=2)
    hands = (1 << parse_card("7S"), 1 << parse_card("8S"))
    discard = deck_mask(36) & ~(hands[0] | hands[1])
    deal = Deal(hands, (), parse_card("AH"), discard, first_attacker=0)
    env = durak_v0.env(players=2)
    env.reset(options={"deal": deal})
    env.step(env.index_of(env.game.legal_actions()[0]))
    env.step(env.index_of(next(a for a in env.game.legal_actions() if a.kind == 1)))
    assert env.game.result is not None and env.game.result.draw
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
    assert rules.players == 2


def test_teams_share_the_reward():
    for seed in range(3):
        env = durak_v0.env(players=4, teams="2v2")
        env.reset(seed=seed)
        rewards = {}
        rng = random.Random(seed)
        for agent in env.agent_iter():
            obs, reward, terminated, _truncated, _ = env.last()
            if terminated:
                rewards[agent] = reward
                env.step(None)
            else:
                allowed = np.flatnonzero(obs["action_mask"])
                env.step(int(allowed[rng.randrange(len(allowed))]))
        result = env.game.result
        assert result is not None and result.durak is not None and len(result.team) == 2
        assert rewards == {f"player_{s}": (-1.0 if s in result.team else 1.0) for s in range(4)}


def test_only_the_agent_to_move_has_a_mask():
    env = durak_v0.env(players=4, cheating=True)
    env.reset(seed=9)
    rng = random.Random(9)
    for _ in range(60):
        if env.game.game_over:
            break
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.any() == (agent == env.agent_selection)
        allowed = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(allowed[rng.randrange(len(allowed))]))


def test_a_masked_index_is_refused_and_changes_nothing():
    env = durak_v0.env(players=2)
    with pytest.raises(RuntimeError):
        env.step(0)
    env.reset(seed=3)
    before = env.game.to_json()
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalIndex):
        env.step(bad)
    assert env.game.to_json() == before
    with pytest.raises(IllegalIndex):
        env.step(actions.HONEST_SIZE + 5)  # an accusation at an honest table


def test_numpy_seeds_and_stepping_past_the_end():
    env = durak_v0.env(players=2)
    env.reset(seed=np.int64(29))
    assert env.record().deal.seed == 29
    _play(env, random.Random(0), check_mask=False)
    assert not env.agents
    with pytest.raises(RuntimeError):
        env.step(None)


def test_truncation_after_max_steps():
    env = durak_v0.env(players=2, max_steps=10)
    env.reset(seed=1)
    steps = _play(env, random.Random(1), check_mask=True)
    assert steps == 10
    assert env.game.result is None


def test_render_shows_the_table():
    env = durak_v0.env(players=2, render_mode="ansi")
    env.reset(seed=29)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "trump" in text
    assert durak_v0.env(players=2).render() is None
