"""``kozyr play``: a game of Durak against bots in the terminal.

Options choose the table (``--players``, ``--variant``, ``--deck``, ``--rule
NAME=VALUE``), the bots (``--level N``, ``--level 3,7`` one per bot, ``--level
auto`` or ``--level random``), the deal (``--seed``) and your seat (``--seat``).
When an option is missing and standard input is a terminal, a short set-up
prompt asks for it; otherwise defaults apply (2 players, podkidnoy, 36 cards,
Auto).  Moves are typed as short commands (see ``kozyr.tui.commands``; ``?`` in
the game).  ``--save FILE`` writes the game record for ``kozyr replay``.

At a cheating table (``--rule cheating=true``, rule 13) the session is still
turn-based: the person may call out a card at each of their turns (the
engine's legal moves then include the accusations) and in every last call,
where the bots answer first, at once, and the person is asked last.  The last
call makes sure no cheat leaves the table unchallenged.

Results go into the person's per-level record (``kozyr.bots.auto``): a table
of mixed levels counts against its strongest computer player, and leaving a
game after your first move counts as a loss (the client asks first), so the
Auto ladder cannot be dodged by quitting a game that is going badly.

The referee is the engine: every move, the player's and the bots', goes
through :meth:`GameState.apply`.  Input and output are injectable
(:class:`PlaySession` takes a line reader and a rich Console), which is how
the tests play whole games.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from kozyr.bots import AutoLevel, Bot, Outcome, PlayerRecord, RandomBot, make_bot
from kozyr.bots.auto import RecordFileError
from kozyr.engine.actions import Action, Kind
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules, RulesError
from kozyr.engine.state import LAST_CALL, GameState, Result
from kozyr.engine.view import view_of
from kozyr.tui.commands import CommandError, Meta, parse_command
from kozyr.tui.narrate import after_move, describe, round_line, verdict
from kozyr.tui.render import board, end_panel, help_panel, moves_table

#: Reads one line after showing a prompt; raises EOFError at the end of input.
ReadLine = Callable[[str], str]

PROMPT = "Your move> "
#: The prompt of the last call at a cheating table (rule 13).
LAST_CALL_PROMPT = "Last call: call out a card (x CARD) or pass (p / Enter)> "

VARIANTS = ("podkidnoy", "perevodnoy")
DECKS = (24, 36, 52)
LEVELS = range(1, 11)
DEFAULT_PLAYERS = 2
DEFAULT_VARIANT = "podkidnoy"
DEFAULT_DECK = 36
DEFAULT_LEVEL = "auto"

#: Seat names clockwise from the person's seat (the next seat sits on their left).
SEAT_NAMES: dict[int, tuple[str, ...]] = {
    2: ("You", "North"),
    3: ("You", "West", "East"),
    4: ("You", "West", "North", "East"),
    5: ("You", "West", "Northwest", "Northeast", "East"),
    6: ("You", "Southwest", "Northwest", "North", "Northeast", "Southeast"),
}

#: Options with their own flag; --rule sets the others.
_OWN_FLAGS = ("players", "deck", "variant")
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


class PlayError(Exception):
    """A set-up that cannot be played (bad option, missing bot levels, ...)."""


# ------------------------------------------------------------------- bot levels
Level = int | str  # 1..10, "random" or "auto" (resolved to a number before play)


def parse_levels(text: str, bots: int) -> list[Level]:
    """``4`` / ``auto`` / ``random`` for every bot, or ``3,7,random`` one per bot."""
    words = [w.strip().lower() for w in text.split(",")]
    if words == ["auto"]:
        return ["auto"] * bots
    out: list[Level] = []
    for w in words:
        if w == "random":
            out.append(w)
        elif w.isdigit() and int(w) in LEVELS:
            out.append(int(w))
        else:
            raise PlayError(f"level {w!r}: expected 1-10, auto or random")
    if len(out) == 1:
        return out * bots
    if len(out) != bots:
        raise PlayError(f"--level lists {len(out)} levels for {bots} bots")
    return out


def bot_for(level: Level, seed: int) -> Bot:
    """A bot of ``level``: 1-10 from :func:`kozyr.bots.make_bot`, or ``random``."""
    if level == "random":
        return RandomBot(seed)
    assert isinstance(level, int)
    return make_bot(level, seed=seed)


def outcome_for(result: Result, seat: int) -> Outcome:
    """The game from ``seat``'s side: a win unless it (or its team) is the durak."""
    if result.durak is None:
        return "draw"
    return "loss" if seat in (result.team or (result.durak,)) else "win"


