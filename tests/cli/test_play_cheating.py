"""``kozyr play`` at a cheating table (rule 13): cheats on purpose, refused plain
commands, accusations and their verdicts, marks, the last call, help, whole games."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from kozyr.bots import make_bot
from kozyr.bots.base import Bot
from kozyr.bots.cheating import is_cheat
from kozyr.cli import play as play_cli
from kozyr.cli.main import build_parser
from kozyr.cli.play import LAST_CALL_PROMPT, PROMPT, PlaySession
from kozyr.cli.replay import replay_json
from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import card_str, cards_of, deck_cards, parse_card
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import DEFEND, LAST_CALL, THROW, GameState
from kozyr.engine.view import View, view_of
from kozyr.tui.commands import (
    CommandError,
    Move,
    cheat_card,
    command_text,
    parse_command,
)
from kozyr.tui.render import table_grid

from .test_play import MOVE_ROW, args, output, played_to_the_end, typed


def console() -> Console:
    """Wide enough that no narration or hint line wraps."""
    return Console(file=io.StringIO(), width=200, color_system=None, highlight=False)


def mask(text: str) -> int:
    m = 0
    for t in text.split():
        m |= 1 << parse_card(t)
    return m


def deal(hands: list[str], trump: str, first: int, **rules: Any) -> tuple[Rules, Deal]:
    """These hands, ``trump`` at the bottom of the deck, seat ``first`` leads."""
    r = Rules.from_dict({"players": len(hands), "cheating": True, **rules})
    held = [mask(h) for h in hands]
    taken = sum(held) | mask(trump)
    rest = [c for c in deck_cards(r.deck) if not taken >> c & 1]
    t = parse_card(trump)
    return r, Deal(tuple(held), (*rest, t), t, first_attacker=first)


# Hearts are trumps.  You (seat 0): 8♣ 9♠ K♠ 7♦ 6♥ Q♦; North (seat 1) below.
HANDS = ["8C 9S KS 7D 6H QD", "JC 7C 9D TD 7H AS"]


class Scripted:
    """A predictable computer player: covers with its lowest card, else takes;
    passes on throw-ins; leads its lowest single card.  ``cheat``: covers with a
    card that does not beat whenever it can.  ``watch``: calls out every cheat
    by someone else as soon as it acts (bots see ``View.cheats``)."""

    def __init__(self, cheat: bool = False, watch: bool = False) -> None:
        self.name = "script"
        self.cheat = cheat
        self.watch = watch

    def choose(self, view: View) -> Action:
        if self.watch:
            for rec in view.cheats:
                accuse = Action(view.seat, Kind.ACCUSE, 1 << rec[1])
                if accuse in view.legal:
                    return accuse
        if view.phase == LAST_CALL:
            return Action(view.seat, Kind.PASS)
        moves = [a for a in view.legal if a.kind != Kind.ACCUSE]
        fair = [a for a in moves if not is_cheat(view, a)]
        if view.phase == DEFEND:
            cheats = [a for a in moves if a.kind == Kind.DEFEND and is_cheat(view, a)]
            if self.cheat and cheats:
                return cheats[0]
            covers = [a for a in fair if a.kind == Kind.DEFEND]
            return covers[0] if covers else Action(view.seat, Kind.TAKE)
        if view.phase == THROW:
            return Action(view.seat, Kind.PASS)
        return next(a for a in fair if a.cards.bit_count() == 1)


def scripted_game(
    lines: Iterable[str], bot: Bot, first: int = 0, hands: list[str] = HANDS
) -> tuple[PlaySession, list[str], str]:
    """Play the person's ``lines`` (then ``q``) against ``bot``; the prompts seen
    and everything printed."""
    rules, d = deal(hands, "AH", first)
    feed = iter([*lines, "q"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)

    session = PlaySession(rules, d, 0, {1: bot}, console(), read)
    session.run()
    return session, prompts, output(session.console)


def moves(session: PlaySession) -> list[str]:
    return [str(Action.from_json(a)) for a in session.record.actions]


# ------------------------------------------------------------ cheating on purpose
def test_a_cheat_made_on_purpose_and_plain_commands_that_would_cheat_are_refused():
    session, _, text = scripted_game(
        ["a 8c ks", "a 8c", "th 9s", "9s", "a 9s", "cheat 9s"], Scripted()
    )
    assert (
        "✗ 8♣ K♠ are not all of one rank: leading K♠ alongside would be a cheat. "
        "To cheat on purpose, type cheat 8c ks" in text
    )
    refusal = (
        "✗ 9♠: its rank is not on the table, so throwing it in would be a cheat. "
        "To cheat on purpose, type cheat 9s"
    )
    assert text.count(refusal) == 3  # th 9s, a bare 9s and a 9s
    assert "You throw in 9♠ — a cheat." in text
    assert moves(session)[:3] == ["seat 0 attack 8C", "seat 1 defend JC on 8C", "seat 0 throw 9S"]
    assert session.state.cheat_cards == mask("9S")
    # Nobody announces a cheat: North sees a card thrown in, like any other.
    assert "cheated" not in text and "North (script) cheat" not in text


def test_cheating_cover_and_lead_alongside_on_purpose():
    # North leads 7♣; you cover it with 7♦, which does not beat it.
    session, _, text = scripted_game(["d 7d", "d 7d>7c", "cheat 7d on 7c"], Scripted(), first=1)
    assert "✗ 7♦ does not beat 7♣: cover with a higher ♣ or a trump (♥). Covering with it" in text
    assert "to cheat on purpose, type cheat 7d on 7c" in text
    assert "You cover 7♣ with 7♦ — a cheat." in text
    assert "seat 0 defend 7D on 7C" in moves(session)
    # A lead with a card of another rank alongside.
    session, _, text = scripted_game(["cheat 8c", "cheat 9s ks 8c", "cheat 9s ks"], Scripted())
    assert "✗ a one-card lead is always fair" in text
    assert "✗ a cheating lead is cards of one rank and one card of another rank" in text
    assert "You attack North (script) with 9♠ K♠ — a cheat." in text
    assert session.state.cheat_cards == mask("KS")  # two single cards: the higher rank


def test_the_cheat_command_refuses_fair_moves_and_honest_tables():
    rules, d = deal(HANDS, "AH", 0)
    state = GameState.new(rules, d)
    state.apply(Action(0, Kind.ATTACK, mask("8C")))
    view = view_of(state, 1)
    assert "that is no cheat" in error(view, "cheat jc on 8c")
    assert "J♣ beats 8♣: that is no cheat, cover with d jc" in error(view, "cheat jc")
    state.apply(Action(1, Kind.DEFEND, mask("JC"), parse_card("8C")))
    view = view_of(state, 0)
    assert parse_command("cheat 9s", view) == Move((Action(0, Kind.THROW, mask("9S")),))
    assert parse_command("cheat th 9s", view) == parse_command("cheat 9s", view)
    assert "only a throw-in, a cover or a lead can be a cheat" in error(view, "cheat t")
    honest = GameState.new(Rules(players=2), d)
    assert "no cheating at this table" in error(view_of(honest, 0), "cheat 8c 8d ks")
    assert "no accusations at this table" in error(view_of(honest, 0), "x 8c")


def error(view: View, text: str) -> str:
    with pytest.raises(CommandError) as info:
        parse_command(text, view)
    return str(info.value)


# ------------------------------------------------------------ accusations
def test_a_bots_cheat_caught_with_x():
    # North covers 8♣ with A♠ (no beat); you call it out at your next turn.
    session, prompts, text = scripted_game(["a 8c", "x as"], Scripted(cheat=True))
    assert "North (script) covers 8♣ with A♠." in text  # no announcement of the cheat
    line = (
        "You called out A♠ — a cheat by North (script): the card goes back, "
        "North (script) is marked."
    )
    assert line in text
    assert moves(session)[1:4] == [
        "seat 1 defend AS on 8C",
        "seat 0 accuse AS",
        "seat 1 defend JC on 8C",  # marked now: North covers honestly
    ]
    assert session.state.marked == 0b10
    after = text.split(line, 1)[1]
    assert re.search(r"North \(script\)\s+\d+\s+Defend · marked", after)
    assert prompts == [PROMPT] * 3


def test_a_false_accusation_marks_you_and_the_tag_shows():
    lines = ["x 7c", "cheat 7d on 7c", "d 7d>7c", "x 7c", "x 8c", "x", "d 8c"]
    session, _, text = scripted_game(lines, Scripted(), first=1)
    assert "You called out 7♣ — it was fair: you are marked." in text
    board = text.split("it was fair: you are marked.", 1)[1]
    assert re.search(r"You\s+6\s+Defend · marked", board)
    assert "7♣✓" in board
    assert "✓ = called out and found fair" in board
    assert "✗ you are marked: you may no longer cheat" in text
    assert "7♦ does not beat 7♣: cover with a higher ♣ or a trump (♥) (you are marked" in text
    assert "✗ 7♣ was called out already and found fair" in text
    assert "✗ 8♣ is not on the table" in text
    assert "✗ x: call out one card on the table, e.g. x 9s" in text
    assert moves(session)[:3] == ["seat 1 attack 7C", "seat 0 accuse 7C", "seat 0 defend 8C on 7C"]
    assert session.state.marked == 0b01


def test_your_cheat_caught_by_a_bot_and_the_last_call():
    # You throw 9♠ in; North calls it out at once.  You are marked and have no
    # honest throw-in, so the round ends in a last call: North passes at once,
    # you are asked last and press Enter.
    session, prompts, text = scripted_game(["a 8c", "cheat 9s", ""], Scripted(watch=True))
    assert "You throw in 9♠ — a cheat." in text
    assert "North (script) called out your 9♠ — caught: the card goes back, you are marked." in text
    assert "Last call: the round is over — before the cards leave the table" in text
    assert prompts == [PROMPT, PROMPT, LAST_CALL_PROMPT, PROMPT]
    assert moves(session)[:6] == [
        "seat 0 attack 8C",
        "seat 1 defend JC on 8C",
        "seat 0 throw 9S",
        "seat 1 accuse 9S",
        "seat 1 pass",  # the last call: the bot first
        "seat 0 pass",
    ]
    assert moves(session)[6].startswith("seat 1 attack")  # bito: North leads round 2
    assert "Bito: 2 cards go to the discard." in text
    assert re.search(r"You\s+\d+\s+Defend · marked", text.rsplit("Round 2", 1)[1])


def test_a_cheat_called_out_in_the_last_call():
    lines = ["a 8c", "p", "m", "b", "x as", "p", ""]
    session, prompts, text = scripted_game(lines, Scripted(cheat=True))
    assert prompts == [PROMPT, PROMPT, *[LAST_CALL_PROMPT] * 3, PROMPT, LAST_CALL_PROMPT, PROMPT]
    assert "Round 1 · last call" in text
    listing = text.split("Your legal moves", 1)[1]
    assert re.search(r"^ p +pass: call nothing out", listing, re.M)
    assert re.search(r"^ x as +call out A♠ \(played by North \(script\)\)", listing, re.M)
    assert "x CARD call out a card · p / Enter pass" in text
    assert (
        "You called out A♠ — a cheat by North (script): the card goes back, North (script) "
        "is marked. The round goes on from before the cheat." in text
    )
    assert moves(session) == [
        "seat 0 attack 8C",
        "seat 1 defend AS on 8C",
        "seat 0 pass",
        "seat 1 pass",  # the bot answered the last call before you were asked
        "seat 0 accuse AS",
        "seat 1 defend JC on 8C",
        "seat 0 pass",
        "seat 1 pass",
        "seat 0 pass",  # Enter
        "seat 1 attack 7S",
    ]
    assert "Bito: 2 cards go to the discard." in text


def test_last_call_accepts_only_a_call_or_a_pass():
    _, _, text = scripted_game(["a 8c", "p", "a 9s", "t", "x jc"], Scripted(cheat=True))
    assert "✗ last call: call out a card (x CARD) or pass (p / Enter)" in text
    assert "✗ you don't hold J♣" not in text
    assert "✗ J♣ is not on the table" in text


# ------------------------------------------------------------ screens
def test_help_lists_cheat_and_accuse_at_cheating_tables_only():
    _, _, text = scripted_game(["?"], Scripted())
    for row in ("cheat 9s", "cheat 7c on 8c", "cheat 8c 8h ks", "x 9s", "Cheating table:"):
        assert row in text
    assert "at each of your turns and in the last call" in text
    assert "2 players · cheating" in text
    assert "cheat CARD… ODD lead ODD alongside (a cheat)" in text  # the hint line
    answers = iter(["?", "q"])
    honest = PlaySession(
        Rules(players=2),
        Deal.from_seed(Rules(players=2), 1),
        0,
        {1: Scripted()},
        console(),
        lambda prompt: next(answers),
    )
    honest.run()
    plain = output(honest.console)
    assert "Commands" in plain
    assert "cheat 9s" not in plain and "x 9s" not in plain and "cheating" not in plain


def test_the_play_help_names_the_cheating_rule(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--help"])
    assert "cheating=true" in " ".join(capsys.readouterr().out.split())


def test_rule_option_makes_a_cheating_table():
    setup = play_cli.build_setup(
        args("--level", "2", "--rule", "cheating=true"), False, lambda p: "", console()
    )
    assert setup.rules.cheating


def test_playable_marks_only_honest_moves():
    # You throw in with no honest card: nothing is marked playable although
    # every card could be thrown in as a cheat.
    _, _, text = scripted_game(["a 8c"], Scripted())
    hand = text.rsplit("Your hand", 1)[1].split("\n", 1)[0]
    assert "*" not in hand
    assert "p pass / done · cheat CARD throw in any rank (a cheat)" in text


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2, cheating=True),
        Rules(players=3, variant="perevodnoy", transfer_show_trump=True, cheating=True),
        Rules(players=4, cheating=True, lead_multiple=False),
    ],
    ids=["2p", "3p-perevodnoy", "4p-single-leads"],
)
def test_every_legal_move_reads_back_from_its_command(rules: Rules) -> None:
    """command_text with the view (what the move list shows) parses back to the
    same action, for every seat that may act: accusations and last-call passes
    out of turn included."""
    rng = random.Random(3)
    for seed in range(3):
        state = GameState.from_seed(rules, seed)
        while not state.game_over:
            acting: list[Action] = []
            for seat in range(rules.players):
                view = view_of(state, seat)
                for a in view.legal:
                    text = command_text(a, view)
                    assert parse_command(text, view) == Move((a,)), text
                    assert text.startswith("cheat ") == (cheat_card(view, a) >= 0)
                acting += view.legal
            state.apply(rng.choice(acting))


# ------------------------------------------------------------ whole games
def typed_at_cheating_table(action: Action, view: View, rng: random.Random) -> str:
    """How a person might type ``action`` (written apart from the client's own
    command_text; cheats are recognised by the bots' ``is_cheat``)."""
    if view.phase == LAST_CALL and action.kind == Kind.PASS:
        return rng.choice(["", "p", "pass"])
    if action.kind == Kind.ACCUSE:
        card = card_str(cards_of(action.cards)[0]).lower()
        return f"{rng.choice(['x', 'accuse', 'X'])} {card}"
    if is_cheat(view, action):
        cards = " ".join(card_str(c).lower() for c in cards_of(action.cards))
        if action.kind == Kind.DEFEND:
            target = card_str(action.target).lower()
            return rng.choice([f"cheat {cards} on {target}", f"cheat {cards}>{target}"])
        verb = {Kind.THROW: "th ", Kind.ATTACK: ""}[Kind(action.kind)]
        return rng.choice([f"cheat {cards}", f"cheat {verb}{cards}"])
    return typed(action, view, rng)


class CheatingViewPlayer:
    """Types a random legal move of the person's view: cheats, accusations and
    last-call answers as often as any other move."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.session: PlaySession | None = None
        self.typed: list[str] = []
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        assert self.session is not None
        view = view_of(self.session.state, self.session.seat)
        assert prompt == (LAST_CALL_PROMPT if view.phase == LAST_CALL else PROMPT)
        self.prompts.append(prompt)
        line = typed_at_cheating_table(self.rng.choice(view.legal), view, self.rng)
        self.typed.append(line)
        return line


@pytest.mark.parametrize(
    ("rules", "human", "levels"),
    [
        (Rules(players=2, cheating=True), 0, (3,)),
        (Rules(players=3, variant="perevodnoy", cheating=True), 1, (1, 4)),
        (Rules(players=4, teams="2v2", cheating=True, throw_in_after_take=False), 2, (2, 3, 4)),
    ],
    ids=["2p", "3p-perevodnoy", "2v2"],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_full_cheating_game_typed_to_the_end(
    rules: Rules, human: int, levels: tuple[int, ...], seed: int
) -> None:
    player = CheatingViewPlayer(seed)
    others = [s for s in range(rules.players) if s != human]
    bots = {s: make_bot(lv, seed=seed * 8 + s) for s, lv in zip(others, levels, strict=True)}
    session = PlaySession(rules, Deal.from_seed(rules, seed), human, bots, console(), player)
    player.session = session
    text = played_to_the_end(session, player, human)
    state = session.state
    assert "Last call: the round is over" in text
    assert LAST_CALL_PROMPT in player.prompts
    replay = GameRecord.loads(session.record.dumps()).replay()
    assert replay.ok and replay.state.result == state.result
    session.end_screen()
    assert "Game over" in output(session.console)


class CheatingListPlayer:
    """Types ``m``, then one of the commands the printed move list shows
    (cheats are summed up there, so this player never cheats; it calls out cards)."""

    def __init__(self, con: Console, seed: int) -> None:
        self.con = con
        self.rng = random.Random(seed)
        self.mark = 0
        self.listed = False

    def __call__(self, prompt: str) -> str:
        assert prompt in (PROMPT, LAST_CALL_PROMPT)
        text = output(self.con)
        if not self.listed:
            self.listed = True
            self.mark = len(text)
            return "m"
        listing = text[self.mark :].split("Your legal moves", 1)[1]
        commands = MOVE_ROW.findall(listing)
        assert commands, listing
        self.listed = False
        return str(self.rng.choice(commands))


def test_a_saved_cheating_game_replays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    con = console()
    path = tmp_path / "cheating.json"
    argv = ("--rule", "cheating=true", "--players", "3", "--seed", "7", "--level", "4")
    code = play_cli.play(
        args(*argv, "--save", str(path)), con, CheatingListPlayer(con, 7), interactive=False
    )
    assert code == 0
    text = output(con)
    assert "Game over" in text and f"Record saved to {path}" in text
    data = json.loads(path.read_text())
    assert data["rules"]["cheating"] is True
    assert any(a["type"] == "pass" for a in data["actions"])
    code, out = replay_json(path.read_text())
    assert code == 0 and out["state"]["result"] == data["result"]
    final = GameRecord.load(path).replay()
    assert final.ok and final.state.game_over


def test_ascii_marks_fair_cards_with_a_plus():
    rules, d = deal(HANDS, "AH", 1)
    state = GameState.new(rules, d)
    state.apply(Action(1, Kind.ATTACK, mask("7C")))
    state.apply(Action(0, Kind.ACCUSE, mask("7C")))
    con = console()
    con.print(table_grid(view_of(state, 0), ascii=True))
    text = output(con)
    assert "7C+" in text and "+ = called out and found fair" in text
