"""Hypothesis strategies, play policies and an independent reference model of the
rules, shared by the engine test modules.

The reference model (``ref_initial``, ``ref_legal``, ``ref_step``) is written from
the rules text (the issue and docs/rules.md), not from ``state.py``, in plain
Python with no shared code: it recomputes every transition from a snapshot of the
state before an action, so each step of a game is checked on its own and a
mistake never snowballs.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from hypothesis import settings
from hypothesis import strategies as st

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import (
    CARD_RANK,
    CARD_SUIT,
    RANK_MASK,
    RANK_SIX,
    SUIT_MASK,
    cards_of,
    deck_mask,
)
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules, Teams, Variant
from kozyr.engine.state import PLAY_COVER, PLAY_SEAT_SHIFT, GameState

LEAD, DEFEND, THROW, OVER, LAST_CALL = 0, 1, 2, 3, 4
ATTACK, DEFEND_K, THROW_K = Kind.ATTACK, Kind.DEFEND, Kind.THROW
TAKE, PASS, TRANSFER, SHOW = Kind.TAKE, Kind.PASS, Kind.TRANSFER, Kind.SHOW_TRUMP
ACCUSE = Kind.ACCUSE
HAND = 6

#: Team layouts and the table size each needs.
TEAM_PLAYERS: dict[Teams, int] = {"2v2": 4, "3v3": 6, "2v2v2": 6}


def examples(n: int) -> int:
    """``n`` examples under the dev profile (100), scaled up for the ci profile."""
    profile = settings.default
    assert profile is not None  # hypothesis always has a current profile
    return max(1, n * profile.max_examples // 100)


# --------------------------------------------------------------------- strategies
@st.composite
def rules_st(
    draw: st.DrawFn, variant: Variant | None = None, cheating: bool | None = None
) -> Rules:
    """Any valid table: 2-6 players, a deck the deal fits in, every option
    (``cheating`` too, rule 13, unless the caller fixes it)."""
    players = draw(st.integers(2, 6))
    deck = draw(st.sampled_from([d for d in (24, 36, 52) if players * HAND <= d]))
    variants: list[Variant] = ["podkidnoy", "perevodnoy"]
    var = variant if variant is not None else draw(st.sampled_from(variants))
    layouts: list[Teams] = ["none", *(t for t, p in TEAM_PLAYERS.items() if p == players)]
    teams = draw(st.sampled_from(layouts))
    return Rules(
        players=players,
        deck=deck,
        variant=var,
        lead_multiple=draw(st.booleans()),
        first_round_cap=draw(st.sampled_from(["off", "first_round", "until_first_bito"])),
        throw_in=draw(st.sampled_from(["all", "neighbours"])),
        transfer_show_trump=var == "perevodnoy" and draw(st.booleans()),
        teams=teams,
        first_attacker=draw(st.sampled_from(["lowest_trump", "durak_attacked", "after_durak"])),
        pogony=draw(st.booleans()),
        throw_in_after_take=draw(st.booleans()),
        cheating=draw(st.booleans()) if cheating is None else cheating,
    )


seeds = st.integers(0, 2**64 - 1)


@st.composite
def explicit_deal_st(draw: st.DrawFn, rules: Rules) -> Deal:
    """Any position a game may start from: hands of any size (none empty while
    the deck lasts), a deck of any length, cards already discarded, an empty
    deck with some players already out, a named first attacker or previous durak."""
    n = rules.players
    cards = draw(st.permutations(cards_of(deck_mask(rules.deck))))
    size = len(cards)
    stock = draw(st.integers(0, size - n))
    discard = draw(st.integers(0, size - n - stock))
    rest = cards[stock + discard :]
    hands = [0] * n
    if stock:
        for seat in range(n):  # while the deck lasts every player holds cards
            hands[seat] |= 1 << rest[seat]
        rest = rest[n:]
    owners = draw(st.lists(st.integers(0, n - 1), min_size=len(rest), max_size=len(rest)))
    for c, seat in zip(rest, owners, strict=True):
        hands[seat] |= 1 << c
    deck = tuple(cards[:stock])
    trump = deck[-1] if deck else draw(st.sampled_from(cards))
    holders = [seat for seat in range(n) if hands[seat]]
    first = None
    previous = None
    if bool(holders) and draw(st.booleans()):
        if draw(st.booleans()):
            first = draw(st.sampled_from(holders))
        else:
            previous = draw(st.integers(0, n - 1))
    discard_mask = 0
    for c in cards[stock : stock + discard]:
        discard_mask |= 1 << c
    return Deal(tuple(hands), deck, trump, discard_mask, first, previous)


@st.composite
def game_st(
    draw: st.DrawFn, explicit: float = 0.3, cheating: bool | None = None
) -> tuple[Rules, Deal]:
    """A table and a deal: mostly seeded deals, sometimes any explicit position."""
    rules = draw(rules_st(cheating=cheating))
    if draw(st.integers(0, 99)) < explicit * 100:
        return rules, draw(explicit_deal_st(rules))
    return rules, Deal.from_seed(rules, draw(seeds))


STYLES = ("uniform", "sample", "taker", "fighter", "transferrer")
styles = st.sampled_from(STYLES)


class Policy:
    """A seeded random player.  ``uniform`` picks uniformly from legal_actions,
    ``sample`` goes through sample_action, the others bias the choice by kind so
    that long pick-up rounds, full tables and transfer chains all get played.

    At cheating tables (rule 13) a policy also lets a random seat speak out of
    turn now and then (an accusation, or a pass in the last call, from
    ``legal_actions_for``), at a rate drawn per policy: from never to often, so
    that both cheats that survive and cheats that are caught get played.  The
    out-of-turn choices use their own generator: at honest tables a policy plays
    exactly as it always did."""

    WEIGHTS: ClassVar[dict[str, dict[int, float]]] = {
        "taker": {TAKE: 6.0, PASS: 0.3, ACCUSE: 0.3},
        "fighter": {TAKE: 0.05, PASS: 0.2, DEFEND_K: 3.0, THROW_K: 3.0, TRANSFER: 3.0, ACCUSE: 0.5},
        "transferrer": {TRANSFER: 20.0, SHOW: 20.0, TAKE: 0.3, ACCUSE: 0.1},
    }
    INTERRUPT_RATES: ClassVar[tuple[float, ...]] = (0.0, 0.02, 0.1, 0.3)

    def __init__(self, seed: int, style: str = "uniform") -> None:
        self.rng = random.Random(seed)
        self.style = style
        self.side = random.Random(seed ^ 0xC4EA7)
        self.interrupt = self.side.choice(self.INTERRUPT_RATES)

    def choose(self, state: GameState, legal: list[Action]) -> Action:
        if state.rules.cheating and self.interrupt and self.side.random() < self.interrupt:
            seat = self.side.randrange(state.n)
            if seat != state.to_move:
                others = state.legal_actions_for(seat)
                if others:
                    return self.side.choice(others)
        if self.style == "sample":
            return state.sample_action(self.rng.random())
        if self.style == "uniform":
            return self.rng.choice(legal)
        w = self.WEIGHTS[self.style]
        weights = [w.get(a.kind, 1.0) * (1 + a.cards.bit_count()) for a in legal]
        return self.rng.choices(legal, weights)[0]


# ------------------------------------------------------------------- card helpers
def popcount(m: int) -> int:
    return m.bit_count()


def submasks(m: int) -> Iterator[int]:
    """Every non-empty subset of ``m``."""
    sub = m
    while sub:
        yield sub
        sub = (sub - 1) & m


def table_mask(att: list[int], dfn: list[int]) -> int:
    m = 0
    for c in att + dfn:
        if c >= 0:
            m |= 1 << c
    return m


def ranks_of(mask: int) -> set[int]:
    return {CARD_RANK[c] for c in cards_of(mask)}


def beats(cover: int, attack: int, trump_suit: int) -> bool:
    """The rules of covering: higher of the same suit, or a trump on a non-trump."""
    if CARD_SUIT[cover] == CARD_SUIT[attack]:
        return CARD_RANK[cover] > CARD_RANK[attack]
    return CARD_SUIT[cover] == trump_suit


def team_of(rules: Rules, seat: int) -> int:
    tc = rules.team_count
    return seat % tc if tc else seat


# ---------------------------------------------------------------- the snapshot
@dataclass
class Snap:
    """Everything about a state the rules talk about, as plain Python values."""

    hands: list[int]
    known: list[int]
    stock: list[int]
    trump: int
    trump_holder: int | None
    discard: int
    att: list[int]
    dfn: list[int]
    phase: int
    to_move: int | None
    attacker: int
    defender: int
    starter: int
    limit: int
    taking: bool
    passed: int
    shown: int
    out: list[int]
    rounds: int
    bitos: int
    last_play: int
    #: (durak, team, pogony, draw by repetition)
    result: tuple[int | None, tuple[int, ...], bool, bool] | None
    #: Model only: (the last round's defender, whether the last play was all sixes).
    pogony_hint: tuple[int | None, bool] = (None, False)
    #: Model only: every round-start position of the game so far (repetition rule).
    history: list[tuple[object, ...]] = field(default_factory=list)
    # Cheating tables (rule 13), all public; 0 and empty at honest tables.
    #: Seats marked (caught cheating, or accused a fair card): they play honestly.
    marked: int = 0
    #: Cards on the table called out and found fair.
    cleared: int = 0
    #: In the last call: the seats still to answer.
    pending: int = 0
    #: Every card on the table in the order played: (card, seat, is a cover).
    plays: list[tuple[int, int, bool]] = field(default_factory=list)
    #: The cheat cards on the table.
    cheats: int = 0
    #: Model only: (cheat card, cheater, a deep copy of the whole Snap just before
    #: the cheat was played) for every cheat on the table, oldest first.
    cheat_log: list[tuple[int, int, Snap]] = field(default_factory=list)

    @property
    def trump_suit(self) -> int:
        return CARD_SUIT[self.trump]


def snap(s: GameState) -> Snap:
    r = s.result
    return Snap(
        hands=list(s.hands),
        known=list(s.known),
        stock=list(s.stock),
        trump=s.trump,
        trump_holder=s.trump_holder,
        discard=s.discard,
        att=list(s.att),
        dfn=list(s.dfn),
        phase=s.phase,
        to_move=s.to_move,
        attacker=s.attacker,
        defender=s.defender,
        starter=s.starter,
        limit=s.limit,
        taking=s.taking,
        passed=s.passed,
        shown=s.shown,
        out=list(s.out),
        rounds=s.rounds,
        bitos=s.bitos,
        last_play=s.last_play,
        result=None if r is None else (r.durak, tuple(r.team), r.pogony, r.repetition),
        marked=s.marked,
        cleared=s.cleared,
        pending=s.pending,
        plays=[(p & 63, p >> PLAY_SEAT_SHIFT & 7, bool(p & PLAY_COVER)) for p in s.plays],
        cheats=s.cheat_cards,
    )


def full_snapshot(s: GameState) -> dict[str, Any]:
    """Every readable attribute plus to_json: to prove a state did not change."""
    out: dict[str, Any] = {"json": s.to_json()}
    for name in [
        "hands",
        "known",
        "stock",
        "trump",
        "trump_suit",
        "trump_holder",
        "discard",
        "att",
        "dfn",
        "uncovered",
        "table_ranks",
        "phase",
        "to_move",
        "attacker",
        "defender",
        "starter",
        "limit",
        "taking",
        "passed",
        "shown",
        "order",
        "active",
        "out",
        "result",
        "rounds",
        "bitos",
        "last_play",
        "history_len",
        "seen",
        "marked",
        "cleared",
        "pending",
        "plays",
        "cheats",
        "cheat_cards",
    ]:
        v = getattr(s, name)
        out[name] = list(v) if isinstance(v, list) else v
    return out


# ------------------------------------------------------------ the reference model
def next_active(rules: Rules, seat: int, out: list[int]) -> int:
    n = rules.players
    s = seat
    for _ in range(n):
        s = (s + 1) % n
        if s not in out:
            return s
    return seat


def prev_active(rules: Rules, seat: int, out: list[int]) -> int:
    n = rules.players
    s = seat
    for _ in range(n):
        s = (s - 1) % n
        if s not in out:
            return s
    return seat


def next_opponent(rules: Rules, seat: int, out: list[int]) -> int:
    """The left neighbour still in the game, skipping teammates."""
    n = rules.players
    s = seat
    for _ in range(n):
        s = (s + 1) % n
        if s not in out and team_of(rules, s) != team_of(rules, seat):
            return s
    raise AssertionError(f"seat {seat} has no opponent left")


def cap(rules: Rules, rounds: int, bitos: int) -> int:
    if rules.first_round_cap == "first_round" and rounds == 0:
        return 5
    if rules.first_round_cap == "until_first_bito" and bitos == 0:
        return 5
    return 6


def throw_order(rules: Rules, attacker: int, defender: int, out: list[int]) -> list[int]:
    """Main attacker first, then clockwise from the defender's left; never the
    defender, a teammate of the defender or a player who is out."""
    n = rules.players
    order = [attacker]
    for k in range(1, n):
        s = (defender + k) % n
        if s in (attacker, defender) or s in out:
            continue
        if team_of(rules, s) == team_of(rules, defender):
            continue
        order.append(s)
    if rules.throw_in == "neighbours":
        near = {attacker, next_active(rules, defender, out), prev_active(rules, defender, out)}
        order = [s for s in order if s in near]
    return order


def may_cheat(rules: Rules, sn: Snap, seat: int) -> bool:
    """Rule 13: a player who is not marked may cheat."""
    return rules.cheating and not sn.marked >> seat & 1


def model_cheats(sn: Snap) -> int:
    """The cheat cards on the table, from the model's own memory of the round."""
    m = 0
    for c, _, _ in sn.cheat_log:
        m |= 1 << c
    return m


