"""scripts/ismcts_duel.py's oracle side (issue 29's diagnostic): the search is
told the opponent's hand and nothing else it could not see."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kozyr.bots.base import RandomBot
from kozyr.bots.match import play_game
from kozyr.engine.actions import Action
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of

from .helpers import load_script


class Watcher(RandomBot):
    """A random player that keeps every view it is shown."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.views: list[View] = []

    def choose(self, view: View) -> Action:
        self.views.append(view)
        return super().choose(view)


def seat0_turns(
    rules: Rules, deal: Deal, state: GameState, watcher: Watcher
) -> Iterator[tuple[View, View, GameState]]:
    """Replay the game: at each of seat 0's turns, (the view the watcher was
    shown, the honest view, the true state); every view shown is used."""
    replay = GameState.new(rules, deal)
    seen = iter(watcher.views)
    for action in state.log or []:
        if replay.to_move == 0:
            yield next(seen), view_of(replay, 0), replay
        replay.apply(action)
    assert next(seen, None) is None


def test_an_oracle_sees_the_opponents_hand_and_its_own_view_otherwise() -> None:
    duel = load_script("ismcts_duel")
    rules = Rules(players=2)
    deal = Deal.from_seed(rules, 9003)
    watcher = Watcher(1)
    oracle = duel.OracleBot(watcher, rules, deal)
    state = play_game(rules, deal, [oracle, RandomBot(2)])
    assert state.result is not None and watcher.views
    # At each of seat 0's turns its view was the honest one, except that the
    # opponent's whole hand was "known".
    for told, honest, replay in seat0_turns(rules, deal, state, watcher):
        assert told.known[1] == replay.hands[1]
        assert told.known[0] == honest.known[0]
        assert told.hand == honest.hand and told.legal == honest.legal
        assert told.deck_count == honest.deck_count


def test_a_partial_oracle_is_told_the_same_share_of_cards_all_game() -> None:
    duel = load_script("ismcts_duel")
    rules = Rules(players=2)
    deal = Deal.from_seed(rules, 9004)
    watcher = Watcher(1)
    oracle = duel.OracleBot(watcher, rules, deal, 0.5, seed=7)
    assert 10 <= oracle.told.bit_count() <= 42
    state = play_game(rules, deal, [oracle, RandomBot(2)])
    told_some = hidden_some = False
    for told, honest, replay in seat0_turns(rules, deal, state, watcher):
        # Known: what the honest view knows, plus the told set's cards the
        # opponent holds; nothing else of the hand.
        assert told.known[1] == honest.known[1] | (replay.hands[1] & oracle.told)
        assert told.known[0] == honest.known[0] and told.hand == honest.hand
        told_some |= bool(replay.hands[1] & oracle.told & ~honest.known[1])
        hidden_some |= bool(replay.hands[1] & ~told.known[1])
    assert told_some and hidden_some
    # The same seed tells the same cards; shares outside (0, 1] are refused.
    assert duel.OracleBot(watcher, rules, deal, 0.5, seed=7).told == oracle.told
    for share in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="share"):
            duel.OracleBot(watcher, rules, deal, share)
    bot = duel.make('{"base": "10", "oracle": 0.25}', 3, "A", rules, deal)
    assert isinstance(bot, duel.OracleBot) and bot.told != (1 << 52) - 1


def test_the_oracle_flag_is_not_a_search_setting() -> None:
    duel = load_script("ismcts_duel")
    plain = duel.config_of('{"base": "10", "scale": 10}')
    assert duel.config_of('{"base": "10", "scale": 10, "oracle": true}') == plain
    rules = Rules(players=2)
    deal = Deal.from_seed(rules, 9000)
    assert isinstance(
        duel.make('{"base": "10", "oracle": true}', 1, "A", rules, deal), duel.OracleBot
    )
    assert not isinstance(duel.make('{"base": "10"}', 1, "A", rules, deal), duel.OracleBot)


def test_an_after_stock_side_switches_search_when_the_stock_is_empty() -> None:
    duel = load_script("ismcts_duel")
    side = '{"base": "10", "scale": 10, "after_stock": {"base": "10"}}'
    assert duel.config_of(side) == duel.config_of('{"base": "10", "scale": 10}')
    rules = Rules(players=2)
    deal = Deal.from_seed(rules, 9000)
    bot = duel.make(side, 1, "A", rules, deal)
    assert isinstance(bot, duel.PhaseBot) and bot.name == "A"
    assert bot.with_stock.config.iterations == 10 * bot.after_stock.config.iterations
    # Every view with cards in the stock goes to the first search, the rest to
    # the second.
    first, second = Watcher(1), Watcher(2)
    phased = duel.PhaseBot(first, second)
    state = play_game(rules, deal, [phased, RandomBot(3)])
    assert state.result is not None and first.views and second.views
    assert all(v.deck_count > 0 for v in first.views)
    assert all(v.deck_count == 0 for v in second.views)


def test_the_switch_can_come_while_the_stock_still_has_cards() -> None:
    duel = load_script("ismcts_duel")
    rules = Rules(players=2)
    deal = Deal.from_seed(rules, 9000)
    side = '{"base": "10", "scale": 10, "after_stock": {"base": "10"}, "stock_at_most": 6}'
    assert duel.make(side, 1, "A", rules, deal).stock_at_most == 6
    first, second = Watcher(1), Watcher(2)
    state = play_game(rules, deal, [duel.PhaseBot(first, second, 6), RandomBot(3)])
    assert state.result is not None
    assert all(v.deck_count > 6 for v in first.views)
    assert all(v.deck_count <= 6 for v in second.views)
    assert any(0 < v.deck_count <= 6 for v in second.views)
