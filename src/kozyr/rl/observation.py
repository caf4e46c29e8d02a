"""The observation: one fixed-size uint8 array made from a seat's View alone.

:func:`encode` reads nothing but a :class:`~kozyr.engine.view.View`, which holds
the seat's own hand and what is public, so an observation cannot carry a
hidden card (tests/rl/test_observation.py changes every hidden card and checks
the array does not move).  :func:`encode_state` is the same encoder fed the
same fields straight from the referee's state, which the environment uses
because building the View cost as much as the rest of a step.

Seats are *relative*: entry ``k`` of each per-seat feature and the ``known_k``
plane describe the seat ``k`` places clockwise from the observer (0 is the
observer), so one policy can play any seat.

Layout, in order (docs/rl.md has the table with every offset):

* 25 card planes of 52 entries (card number ``suit * 13 + rank``): ``hand``,
  ``attack_0..5`` and ``cover_0..5`` (the table, slot by slot in play order:
  the slots of the defend actions), ``discard``, ``known_0..5``,
  ``trump_card``, ``unseen``, ``cheats`` (cheat cards on the table, which
  anyone watching can tell), ``cleared`` (cards called out and found fair),
  ``mine`` (table cards the observer played: it cannot call those out);
* 13 per-seat features (:data:`SEAT_FEATURES`), each six entries: one per
  relative seat (0 where the table has fewer seats);
* :data:`GLOBAL_FEATURES`: the round, the phase, the trump suit and the table
  rules.

Card sets are bit masks in the engine; they become planes through one
``numpy.unpackbits`` call, and the small numbers are one ``bytes`` object:
a handful of numpy calls per observation, which keeps the encoder fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from kozyr.engine.cards import NUM_CARDS, deck_mask
from kozyr.engine.rules import Rules
from kozyr.engine.state import OVER, PHASE_NAMES, PLAY_SEAT_SHIFT, GameState
from kozyr.engine.view import View

from .actions import SLOTS

MAX_SEATS: Final = 6

PLANES: Final[tuple[str, ...]] = (
    "hand",
    *(f"attack_{i}" for i in range(SLOTS)),
    *(f"cover_{i}" for i in range(SLOTS)),
    "discard",
    *(f"known_{k}" for k in range(MAX_SEATS)),
    "trump_card",
    "unseen",
    "cheats",
    "cleared",
    "mine",
)

#: Per seat (relative): (name, highest value).
SEAT_FEATURES: Final[tuple[tuple[str, int], ...]] = (
    ("present", 1),  # the seat exists at this table (players < 6 leaves blocks empty)
    ("hand_count", NUM_CARDS),
    ("out", 1),  # has left the game (rule 9)
    ("teammate", 1),  # same team as the observer (the observer itself included)
    ("attacker", 1),  # main attacker (after a transfer: who transferred last)
    ("defender", 1),
    ("round_attacker", 1),  # led the round (draws first)
    ("to_move", 1),
    ("trump_holder", 1),  # drew (or was dealt) the face-up trump
    ("passed", 1),  # passed since the last card was played
    ("shown", 1),  # showed a trump for a transfer this round
    ("marked", 1),  # cheating tables: caught cheating or accused a fair card
    ("pending", 1),  # cheating tables: still to answer the last call
)

_FIRST_ROUND_CAPS: Final = ("off", "first_round", "until_first_bito")
_TEAMS: Final = ("none", "2v2", "3v3", "2v2v2")
_DECKS: Final = (24, 36, 52)

#: Global features: (name, highest value).
GLOBAL_FEATURES: Final[tuple[tuple[str, int], ...]] = (
    ("deck_count", NUM_CARDS),
    ("limit", SLOTS),  # attack cards allowed this round (0 once the game is over)
    ("attack_cards", SLOTS),
    ("uncovered", SLOTS),
    ("taking", 1),
    ("first_round", 1),
    ("bitos", NUM_CARDS // 2),
    *((f"phase_{p}", 1) for p in PHASE_NAMES),
    *((f"trump_suit_{s}", 1) for s in "SCDH"),
    ("players", MAX_SEATS),
    *((f"deck_{d}", 1) for d in _DECKS),
    ("perevodnoy", 1),
    ("lead_multiple", 1),
    *((f"first_round_cap_{c}", 1) for c in _FIRST_ROUND_CAPS),
    ("throw_in_neighbours", 1),
    ("transfer_show_trump", 1),
    *((f"teams_{t}", 1) for t in _TEAMS),
    ("repetition_draw", 1),
    ("throw_in_after_take", 1),
    ("cheating", 1),
)

PLANES_SIZE: Final = len(PLANES) * NUM_CARDS
SEATS_OFFSET: Final = PLANES_SIZE
GLOBAL_OFFSET: Final = SEATS_OFFSET + MAX_SEATS * len(SEAT_FEATURES)
SIZE: Final = GLOBAL_OFFSET + len(GLOBAL_FEATURES)


def feature_names() -> list[str]:
    """The name of every entry, in order (``hand:6S``, ``seat1:hand_count``, ...)."""
    from kozyr.engine.cards import card_str

    names = [f"{p}:{card_str(c)}" for p in PLANES for c in range(NUM_CARDS)]
    names += [f"{f}:seat{k}" for f, _ in SEAT_FEATURES for k in range(MAX_SEATS)]
    names += [f for f, _ in GLOBAL_FEATURES]
    return names


def high() -> npt.NDArray[np.uint8]:
    """The highest value of every entry (the lowest is 0 everywhere)."""
    top = [1] * PLANES_SIZE
    top += [h for _, h in SEAT_FEATURES for _ in range(MAX_SEATS)]
    top += [h for _, h in GLOBAL_FEATURES]
    return np.array(top, dtype=np.uint8)


def _rules_features(rules: Rules) -> list[int]:
    """The table's options as features: fixed for a game, made once per table."""
    return [
        int(rules.players),
        *(int(rules.deck == d) for d in _DECKS),
        int(rules.variant == "perevodnoy"),
        int(rules.lead_multiple),
        *(int(rules.first_round_cap == c) for c in _FIRST_ROUND_CAPS),
        int(rules.throw_in == "neighbours"),
        int(rules.transfer_show_trump),
        *(int(rules.teams == t) for t in _TEAMS),
        int(rules.repetition_draw),
        int(rules.throw_in_after_take),
        int(rules.cheating),
    ]