def callable_cards(rules: Rules, sn: Snap, seat: int) -> int:
    """Rule 13: the cards ``seat`` may call out: on the table, played by somebody
    else, not found fair already; nothing for a seat that is out (or no seat)."""
    if not rules.cheating or sn.phase == OVER or not 0 <= seat < rules.players or seat in sn.out:
        return 0
    m = 0
    for c, who, _ in sn.plays:
        if who != seat and not sn.cleared >> c & 1:
            m |= 1 << c
    return m


def accusations(rules: Rules, sn: Snap, seat: int) -> set[Action]:
    return {Action(seat, ACCUSE, 1 << c) for c in cards_of(callable_cards(rules, sn, seat))}


def can_throw(rules: Rules, sn: Snap, seat: int) -> bool:
    """Rule 6 (and 13): holds a card of a rank on the table, or any card at all
    for an unmarked player at a cheating table."""
    hand = sn.hands[seat]
    if may_cheat(rules, sn, seat) and hand:
        return True
    ranks = ranks_of(table_mask(sn.att, sn.dfn))
    return any(CARD_RANK[c] in ranks for c in cards_of(hand))


def ref_legal(rules: Rules, sn: Snap) -> set[Action]:
    """Every legal action of the seat to move, straight from the rules text."""
    if sn.phase == OVER:
        return set()
    seat = sn.to_move
    assert seat is not None
    if sn.phase == LAST_CALL:
        assert rules.cheating and sn.pending >> seat & 1, "to_move is not pending"
        return {Action(seat, PASS)} | accusations(rules, sn, seat)
    hand = sn.hands[seat]
    acts: set[Action] = set()
    cheat_ok = may_cheat(rules, sn, seat)
    if sn.phase == LEAD:
        assert seat == sn.attacker
        assert not sn.att and not sn.plays, "a lead onto a table with cards"
        for r in range(13):
            for sub in submasks(hand & RANK_MASK[r]):
                k = popcount(sub)
                if k <= sn.limit and (k == 1 or rules.lead_multiple):
                    acts.add(Action(seat, ATTACK, sub))
                    # Rule 13, lead alongside: one card of another rank with them.
                    if cheat_ok and rules.lead_multiple and k + 1 <= sn.limit:
                        for c in cards_of(hand & ~RANK_MASK[r]):
                            acts.add(Action(seat, ATTACK, sub | 1 << c))
        return acts
    table = table_mask(sn.att, sn.dfn)
    if sn.phase == THROW:
        # Throw-ins after a take exist only with throw_in_after_take (rule 7).
        assert rules.throw_in_after_take or not sn.taking, "a throw-in after a take"
        assert len(sn.att) < sn.limit
        acts.add(Action(seat, PASS))
        ranks = ranks_of(table)
        for c in cards_of(hand):
            if CARD_RANK[c] in ranks or cheat_ok:
                acts.add(Action(seat, THROW_K, 1 << c))
        return acts | accusations(rules, sn, seat)
    assert sn.phase == DEFEND and seat == sn.defender
    acts.add(Action(seat, TAKE))
    for a, d in zip(sn.att, sn.dfn, strict=True):
        if d < 0:
            for c in cards_of(hand):
                if cheat_ok or beats(c, a, sn.trump_suit):
                    acts.add(Action(seat, DEFEND_K, 1 << c, a))
    if rules.transfers and not sn.taking and all(d < 0 for d in sn.dfn):
        # Transfers stay honest: the rank of the fair attack cards (rule 13).
        fair = [a for a in sn.att if not model_cheats(sn) >> a & 1]
        rank = CARD_RANK[fair[0]]
        assert {CARD_RANK[a] for a in fair} == {rank}, "fair attack cards of two ranks"
        if not rules.cheating:
            assert ranks_of(table) == {rank}
        nd = next_opponent(rules, seat, sn.out)
        room = min(cap(rules, sn.rounds, sn.bitos), popcount(sn.hands[nd])) - len(sn.att)
        for sub in submasks(hand & RANK_MASK[rank]):
            if popcount(sub) <= room:
                acts.add(Action(seat, TRANSFER, sub))
        trump = 1 << (sn.trump_suit * 13 + rank)
        if rules.transfer_show_trump and hand & trump and not sn.shown >> seat & 1 and room >= 0:
            acts.add(Action(seat, SHOW, trump))
    return acts | accusations(rules, sn, seat)


