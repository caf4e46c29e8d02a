"""Small helpers about public knowledge and per-decision seeding.

Bots are stateless between calls: everything they may remember is already in
the :class:`View` (discards, cards known in each hand, the trump's holder).  A
decision's random numbers come from :func:`decision_seed`, a hash of the bot's
seed and the whole view, so the same seed and view always give the same action
whatever was asked before — which is what makes bots reproducible and lets the
tests prove they ignore hidden cards.
"""

from __future__ import annotations

from functools import lru_cache
from hashlib import blake2b

from kozyr.engine.cards import deck_mask
from kozyr.engine.state import GameState
from kozyr.engine.view import View

#: Rule options added after the first arena runs, with their defaults.  They
#: enter a decision's seed only when set otherwise, so every seed — and every
#: arena figure published before they existed — stays as it was.
LATER_OPTIONS: dict[str, object] = {
    "repetition_draw": True,
    "throw_in_after_take": True,
    "cheating": False,
}


def decision_seed(seed: int, view: View) -> int:
    """A 64-bit seed from the bot's seed and everything in ``view``.

    ``repr`` of ints and strings does not depend on Python's hash
    randomisation, so the value is the same on every run and platform.
    """
    rules = view.rules.to_dict()
    for name, default in LATER_OPTIONS.items():
        if rules[name] == default:
            del rules[name]
    key = (
        seed,
        sorted(rules.items()),
        view.seat,
        view.hand,
        view.hand_counts,
        view.known,
        view.table,
        view.deck_count,
        view.discard,
        view.trump,
        view.trump_holder,
        view.phase,
        view.attacker,
        view.defender,
        view.round_attacker,
        view.to_move,
        view.limit,
        view.taking,
        view.passed,
        view.shown,
        view.out,
        view.rounds,
        view.bitos,
        view.last_play,
    )
    digest = blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


@lru_cache(maxsize=8)
def full_deck(deck: int) -> int:
    """Every card of a 24-, 36- or 52-card deck as a mask."""
    return deck_mask(deck)


def table_mask(att: list[int], dfn: list[int]) -> int:
    """The cards on the table."""
    m = 0
    for c in att:
        m |= 1 << c
    for c in dfn:
        if c >= 0:
            m |= 1 << c
    return m


def view_threat(view: View, defender: int) -> int:
    """Cards that ``defender`` may hold, as far as ``view.seat`` can tell."""
    return view.unseen() | view.known[defender]


def state_threat(state: GameState, seat: int, defender: int) -> int:
    """Cards that ``defender`` may hold as far as ``seat`` can tell in ``state``
    (the same public reasoning as :func:`view_threat`, for rollouts)."""
    seen = state.hands[seat] | state.discard | table_mask(state.att, state.dfn)
    seen |= 1 << state.trump
    known = state.known
    for s in range(state.n):
        if s != defender:
            seen |= known[s]
    return full_deck(state.rules.deck) & ~seen
