"""Rich renderables for the terminal client: the board, move list, help and end screens.

Everything here draws from a seat's :class:`~kozyr.engine.view.View` except the
end screen, which shows every hand once the game is over.  Colour is never the
only signal: red suits keep their suit symbol (or letter), playable cards carry
a ``*`` and roles are spelled out.  At a cheating table (rule 13) marked players
carry the tag ``marked``, cards called out and found fair a ``✓`` (``+`` in
ASCII), and the last call is named on the board; cheats are never pointed out.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kozyr.engine.actions import Kind
from kozyr.engine.cards import CARD_SUIT, cards_of
from kozyr.engine.state import DEFEND, LAST_CALL, LEAD, OVER, THROW, GameState
from kozyr.engine.view import View

from .cards import PLAYABLE_MARK, SUIT_NAMES, card_text, cards_text, hand_order, suit_mark
from .commands import cheat_card, command_text, hints, honest_moves, may_answer_last_call
from .narrate import describe

#: The tag of a marked player (rule 13: caught cheating or called out a fair card).
MARKED = "marked"


def fair_mark(ascii: bool = False) -> str:
    """Follows a card on the table that was called out and found fair."""
    return "+" if ascii else "✓"


def playable_cards(view: View) -> int:
    """Every card of the hand that appears in one of ``view.legal``'s honest moves
    (a cheat can play any card: marking them all would say nothing)."""
    mask = 0
    for a in honest_moves(view):
        mask |= a.cards
    return mask & view.hand


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
    if r.cheating:
        parts.append("cheating")
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
        tag = Text(role(view, seat))
        if view.marked >> seat & 1:
            tag.append(" · " if tag else "").append(MARKED, style="bold magenta")
        row.append(tag)
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

    def card(c: int) -> Text:
        text = card_text(c, ascii, trump_suit=ts)
        if view.cleared >> c & 1:
            text.append(fair_mark(ascii), style="green")
        return text

    for a, d in view.table:
        attack.append(card(a))
        cover.append(card(d) if d >= 0 else Text("·", style="dim"))
    grid.add_row(*attack)
    grid.add_row(*cover)
    if not view.cleared:
        return grid
    legend = f"{fair_mark(ascii)} = called out and found fair: it cannot be called out again"
    return Group(grid, Text(legend, style="dim"))


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
    body: list[RenderableType] = [
        trump_line(view, labels, ascii),
        players_table(view, labels, ascii),
        table_grid(view, ascii),
    ]
    title = f"Round {view.rounds + 1}"
    if view.phase == LAST_CALL:
        title += " · last call"
    panel = Panel(
        Group(*body), title=title, subtitle=rules_summary(view), box=box.ROUNDED, expand=False
    )
    parts: list[RenderableType] = [panel, hand_line(view, ascii)]
    if view.my_turn or may_answer_last_call(view):
        parts.append(hint_line(view))
    return Group(*parts)


#: How the move list sums up the cheats of each phase.
CHEAT_ROWS = {
    LEAD: ("cheat CARD… ODD", "lead with ODD, a card of another rank, alongside"),
    DEFEND: ("cheat CARD on TARGET", "cover with a card that does not beat TARGET"),
    THROW: ("cheat CARD", "throw in a card of a rank not on the table"),
}


def moves_table(view: View, labels: Sequence[str], ascii: bool = False) -> Table:
    """Every legal move of the seat to move: the command to type and what it does.
    At a cheating table the cheats are summed up by kind (a lead alongside alone
    may be dozens of moves) and the cards that may be called out come last."""
    table = Table(title="Your legal moves", box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("Type")
    table.add_column("To")
    for a in honest_moves(view):
        text = describe(a, view, labels, ascii, subject=False)
        if a.kind == Kind.PASS and view.phase == LAST_CALL:
            text = Text("pass: call nothing out (Enter does it too)")
        table.add_row(command_text(a), text)
    cheats = [a for a in view.legal if cheat_card(view, a) >= 0]
    if cheats:
        form, what = CHEAT_ROWS[view.phase]
        text = Text(f"{what} (a cheat)")
        if view.phase == THROW:
            cards = 0
            for a in cheats:
                cards |= a.cards
            shown = hand_order(cards_of(cards), view.trump_suit)
            text.append(": ").append_text(cards_text(shown, ascii, view.trump_suit))
        else:
            text.append(f", e.g. {command_text(cheats[0], view)}")
        table.add_row(form, text)
    for a in view.legal:
        if a.kind == Kind.ACCUSE:
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


#: The commands of a cheating table (rule 13), shown only there.
CHEATING_HELP_ROWS = (
    ("cheat 9s", "throw in a card of a rank not on the table: a cheat (th 9s refuses it)"),
    ("cheat 7c on 8c", "cover with a card that does not beat: a cheat (also cheat 7c>8c)"),
    ("cheat 8c 8h ks", "lead with one card of another rank alongside: a cheat"),
    ("x 9s", "call out a card on the table as a cheat (also accuse 9s)"),
    ("p  Enter", "in the last call: call nothing out"),
)


def help_panel(ascii: bool = False, cheating: bool = False) -> Panel:
    """The commands; with ``cheating`` the commands and notes of rule 13 as well."""
    table = Table(box=None, show_header=False, padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    rows: Sequence[tuple[str, str]] = HELP_ROWS
    if cheating:
        rows = HELP_ROWS[:8] + CHEATING_HELP_ROWS + HELP_ROWS[8:]
    for cmd, what in rows:
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
    if cheating:
        notes.append_text(
            Text.assemble(
                "\n",
                ("Cheating table: ", "bold"),
                "every card is played face up: watch the table, nobody will tell you "
                "that a card was a cheat. You may call out a card at each of your turns "
                "and in the last call at the end of every round, before the cards leave "
                "the table (the computer players answer the last call at once). A cheat "
                "caught goes back with every card played after it and the cheater is "
                f"marked; calling out a fair card marks you and the card gets a "
                f"{fair_mark(ascii)}. A player tagged {MARKED} can no longer cheat, but "
                "may still call out cards. Plain commands never cheat: a cheat needs "
                "the word cheat.",
            )
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
        if state.marked >> seat & 1:
            label += f" · {MARKED}"
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