_PHASES: Final = len(PHASE_NAMES)


#: _FLAGS[m]: the six 0/1 bytes of a 6-bit mask of relative seats (seat k = bit k).
_FLAGS: Final[tuple[bytes, ...]] = tuple(
    bytes((m >> k) & 1 for k in range(MAX_SEATS)) for m in range(1 << MAX_SEATS)
)
_PLANE_BYTES: Final = (PLANES_SIZE + 7) // 8
_LAST_BIT: Final = _PLANE_BYTES * 8 - 1
_BEFORE_FIRST_BIT: Final = _LAST_BIT - PLANES_SIZE
_PHASE: Final = tuple(bytes(int(i == p) for i in range(_PHASES)) for p in range(_PHASES))
_SUIT: Final = tuple(bytes(int(i == s) for i in range(4)) for s in range(4))


class _Table:
    """What stays the same for every observation at one table, made once."""

    __slots__ = ("deck", "present", "rotated", "rules", "rules_bytes", "teams")

    def __init__(self, rules: Rules) -> None:
        n = rules.players
        tc = rules.team_count
        self.rules = rules
        self.deck = deck_mask(rules.deck)
        self.present = _FLAGS[(1 << n) - 1]
        #: rotated[me][m]: a mask ``m`` of (absolute) seats as the six bytes of
        #: relative seats, seat ``me`` first: one lookup per seat feature.
        self.rotated = tuple(
            tuple(
                _FLAGS[sum(1 << ((s - me) % n) for s in range(n) if m >> s & 1)]
                for m in range(1 << n)
            )
            for me in range(n)
        )
        self.rules_bytes = bytes(_rules_features(rules))
        #: teams[me]: the observer's team as relative seats.
        self.teams = tuple(
            _FLAGS[sum(1 << k for k in range(n) if (tc and (me + k) % n % tc == me % tc) or k == 0)]
            for me in range(n)
        )


_last_table: _Table | None = None
_tables: dict[Rules, _Table] = {}


def _table(rules: Rules) -> _Table:
    """The table's constants: the last table's at the cost of one identity test
    (an environment keeps one Rules object), any other's from a dict."""
    global _last_table
    table = _last_table
    if table is None or table.rules is not rules:
        table = _tables.get(rules)
        if table is None:
            table = _tables[rules] = _Table(rules)
        _last_table = table
    return table


def encode(view: View) -> npt.NDArray[np.uint8]:
    """The observation of ``view.seat``: a uint8 array of :data:`SIZE` entries
    (0/1 flags and small counts; uint8 keeps replay buffers a quarter of float32's
    size, and a network converts it to float in one call)."""
    cheats = 0
    for rec in view.cheats:
        cheats |= 1 << rec[1]
    return _encode(
        view.rules,
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
        view.marked,
        view.cleared,
        view.pending,
        view.plays,
        cheats,
    )


