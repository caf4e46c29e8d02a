"""The fixed action space: every legal action has exactly one index, and every
index the mask allows stands for a legal action (docs/rl.md, the actions)."""

from __future__ import annotations

from collections import Counter

import pytest

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import parse_card, parse_cards
from kozyr.rl import actions
from kozyr.rl.env import DurakEnv

from .helpers import positions


def _mask_of(cards: list[str]) -> int:
    m = 0
    for c in parse_cards(cards):
        m |= 1 << c
    return m


def test_the_blocks_tile_the_space_without_gaps():
    start = 0
    for _name, first, size in actions.BLOCKS:
        assert first == start
        start += size
    assert start == actions.CHEATING_SIZE
    assert actions.ACCUSE == actions.HONEST_SIZE  # honest indices first, same at every table


def test_documented_examples():
    att = parse_cards(["8C", "7S"])
    # lead 8C 8H: rank 8 (index 6), suits C and H (bits 1 and 3: 0b1010)
    lead = Action(0, Kind.ATTACK, _mask_of(["8C", "8H"]))
    assert actions.encode(lead, att) == actions.LEAD + 6 * 15 + 0b1010 - 1
    cover = Action(1, Kind.DEFEND, _mask_of(["9S"]), parse_card("7S"))
    assert actions.encode(cover, att) == actions.DEFEND + 1 * 52 + parse_card("9S")
    cheat = Action(0, Kind.ATTACK, _mask_of(["8C", "8H", "KS"]))  # KS is the odd card
    assert actions.encode(cheat, att) == (
        actions.CHEAT_LEAD + (6 * 15 + 0b1010 - 1) * 52 + parse_card("KS")
    )
    # Two single cards: the higher rank is the cheat, listed under the lower rank.
    pair = Action(0, Kind.ATTACK, _mask_of(["7D", "QH"]))
    assert actions.encode(pair, att) == (
        actions.CHEAT_LEAD + (5 * 15 + 0b0100 - 1) * 52 + parse_card("QH")
    )
    # The worked examples of docs/rl.md.
    assert [actions.encode(a, att) for a in (lead, cover, cheat, pair)] == [101, 308, 6019, 4965]
    for a in (lead, cover, cheat, pair):
        assert actions.decode(actions.encode(a, att), a.seat, att) == a
    assert actions.name(actions.DEFEND + 52 + parse_card("9S")) == "defend slot 1 with 9S"
    assert actions.name(actions.LEAD + 6 * 15 + 0b1010 - 1) == "attack 8C 8H"


def test_actions_without_an_index_are_refused():
    with pytest.raises(ValueError):
        actions.encode(Action(0, Kind.ATTACK, _mask_of(["8C", "8H", "KS", "KH"])), [])
    with pytest.raises(ValueError):  # a defend of a card not on the table
        actions.encode(Action(1, Kind.DEFEND, _mask_of(["9S"]), parse_card("7S")), [])
    with pytest.raises(ValueError):
        actions.encode(Action(0, Kind.THROW, _mask_of(["8C", "8H"])), [])
    with pytest.raises(ValueError):
        actions.decode(actions.CHEATING_SIZE, 0, [])
    with pytest.raises(ValueError):  # slot 2 with two attack cards on the table
        actions.decode(actions.DEFEND + 2 * 52, 0, parse_cards(["8C", "7S"]))


def test_every_legal_action_has_one_index_and_back_on_random_tables():
    """At every position of random games on random tables (cheating ones too):
    the indices of the legal actions are distinct, inside the table's space,
    decode to those very actions, and are exactly the environment's mask."""
    blocks: Counter[str] = Counter()
    checked = 0
    for state in positions(400, seed=28):
        legal = state.legal_actions()
        if not legal:
            continue
        att = state.att
        index = actions.indices(legal, att)
        assert index == [actions.encode(a, att) for a in legal]
        assert len(set(index)) == len(legal), "two legal actions share an index"
        limit = actions.size(state.rules)
        for i, a in zip(index, legal, strict=True):
            assert 0 <= i < limit
            assert actions.decode(i, a.seat, att) == a
            blocks[next(name for name, first, n in actions.BLOCKS if first <= i < first + n)] += 1
        checked += 1
    assert checked > 20_000
    # The sweep reached every block (a block never met would be untested).
    assert set(blocks) == {name for name, _, _ in actions.BLOCKS}, blocks


def test_the_mask_is_the_legal_list():
    """Through the environment: the mask's indices decode to the engine's legal
    actions, one each (and nothing else is allowed)."""
    for options in (
        {"players": 3, "variant": "perevodnoy", "transfer_show_trump": True},
        {"players": 4, "cheating": True},
    ):
        env = DurakEnv(**options)
        env.reset(seed=5)
        steps = 0
        while env.agents and not env.terminations[env.agent_selection]:
            mask = env.observe(env.agent_selection)["action_mask"]
            allowed = [int(i) for i in mask.nonzero()[0]]
            legal = env.game.legal_actions()
            assert sorted(env.action_of(i) for i in allowed) == sorted(legal)
            env.step(allowed[steps * 7919 % len(allowed)])
            steps += 1
        assert steps > 20
