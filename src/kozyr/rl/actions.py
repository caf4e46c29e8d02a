"""The fixed action space of the Durak environment: one index per engine action.

A learner's policy outputs one of a fixed number of indices; the engine's
actions are tuples of varying shape (several cards led, a card covering a
named attack card, ...).  This module is the exact, two-way mapping between
them, documented block by block in docs/rl.md:

=============  =====  ======================================================
block          size   index
=============  =====  ======================================================
take           1      0
pass           1      1
lead           195    ``LEAD + rank * 15 + suits - 1``: cards of one rank
throw          52     ``THROW + card``
defend         312    ``DEFEND + slot * 52 + card``: cover the attack card
                      in table slot ``slot`` (0-5, play order) with ``card``
transfer       195    ``TRANSFER + rank * 15 + suits - 1``
show_trump     52     ``SHOW_TRUMP + card``
accuse         52     ``ACCUSE + card`` (cheating tables only)
cheating lead  10140  ``CHEAT_LEAD + (rank * 15 + suits - 1) * 52 + odd``:
                      the fair cards of one rank and the odd card alongside
                      (cheating tables only)
=============  =====  ======================================================

``card`` is the engine's card number (``suit * 13 + rank``, rank 0 the two),
``suits`` a 4-bit set of suits (bit ``s`` for suit ``s``, S C D H).  Honest
tables use the first :data:`HONEST_SIZE` indices; cheating tables all
:data:`CHEATING_SIZE`, with the honest indices meaning the same.  A cheating
throw-in or cover needs no index of its own: it is a throw or a defend of a
card that happens not to fit.  The mapping never needs the hidden cards: the
only state it reads is the table's attack cards (for the defend slots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kozyr.engine.actions import Action, Kind, fast_action
from kozyr.engine.cards import CARD_RANK, NUM_CARDS, NUM_RANKS, RANK_MASK
from kozyr.engine.rules import ATTACK_CAP, Rules
from kozyr.engine.state import lead_cheat

#: Non-empty sets of suits (4 bits).
SUIT_SETS: Final = 15
#: Sets of cards of one rank: 13 ranks x 15 suit sets.
RANK_SETS: Final = NUM_RANKS * SUIT_SETS
#: Attack cards a table can hold (the attack cap: rule 4; cheats count too).
SLOTS: Final = ATTACK_CAP

TAKE: Final = 0
PASS: Final = 1
LEAD: Final = 2
THROW: Final = LEAD + RANK_SETS
DEFEND: Final = THROW + NUM_CARDS
TRANSFER: Final = DEFEND + SLOTS * NUM_CARDS
SHOW_TRUMP: Final = TRANSFER + RANK_SETS
#: Indices of an honest table: everything above.
HONEST_SIZE: Final = SHOW_TRUMP + NUM_CARDS
ACCUSE: Final = HONEST_SIZE
CHEAT_LEAD: Final = ACCUSE + NUM_CARDS
#: Indices of a cheating table (rule 13).
CHEATING_SIZE: Final = CHEAT_LEAD + RANK_SETS * NUM_CARDS

#: (block, first index, size) in index order, for docs and tests.
BLOCKS: Final[tuple[tuple[str, int, int], ...]] = (
    ("take", TAKE, 1),
    ("pass", PASS, 1),
    ("lead", LEAD, RANK_SETS),
    ("throw", THROW, NUM_CARDS),
    ("defend", DEFEND, SLOTS * NUM_CARDS),
    ("transfer", TRANSFER, RANK_SETS),
    ("show_trump", SHOW_TRUMP, NUM_CARDS),
    ("accuse", ACCUSE, NUM_CARDS),
    ("cheating_lead", CHEAT_LEAD, RANK_SETS * NUM_CARDS),
)


def size(rules: Rules) -> int:
    """The number of indices at a table with ``rules``."""
    return CHEATING_SIZE if rules.cheating else HONEST_SIZE


def _rank_set(cards: int) -> int:
    """``rank * 15 + suits - 1`` of a non-empty set of cards of one rank."""
    if not cards:
        raise ValueError("an empty set of cards has no index")
    rank = CARD_RANK[(cards & -cards).bit_length() - 1]
    if cards & ~RANK_MASK[rank]:
        raise ValueError("these cards are not of one rank")
    suits = (
        (cards >> rank & 1)
        | (cards >> (NUM_RANKS + rank) & 1) << 1
        | (cards >> (2 * NUM_RANKS + rank) & 1) << 2
        | (cards >> (3 * NUM_RANKS + rank) & 1) << 3
    )
    return rank * SUIT_SETS + suits - 1


def _one_card(cards: int) -> int:
    if cards <= 0 or cards & (cards - 1):
        raise ValueError("this action plays exactly one card")
    return cards.bit_length() - 1


def encode(action: Action, attack: Sequence[int]) -> int:
    """The index of ``action``; ``attack`` is the table's attack cards in play
    order (``[a for a, _ in view.table]``), which names the defend slots.
    Raises ValueError for an action that has no index (it is never legal)."""
    _, kind, cards, target = action
    if kind == Kind.TAKE:
        return TAKE
    if kind == Kind.PASS:
        return PASS
    if kind == Kind.THROW:
        return THROW + _one_card(cards)
    if kind == Kind.DEFEND:
        if target not in attack:
            raise ValueError("the target of a defend must be an attack card on the table")
        slot = list(attack).index(target)
        if slot >= SLOTS:
            raise ValueError(f"more than {SLOTS} attack cards on the table")
        return DEFEND + slot * NUM_CARDS + _one_card(cards)
    if kind == Kind.ATTACK:
        odd = lead_cheat(cards)
        if odd < 0:
            return LEAD + _rank_set(cards)
        return CHEAT_LEAD + _rank_set(cards & ~(1 << odd)) * NUM_CARDS + odd
    if kind == Kind.TRANSFER:
        return TRANSFER + _rank_set(cards)
    if kind == Kind.SHOW_TRUMP:
        return SHOW_TRUMP + _one_card(cards)
    if kind == Kind.ACCUSE:
        return ACCUSE + _one_card(cards)
    raise ValueError(f"unknown action kind {kind!r}")


#: The index within the lead (and transfer) block of every set of cards of one rank.
_RANK_SET_OF: Final[dict[int, int]] = {}


def _cards_of_rank_set(i: int) -> int:
    rank, suits = divmod(i, SUIT_SETS)
    suits += 1
    return sum(1 << (s * NUM_RANKS + rank) for s in range(4) if suits >> s & 1)


_RANK_SET_OF.update({_cards_of_rank_set(i): i for i in range(RANK_SETS)})


def indices(legal: Sequence[Action], attack: Sequence[int]) -> list[int]:
    """``[encode(a, attack) for a in legal]``, faster: the action mask of every
    environment step goes through here."""
    out = []
    rank_set = _RANK_SET_OF
    for _, kind, cards, target in legal:
        if kind == 1:  # Kind.DEFEND
            out.append(DEFEND + attack.index(target) * NUM_CARDS + cards.bit_length() - 1)
        elif kind == 2:  # Kind.THROW
            out.append(THROW + cards.bit_length() - 1)
        elif kind <= 0:  # Kind.ATTACK
            i = rank_set.get(cards)
            out.append(LEAD + i if i is not None else encode(Action(0, Kind.ATTACK, cards), ()))
        elif kind == 3:  # Kind.TAKE
            out.append(TAKE)
        elif kind == 4:  # Kind.PASS
            out.append(PASS)
        elif kind == 7:  # Kind.ACCUSE
            out.append(ACCUSE + cards.bit_length() - 1)
        elif kind == 5:  # Kind.TRANSFER
            out.append(TRANSFER + rank_set[cards])
        else:
            out.append(encode(Action(0, Kind(kind), cards, target), attack))
    return out


def decode(index: int, seat: int, attack: Sequence[int]) -> Action:
    """The action of ``seat`` that ``index`` stands for, with the table's attack
    cards ``attack`` in play order.  Raises ValueError for an index out of range
    or a defend slot with no attack card; legality is the engine's business."""
    if not 0 <= index < CHEATING_SIZE:
        raise ValueError(f"action index {index} is out of range 0..{CHEATING_SIZE - 1}")
    if index == TAKE:
        return fast_action(seat, Kind.TAKE)
    if index == PASS:
        return fast_action(seat, Kind.PASS)
    if index < THROW:
        return fast_action(seat, Kind.ATTACK, _cards_of_rank_set(index - LEAD))
    if index < DEFEND:
        return fast_action(seat, Kind.THROW, 1 << (index - THROW))
    if index < TRANSFER:
        slot, card = divmod(index - DEFEND, NUM_CARDS)
        if slot >= len(attack):
            raise ValueError(f"no attack card in table slot {slot}")
        return fast_action(seat, Kind.DEFEND, 1 << card, attack[slot])
    if index < SHOW_TRUMP:
        return fast_action(seat, Kind.TRANSFER, _cards_of_rank_set(index - TRANSFER))
    if index < ACCUSE:
        return fast_action(seat, Kind.SHOW_TRUMP, 1 << (index - SHOW_TRUMP))
    if index < CHEAT_LEAD:
        return fast_action(seat, Kind.ACCUSE, 1 << (index - ACCUSE))
    fair, odd = divmod(index - CHEAT_LEAD, NUM_CARDS)
    return fast_action(seat, Kind.ATTACK, _cards_of_rank_set(fair) | 1 << odd)


def name(index: int) -> str:
    """A readable label of an index without a table (``"defend slot 1 with JD"``)."""
    from kozyr.engine.cards import card_str, cards_str

    if not 0 <= index < CHEATING_SIZE:
        raise ValueError(f"action index {index} is out of range 0..{CHEATING_SIZE - 1}")
    if DEFEND <= index < TRANSFER:
        slot, card = divmod(index - DEFEND, NUM_CARDS)
        return f"defend slot {slot} with {card_str(card)}"
    action = decode(index, 0, ())
    words = [action.kind.label, *cards_str(action.cards)]
    return " ".join(words)