class Ladder:
    """The person's results per level, and the Auto level, in the players file."""

    def __init__(self, name: str, level: int | None) -> None:
        """``level`` None means Auto: the person's record chooses the level."""
        try:
            self.record = PlayerRecord.load(name)
        except RecordFileError as exc:
            raise PlayError(f"cannot read the players file: {exc}") from None
        self.auto: AutoLevel | None = None
        if level is None:
            self.auto = AutoLevel(self.record)
            level = self.auto.level
        self.level = level

    def finish(self, outcome: Outcome) -> list[str]:
        """Count the game just played; the lines for the end screen."""
        lines = []
        if self.auto is not None:
            lines.append(f"Auto: your next game is at level {self.auto.record_game(outcome)}.")
        else:
            self.record.add(self.level, outcome)
        s = self.record.levels[self.level]
        games = f"{s.games} game" + ("s" if s.games != 1 else "")
        lines.append(
            f"Your record against level {self.level}: {games}, {s.wins} won, "
            f"{s.losses} lost, {s.draws} drawn."
        )
        try:
            self.record.save()
        except (OSError, RecordFileError) as exc:
            lines.append(f"Could not save your record: {exc}")
        return lines


# -------------------------------------------------------------------- the game
@dataclass
class PlaySession:
    """One game: the person at ``seat`` against ``bots`` (one per other seat)."""

    rules: Rules
    deal: Deal
    seat: int
    bots: dict[int, Bot]
    console: Console
    read_line: ReadLine
    labels: list[str] = field(default_factory=list)
    ascii: bool = False
    delay: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    #: Said before the person leaves a game they have moved in (it counts as a loss).
    leave_warning: str | None = None

    def __post_init__(self) -> None:
        #: Whether the person has made a move: from then on leaving is a loss.
        self.moved = False
        self.state = GameState.new(self.rules, self.deal)
        self.record = GameRecord(self.rules, self.deal, meta=self.meta)
        if not self.labels:
            self.labels = seat_labels(self.rules.players, self.seat, self.bots)

    # ------------------------------------------------------------ main loop
    def run(self) -> bool:
        """Play to the end (True) or until the person quits (False)."""
        state = self.state
        if not state.game_over:
            self.say(round_line(view_of(state, self.seat), self.labels))
        while not state.game_over:
            seat = self.next_seat()
            if seat == self.seat:
                actions = self.ask()
                if actions is None:
                    if self.moved and self.leave_warning:
                        self.say(Text("You left the game: it counts as a loss.", style="bold"))
                    else:
                        self.say(Text("You left the game; it has no result.", style="bold"))
                    return False
                self.moved = True
            else:
                actions = (self.bot_move(seat),)
            last_call = state.phase == LAST_CALL
            for action in actions:
                self.play(action)
            if seat != self.seat and self.delay and not last_call:
                time.sleep(self.delay)
        return True

    def next_seat(self) -> int:
        """Who acts now: the seat to move, but in a last call every bot still to
        answer goes first (bots answer at once) and the person last."""
        state = self.state
        seat = state.to_move
        assert seat is not None
        if state.phase == LAST_CALL:
            n = state.n
            for i in range(n):
                s = (seat + i) % n
                if state.pending >> s & 1 and s != self.seat:
                    return s
        return seat

    def bot_move(self, seat: int) -> Action:
        view = view_of(self.state, seat)
        if not self.console.is_terminal:
            return self.bots[seat].choose(view)
        with self.console.status(f"{self.labels[seat]} is thinking…"):
            return self.bots[seat].choose(view)

    def say(self, text: Text | str) -> None:
        self.console.print(text)

    def error(self, message: str) -> None:
        mark = "!" if self.ascii else "✗"
        self.console.print(Text(f"{mark} {message}", style="bold red"))

    def play(self, action: Action) -> None:
        """Apply one action (validated by the engine), record and narrate it.

        At a cheating table a cheat is narrated as the move it is (everyone sees
        the cards; noticing is up to them), an accusation by its verdict, and
        the passes of the last call not at all."""
        before = view_of(self.state, self.seat)
        event = self.state.cheat_event(action)
        self.state.apply(action)
        self.record.append(action)
        after = view_of(self.state, self.seat)
        if event is not None and action.kind == Kind.ACCUSE:
            line = Text("  ").append_text(verdict(event, before, after, self.labels, self.ascii))
            self.say(line)
        elif not (before.phase == LAST_CALL and action.kind == Kind.PASS):
            line = Text("  ").append_text(describe(action, before, self.labels, self.ascii))
            if event is not None and action.seat == self.seat:
                line.append(" — a cheat")  # only the cheater is told
            self.say(line.append("."))
        for extra in after_move(action, before, after, self.labels, self.ascii):
            self.say(extra)

    def ask(self) -> tuple[Action, ...] | None:
        """The person's next move(s); None to quit.  Bad input changes nothing."""
        view = view_of(self.state, self.seat)
        self.console.print(board(view, self.labels, self.ascii))
        prompt = LAST_CALL_PROMPT if view.phase == LAST_CALL else PROMPT
        while True:
            try:
                line = self.read_line(prompt)
            except EOFError:
                self.say("")
                return None
            try:
                command = parse_command(line, view, self.ascii)
            except CommandError as exc:
                self.error(str(exc))
                continue
            if isinstance(command, Meta):
                if command.name == "quit":
                    if self.confirm_leave():
                        return None
                    continue
                if command.name == "help":
                    self.console.print(help_panel(self.ascii, self.rules.cheating))
                elif command.name == "moves":
                    self.console.print(moves_table(view, self.labels, self.ascii))
                else:
                    self.console.print(board(view, self.labels, self.ascii))
                continue
            why = self.check(command.actions)
            if why is None:
                return command.actions
            self.error(why)

    def confirm_leave(self) -> bool:
        """Whether the person really leaves (asked only when leaving costs a loss)."""
        if not (self.moved and self.leave_warning):
            return True
        try:
            answer = self.read_line(f"{self.leave_warning} Leave? (y/N) ")
        except EOFError:
            return True
        return answer.strip().lower() in ("y", "yes")

    def check(self, actions: Sequence[Action]) -> str | None:
        """The engine's objection to playing ``actions`` in order, if any."""
        trial = self.state.copy()
        for action in actions:
            why = trial.check(action)
            if why is not None:
                return re.sub(r"\bseat (\d+)", lambda m: self.labels[int(m[1])], why)
            trial.do(action)
        return None

    # ---------------------------------------------------------------- ending
    def result_json(self) -> dict[str, Any] | None:
        return self.state.result.to_json() if self.state.result else None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.record.dumps(self.result_json()) + "\n", encoding="utf-8")

    def end_screen(self, footer: Sequence[str] = ()) -> None:
        self.console.print(end_panel(self.state, self.labels, self.seat, self.ascii, footer))