def ref_legal_for(rules: Rules, sn: Snap, seat: int) -> set[Action]:
    """Every legal action of ``seat``: its turn's actions if it is to move; at a
    cheating table also, at any moment, calling out a card (rule 13), and in the
    last call passing while it is pending."""
    if sn.phase == OVER or not 0 <= seat < rules.players:
        return set()
    if seat == sn.to_move:
        return ref_legal(rules, sn)
    acts = accusations(rules, sn, seat)
    if sn.phase == LAST_CALL and sn.pending >> seat & 1:
        acts.add(Action(seat, PASS))
    return acts


def _start_round(rules: Rules, sn: Snap, attacker: int) -> None:
    sn.attacker = sn.starter = attacker
    sn.defender = next_opponent(rules, attacker, sn.out)
    sn.limit = min(cap(rules, sn.rounds, sn.bitos), popcount(sn.hands[sn.defender]))
    sn.taking = False
    sn.passed = sn.shown = sn.last_play = 0
    sn.phase = LEAD
    sn.to_move = attacker


def _game_over(rules: Rules, sn: Snap, last_defender: int | None) -> bool:
    active = [s for s in range(rules.players) if s not in sn.out]
    teams = {team_of(rules, s) for s in active}
    if len(teams) > 1:
        return False
    sn.phase = OVER
    sn.to_move = None
    if not active:
        sn.result = (None, (), False, False)
        return True
    # In team games the team's seat holding the most cards (ties: the lowest seat).
    durak = max(active, key=lambda s: (popcount(sn.hands[s]), -s))
    team = tuple(s for s in range(rules.players) if team_of(rules, s) == team_of(rules, durak))
    sixes = sn.last_play != 0 and sn.last_play & ~RANK_MASK[RANK_SIX] == 0
    sn.result = (durak, team if rules.team_count else (), False, False)
    # pogony is decided once the durak is known (see compare()).
    sn.pogony_hint = (last_defender, sixes)
    return True


