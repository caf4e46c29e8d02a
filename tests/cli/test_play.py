"""``kozyr play`` end to end: whole games typed by scripted players, errors, screens, records."""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from kozyr.bots.base import Bot, RandomBot
from kozyr.cli import play as play_cli
from kozyr.cli.main import build_parser
from kozyr.cli.play import PlaySession, parse_levels, seat_labels
from kozyr.cli.replay import replay_json
from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import card_str, cards_of
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of
from kozyr.tui.cards import card_name, hand_order
from kozyr.tui.render import end_panel

PROMPT = "Your move> "


def console() -> Console:
    return Console(file=io.StringIO(), width=110, color_system=None, highlight=False)


def output(con: Console) -> str:
    file = con.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def played_to_the_end(session: PlaySession, player: Any, human: int) -> str:
    """Run a session whose human is ``player`` (it keeps what it ``typed``) to the
    end: every typed move was accepted and is in the record.  The output."""
    assert session.run() is True
    state = session.state
    assert state.game_over and state.result is not None
    text = output(session.console)
    assert "✗" not in text, "a typed legal move was refused"
    human_moves = [a for a in session.record.actions if a["seat"] == human]
    assert len(human_moves) == len(player.typed) > 0
    return text


def random_bots(rules: Rules, human: int, seed: int) -> dict[int, Bot]:
    return {s: RandomBot(seed * 10 + s) for s in range(rules.players) if s != human}


# ------------------------------------------------------------- scripted players
def typed(action: Action, view: View, rng: random.Random) -> str:
    """A command for ``action`` as a person might type it (written independently of
    the client's own ``command_text``), in varied spellings."""

    def card(c: int) -> str:
        text = card_str(c)
        if text[0] == "T" and rng.random() < 0.5:
            text = "10" + text[1]
        return text.lower() if rng.random() < 0.7 else text

    cards = " ".join(card(c) for c in cards_of(action.cards))
    kind = action.kind
    if kind == Kind.ATTACK:
        return f"{rng.choice(['a', 'attack'])} {cards}"
    if kind == Kind.THROW:
        return f"{rng.choice(['th', 'a', 'throw'])} {cards}"
    if kind == Kind.TAKE:
        return rng.choice(["t", "take", "T"])
    if kind == Kind.PASS:
        return rng.choice(["p", "pass", "done"])
    if kind == Kind.TRANSFER:
        return f"tr {cards}"
    if kind == Kind.SHOW_TRUMP:
        return f"s {cards}"
    target = card(action.target)
    same_card = [a for a in view.legal if a.kind == Kind.DEFEND and a.cards == action.cards]
    forms = [f"d {cards}>{target}", f"d {cards} {target}", f"d {cards} on {target}"]
    if len(same_card) == 1:
        forms.append(f"d {cards}")
    return rng.choice(forms)