def seat_labels(players: int, seat: int, bots: dict[int, Bot]) -> list[str]:
    """Compass names clockwise from the person (``You``), each bot's with its name."""
    names = SEAT_NAMES[players]
    out = []
    for s in range(players):
        name = names[(s - seat) % players]
        out.append(name if s == seat else f"{name} ({bots[s].name})")
    return out


# ---------------------------------------------------------------------- set-up
@dataclass
class Setup:
    rules: Rules
    levels: list[Level]
    seed: int
    seat: int


def parse_rule(text: str) -> tuple[str, Any]:
    """``--rule NAME=VALUE`` with the value read by the option's type."""
    options = Rules.options()
    name, sep, raw = text.partition("=")
    name = name.strip().replace("-", "_")
    value = raw.strip().lower()
    if not sep or name not in options:
        names = ", ".join(o for o in options if o not in _OWN_FLAGS)
        raise PlayError(f"--rule {text!r}: expected NAME=VALUE with NAME one of: {names}")
    if name in _OWN_FLAGS:
        raise PlayError(f"--rule {name}=...: use --{name}")
    allowed = options[name]
    parsed: Any = value
    if isinstance(allowed[0], bool):
        if value not in _TRUE | _FALSE:
            raise PlayError(f"--rule {name}: expected true or false, not {raw!r}")
        parsed = value in _TRUE
    elif parsed not in allowed:
        raise PlayError(f"--rule {name}: expected one of {', '.join(map(str, allowed))}")
    return name, parsed