def _round_over(rules: Rules, sn: Snap) -> None:
    """The round would end here (bito, or the pick-up once nobody throws in).
    At a cheating table the last call comes first: every seat still in the game
    that may call out some card on the table is pending (rule 13)."""
    if rules.cheating:
        sn.pending = 0
        for s in range(rules.players):
            if callable_cards(rules, sn, s):
                sn.pending |= 1 << s
        if sn.pending:
            sn.phase = LAST_CALL
            _ask_last_call(rules, sn)
            return
    _end_round(rules, sn)


def _ask_last_call(rules: Rules, sn: Snap) -> None:
    """to_move in the last call: the first pending seat clockwise from the defender."""
    n = rules.players
    for k in range(n):
        s = (sn.defender + k) % n
        if sn.pending >> s & 1:
            sn.to_move = s
            return
    raise AssertionError("nobody pending in the last call")


def _end_round(rules: Rules, sn: Snap) -> None:
    n = rules.players
    d = sn.defender
    table = table_mask(sn.att, sn.dfn)
    took = sn.taking
    if took:
        sn.hands[d] |= table
        sn.known[d] |= table
    else:
        sn.discard |= table
        sn.bitos += 1
    sn.att, sn.dfn = [], []
    # Rule 13: the round's plays, cheats and fair cards leave with the table.
    sn.plays, sn.cheat_log, sn.cheats = [], [], 0
    sn.cleared = sn.pending = 0
    sn.rounds += 1
    order = [s for s in ((sn.starter + k) % n for k in range(n)) if s != d and s not in sn.out] + [
        d
    ]
    for s in order:
        while popcount(sn.hands[s]) < HAND and sn.stock:
            c = sn.stock.pop()
            sn.hands[s] |= 1 << c
            if not sn.stock:
                sn.trump_holder = s
                sn.known[s] |= 1 << c
    if not sn.stock:
        for s in order:
            if not sn.hands[s]:
                sn.out.append(s)
    if _game_over(rules, sn, d):
        return
    if not took and d not in sn.out:
        _start_round(rules, sn, d)
    else:
        _start_round(rules, sn, next_active(rules, d, sn.out))
    _note_position(rules, sn)


