"""Rich renderables for the terminal client: the board, move list, help and end screens.

Everything here draws from a seat's :class:`~kozyr.engine.view.View` except the
end screen, which shows every hand once the game is over.  Colour is never the
only signal: red suits keep their suit symbol (or letter), playable cards carry
a ``*`` and roles are spelled out.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kozyr.engine.cards import CARD_SUIT, cards_of
from kozyr.engine.state import OVER, GameState
from kozyr.engine.view import View

from .cards import PLAYABLE_MARK, SUIT_NAMES, card_text, cards_text, hand_order, suit_mark
from .commands import command_text, hints
from .narrate import describe


def playable_cards(view: View) -> int:
    """Every card that appears in one of ``view.legal``."""
    mask = 0
    for a in view.legal:
        mask |= a.cards
    return mask


def role(view: View, seat: int) -> str:
    """The role tag of ``seat``: Attack, Defend, Throw-in, Out (or nothing)."""
    if seat in view.out:
        return "Out"
    if view.phase == OVER:
        return ""
    if seat == view.defender:
        return "Defend (taking)" if view.taking else "Defend"
    tag = ""
    if seat == view.attacker:
        tag = "Attack"
    elif _may_throw(view, seat):
        tag = "Throw-in"
    if tag and view.passed >> seat & 1:
        tag += " (done)"
    return tag


def _may_throw(view: View, seat: int) -> bool:
    n = view.rules.players
    tc = view.rules.team_count
    d = view.defender
    if tc and seat % tc == d % tc:
        return False
    if view.rules.throw_in == "all":
        return True
    active = [s for s in range(n) if s not in view.out]
    i = active.index(d)
    return seat in (active[(i + 1) % len(active)], active[i - 1])


def rules_summary(view: View) -> str:
    r = view.rules
    parts = [r.variant, f"{r.deck} cards", f"{r.players} players"]
    if r.teams != "none":
        parts.append(f"teams {r.teams}")
    return " · ".join(parts)


def trump_line(view: View, labels: Sequence[str], ascii: bool = False) -> Text:
    suit = CARD_SUIT[view.trump]
    line = Text().append("Trump ", style="bold")
    line.append_text(card_text(view.trump, ascii, trump_suit=suit))
    line.append(f" ({SUIT_NAMES[suit]})")
    if view.deck_count == 0 and view.trump_holder is not None:
        holder = "you" if view.trump_holder == view.seat else labels[view.trump_holder]
        line.append(f", taken by {holder}")
    line.append("   Deck ", style="bold")
    line.append(str(view.deck_count) if view.deck_count else "empty")
    line.append("   Discard ", style="bold")
    line.append(str(view.discard.bit_count()))
    return line


def players_table(view: View, labels: Sequence[str], ascii: bool = False) -> Table:
    teams = view.rules.team_count
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("", width=1)
    table.add_column("Player")
    if teams:
        table.add_column("Team")
    table.add_column("Cards", justify="right")
    table.add_column("Role")
    table.add_column("Known cards")
    n = len(labels)
    for seat in ((view.seat + i) % n for i in range(n)):  # clockwise from the viewer
        label = labels[seat]
        to_move = view.to_move == seat
        row: list[RenderableType] = [Text(">" if ascii else "▶") if to_move else Text("")]
        row.append(Text(label, style="bold" if seat == view.seat else ""))
        if teams:
            row.append(str(seat % teams + 1))
        row.append(str(view.hand_counts[seat]))
        row.append(role(view, seat))
        known = hand_order(cards_of(view.known[seat]), view.trump_suit)
        row.append(cards_text(known, ascii, view.trump_suit))
        table.add_row(*row)
    return table


def table_grid(view: View, ascii: bool = False) -> RenderableType:
    """The cards on the table: each attack card with its cover below it."""
    head = Text().append("Table", style="bold")
    if not view.table:
        return head.append("  empty", style="dim")
    grid = Table.grid(padding=(0, 2))
    grid.add_column()
    for _ in view.table:
        grid.add_column(justify="center")
    ts = view.trump_suit
    attack: list[RenderableType] = [head.append(f" ({len(view.table)} of {view.limit})")]
    cover: list[RenderableType] = [Text("")]
    for a, d in view.table:
        attack.append(card_text(a, ascii, trump_suit=ts))
        cover.append(card_text(d, ascii, trump_suit=ts) if d >= 0 else Text("·", style="dim"))
    grid.add_row(*attack)
    grid.add_row(*cover)
    return grid


def hand_line(view: View, ascii: bool = False) -> Text:
    playable = playable_cards(view)
    line = Text().append("Your hand  ", style="bold")
    cards = hand_order(cards_of(view.hand), view.trump_suit)
    line.append_text(
        Text("  ").join(
            card_text(c, ascii, trump_suit=view.trump_suit, playable=bool(playable >> c & 1))
            for c in cards
        )
    )
    if playable:
        line.append(f"    ({PLAYABLE_MARK} = playable)", style="dim")
    return line


def hint_line(view: View) -> Text:
    parts = [f"{form} {what}" for form, what in hints(view)] + ["m moves", "? help", "q quit"]
    return Text(" · ".join(parts), style="cyan")


def board(view: View, labels: Sequence[str], ascii: bool = False) -> RenderableType:
    """The whole screen for ``view.seat``: table panel, hand and the commands."""
    body = Group(
        trump_line(view, labels, ascii), players_table(view, labels, ascii), table_grid(view, ascii)
    )
    title = f"Round {view.rounds + 1}"
    panel = Panel(body, title=title, subtitle=rules_summary(view), box=box.ROUNDED, expand=False)
    parts: list[RenderableType] = [panel, hand_line(view, ascii)]
    if view.my_turn:
        parts.append(hint_line(view))
    return Group(*parts)


def moves_table(view: View, labels: Sequence[str], ascii: bool = False) -> Table:
    """Every legal move of the seat to move: the command to type and what it does."""
    table = Table(title="Your legal moves", box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("Type")
    table.add_column("To")
    for a in view.legal:
        table.add_row(command_text(a), describe(a, view, labels, ascii, subject=False))
    return table


HELP_ROWS = (
    ("a 8c 8h", "attack (lead) with cards of one rank"),
    ("d jc>8c", "defend: cover 8c with jc; d jc if jc can cover only one card"),
    ("d jc>8c qh>9h", "cover two cards at once (d jc 8c and d jc on 8c work too)"),
    ("t", "take the cards on the table"),
    ("p", "pass: done throwing in"),
    ("th 9s", "throw in a card of a rank on the table (a 9s works too)"),
    ("tr 8d", "transfer the attack with cards of its rank (perevodnoy)"),
    ("s 8d", "transfer by showing the trump of the attack rank (if allowed)"),
    ("8c", "a card on its own: the one move it can mean now"),
    ("m", "list your legal moves, with the command for each"),
    ("b", "show the board again"),
    ("h  ?", "this help"),
    ("q", "quit the game"),
)


def help_panel(ascii: bool = False) -> Panel:
    table = Table(box=None, show_header=False, padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for cmd, what in HELP_ROWS:
        table.add_row(cmd, what)
    symbols = ", ".join(f"{s[0]} = {suit_mark(i, ascii)} {s}" for i, s in enumerate(SUIT_NAMES))
    notes = Text.assemble(
        ("Cards: ", "bold"),
        "rank 2-9, 10 (or t), j, q, k, a, then the suit: ",
        symbols,
        ". Case does not matter: 10d, TD and td are the same card.\n",
        ("On screen: ", "bold"),
        f"{PLAYABLE_MARK} marks a card you can play now; trumps are bold; each attack card "
        "on the table has its cover below it (· = not covered yet).\n",
        ("Roles: ", "bold"),
        "Attack leads, Defend covers or takes, Throw-in may add cards of the ranks on "
        "the table, Out has finished. The last player holding cards is the durak.",
    )
    return Panel(Group(table, Text(""), notes), title="Commands", box=box.ROUNDED)


def end_panel(
    state: GameState,
    labels: Sequence[str],
    human: int,
    ascii: bool = False,
    footer: Sequence[str] = (),
) -> Panel:
    """Who is the durak (or the draw), pogony, and every hand that is left."""
    result = state.result
    assert result is not None, "the game is not over"
    ts = state.trump_suit
    lines: list[RenderableType] = []
    if result.durak is None:
        lines.append(Text("Draw: nobody is the durak.", style="bold"))
        if result.repetition:
            lines.append(Text("The same position came round a third time (rule repetition_draw)."))
    else:
        who = labels[result.durak]
        if result.team:
            names = " and ".join(labels[s] for s in result.team)
            verdict = f"{names} lose: {who} is the durak."
        elif result.durak == human:
            verdict = "You are the durak!"
        else:
            verdict = f"{who} is the durak."
        lines.append(Text(verdict, style="bold red" if human == result.durak else "bold"))
        if result.pogony:
            lines.append(Text("Pogony! The durak was finished off with sixes."))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("Player")
    table.add_column("Cards left", justify="right")
    table.add_column("Hand")
    table.add_column("Finished")
    for seat, label in enumerate(labels):
        hand = hand_order(cards_of(state.hands[seat]), ts)
        if seat in state.out:
            place = _ordinal(state.out.index(seat) + 1) + " out"
        elif seat == result.durak:
            place = "durak"
        else:
            place = "—"
        table.add_row(label, str(len(hand)), cards_text(hand, ascii, ts), place)
    lines.append(table)
    lines.extend(Text(f) for f in footer)
    return Panel(Group(*lines), title="Game over", box=box.DOUBLE, expand=False)


def _ordinal(k: int) -> str:
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k, 'th') }"
