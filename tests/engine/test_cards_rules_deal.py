"""Unit tests: card notation, deck sizes, table rules, deals and action JSON."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import FrozenInstanceError
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.engine.actions import Action, ActionError, Kind
from kozyr.engine.cards import (
    CARD_RANK,
    CARD_SUIT,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    CardError,
    card,
    card_pretty,
    card_str,
    cards_of,
    cards_str,
    count,
    deck_cards,
    deck_mask,
    iter_cards,
    lowest,
    mask_of,
    parse_card,
    parse_cards,
)
from kozyr.engine.deal import Deal, DealError, SplitMix64, shuffled_deck
from kozyr.engine.record import GameRecord, RecordError
from kozyr.engine.rules import Rules, RulesError
from kozyr.engine.state import GameState

from .strategies import examples, lowest_trump_seat, rules_st, seeds

# ------------------------------------------------------------------------ cards
RANKS = "23456789TJQKA"


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("TD", 8, DIAMONDS),
        ("10d", 8, DIAMONDS),
        ("10D", 8, DIAMONDS),
        ("td", 8, DIAMONDS),
        ("6s", 4, SPADES),
        ("6S", 4, SPADES),
        ("2C", 0, CLUBS),
        ("AH", 12, HEARTS),
        ("qh", 10, HEARTS),
        ("jc", 9, CLUBS),
        ("kS", 11, SPADES),
        ("9d", 7, DIAMONDS),
    ],
)
def test_parse_card(text: str, rank: int, suit: int) -> None:
    c = parse_card(text)
    assert c == card(rank, suit) == suit * 13 + rank
    assert CARD_RANK[c] == rank and CARD_SUIT[c] == suit


@pytest.mark.parametrize(
    "text",
    ["", "T", "10", "1D", "11D", "0D", "1S", "TX", "XD", "ZZ", "6", "6SS", "DT", "S6", "10DD",
     "T D", "♠6", "6♠", "AHH", "100D", "-6S"],
)  # fmt: skip
def test_parse_card_rejects_bad_strings(text: str) -> None:
    with pytest.raises(CardError) as exc:
        parse_card(text)
    message = str(exc.value)
    assert repr(text) in message and "suit" in message


@pytest.mark.parametrize("value", [None, 12, 1.5, b"TD", ["TD"], ("T", "D")])
def test_parse_card_rejects_non_strings(value: Any) -> None:
    with pytest.raises(CardError, match="must be a string"):
        parse_card(value)


def test_card_error_is_a_value_error():
    assert issubclass(CardError, ValueError)


@pytest.mark.parametrize("text", ["6ſ", "Aſ", "10ſ", "６S", "6Ｓ", "1０D", "T\u0130"])
def test_parse_card_rejects_non_ascii_look_alikes(text: str) -> None:
    # Regression: 'ſ'.upper() == 'S', so "6ſ" used to be read as the six of spades.
    with pytest.raises(CardError, match="not a card"):
        parse_card(text)


def test_card_str_is_canonical_for_every_card():
    names = set()
    for c in range(52):
        s = card_str(c)
        assert len(s) == 2 and s[0] in RANKS and s[1] in "SCDH"
        assert parse_card(s) == c
        assert parse_card(s.lower()) == c
        assert card_pretty(c)[0] == s[0] and card_pretty(c)[1] in "♠♣♦♥"
        names.add(s)
    assert len(names) == 52
    assert card_str(parse_card("10h")) == "TH"
    assert card_str(parse_card("6s")) == "6S"


@pytest.mark.parametrize(("size", "lowest_rank"), [(24, "9"), (36, "6"), (52, "2")])
def test_deck_sizes(size: int, lowest_rank: str) -> None:
    cards = deck_cards(size)
    assert len(cards) == size == len(set(cards)) == deck_mask(size).bit_count()
    assert cards == sorted(cards) and mask_of(cards) == deck_mask(size)
    ranks = RANKS[RANKS.index(lowest_rank) :]
    assert {card_str(c) for c in cards} == {r + s for r in ranks for s in "SCDH"}
    for suit in range(4):
        assert sum(1 for c in cards if CARD_SUIT[c] == suit) == size // 4
    # Smaller decks are the top ranks of the bigger ones.
    assert deck_mask(24) & ~deck_mask(36) == 0 and deck_mask(36) & ~deck_mask(52) == 0


@given(st.sets(st.integers(0, 51)))
def test_card_set_helpers(cards: set[int]) -> None:
    m = mask_of(cards)
    assert cards_of(m) == sorted(cards) == list(iter_cards(m))
    assert count(m) == len(cards)
    assert cards_str(m) == [card_str(c) for c in sorted(cards)]
    assert parse_cards(cards_str(m)) == sorted(cards)
    if cards:
        assert lowest(m) == min(cards)


# ------------------------------------------------------------------------ rules
OPTIONS: dict[str, tuple[Any, ...]] = {
    "players": (2, 3, 4, 5, 6),
    "deck": (24, 36, 52),
    "variant": ("podkidnoy", "perevodnoy"),
    "lead_multiple": (True, False),
    "first_round_cap": ("off", "first_round", "until_first_bito"),
    "throw_in": ("all", "neighbours"),
    "transfer_show_trump": (True, False),
    "teams": ("none", "2v2", "3v3", "2v2v2"),
    "first_attacker": ("lowest_trump", "durak_attacked", "after_durak"),
    "pogony": (True, False),
    "repetition_draw": (True, False),
    "throw_in_after_take": (True, False),
    "cheating": (False, True),
}


def test_rules_defaults_are_the_classic_table():
    r = Rules()
    assert (r.players, r.deck, r.variant) == (4, 36, "podkidnoy")
    assert r.first_round_cap == "off" and r.throw_in == "all" and r.teams == "none"
    assert not r.transfer_show_trump and r.team_count == 0 and not r.transfers
    assert r.pogony and r.repetition_draw and r.throw_in_after_take and not r.cheating
    assert Rules.options() == OPTIONS
    assert Rules.from_dict(None) == r == Rules.from_dict({})


def test_every_combination_of_options_is_accepted_exactly_when_valid():
    accepted = 0
    for values in itertools.product(*OPTIONS.values()):
        data = dict(zip(OPTIONS, values, strict=True))
        valid = (
            data["players"] * 6 <= data["deck"]
            and (
                data["teams"] == "none"
                or {"2v2": 4, "3v3": 6, "2v2v2": 6}[data["teams"]] == data["players"]
            )
            and (not data["transfer_show_trump"] or data["variant"] == "perevodnoy")
        )
        if valid:
            r = Rules(**data)
            assert r.to_dict() == data and Rules.from_dict(data) == r
            assert r.team_count == {"none": 0, "2v2": 2, "3v3": 2, "2v2v2": 3}[r.teams]
            assert r.transfers == (r.variant == "perevodnoy")
            accepted += 1
        else:
            with pytest.raises(RulesError) as exc:
                Rules(**data)
            assert str(exc.value)
    assert accepted > 1000


def rules_error(option: str, value: Any) -> None:
    makers: list[Callable[[], Rules]] = [
        lambda: Rules(**{option: value}),
        lambda: Rules.from_dict({option: value}),
    ]
    for make in makers:
        with pytest.raises(RulesError) as exc:
            make()
        message = str(exc.value)
        assert repr(option) in message and repr(value) in message, message
        assert "must be one of" in message


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("players", 1),
        ("players", 7),
        ("players", 0),
        ("players", -4),
        ("deck", 32),
        ("deck", 54),
        ("variant", "podkidnoi"),
        ("variant", "PODKIDNOY"),
        ("variant", ""),
        ("first_round_cap", "on"),
        ("throw_in", "neighbors"),
        ("teams", "4v4"),
        ("first_attacker", "random"),
    ],
)
def test_rules_reject_bad_values_with_a_clear_message(option: str, value: Any) -> None:
    rules_error(option, value)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("players", "4"),
        ("players", 4.0),
        ("players", True),
        ("deck", "36"),
        ("deck", None),
        ("lead_multiple", 1),
        ("lead_multiple", "yes"),
        ("first_round_cap", True),
        ("transfer_show_trump", 0),
        ("teams", None),
        ("variant", 1),
        ("pogony", None),
        ("pogony", "true"),
        ("throw_in_after_take", 0),
        ("throw_in_after_take", "false"),
    ],
)
def test_rules_from_dict_rejects_values_of_the_wrong_type(option: str, value: Any) -> None:
    """Untrusted input (records, the protocol) goes through from_dict: RulesError."""
    with pytest.raises(RulesError) as exc:
        Rules.from_dict({option: value})
    message = str(exc.value)
    assert repr(option) in message and repr(value) in message, message
    # Built directly, the compiled dataclass may refuse the type first (TypeError).
    with pytest.raises((RulesError, TypeError)):
        Rules(**{option: value})


@pytest.mark.parametrize(("players", "deck"), [(5, 24), (6, 24)])
def test_rules_reject_a_deal_that_does_not_fit(players: int, deck: int) -> None:
    with pytest.raises(RulesError) as exc:
        Rules(players=players, deck=deck)
    message = str(exc.value)
    assert f"{deck}-card deck" in message and f"{players} players" in message
    assert str(players * 6) in message
    Rules(players=players, deck=36)
    Rules(players=4, deck=24)


@pytest.mark.parametrize(
    ("teams", "players"),
    [("2v2", 2), ("2v2", 3), ("2v2", 6), ("3v3", 4), ("3v3", 5), ("2v2v2", 4), ("2v2v2", 3)],
)
def test_rules_reject_teams_that_do_not_fit_the_table(teams: str, players: int) -> None:
    with pytest.raises(RulesError) as exc:
        Rules(players=players, deck=52, teams=teams)  # type: ignore[arg-type]
    assert repr(teams) in str(exc.value) and str(players) in str(exc.value)


def test_show_trump_needs_perevodnoy():
    with pytest.raises(RulesError, match="perevodnoy"):
        Rules(transfer_show_trump=True)
    assert Rules(variant="perevodnoy", transfer_show_trump=True).transfers


@pytest.mark.parametrize(
    "data",
    [
        {"player": 4},
        {"players": 4, "colour": "red"},
        {"decks": 36},
        {"Pogony": True},
        {1: 2, "x": 3},  # keys that do not even sort together
    ],
)
def test_rules_from_dict_rejects_unknown_options(data: dict[Any, Any]) -> None:
    with pytest.raises(RulesError, match="unknown rule option") as exc:
        Rules.from_dict(data)
    for key in set(data) - set(OPTIONS):
        assert str(key) in str(exc.value)


@pytest.mark.parametrize("data", [[], "podkidnoy", 4, [("players", 4)]])
def test_rules_from_dict_rejects_non_objects(data: Any) -> None:
    with pytest.raises(RulesError, match="must be an object"):
        Rules.from_dict(data)


@given(rules_st())
def test_rules_round_trip_and_are_frozen(rules: Rules) -> None:
    assert Rules.from_dict(rules.to_dict()) == rules
    assert hash(Rules.from_dict(rules.to_dict())) == hash(rules)
    with pytest.raises((FrozenInstanceError, AttributeError)):
        rules.players = 3  # type: ignore[misc]


# ------------------------------------------------------------------------- deal
def splitmix64(seed: int) -> Iterator[int]:
    mask = (1 << 64) - 1
    state = seed & mask
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def reference_shuffle(size: int, seed: int) -> list[int]:
    """The documented shuffle, rebuilt from the docstring of deal.shuffled_deck:
    Fisher-Yates from the end, 32-bit words from SplitMix64 outputs, high half first."""
    cards = deck_cards(size)
    words = (half for out in splitmix64(seed) for half in (out >> 32, out & 0xFFFFFFFF))
    for i in range(len(cards) - 1, 0, -1):
        j = (next(words) * (i + 1)) >> 32
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def test_splitmix64_known_answers():
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_splitmix64_check_values_of_records_md():
    for seed, outputs in {
        1: [0x910A2DEC89025CC1, 0xBEEB8DA1658EEC67, 0xF893A2EEFB32555E],
        42: [0xBDD732262FEB6E95, 0x28EFE333B266F103, 0x47526757130F9F52],
    }.items():
        rng = SplitMix64(seed)
        assert [rng.next() for _ in range(3)] == outputs
        ref = splitmix64(seed)
        assert [next(ref) for _ in range(3)] == outputs


def names(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def test_seeded_deal_test_vectors_of_records_md():
    """The test vectors of docs/records.md (seed 1 default rules, seed 42 two players)."""
    assert shuffled_deck(36, 1) == names(
        "AC 8H TS 8S QC 6H KC 7C 6C JD KH 7H AH AS 6S QS KS QD "
        "9S JS 7S 8C QH 9D JC 7D TD 9C AD JH 9H TH TC KD 6D 8D"
    )
    d = Deal.from_seed(Rules(), 1)
    assert [cards_str(h) for h in d.hands] == [
        ["7S", "KS", "6C", "QC", "AC", "AH"],
        ["AS", "8C", "JD", "QD", "6H", "8H"],
        ["6S", "9S", "TS", "KC", "QH", "KH"],
        ["8S", "JS", "QS", "7C", "9D", "7H"],
    ]
    assert [card_str(c) for c in d.deck] == (
        ["7D", "TD", "9C", "AD", "JH", "9H", "TH", "TC", "KD", "6D", "8D", "JC"]
    )
    assert card_str(d.trump) == "JC"
    assert shuffled_deck(36, 42) == names(
        "TS 9C TH 9D KS 6H 6D 6C KC 8H JD 8D QC JC 7D AH 9H 8C "
        "6S KD TC AC KH QD QH JH 9S 7H 7S 7C 8S AS TD JS QS AD"
    )
    d = Deal.from_seed(Rules(players=2), 42)
    assert [cards_str(h) for h in d.hands] == [
        ["TS", "KS", "KC", "6D", "JD", "TH"],
        ["6C", "9C", "8D", "9D", "6H", "8H"],
    ]
    assert " ".join(card_str(c) for c in d.deck) == (
        "JC 7D AH 9H 8C 6S KD TC AC KH QD QH JH 9S 7H 7S 7C 8S AS TD JS QS AD QC"
    )
    s = GameState.new(Rules(players=2), d)
    assert (s.attacker, s.defender) == (1, 0)


@given(st.sampled_from([24, 36, 52]), st.integers(0, 2**64 - 1))
def test_only_the_low_64_bits_of_a_seed_count(size: int, seed: int) -> None:
    assert shuffled_deck(size, seed + 2**64) == shuffled_deck(size, seed)


@given(st.sampled_from([24, 36, 52]), st.integers(0, 2**64 - 1))
def test_shuffle_is_the_documented_portable_algorithm(size: int, seed: int) -> None:
    deck = shuffled_deck(size, seed)
    assert sorted(deck) == deck_cards(size)
    assert deck == reference_shuffle(size, seed)


@given(rules_st(), seeds)
@settings(max_examples=examples(100))
def test_seeded_deal_layout(rules: Rules, seed: int) -> None:
    """Six cards each, one at a time from seat 0; the next card is the face-up
    trump, put at the bottom; when the deal takes the whole deck the last dealt
    card is the trump, shown, and stays in its hand."""
    n = rules.players
    deal = Deal.from_seed(rules, seed)
    deal.validate(rules)
    order = shuffled_deck(rules.deck, seed)
    assert deal.hands == tuple(mask_of(order[s : 6 * n : n]) for s in range(n))
    assert all(h.bit_count() == 6 for h in deal.hands)
    assert deal.discard == 0 and deal.seed == seed
    state = GameState.new(rules, deal)
    if rules.deck > 6 * n:
        assert deal.trump == order[6 * n] == deal.deck[-1]
        assert list(deal.deck) == [*order[6 * n + 1 :], order[6 * n]]
        assert state.stock[0] == deal.trump and state.stock[-1] == order[6 * n + 1]
        assert state.trump_holder is None and not any(state.known)
    else:
        assert deal.deck == () and deal.trump == order[-1]
        assert deal.hands[n - 1] >> deal.trump & 1
        assert state.trump_holder == n - 1 and state.known[n - 1] == 1 << deal.trump
    assert state.trump_suit == CARD_SUIT[deal.trump] == deal.trump_suit
    first = lowest_trump_seat(deal)
    if first is not None:
        # The lowest trump attacks first, against the left neighbour (an opponent).
        assert state.attacker == first == state.to_move
        assert state.phase == 0 and state.defender == (first + 1) % n


def good_deal(rules: Rules, seed: int = 5) -> Deal:
    d = Deal.from_seed(rules, seed)
    return Deal(d.hands, d.deck, d.trump)


def deal_error(rules: Rules, deal: Deal, *words: str) -> None:
    with pytest.raises(DealError) as exc:
        deal.validate(rules)
    for w in words:
        assert w in str(exc.value)
    with pytest.raises(DealError):
        GameState.new(rules, deal)


def test_explicit_deals_validate():
    rules = Rules()
    d = good_deal(rules)
    d.validate(rules)
    assert d == Deal.from_seed(rules, 5)  # the seed is not part of the deal
    hands, deck = list(d.hands), list(d.deck)
    # Wrong number of hands.
    deal_error(rules, Deal(tuple(hands[:3]), d.deck, d.trump), "3 hands", "4 players")
    # A card twice in the deck (and so one missing).
    deal_error(rules, Deal(d.hands, (deck[0], *deck[:-2], deck[-1]), d.trump), "twice")
    # A card both in a hand and in the deck.
    c = cards_of(hands[1])[0]
    deal_error(rules, Deal(d.hands, (c, *deck[1:]), d.trump), card_str(c), "twice")
    # A card in two hands.
    hands2 = list(hands)
    hands2[0] |= 1 << cards_of(hands[1])[0]
    deal_error(rules, Deal(tuple(hands2), d.deck, d.trump), "dealt twice")
    # A card missing.
    deal_error(rules, Deal(d.hands, tuple(deck[1:]), d.trump), "missing", card_str(deck[0]))
    # A card that is not in a 36-card deck.
    two = parse_card("2S")
    deal_error(rules, Deal(d.hands, (two, *deck[1:]), d.trump), "2S", "36-card")
    # The face-up trump is not the last card of the deck.
    deal_error(rules, Deal(d.hands, (deck[-1], *deck[:-1]), deck[-1]), "last card")
    deal_error(rules, Deal(d.hands, d.deck, deck[0]), "last card")
    # Seats out of range, and a first attacker without cards.
    deal_error(rules, Deal(d.hands, d.deck, d.trump, first_attacker=4), "first_attacker")
    deal_error(rules, Deal(d.hands, d.deck, d.trump, previous_durak=-1), "previous_durak")


def test_first_attacker_must_hold_cards():
    rules = Rules(players=6, deck=36)
    d = good_deal(rules)
    assert d.deck == ()
    hands = list(d.hands)
    gone, hands[2] = hands[2], 0
    deal_error(rules, Deal(tuple(hands), (), d.trump, discard=gone, first_attacker=2), "no cards")
    deal = Deal(tuple(hands), (), d.trump, discard=gone, first_attacker=3)
    deal.validate(rules)
    s = GameState.new(rules, deal)
    # A player without cards when the deck is empty is out from the start.
    assert s.out == [2] and s.attacker == 3 and s.defender == 4
    assert s.discard == gone


def test_every_player_holds_cards_while_the_deck_lasts():
    rules = Rules()
    d = good_deal(rules)
    hands = list(d.hands)
    gone, hands[3] = hands[3], 0
    deal_error(rules, Deal(tuple(hands), d.deck, d.trump, discard=gone), "must hold cards")


def test_whole_deck_deal_needs_a_trump_of_the_deck():
    rules = Rules(players=6, deck=36)
    d = good_deal(rules)
    assert d.deck == ()
    deal_error(rules, Deal(d.hands, (), parse_card("2S")), "trump", "not in the deck")


@pytest.mark.parametrize("previous", [0, 1, 2, 3])
def test_series_first_attacker(previous: int) -> None:
    base = good_deal(Rules(), 11)

    def start(option: str, **kw: Any) -> GameState:
        deal = Deal(base.hands, base.deck, base.trump, previous_durak=previous, **kw)
        return GameState.new(Rules(first_attacker=option), deal)  # type: ignore[arg-type]

    lowest = lowest_trump_seat(base)
    assert start("lowest_trump").attacker == lowest
    after = start("after_durak")
    assert after.attacker == (previous + 1) % 4
    attacked = start("durak_attacked")
    assert attacked.defender == previous and attacked.attacker == (previous - 1) % 4
    explicit = start("after_durak", first_attacker=(previous + 2) % 4)
    assert explicit.attacker == (previous + 2) % 4


def test_series_first_attacker_with_teams():
    rules = Rules(teams="2v2", first_attacker="durak_attacked")
    d = good_deal(rules, 3)
    for durak in range(4):
        s = GameState.new(rules, Deal(d.hands, d.deck, d.trump, previous_durak=durak))
        assert s.defender == durak and s.attacker % 2 != durak % 2


# ---------------------------------------------------------------------- actions
DOC_EXAMPLES = [
    {"seat": 0, "type": "attack", "cards": ["8C", "8H"]},
    {"seat": 1, "type": "defend", "card": "JC", "target": "8C"},
    {"seat": 2, "type": "throw", "cards": ["9S"]},
    {"seat": 1, "type": "take"},
    {"seat": 3, "type": "pass"},
    {"seat": 1, "type": "transfer", "cards": ["8D"]},
    {"seat": 1, "type": "show_trump", "card": "8D"},
]


@pytest.mark.parametrize("data", DOC_EXAMPLES)
def test_action_json_round_trip(data: dict[str, Any]) -> None:
    a = Action.from_json(data)
    assert a.to_json() == data
    assert Action.from_json(a.to_json()) == a
    assert str(a).startswith(f"seat {data['seat']} {data['type']}")


def test_action_json_fields():
    a = Action.from_json({"seat": 1, "type": "defend", "card": "10c", "target": "8c"})
    assert a == Action(1, Kind.DEFEND, 1 << parse_card("TC"), parse_card("8C"))
    assert a.to_json() == {"seat": 1, "type": "defend", "card": "TC", "target": "8C"}
    assert str(a) == "seat 1 defend TC on 8C"
    b = Action.from_json({"seat": 0, "type": "attack", "cards": ["td", "10S", "tH"]})
    assert b.cards == mask_of(parse_cards(["TS", "TD", "TH"]))
    assert b.to_json()["cards"] == ["TS", "TD", "TH"]  # canonical, suit order S C D H
    assert Action.from_json({"seat": 2, "type": "take"}) == Action(2, Kind.TAKE, 0, -1)
    assert [k.label for k in Kind] == [
        "attack", "defend", "throw", "take", "pass", "transfer", "show_trump", "accuse"
    ]  # fmt: skip


@given(
    st.integers(0, 5),
    st.sampled_from([Kind.ATTACK, Kind.THROW, Kind.TRANSFER]),
    st.sets(st.integers(0, 51), min_size=1, max_size=6),
)
def test_action_card_list_round_trip(seat: int, kind: Kind, cards: set[int]) -> None:
    a = Action(seat, kind, mask_of(cards))
    data = a.to_json()
    assert data["cards"] == [card_str(c) for c in sorted(cards)]
    assert Action.from_json(data) == a


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "must be an object"),
        ("take", "must be an object"),
        (None, "must be an object"),
        ({"type": "take"}, "integer 'seat'"),
        ({"seat": "0", "type": "take"}, "integer 'seat'"),
        ({"seat": True, "type": "take"}, "integer 'seat'"),
        ({"seat": False, "type": "take"}, "integer 'seat'"),
        ({"seat": 1.0, "type": "take"}, "integer 'seat'"),
        ({"seat": None, "type": "take"}, "integer 'seat'"),
        ({"seat": 0}, "unknown action type"),
        ({"seat": 0, "type": "cover"}, "unknown action type 'cover'"),
        ({"seat": 0, "type": "Take"}, "unknown action type"),
        ({"seat": 0, "type": None}, "unknown action type"),
        ({"seat": 0, "type": "attack"}, "non-empty list 'cards'"),
        ({"seat": 0, "type": "attack", "cards": []}, "non-empty list 'cards'"),
        ({"seat": 0, "type": "attack", "cards": "8C"}, "non-empty list 'cards'"),
        ({"seat": 0, "type": "throw", "cards": ["8X"]}, "not a card: '8X'"),
        ({"seat": 0, "type": "throw", "cards": [8]}, "must be a string"),
        ({"seat": 0, "type": "attack", "cards": ["8C", "8c"]}, "8C is listed twice"),
        ({"seat": 0, "type": "transfer", "cards": ["TD", "10D"]}, "TD is listed twice"),
        ({"seat": 0, "type": "defend", "card": "JC"}, "must be a string"),
        ({"seat": 0, "type": "defend", "target": "JC"}, "must be a string"),
        ({"seat": 0, "type": "defend", "card": "JC", "target": "1C"}, "not a card"),
        ({"seat": 0, "type": "defend", "cards": ["JC"], "target": "8C"}, "must be a string"),
        ({"seat": 0, "type": "show_trump"}, "must be a string"),
        ({"seat": 0, "type": "take", "cards": ["8C"]}, "unexpected field(s) for 'take': cards"),
        ({"seat": 0, "type": "pass", "card": "8C"}, "unexpected field(s) for 'pass': card"),
        ({"seat": 0, "type": "attack", "cards": ["8C"], "target": "8C"}, "unexpected"),
        ({"seat": 0, "type": "show_trump", "card": "8C", "target": "8C"}, "unexpected"),
        ({"seat": 0, "type": "take", "comment": "gg"}, "unexpected field(s)"),
    ],
)
def test_malformed_actions_raise_action_error(data: Any, words: str) -> None:
    with pytest.raises(ActionError) as exc:
        Action.from_json(data)
    assert words in str(exc.value)


def test_action_error_is_a_value_error():
    assert issubclass(ActionError, ValueError)


@pytest.mark.parametrize("bad_type", [[], ["take"], {}, {"take": 1}])
def test_unhashable_action_type_is_an_action_error(bad_type: Any) -> None:
    # Regression: this used to raise TypeError (unhashable type) and crash a replay.
    with pytest.raises(ActionError, match="unknown action type"):
        Action.from_json({"seat": 0, "type": bad_type})
    record = GameRecord(Rules(), Deal.from_seed(Rules(), 1), [{"seat": 0, "type": bad_type}])
    replay = record.replay()
    assert not replay.ok and replay.error_index == 0 and replay.error


# ---------------------------------------------------------------------- records
@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "must be a JSON object"),
        ({"deal": {"seed": 1}, "moves": []}, "unknown record field(s): moves"),
        ({"deal": {"seed": 1}, "version": 2}, "version 2"),
        ({"deal": {"seed": 1}, "version": "1"}, "version '1'"),
        ({"deal": {"seed": 1}, "version": True}, "version True"),
        ({"deal": {"seed": 1}, "rules": {"players": "4"}}, "rules:"),
        ({"deal": {"seed": 1}, "rules": {"players": 5, "deck": 24}}, "rules:"),
        ({"deal": {"seed": 1}, "rules": {"colour": "red"}}, "unknown rule option"),
        ({}, "needs a 'deal'"),
        ({"deal": []}, "'deal' must be an object"),
        ({"deal": {"seed": -1}}, "seed"),
        ({"deal": {"seed": 2**64}}, "seed"),
        ({"deal": {"seed": "1"}}, "seed"),
        ({"deal": {"seed": True}}, "seed"),
        ({"deal": {"seed": 1.0}}, "seed"),
        ({"deal": {"seed": 1, "hands": []}}, "not both"),
        ({"deal": {"seed": 1, "shuffle": "x"}}, "unknown deal field(s): shuffle"),
        ({"deal": {"seed": 1, "first_attacker": "0"}}, "first_attacker"),
        ({"deal": {"seed": 1, "first_attacker": 4}}, "first_attacker"),
        ({"deal": {"seed": 1, "previous_durak": True}}, "previous_durak"),
        ({"deal": {"deck": []}}, "needs 'seed', or 'hands'"),
        ({"deal": {"hands": [[], [], [], []]}}, "'trump' is required"),
        ({"deal": {"hands": [["6S", "6S"], [], [], []], "trump": "6S"}}, "twice"),
        ({"deal": {"hands": [["6X"], [], [], []], "trump": "6S"}}, "not a card"),
        ({"deal": {"seed": 1}, "actions": {}}, "'actions' must be a list"),
        ({"deal": {"seed": 1}, "meta": []}, "'meta' must be an object"),
    ],
)
def test_unreadable_records(data: Any, words: str) -> None:
    with pytest.raises(RecordError) as exc:
        GameRecord.from_json(data)
    assert words in str(exc.value)
    with pytest.raises(RecordError):
        GameRecord.loads(json.dumps(data))


def test_record_reading_and_writing():
    with pytest.raises(RecordError, match="not valid JSON"):
        GameRecord.loads("{")
    record = GameRecord.loads('{"deal": {"seed": 5}, "meta": {"note": "x"}}')
    assert record.rules == Rules() and record.deal == Deal.from_seed(Rules(), 5)
    assert record.actions == [] and record.meta == {"note": "x"}
    data = record.to_json({"durak": 1})
    assert data == {
        "version": 1,
        "rules": Rules().to_dict(),
        "deal": {"seed": 5},
        "actions": [],
        "result": {"durak": 1},
        "meta": {"note": "x"},
    }
    assert GameRecord.loads(record.dumps()).to_json() == record.to_json()
    # The replay neither reads nor checks the result.
    replay = GameRecord.from_json({**data, "result": {"durak": 3}}).replay()
    assert replay.ok and not replay.state.game_over
    # An explicit deal may leave out the trump while the deck lasts (the last card).
    d = Deal.from_seed(Rules(), 5)
    explicit = {
        "hands": [cards_str(h) for h in d.hands],
        "deck": [card_str(c) for c in d.deck],
    }
    assert GameRecord.from_json({"deal": explicit}).deal == d
    bad_trump = {**explicit, "trump": card_str(d.deck[0])}
    with pytest.raises(RecordError, match="trump must be the last card"):
        GameRecord.from_json({"deal": bad_trump})