def _note_position(rules: Rules, sn: Snap) -> None:
    """Rule 9: a round that begins exactly as two earlier rounds of the game began
    (every hand, the stock, the discard, the attacker and the attack cap) is a draw."""
    if not rules.repetition_draw:
        return
    pos = (
        tuple(sn.hands),
        tuple(sn.stock),
        sn.discard,
        sn.attacker,
        cap(rules, sn.rounds, sn.bitos),
    )
    if sn.history.count(pos) >= 2:
        sn.phase = OVER
        sn.to_move = None
        sn.result = (None, (), False, True)
    sn.history.append(pos)


def _after_cover_or_pass(rules: Rules, sn: Snap, start: int = 0) -> None:
    """Rules 6-7: ask the first seat in throw-in order (from position ``start``)
    that has not passed and can throw in; when there is none, the round is over."""
    if len(sn.att) < sn.limit:
        for s in throw_order(rules, sn.attacker, sn.defender, sn.out)[start:]:
            if sn.passed >> s & 1:
                continue
            if can_throw(rules, sn, s):
                sn.phase = THROW
                sn.to_move = s
                return
    _round_over(rules, sn)


def cheat_of(rules: Rules, sn: Snap, kind: int, cards: int, target: int) -> int | None:
    """Rule 13: the cheat card of a play made in position ``sn``, decided when it
    is played: a throw-in of a rank not on the table, a cover that does not beat
    its target, the odd card of a lead of two ranks (of two single cards, the
    higher rank).  Transfers are always honest."""
    if not rules.cheating:
        return None
    if kind == THROW_K:
        c = cards.bit_length() - 1
        return None if CARD_RANK[c] in ranks_of(table_mask(sn.att, sn.dfn)) else c
    if kind == DEFEND_K:
        c = cards.bit_length() - 1
        return None if beats(c, target, sn.trump_suit) else c
    if kind == ATTACK:
        by_rank: dict[int, list[int]] = {}
        for c in cards_of(cards):
            by_rank.setdefault(CARD_RANK[c], []).append(c)
        if len(by_rank) == 1:
            return None
        assert len(by_rank) == 2, "a lead of three ranks was accepted"
        (_, lows), (_, highs) = sorted(by_rank.items())
        assert len(lows) == 1 or len(highs) == 1, "a lead with two odd cards was accepted"
        return highs[0] if len(highs) == 1 else lows[0]
    return None