def encode_state(game: GameState, seat: int) -> npt.NDArray[np.uint8]:
    """``encode(view_of(game, seat))`` without building the View.

    Why: a View is a frozen dataclass of 30 fields whose construction cost as
    much as the rest of an environment step; the environment calls this.  It
    hands :func:`_encode` exactly the fields ``view_of`` copies into a View,
    under the same names, and tests/rl/test_observation.py checks the two
    agree at every position of random games on random tables."""
    return _encode(
        game.rules,
        seat,
        game.hands[seat],
        [h.bit_count() for h in game.hands],
        game.known,
        zip(game.att, game.dfn, strict=True),
        len(game.stock),
        game.discard,
        game.trump,
        game.trump_holder,
        game.phase,
        game.attacker,
        game.defender,
        game.starter,
        game.to_move,
        game.limit,
        game.taking,
        game.passed,
        game.shown,
        game.out,
        game.rounds,
        game.bitos,
        game.marked,
        game.cleared,
        game.pending,
        game.plays,
        game.cheat_cards,
    )


def _encode(
    rules: Rules,
    me: int,
    hand: int,
    hand_counts: Sequence[int],
    known: Sequence[int],
    table: Iterable[tuple[int, int]],
    deck_count: int,
    discard: int,
    trump: int,
    trump_holder: int | None,
    phase: int,
    attacker: int,
    defender: int,
    round_attacker: int,
    to_move: int | None,
    limit: int,
    taking: bool,
    passed: int,
    shown: int,
    out_seats: Iterable[int],
    rounds: int,
    bitos: int,
    marked: int,
    cleared: int,
    pending: int,
    plays: Sequence[int],
    cheats: int,
) -> npt.NDArray[np.uint8]:
    """The one encoder: the fields of a View (docs/rl.md, the observation)."""
    t = _table(rules)
    n = rules.players
    over = phase == OVER

    # The card planes: one integer of 25 x 52 bits, unpacked in one call.
    big = hand
    seen = hand | discard | 1 << trump
    shift = NUM_CARDS
    attack_cards = uncovered = 0
    for a, d in table:
        big |= 1 << (shift + a)
        seen |= 1 << a
        if d >= 0:
            big |= 1 << (shift + SLOTS * NUM_CARDS + d)
            seen |= 1 << d
        else:
            uncovered += 1
        shift += NUM_CARDS
        attack_cards += 1
    shift = (1 + 2 * SLOTS) * NUM_CARDS
    big |= discard << shift
    for k in range(n):
        mask = known[(me + k) % n]
        if mask:  # mostly nothing is known
            big |= mask << (shift + (k + 1) * NUM_CARDS)
            seen |= mask
    shift += (MAX_SEATS + 1) * NUM_CARDS
    big |= 1 << (shift + trump)
    shift += NUM_CARDS
    big |= (t.deck & ~seen) << shift  # unseen: in other hands or in the deck
    if rules.cheating:  # rule 13
        mine = 0
        for p in plays:
            if p >> PLAY_SEAT_SHIFT & 7 == me:
                mine |= 1 << (p & 63)
        big |= cheats << (shift + NUM_CARDS)
        big |= cleared << (shift + 2 * NUM_CARDS)
        big |= mine << (shift + 3 * NUM_CARDS)
    # Big-endian bytes unpacked most significant bit first: read backwards, entry i
    # is bit i (numpy's bitorder= and count= cost more than reading backwards).
    bits = np.unpackbits(np.frombuffer(big.to_bytes(_PLANE_BYTES, "big"), dtype=np.uint8))

    # The seat features, one block of six relative seats per feature.
    out = 0
    for s in out_seats:
        out |= 1 << s
    rot = t.rotated[me]
    counts = list(hand_counts)
    rest = b"".join(
        (
            t.present,
            bytes(counts[me:] + counts[:me] + [0] * (MAX_SEATS - n)),
            rot[out],
            t.teams[me],
            rot[0 if over else 1 << attacker],
            rot[0 if over else 1 << defender],
            rot[0 if over else 1 << round_attacker],
            rot[0 if to_move is None else 1 << to_move],
            rot[0 if trump_holder is None else 1 << trump_holder],
            rot[passed],
            rot[shown],
            rot[marked],
            rot[pending],
            bytes(
                (
                    deck_count,
                    0 if over else limit,
                    attack_cards,
                    uncovered,
                    taking,
                    rounds == 0,
                    bitos,
                )
            ),
            _PHASE[phase],
            _SUIT[trump // 13],
            t.rules_bytes,
        )
    )
    array: npt.NDArray[np.uint8] = np.concatenate(
        (bits[_LAST_BIT:_BEFORE_FIRST_BIT:-1], np.frombuffer(rest, dtype=np.uint8))
    )
    return array