def ask_choice(
    read_line: ReadLine, console: Console, question: str, default: str, valid: Sequence[str]
) -> str:
    """Ask until the answer is one of ``valid`` (or empty for the default)."""
    while True:
        answer = read_line(f"{question} [{default}]: ").strip().lower() or default
        for v in valid:
            if answer == v.lower() or (len(answer) >= 2 and v.lower().startswith(answer)):
                return v
        console.print(Text(f"Please answer one of: {', '.join(valid)}", style="red"))


def build_setup(
    args: argparse.Namespace, interactive: bool, read_line: ReadLine, console: Console
) -> Setup:
    """The table, levels and seed from the options, asking for what is missing."""
    extra = dict(parse_rule(r) for r in args.rule)
    players, variant, deck, level = args.players, args.variant, args.deck, args.level
    if interactive and None in (players, variant, deck, level):
        console.print(Text("Set up the table (Enter takes the default).", style="bold"))
    if players is None:
        players = DEFAULT_PLAYERS
        if interactive:
            players = int(ask_choice(read_line, console, "Players, 2-6", "2", "23456"))
    if variant is None:
        variant = DEFAULT_VARIANT
        if interactive:
            variant = ask_choice(
                read_line, console, "Variant: podkidnoy or perevodnoy", variant, VARIANTS
            )
    if deck is None:
        fits = [str(d) for d in DECKS if d >= players * 6]
        deck = DEFAULT_DECK
        if interactive:
            deck = int(
                ask_choice(
                    read_line, console, f"Deck: {' or '.join(fits)} cards", str(DEFAULT_DECK), fits
                )
            )
    if level is None:
        level = DEFAULT_LEVEL
        if interactive:
            while True:
                level = read_line("Bot level: 1-10, auto or random [auto]: ").strip() or "auto"
                try:
                    parse_levels(level, players - 1)
                    break
                except PlayError as exc:
                    console.print(Text(str(exc), style="red"))
    try:
        rules = Rules.from_dict({"players": players, "deck": deck, "variant": variant, **extra})
    except RulesError as exc:
        raise PlayError(str(exc)) from None
    if not 0 <= args.seat < players:
        raise PlayError(f"--seat must be 0-{players - 1} at a {players}-player table")
    levels = parse_levels(level, players - 1)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    if seed < 0:
        raise PlayError("--seed must be a non-negative integer")
    return Setup(rules, levels, seed, args.seat)