class ViewPlayer:
    """Reads the person's view from the session and types a random legal move."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.session: PlaySession | None = None
        self.typed: list[str] = []

    def __call__(self, prompt: str) -> str:
        assert prompt == PROMPT and self.session is not None
        view = view_of(self.session.state, self.session.seat)
        line = typed(self.rng.choice(view.legal), view, self.rng)
        self.typed.append(line)
        return line


MOVE_ROW = re.compile(r"^ ((?:[a-z]+)(?: [0-9a-z>]+)*)  +\S", re.M)


class ListPlayer:
    """Types ``m``, reads the move list the client printed, and types one of its commands.
    Needs nothing but the console output."""

    def __init__(self, con: Console, seed: int) -> None:
        self.con = con
        self.rng = random.Random(seed)
        self.mark = 0
        self.listed = False
        self.moves = 0

    def __call__(self, prompt: str) -> str:
        assert prompt == PROMPT
        text = output(self.con)
        if not self.listed:
            self.listed = True
            self.mark = len(text)
            return "m"
        listing = text[self.mark :]
        assert "Your legal moves" in listing
        commands = MOVE_ROW.findall(listing.split("Your legal moves", 1)[1])
        assert commands, listing
        self.listed = False
        self.moves += 1
        return str(self.rng.choice(commands))


def session_for(
    rules: Rules,
    seed: int,
    read_line: Callable[[str], str],
    human: int = 0,
    con: Console | None = None,
) -> PlaySession:
    return PlaySession(
        rules,
        Deal.from_seed(rules, seed),
        human,
        random_bots(rules, human, seed),
        con or console(),
        read_line,
    )


# ------------------------------------------------------------------ full games
@pytest.mark.parametrize(
    ("rules", "human"),
    [
        (Rules(players=2), 0),
        (Rules(players=3, deck=24), 1),
        (Rules(players=4, variant="perevodnoy", transfer_show_trump=True), 0),
        (Rules(players=6, deck=52, throw_in="neighbours", first_round_cap="first_round"), 3),
        (Rules(players=4, teams="2v2", variant="perevodnoy"), 2),
        (Rules(players=3, variant="perevodnoy", throw_in_after_take=False), 1),
    ],
    ids=["2p", "3p-24", "4p-perevodnoy", "6p-52", "2v2", "3p-no-throw-in-after-take"],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_full_game_typed_from_the_view(rules: Rules, human: int, seed: int) -> None:
    player = ViewPlayer(seed)
    session = session_for(rules, seed, player, human)
    player.session = session
    played_to_the_end(session, player, human)
    state = session.state
    # The record replays to the same end.
    replay = GameRecord.loads(session.record.dumps()).replay()
    assert replay.ok and replay.state.result == state.result
    session.end_screen()
    end = output(session.console)
    assert "Game over" in end and "Cards left" in end


@pytest.mark.parametrize("seed", [4, 5])
def test_full_game_typed_from_the_printed_move_list(seed: int) -> None:
    con = console()
    player = ListPlayer(con, seed)
    session = session_for(Rules(players=3, variant="perevodnoy"), seed, player, con=con)
    assert session.run() is True
    assert player.moves == sum(1 for a in session.record.actions if a["seat"] == 0)
    assert "✗" not in output(con)


def test_bot_moves_are_narrated():
    player = ViewPlayer(1)
    session = session_for(Rules(players=4), 1, player)
    player.session = session
    session.run()
    text = output(session.console)
    assert re.search(r"(West|North|East) \(random\) (attacks|covers|throws in|takes)", text)
    assert re.search(r"(West|North|East) \(random\) covers \S+ with \S+\.", text)
    assert re.search(r"Round \d+: ", text)
    assert "Bito:" in text or "up" in text


# ------------------------------------------------------------ wrong input
def first_turn(
    rules: Rules, seed: int, lines: Iterable[str]
) -> tuple[PlaySession, list[dict[str, Any]], str]:
    """Run a session until the person's first prompt, type ``lines`` then quit; return
    the state (as JSON) seen at each prompt."""
    feed = iter([*lines, "q"])
    seen: list[dict[str, Any]] = []
    holder: list[PlaySession] = []

    def read(prompt: str) -> str:
        seen.append(holder[0].state.to_json())
        return next(feed)

    session = session_for(rules, seed, read)
    holder.append(session)
    assert session.run() is False
    return session, seen, output(session.console)


def test_wrong_input_changes_nothing():
    rules = Rules(players=2)
    session, _, _ = first_turn(rules, 1, [])
    view = view_of(session.state, 0)
    assert view.my_turn
    defending = view.phase == 1
    seen_cards = view.hand | view.table_cards
    not_held = next(c for c in range(52) if not seen_cards >> c & 1)
    verb = "d" if defending else "a"
    lines = [
        "xyzzy",
        "!!!",
        f"{verb} zz",
        f"{verb} {card_str(not_held)}",
        "",
        "th 6s 7s",
        "p 8c",
        "d",
    ]
    if defending:
        target = view.table[0][0]
        weak = [
            c
            for c in cards_of(view.hand)
            if not any(a.kind == Kind.DEFEND and a.cards == 1 << c for a in view.legal)
        ]
        lines += [f"d {card_str(c)}>{card_str(target)}" for c in weak] + ["p"]
    else:
        lines += ["t", "d 6s>7s"]
    session, seen, text = first_turn(rules, 1, lines)
    assert all(s == seen[0] for s in seen), "a wrong command changed the game"
    assert not [a for a in session.record.actions if a["seat"] == 0]
    assert text.count("✗") == len(lines)
    assert "unknown command 'xyzzy'" in text
    assert "'zz' is not a card" in text
    assert "you don't hold" in text
    if defending:
        assert "does not beat" in text


def test_engine_rejections_are_reported_without_seat_numbers():
    """A lead the parser lets through but the engine refuses (mixed ranks)."""
    rules = Rules(players=2)
    for seed in range(20):
        session, _, _ = first_turn(rules, seed, [])
        view = view_of(session.state, 0)
        ranks = {c % 13: c for c in cards_of(view.hand)}
        if view.phase == 0 and len(ranks) > 1:
            two = list(ranks.values())[:2]
            _, seen, text = first_turn(rules, seed, [f"a {card_str(two[0])} {card_str(two[1])}"])
            assert "cards led together must all have the same rank" in text
            assert seen[0] == seen[1]
            return
    pytest.fail("no seed where the person leads")


def test_help_and_board_and_moves_screens():
    _, seen, text = first_turn(Rules(players=2), 2, ["?", "h", "b", "m"])
    assert text.count("Commands") == 2
    assert "d jc>8c" in text and "take the cards on the table" in text
    assert "Your legal moves" in text
    assert text.count("Your hand") >= 2
    assert all(s == seen[0] for s in seen)


def test_board_shows_roles_trump_counts_and_marks_playable_cards():
    _, _, text = first_turn(Rules(players=4), 3, [])
    assert re.search(r"Trump \S+ \((spades|clubs|diamonds|hearts)\)\s+Deck 12\s+Discard 0", text)
    for tag in ("Attack", "Defend", "Throw-in"):
        assert tag in text
    assert "(* = playable)" in text
    hand = re.search(r"Your hand (.*)", text)
    assert hand and "*" in hand.group(1)
    assert "You left the game" in text


def test_known_cards_of_an_opponent_are_shown():
    """After a bot picks cards up, the board lists them as known in its hand."""
    for seed in range(1, 30):
        player = ViewPlayer(seed)
        session = session_for(Rules(players=2), seed, player)
        player.session = session
        seen: list[tuple[int, str]] = []

        def read(
            prompt: str,
            player: ViewPlayer = player,
            session: PlaySession = session,
            seen: list[tuple[int, str]] = seen,
        ) -> str:
            if session.state.known[1] and not seen:
                seen.append((session.state.known[1], output(session.console)))
            return player(prompt)

        session.read_line = read
        session.run()
        if seen:
            known, text = seen[0]
            board = text.rsplit("Known cards", 1)[1]
            row = re.search(r"North \(random\)\s+\d+\s+(?:Attack|Defend|Throw-in)\S*(.*?)│", board)
            assert row, board
            want = " ".join(
                card_name(c) for c in hand_order(cards_of(known), session.state.trump_suit)
            )
            assert row.group(1).strip() == want
            return
    pytest.fail("no game where the bot picked cards up")


# ------------------------------------------------------------ end screen
def finished_games(rules: Rules, seeds: Iterable[int]) -> Iterable[GameState]:
    for seed in seeds:
        state = GameState.from_seed(rules, seed)
        state.random_playout(random.Random(seed))
        yield state


def render(panel: object) -> str:
    con = console()
    con.print(panel)
    return output(con)


def test_end_screen_durak_and_cards_left():
    rules = Rules(players=3)
    labels = seat_labels(3, 0, random_bots(rules, 0, 1))
    durak = next(s for s in finished_games(rules, range(50)) if s.result and s.result.durak == 1)
    text = render(end_panel(durak, labels, 0, footer=["Seed 9"]))
    assert "West (random) is the durak." in text
    row = re.search(r"West \(random\)\s+(\d+)\s", text)
    assert row and int(row.group(1)) == durak.hands[1].bit_count() > 0
    assert "Seed 9" in text and "1st out" in text and "durak" in text
    mine = next(s for s in finished_games(rules, range(50)) if s.result and s.result.durak == 0)
    assert "You are the durak!" in render(end_panel(mine, labels, 0))


def test_end_screen_draw_and_pogony():
    rules = Rules(players=2)
    labels = seat_labels(2, 0, random_bots(rules, 0, 1))
    draw = next(s for s in finished_games(rules, range(500)) if s.result and s.result.draw)
    assert "Draw: nobody is the durak." in render(end_panel(draw, labels, 0))
    pogony = next(s for s in finished_games(rules, range(3000)) if s.result and s.result.pogony)
    assert "Pogony!" in render(end_panel(pogony, labels, 0))
    assert "came round a third time" not in render(end_panel(draw, labels, 0))


def test_end_screen_draw_by_repetition():
    """A three-player random game that comes round to one position three times."""
    rules = Rules(players=3, variant="perevodnoy")
    (state,) = finished_games(rules, [2501])
    assert state.result is not None and state.result.repetition
    labels = seat_labels(3, 0, random_bots(rules, 0, 1))
    text = render(end_panel(state, labels, 0))
    assert "Draw: nobody is the durak." in text
    assert "The same position came round a third time" in text


# ------------------------------------------------------------ the command
def args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["play", *argv])


def test_play_command_saves_a_record_that_replays(tmp_path: Path) -> None:
    con = console()
    path = tmp_path / "game.json"
    player = ListPlayer(con, 3)
    code = play_cli.play(
        args("--players", "3", "--seed", "11", "--level", "random", "--save", str(path)),
        con,
        player,
        interactive=False,
    )
    assert code == 0
    text = output(con)
    assert "Game over" in text and "Seed 11" in text and f"Record saved to {path}" in text
    record = GameRecord.load(path)
    assert record.deal.seed == 11 and record.rules.players == 3
    data = json.loads(path.read_text())
    final = record.replay()
    assert final.ok and final.state.game_over
    result = final.state.result
    assert result is not None and data["result"] == result.to_json()
    code, out = replay_json(path.read_text())
    assert code == 0 and out["state"]["result"] == data["result"]
    if result.durak is None:
        assert "Draw" in text
    else:
        assert "durak" in text


def test_quit_saves_the_unfinished_record(tmp_path: Path) -> None:
    con = console()
    path = tmp_path / "part.json"
    code = play_cli.play(
        args("--seed", "2", "--level", "random", "--save", str(path)),
        con,
        lambda prompt: "q",
        interactive=False,
    )
    assert code == 0
    data = json.loads(path.read_text())
    assert "result" not in data
    assert GameRecord.loads(path.read_text()).replay().ok


def test_setup_prompt_asks_for_missing_options():
    answers = iter(["9", "3", "pe", "52", "11", "3,random", "q"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    con = console()
    setup = play_cli.build_setup(args("--seed", "1"), True, read, con)
    assert setup.rules.players == 3 and setup.rules.variant == "perevodnoy"
    assert setup.rules.deck == 52 and setup.levels == [3, "random"]
    assert "Please answer one of" in output(con)
    assert "level 'random,' " not in output(con)
    assert "expected 1-10, auto or random" in output(con)
    assert len(prompts) == 6


def test_no_prompt_without_a_terminal():
    setup = play_cli.build_setup(args("--level", "random"), False, lambda p: "", console())
    assert setup.rules == Rules(players=2, deck=36, variant="podkidnoy")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rule", "bogus=1"], "expected NAME=VALUE with NAME one of"),
        (["--rule", "lead_multiple=maybe"], "expected true or false"),
        (["--rule", "players=3"], "use --players"),
        (["--rule", "throw_in=some"], "expected one of all, neighbours"),
        (["--players", "5", "--deck", "24"], "cannot deal"),
        (["--seat", "4"], "--seat must be 0-1"),
        (["--players", "3", "--level", "1,2,3"], "lists 3 levels for 2 bots"),
        (["--level", "11"], "expected 1-10, auto or random"),
    ],
)
def test_bad_options_exit_2_with_a_message(argv: list[str], message: str) -> None:
    con = console()
    base = ["--level", "random"] if "--level" not in argv else []
    code = play_cli.play(args(*base, *argv), con, lambda p: "q", interactive=False)
    assert code == 2
    assert message in output(con)


def test_rule_option_reaches_the_table():
    setup = play_cli.build_setup(
        args(
            "--level",
            "random",
            "--players",
            "4",
            "--rule",
            "lead_multiple=false",
            "--rule",
            "teams=2v2",
            "--variant",
            "perevodnoy",
            "--rule",
            "transfer_show_trump=yes",
            "--rule",
            "throw-in-after-take=off",
        ),
        False,
        lambda p: "",
        console(),
    )
    assert setup.rules == Rules(
        players=4,
        lead_multiple=False,
        teams="2v2",
        variant="perevodnoy",
        transfer_show_trump=True,
        throw_in_after_take=False,
    )


def test_parse_levels():
    assert parse_levels("4", 3) == [4, 4, 4]
    assert parse_levels("auto", 2) == ["auto", "auto"]
    assert parse_levels("2, random", 2) == [2, "random"]


def test_subprocess_quits_cleanly_on_q(tmp_path: Path) -> None:
    """The real command, fed through a pipe (not a terminal): no set-up prompt, echoed input."""
    argv = ["play", "--players", "2", "--seed", "1", "--level", "4"]
    proc = subprocess.run(
        [sys.executable, "-m", "kozyr.cli.main", *argv],
        input="?\nzz\nq\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "KOZYR_HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "North (level 4)" in proc.stdout
    assert "Commands" in proc.stdout
    assert "Your move> zz" in proc.stdout  # piped input is echoed
    assert "unknown command 'zz'" in proc.stdout
    assert "You left the game" in proc.stdout
    assert "Set up the table" not in proc.stdout
    assert not (tmp_path / "players.json").exists()  # a game left unfinished counts for nothing


# ------------------------------------------------------------ levels and records
def test_fixed_level_game_updates_the_per_level_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    con = console()
    code = play_cli.play(
        args("--players", "3", "--seed", "3", "--level", "2", "--name", "anna"),
        con,
        ListPlayer(con, 1),
        interactive=False,
    )
    assert code == 0
    text = output(con)
    assert "West (level 2)" in text and "East (level 2)" in text
    data = json.loads((tmp_path / "players.json").read_text())
    stats = data["players"]["anna"]["levels"]["2"]
    assert stats["games"] == 1 and stats["wins"] + stats["losses"] + stats["draws"] == 1
    assert "Your record against level 2: 1 game, " in text


def number(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, pattern
    return int(found[1])


def test_auto_level_follows_the_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    levels = []
    for seed in (1, 2):
        con = console()
        code = play_cli.play(args("--seed", str(seed)), con, ListPlayer(con, seed), False)
        assert code == 0
        text = output(con)
        level = number(r"Auto level (\d+) for 'player'", text)
        assert f"North (level {level})" in text
        nxt = number(r"your next game is at level (\d+)", text)
        levels.append((level, nxt))
    assert levels[1][0] == levels[0][1]
    data = json.loads((tmp_path / "players.json").read_text())["players"]["player"]
    assert data["level"] == levels[1][1]
    assert sum(s["games"] for s in data["levels"].values()) == 2


def test_a_bad_players_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    (tmp_path / "players.json").write_text("{nope")
    con = console()
    assert play_cli.play(args("--level", "auto"), con, lambda p: "q", False) == 2
    assert "cannot read the players file" in output(con)


class LeavesAfterOneMove:
    """Makes one move (through ListPlayer), then types ``q`` and answers the
    leave question with ``answers`` in turn (then plays on if still asked)."""

    def __init__(self, con: Console, answers: list[str]) -> None:
        self.player = ListPlayer(con, 5)
        self.answers = answers
        self.prompts: list[str] = []
        self.quit_sent = 0

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if prompt.endswith("Leave? (y/N) "):
            return self.answers.pop(0)
        if self.player.moves >= 1 and not self.player.listed and self.answers:
            self.quit_sent += 1
            return "q"
        return self.player(prompt)


def test_leaving_after_a_move_counts_as_a_loss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    con = console()
    reader = LeavesAfterOneMove(con, ["n", "y"])
    argv = ("--seed", "4", "--level", "3", "--name", "dodger")
    code = play_cli.play(args(*argv), con, reader, False)
    assert code == 0
    text = output(con)
    warning = "Leaving now counts as a loss against level 3. Leave? (y/N) "
    assert reader.prompts.count(warning) == 2  # "n" went back to the game, "y" left
    assert reader.quit_sent == 2
    assert "You left the game: it counts as a loss." in text
    assert "Your record against level 3: 1 game, 0 won, 1 lost, 0 drawn." in text
    stats = json.loads((tmp_path / "players.json").read_text())["players"]["dodger"]
    assert stats["levels"]["3"] == {"games": 1, "wins": 0, "losses": 1, "draws": 0}


def test_leaving_auto_lowers_the_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    con = console()
    code = play_cli.play(args("--seed", "4"), con, LeavesAfterOneMove(con, ["y"]), False)
    assert code == 0
    text = output(con)
    level = number(r"Auto level (\d+) for 'player'", text)
    assert f"Auto: your next game is at level {level - 1}." in text


def test_a_mixed_table_counts_against_its_strongest_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    con = console()
    argv = ("--players", "4", "--seed", "3", "--level", "2,random,4", "--name", "mia")
    assert play_cli.play(args(*argv), con, ListPlayer(con, 1), False) == 0
    assert "Your record against level 4: 1 game, " in output(con)
    levels = json.loads((tmp_path / "players.json").read_text())["players"]["mia"]["levels"]
    assert list(levels) == ["4"] and levels["4"]["games"] == 1