def _accuse(rules: Rules, sn: Snap, seat: int, card: int) -> Snap:
    """Rule 13: ``seat`` calls out ``card``.  A cheat: back to the deep copy of the
    position just before it (hands, table, turn, passes, taking flag, limit...),
    the cards that went back known in their hands, the cheater marked.  A fair
    card: the accuser is marked and the card cleared; nothing else changes."""
    n = rules.players
    found = [i for i, (c, _, _) in enumerate(sn.cheat_log) if c == card]
    if found:
        (k,) = found
        _, cheater, saved = sn.cheat_log[k]
        back = copy.deepcopy(saved)
        kept = table_mask(back.att, back.dfn)
        returned = [0] * n
        for c, who, _ in sn.plays:
            if not kept >> c & 1:
                returned[who] |= 1 << c
        assert returned[cheater] >> card & 1, "the cheat card does not go back to its cheater"
        # Nothing leaves the table or the deck within a round: the hands before
        # the cheat are today's hands plus the cards that go back.
        for s in range(n):
            assert back.hands[s] == sn.hands[s] | returned[s], f"seat {s}'s hand before the cheat"
        assert (back.stock, back.discard, back.out, back.rounds) == (
            sn.stock,
            sn.discard,
            sn.out,
            sn.rounds,
        )
        assert [c for c, _, _ in back.cheat_log] == [c for c, _, _ in sn.cheat_log[:k]]
        back.known = [sn.known[s] | returned[s] for s in range(n)]
        back.marked = sn.marked | 1 << cheater
        back.cleared = sn.cleared & kept  # cards found fair that are still on the table
        back.pending = 0
        back.history = sn.history
        back.pogony_hint = sn.pogony_hint
        if back.phase == THROW:
            # The throw-in turn is offered again in the usual order: the
            # cheater, now marked, is skipped without an honest card.
            _after_cover_or_pass(rules, back)
        return back
    sn.marked |= 1 << seat
    sn.cleared |= 1 << card
    if sn.phase == THROW and sn.to_move == seat and not can_throw(rules, sn, seat):
        # The accuser was asked to throw in and has no honest card left: the turn
        # passes on to the next seat in the throw-in order.
        order = throw_order(rules, sn.attacker, sn.defender, sn.out)
        _after_cover_or_pass(rules, sn, order.index(seat) + 1)
    elif sn.phase == LAST_CALL:
        for s in range(n):
            if not callable_cards(rules, sn, s):
                sn.pending &= ~(1 << s)  # nothing left to call out
        _answered(rules, sn)
    return sn


