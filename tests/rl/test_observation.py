"""The observation is made from the seat's View alone and says what it means."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np

from kozyr.bots.sampler import sample_state
from kozyr.engine.cards import NUM_CARDS
from kozyr.engine.state import OVER
from kozyr.engine.view import View, view_of
from kozyr.rl import observation as obs
from kozyr.rl.env import DurakEnv

from .helpers import positions

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def _plane(o: np.ndarray, name: str) -> int:
    """The card set in plane ``name`` of an observation, as a bit mask."""
    i = obs.PLANES.index(name) * NUM_CARDS
    return sum(1 << c for c in range(NUM_CARDS) if o[i + c])


def _seat(o: np.ndarray, feature: str) -> list[int]:
    names = [f for f, _ in obs.SEAT_FEATURES]
    i = obs.SEATS_OFFSET + names.index(feature) * obs.MAX_SEATS
    return [int(x) for x in o[i : i + obs.MAX_SEATS]]


def _global(o: np.ndarray, feature: str) -> int:
    names = [f for f, _ in obs.GLOBAL_FEATURES]
    return int(o[obs.GLOBAL_OFFSET + names.index(feature)])


def _check_reads_back(o: np.ndarray, v: View) -> None:
    """What the array says, read back by name, is what the view says."""
    n = v.rules.players
    rel = [(v.seat + k) % n for k in range(n)]
    assert _plane(o, "hand") == v.hand
    assert _plane(o, "discard") == v.discard
    assert _plane(o, "trump_card") == 1 << v.trump
    assert _plane(o, "unseen") == v.unseen()
    for k, s in enumerate(rel):
        assert _plane(o, f"known_{k}") == v.known[s]
    for i in range(6):
        a, d = v.table[i] if i < len(v.table) else (-1, -1)
        assert _plane(o, f"attack_{i}") == (1 << a if a >= 0 else 0)
        assert _plane(o, f"cover_{i}") == (1 << d if d >= 0 else 0)
    assert _seat(o, "hand_count")[:n] == [v.hand_counts[s] for s in rel]
    assert _seat(o, "present") == [1] * n + [0] * (6 - n)
    assert _seat(o, "to_move")[:n] == [int(s == v.to_move) for s in rel]
    if v.phase != OVER:
        assert _seat(o, "defender")[:n] == [int(s == v.defender) for s in rel]
        assert _global(o, "limit") == v.limit
    assert _seat(o, "out")[:n] == [int(s in v.out) for s in rel]
    assert _global(o, "deck_count") == v.deck_count
    assert _global(o, f"phase_{['lead', 'defend', 'throw', 'over', 'last_call'][v.phase]}") == 1
    assert _global(o, "players") == n
    if v.rules.cheating:
        assert _plane(o, "cleared") == v.cleared
        cheats = 0
        for rec in v.cheats:
            cheats |= 1 << rec[1]
        assert _plane(o, "cheats") == cheats
        assert _seat(o, "marked")[:n] == [v.marked >> s & 1 for s in rel]


def test_the_layout_is_one_name_per_entry():
    names = obs.feature_names()
    assert len(names) == obs.SIZE == len(obs.high())
    assert len(set(names)) == obs.SIZE


def test_the_state_encoder_is_the_view_encoder_and_reads_back():
    """At every position of random games on random tables, for every seat, the
    environment's encoder (from the state) gives exactly the View encoder's
    array, within the bounds of the observation space, and it reads back."""
    seen = 0
    high = obs.high()
    for state in positions(60, seed=7):
        for seat in range(state.n):
            v = view_of(state, seat)
            o = obs.encode(v)
            assert o.dtype == np.uint8 and o.shape == (obs.SIZE,)
            assert np.array_equal(obs.encode_state(state, seat), o)
            assert (o <= high).all()
            if seen % 7 == 0:  # reading back is slow: a sample of the positions
                _check_reads_back(o, v)
            seen += 1
    assert seen > 8_000


def test_no_hidden_card_moves_the_observation():
    """Deal every hidden card again (the other hands and the deck, as a bot's
    sampler does, keeping all that is public): the observation stays the same,
    from the View and from the state alike; the hidden cards did change."""
    rng = random.Random(13)
    changed = 0
    for i, state in enumerate(positions(60, seed=11)):
        if i % 3:
            continue
        seat = rng.randrange(state.n)
        v = view_of(state, seat)
        other = sample_state(v, rng)
        other.log = list(state.log or [])
        assert view_of(other, seat).hand == v.hand
        if other.hands != state.hands or other.stock != state.stock:
            changed += 1
        assert np.array_equal(obs.encode_state(other, seat), obs.encode_state(state, seat))
        assert np.array_equal(obs.encode(view_of(other, seat)), obs.encode(v))
    assert changed > 500


def test_seats_see_different_things():
    """A control for the test above: the observation does move with what a seat
    knows (two seats' observations of one position differ, by their hands)."""
    env = DurakEnv(players=3)
    env.reset(seed=2)
    a, b = (env.observe(f"player_{s}")["observation"] for s in (0, 1))
    assert not np.array_equal(a, b)
    assert _plane(a, "hand") == env.game.hands[0]
    assert _plane(b, "hand") == env.game.hands[1]


def test_docs_list_every_block_at_its_offset():
    """docs/rl.md's observation table gives each block's first entry."""
    text = DOCS.read_text(encoding="utf-8")
    offsets = {
        name: int(first)
        for name, first in re.findall(r"^\| `([A-Za-z_0-9]+)` \| (\d+) \|", text, re.M)
    }
    expected = {p: i * NUM_CARDS for i, p in enumerate(obs.PLANES)}
    expected.update(
        {f: obs.SEATS_OFFSET + i * obs.MAX_SEATS for i, (f, _) in enumerate(obs.SEAT_FEATURES)}
    )
    expected.update({f: obs.GLOBAL_OFFSET + i for i, (f, _) in enumerate(obs.GLOBAL_FEATURES)})
    assert offsets == expected
