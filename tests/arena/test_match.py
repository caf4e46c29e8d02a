"""One refereed game between bots, and bots that misbehave."""

import pytest

from kozyr.arena.match import BotError, play_game
from kozyr.bots.base import RandomBot
from kozyr.engine.actions import Action, Kind
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules


class TakeBot:
    """Always takes, even when it is not defending (an illegal move)."""

    name = "taker"

    def choose(self, view):
        return Action(view.seat, Kind.TAKE)


class CrashBot:
    name = "crasher"

    def choose(self, view):
        raise RuntimeError("out of cheese")


class StringBot:
    name = "stringy"

    def choose(self, view):
        return "attack"


def test_random_game_is_reproducible_and_recorded():
    rules = Rules(players=3)
    deal = Deal.from_seed(rules, 17)
    a = play_game(rules, deal, [RandomBot(1), RandomBot(2), RandomBot(3)], record=True)
    b = play_game(rules, deal, [RandomBot(1), RandomBot(2), RandomBot(3)], record=True)
    assert a.state.game_over and a.result is not None
    assert a.record is not None and b.record is not None
    assert a.record.actions == b.record.actions
    assert len(a.record.actions) == a.state.history_len
    replay = GameRecord.loads(a.record.dumps(a.result.to_json())).replay()
    assert replay.ok and replay.state.result == a.result


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (TakeBot(), r"bot 'taker' in seat \d returned an illegal action"),
        (CrashBot(), r"bot 'crasher' in seat \d failed: RuntimeError: out of cheese"),
        (StringBot(), r"bot 'stringy' in seat \d returned 'attack', which is not an Action"),
    ],
)
def test_misbehaving_bot_is_named(bad, message):
    rules = Rules(players=2)
    # Whoever moves first, the bad bot gets its turn within the game.
    with pytest.raises(BotError, match=message):
        for seed in range(5):
            play_game(rules, Deal.from_seed(rules, seed), [bad, RandomBot(seed)])
            play_game(rules, Deal.from_seed(rules, seed), [RandomBot(seed), bad])


def test_labels_override_names():
    rules = Rules(players=2)
    with pytest.raises(BotError, match="bot 'level 3 #2'"):
        for seed in range(5):
            deal = Deal.from_seed(rules, seed)
            play_game(rules, deal, [RandomBot(), TakeBot()], ["a", "level 3 #2"])
            play_game(rules, deal, [TakeBot(), RandomBot()], ["level 3 #2", "b"])


def test_wrong_number_of_bots():
    rules = Rules(players=3)
    with pytest.raises(Exception, match="2 bots for a 3-player table"):
        play_game(rules, Deal.from_seed(rules, 1), [RandomBot(), RandomBot()])