def _answered(rules: Rules, sn: Snap) -> None:
    """After an answer in the last call: ask the next pending seat, or end the round."""
    if sn.pending:
        _ask_last_call(rules, sn)
    else:
        _end_round(rules, sn)


def ref_step(rules: Rules, before: Snap, action: Action) -> Snap:
    """The state after a legal ``action``, by the rules."""
    sn = replace(
        before,
        hands=list(before.hands),
        known=list(before.known),
        stock=list(before.stock),
        att=list(before.att),
        dfn=list(before.dfn),
        out=list(before.out),
        history=list(before.history),
        plays=list(before.plays),
        cheat_log=list(before.cheat_log),
    )
    seat, kind, cards, target = action
    if kind == ACCUSE:
        return _accuse(rules, sn, seat, cards.bit_length() - 1)
    if kind == PASS and sn.phase == LAST_CALL:
        sn.pending &= ~(1 << seat)
        _answered(rules, sn)
        return sn
    if kind in (ATTACK, THROW_K, DEFEND_K, TRANSFER) and rules.cheating:
        cheat = cheat_of(rules, before, kind, cards, target)
        if cheat is not None:
            sn.cheat_log.append((cheat, seat, copy.deepcopy(before)))
            sn.cheats |= 1 << cheat
        if kind == DEFEND_K:
            sn.plays.append((cards.bit_length() - 1, seat, True))
        else:
            sn.plays += [(c, seat, False) for c in cards_of(cards)]
    if kind == PASS:
        sn.passed |= 1 << seat
        _after_cover_or_pass(rules, sn)
        return sn
    if kind == TAKE:
        sn.taking = True
        if not rules.throw_in_after_take:
            # No throw-ins after a take: the round is over, the defender picks up
            # the table now and the player after the defender attacks next.
            _round_over(rules, sn)
            return sn
        _after_cover_or_pass(rules, sn)
        return sn
    if kind == SHOW:
        sn.known[seat] |= cards
        sn.shown |= 1 << seat
    else:
        sn.hands[seat] &= ~cards
        sn.known[seat] &= ~cards
        sn.passed = 0
    if kind == DEFEND_K:
        sn.dfn[sn.att.index(target)] = cards.bit_length() - 1
        if all(d >= 0 for d in sn.dfn):
            _after_cover_or_pass(rules, sn)
        return sn
    if kind != SHOW:
        sn.last_play = cards
        for c in cards_of(cards):
            sn.att.append(c)
            sn.dfn.append(-1)
    if kind in (TRANSFER, SHOW):
        nd = next_opponent(rules, seat, sn.out)
        sn.attacker, sn.defender = seat, nd
        sn.limit = min(cap(rules, sn.rounds, sn.bitos), popcount(sn.hands[nd]))
        sn.phase, sn.to_move = DEFEND, nd
        return sn
    if kind == THROW_K and sn.taking:
        _after_cover_or_pass(rules, sn)
        return sn
    sn.phase, sn.to_move = DEFEND, sn.defender
    return sn


def lowest_trump_seat(deal: Deal) -> int | None:
    trumps = SUIT_MASK[deal.trump_suit]
    best: tuple[int, int] | None = None
    for seat, h in enumerate(deal.hands):
        for c in cards_of(h & trumps):
            if best is None or CARD_RANK[c] < best[0]:
                best = (CARD_RANK[c], seat)
    return None if best is None else best[1]


def ref_first_attacker(rules: Rules, deal: Deal) -> int:
    """Rule 2 and the series option.  Without any trump in hand, the lowest card
    leads (rank first, then suit S < C < D < H), as docs/rules.md says."""
    n = rules.players
    if deal.first_attacker is not None:
        return deal.first_attacker
    durak = deal.previous_durak
    if durak is not None and rules.first_attacker != "lowest_trump":
        # after_durak: the first opponent of the durak clockwise after it holding
        # cards; durak_attacked: the nearest such opponent counter-clockwise.
        step = 1 if rules.first_attacker == "after_durak" else -1
        for k in range(1, n + 1):
            s = (durak + step * k) % n
            if team_of(rules, s) != team_of(rules, durak) and deal.hands[s]:
                return s
    seat = lowest_trump_seat(deal)
    if seat is not None:
        return seat
    return min((CARD_RANK[c], CARD_SUIT[c], s) for s in range(n) for c in cards_of(deal.hands[s]))[
        2
    ]