# --------------------------------------------------------------------- command
def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="Play Durak against bots. Missing options are asked for when "
        "standard input is a terminal. In the game, type ? for the commands.",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=range(2, 7),
        metavar="N",
        help="players at the table, you included (2-6; default 2)",
    )
    p.add_argument("--variant", choices=VARIANTS, help="default podkidnoy")
    p.add_argument("--deck", type=int, choices=DECKS, help="cards in the deck (default 36)")
    p.add_argument(
        "--level",
        metavar="N|auto|random",
        help="bot level 1-10 for every bot, a list such as 3,7 (one per bot), "
        "auto (follows your results) or random (default auto)",
    )
    p.add_argument("--seed", type=int, help="deal seed (default: a random one, shown at the end)")
    p.add_argument("--seat", type=int, default=0, help="your seat number (default 0)")
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="another table rule, e.g. lead_multiple=false, throw_in=neighbours, "
        "transfer_show_trump=true, first_round_cap=first_round, teams=2v2, repetition_draw=false, "
        "throw_in_after_take=false, cheating=true (cheats and accusations: in the game "
        "cheat CARD, x CARD)",
    )
    p.add_argument("--save", metavar="FILE", help="write the game record (JSON) to FILE")
    p.add_argument(
        "--name",
        default="player",
        help="whose results and Auto level to keep in the players file "
        "($KOZYR_HOME/players.json or ~/.local/share/kozyr/players.json; "
        "default 'player')",
    )
    p.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    p.add_argument(
        "--delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pause after each bot move (default 0)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    interactive = sys.stdin.isatty()

    def read_line(prompt: str) -> str:
        if interactive:
            return console.input(Text(prompt, style="bold"))
        # Piped input is not echoed by a terminal: echo it so the transcript reads well.
        line = input()
        console.print(Text(prompt + line))
        return line

    try:
        return play(args, console, read_line, interactive)
    except KeyboardInterrupt:
        console.print("\nInterrupted.")
        return 130


def play(args: argparse.Namespace, console: Console, read_line: ReadLine, interactive: bool) -> int:
    """``kozyr play`` with injectable input and output; returns the exit code."""
    try:
        setup = build_setup(args, interactive, read_line, console)
        levels, ladder = setup.levels, None
        if levels[0] == "auto":
            ladder = Ladder(args.name, None)
            levels = [ladder.level] * len(levels)
        elif any(isinstance(lv, int) for lv in levels):
            # A mixed table counts against its strongest computer player.
            ladder = Ladder(args.name, max(lv for lv in levels if isinstance(lv, int)))
        others = [s for s in range(setup.rules.players) if s != setup.seat]
        bots = {s: bot_for(lv, setup.seed * 8 + s) for s, lv in zip(others, levels, strict=True)}
    except EOFError:
        return 1
    except PlayError as exc:
        console.print(Text(f"kozyr play: {exc}", style="bold red"))
        return 2
    if ladder is not None and ladder.auto is not None:
        line = f"Auto level {ladder.level} for {args.name!r}: it follows your results."
        console.print(Text(line, style="bold"))
    deal = Deal.from_seed(setup.rules, setup.seed)
    meta = {
        "client": "kozyr play",
        "human": {"seat": setup.seat, "name": args.name},
        "bots": {str(s): b.name for s, b in bots.items()},
    }
    session = PlaySession(
        setup.rules,
        deal,
        setup.seat,
        bots,
        console,
        read_line,
        ascii=args.ascii,
        delay=args.delay,
        meta=meta,
        leave_warning=None
        if ladder is None
        else f"Leaving now counts as a loss against level {ladder.level}.",
    )
    session.run()
    footer = [f"Seed {setup.seed} · {len(session.record.actions)} moves"]
    save = args.save
    result = session.state.result
    if result is not None:
        if ladder is not None:
            footer += ladder.finish(outcome_for(result, setup.seat))
        session.end_screen(footer)
    elif ladder is not None and session.moved:
        for line in ladder.finish("loss"):  # no dodging the Auto ladder by leaving
            console.print(line)
        if save is None and interactive:
            try:
                save = read_line("Save the record? File name (Enter to skip): ").strip() or None
            except EOFError:
                save = None
    if save:
        try:
            session.save(save)
        except OSError as exc:
            console.print(Text(f"kozyr play: cannot write {save}: {exc.strerror}", style="red"))
            return 1
        console.print(f"Record saved to {save} (kozyr replay {save})")
    return 0
