"""Bots at a cheating table (rule 13 of docs/rules.md): catching and cheating.

Every cheat is played face up, so a bot *could* always tell one: what makes
levels differ is **attention**, the chance that a bot notices a given cheat
in time (decided once per cheat, so asking again does not give a second
chance), and **appetite**, how readily it cheats when a cheat pays.

- A bot only ever calls out a real cheat (one of ``View.cheats``, never a fair
  card) by an opponent (never its own side's), as soon as it is asked to act
  and has noticed it — at the latest in the last call, where it otherwise
  passes at once.
- Levels 1–4 play their honest heuristic and then, with chance
  ``appetite × 0.5 ** (watchers - 1)`` (``watchers``: opponents still in the
  game — each is a pair of eyes), turn a decision that costs them into a cheat
  that does not: a take becomes a cover with their cheapest card that does not
  beat, a pass becomes a throw-in of their cheapest low card, a lead gets their
  cheapest card of another rank alongside.
- Levels 5–10 search the cheats as well: their root candidates are the honest
  ones plus the cheapest cheat of each kind (:func:`cheat_candidates`), and in
  the search every simulated opponent catches cheats (the rollouts' last call
  with ``Style.attention``, and the tree's own accusations), so a cheat is
  chosen only when it pays after the risk of being caught.

A marked bot has no cheats in its legal list, so it plays honestly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Final

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import CARD_RANK, RANK_MASK
from kozyr.engine.state import BEATERS, DEFEND, LAST_CALL, LEAD, THROW, cheat_card_in
from kozyr.engine.view import View

from .base import Bot
from .heuristic_bot import heuristic_action
from .heuristics import SOLID, cheapest, tables
from .public import decision_seed


@dataclass(frozen=True)
class CheatingProfile:
    """How one level behaves at a cheating table."""

    #: The chance of noticing a given cheat by an opponent in time.
    attention: float
    #: The chance of cheating when a cheat pays, against one watching opponent
    #: (levels 1-4; the search levels weigh every cheat themselves: 1.0).
    appetite: float


PROFILES: Final[dict[int, CheatingProfile]] = {
    1: CheatingProfile(attention=0.25, appetite=0.10),
    2: CheatingProfile(attention=0.40, appetite=0.15),
    3: CheatingProfile(attention=0.55, appetite=0.20),
    4: CheatingProfile(attention=0.65, appetite=0.25),
    5: CheatingProfile(attention=0.70, appetite=1.0),
    6: CheatingProfile(attention=0.75, appetite=1.0),
    7: CheatingProfile(attention=0.80, appetite=1.0),
    8: CheatingProfile(attention=0.85, appetite=1.0),
    9: CheatingProfile(attention=0.90, appetite=1.0),
    10: CheatingProfile(attention=0.95, appetite=1.0),
}

#: Salts that keep the cheating dice apart from the level's own decisions.
_NOTICE: Final = 0x6E6F74696365
_CHEAT: Final = 0x6368656174


def is_cheat(view: View, action: Action) -> bool:
    """Whether ``action`` (legal in ``view``) is a cheat: a throw-in of a rank not
    on the table, a cover that does not beat, a lead with a card of another rank."""
    return view.cheat_card(action) >= 0


def honest(view: View) -> tuple[Action, ...]:
    """``view.legal`` without accusations and cheats (the table read once, not per action)."""
    ranks, beaters = view.table_ranks, BEATERS[view.trump_suit]
    return tuple(
        a
        for a in view.legal
        if a.kind != Kind.ACCUSE and cheat_card_in(a.kind, a.cards, a.target, ranks, beaters) < 0
    )


def _teammates(view: View, a: int, b: int) -> bool:
    tc = view.rules.team_count
    return a % tc == b % tc if tc else a == b


def noticed(view: View, seed: int, attention: float, record: tuple[Any, ...]) -> bool:
    """Whether the bot noticed the cheat ``record``: one roll per cheat (the
    round, the card and its place on the table), whenever it is asked."""
    index, card, cheater = record[0], record[1], record[2]
    key = repr((seed, _NOTICE, view.seat, view.rounds, view.trump, index, card, cheater))
    return random.Random(key).random() < attention


def accusation(view: View, seed: int, attention: float) -> Action | None:
    """Calling out the oldest cheat by an opponent that the bot noticed, if any."""
    if not view.rules.cheating:
        return None
    for record in view.cheats:
        card, cheater = record[1], record[2]
        if _teammates(view, view.seat, cheater):
            continue
        action = Action(view.seat, Kind.ACCUSE, 1 << card)
        if action in view.legal and noticed(view, seed, attention, record):
            return action
    return None


def _watchers(view: View) -> int:
    out = set(view.out)
    return sum(
        1 for s in range(view.rules.players) if s not in out and not _teammates(view, s, view.seat)
    )


def heuristic_cheat(view: View, honest_action: Action, seed: int, appetite: float) -> Action:
    """Levels 1-4: ``honest_action``, or a cheat that saves what it costs: a
    cover instead of a take, a low card thrown in instead of a pass (while the
    deck lasts), the cheapest card of another rank alongside a lead."""
    kind = honest_action.kind
    if kind not in (Kind.TAKE, Kind.PASS, Kind.ATTACK):
        return honest_action
    rng = random.Random(decision_seed(seed ^ _CHEAT, view))
    if rng.random() >= appetite * 0.5 ** (max(1, _watchers(view)) - 1):
        return honest_action
    t = tables(view.trump_suit, view.rules.deck)
    cheat: Action | None = None
    if kind == Kind.TAKE:
        cheat = next((a for a in cheat_candidates(view) if a.kind == Kind.DEFEND), None)
    elif kind == Kind.PASS and view.deck_count > 0:
        off = view.hand & ~view.table_ranks
        if off and t.cost[cheapest(off, t.cost)] <= t.dump:
            cheat = Action(view.seat, Kind.THROW, 1 << cheapest(off, t.cost))
    elif kind == Kind.ATTACK:
        rank = CARD_RANK[honest_action.cards.bit_length() - 1]
        off = view.hand & ~RANK_MASK[rank]
        if off:
            extra = 1 << cheapest(off, t.cost)
            cheat = Action(view.seat, Kind.ATTACK, honest_action.cards | extra)
    return cheat if cheat is not None and cheat in view.legal else honest_action


def cheat_candidates(view: View) -> list[Action]:
    """The cheapest cheat of each kind the bot may make here (costs from the
    level-4 tables): per uncovered card the cheapest card that does not beat it,
    the cheapest throw-in of a rank not on the table, and the heuristic's lead
    with the cheapest card of another rank alongside."""
    legal = set(view.legal)
    t = tables(view.trump_suit, view.rules.deck)
    hand = view.hand
    out: list[Action] = []
    if view.phase == DEFEND:
        beaters = BEATERS[view.trump_suit]
        for a, d in view.table:
            if d < 0 and hand & ~beaters[a]:
                c = cheapest(hand & ~beaters[a], t.cost)
                out.append(Action(view.seat, Kind.DEFEND, 1 << c, a))
    elif view.phase == THROW:
        off = hand & ~view.table_ranks
        if off:
            out.append(Action(view.seat, Kind.THROW, 1 << cheapest(off, t.cost)))
    elif view.phase == LEAD:
        lead = heuristic_action(replace(view, legal=honest(view)), SOLID, 1.0).cards
        rank = CARD_RANK[lead.bit_length() - 1]
        off = hand & ~RANK_MASK[rank]
        if off:
            out.append(Action(view.seat, Kind.ATTACK, lead | 1 << cheapest(off, t.cost)))
    return [a for a in out if a in legal]


class CheatingTableBot:
    """Any level's bot, taught rule 13: at a cheating table it catches cheats
    with its level's attention and cheats with its appetite (see the module
    docstring); at any other table it is exactly the bot it wraps."""

    def __init__(self, inner: Bot, profile: CheatingProfile, seed: int, searches: bool) -> None:
        self.inner = inner
        self.profile = profile
        self.seed = seed
        self.searches = searches
        self.name = inner.name

    @property
    def last(self) -> Any:
        """The wrapped search bot's stats of its last decision (levels 5-10)."""
        return getattr(self.inner, "last", None)

    def choose(self, view: View) -> Action:
        if not view.rules.cheating:
            return self.inner.choose(view)
        caught = accusation(view, self.seed, self.profile.attention)
        if caught is not None:
            return caught
        if view.phase == LAST_CALL:
            return Action(view.seat, Kind.PASS)
        fair = honest(view)
        if not fair:  # only accusations left: not the bot's turn
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if self.searches:
            options = fair + tuple(a for a in cheat_candidates(view) if a not in fair)
            action = self.inner.choose(replace(view, legal=options))
            if action.kind == Kind.ACCUSE or action not in options:  # the solver's own ideas
                action = heuristic_action(replace(view, legal=fair), SOLID, 1.0)
            return action
        action = self.inner.choose(replace(view, legal=fair))
        return heuristic_cheat(view, action, self.seed, self.profile.appetite)