def ref_initial(rules: Rules, deal: Deal) -> Snap:
    """The state right after a deal."""
    n = rules.players
    sn = Snap(
        hands=list(deal.hands),
        known=[0] * n,
        stock=list(reversed(deal.deck)),
        trump=deal.trump,
        trump_holder=None,
        discard=deal.discard,
        att=[],
        dfn=[],
        phase=LEAD,
        to_move=None,
        attacker=0,
        defender=0,
        starter=0,
        limit=0,
        taking=False,
        passed=0,
        shown=0,
        out=[],
        rounds=0,
        bitos=0,
        last_play=0,
        result=None,
    )
    if not deal.deck:
        for seat, h in enumerate(deal.hands):
            if h >> deal.trump & 1:
                sn.trump_holder = seat
                sn.known[seat] |= 1 << deal.trump
        sn.out = [s for s in range(n) if not deal.hands[s]]
        if _game_over(rules, sn, None):
            return sn
    _start_round(rules, sn, ref_first_attacker(rules, deal))
    _note_position(rules, sn)
    return sn


def compare(rules: Rules, expected: Snap, actual: Snap, context: str) -> None:
    """Assert that the engine's state matches the reference model."""
    over = expected.phase == OVER
    assert actual.phase == expected.phase, context
    for name in ("hands", "stock", "discard", "att", "dfn", "rounds", "bitos"):
        assert getattr(actual, name) == getattr(expected, name), f"{name}: {context}"
    assert actual.known == expected.known, f"known: {context}"
    assert actual.trump_holder == expected.trump_holder, f"trump_holder: {context}"
    # Players who leave in the same round are listed in refill order.
    assert actual.out == expected.out, f"out: {context}"
    assert len(set(actual.out)) == len(actual.out), f"out has repeats: {context}"
    # Rule 13: marks, fair cards, the last call, who played what, the cheats.
    for name in ("marked", "cleared", "pending", "plays", "cheats"):
        assert getattr(actual, name) == getattr(expected, name), f"{name}: {context}"
    assert actual.cheats == model_cheats(expected), f"cheats: {context}"
    if not over:
        for name in [
            "to_move",
            "attacker",
            "defender",
            "starter",
            "limit",
            "taking",
            "passed",
            "shown",
            "last_play",
        ]:
            assert getattr(actual, name) == getattr(expected, name), f"{name}: {context}"
        assert actual.result is None, context
        return
    assert actual.to_move is None, context
    assert actual.result is not None and expected.result is not None, context
    durak, team, pogony, repetition = actual.result
    exp_durak, exp_team, _, exp_repetition = expected.result
    if exp_durak is None:
        assert durak is None and team == () and not pogony, f"draw expected: {context}"
        assert repetition == exp_repetition, f"draw by repetition: {context}"
        return
    assert not repetition, f"a durak and a repetition: {context}"
    assert durak is not None, f"a durak was expected: {context}"
    assert durak not in actual.out and actual.hands[durak], f"durak holds cards: {context}"
    assert team == exp_team, f"team: {context}"
    assert durak == exp_durak, f"durak: {context}"
    last_defender, sixes = expected.pogony_hint
    assert pogony == (rules.pogony and durak == last_defender and sixes), f"pogony: {context}"


# --------------------------------------------------------------------- game loops
def play(
    rules: Rules,
    seed: int,
    policy: Policy,
    max_actions: int = 3000,
    deal: Deal | None = None,
    on_step: Callable[[GameState, Action, GameState], None] | None = None,
) -> tuple[GameState, list[Action]]:
    """Play from a seeded (or given) deal; ``on_step(before, action, after)``
    is called after each action with a copy of the state before it."""
    state = GameState.new(rules, deal or Deal.from_seed(rules, seed))
    actions: list[Action] = []
    while not state.game_over and len(actions) < max_actions:
        legal = state.legal_actions()
        action = policy.choose(state, legal)
        before = state.copy() if on_step else state
        state.apply(action)
        actions.append(action)
        if on_step:
            on_step(before, action, state)
    return state, actions


def all_cards(rules: Rules) -> int:
    return deck_mask(rules.deck)
