"""Draw the how-to pages' diagrams (src/kozyr/web/static/howto/img/*.svg).

Static SVG files, language-neutral: cards, seats, arrows and marks only. The only text in a
diagram is a number card's rank (no court cards: a Russian deck letters them
differently; an ace is drawn as one big pip); the words are in the pages'
captions. The suits are the shapes of index.html, so the diagrams match the
table. The files are committed: run this again after changing a drawing.

    python scripts/make_howto_diagrams.py
"""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "kozyr" / "web" / "static" / "howto" / "img"

SUITS = {
    "H": '<path d="M50 92C22 68 4 52 4 31 4 15 16 5 29 5c10 0 17 6 21 14 4-8 11-14 21-14 13 0 25'
    ' 10 25 26 0 21-18 37-46 61z"/>',
    "D": '<path d="M50 3 87 50 50 97 13 50z"/>',
    "S": '<path d="M50 3C62 22 96 38 96 62c0 14-10 23-22 23-9 0-16-5-20-11 1 10 5 17 13 23H33c8-6'
    ' 12-13 13-23-4 6-11 11-20 11C14 85 4 76 4 62 4 38 38 22 50 3z"/>',
    "C": '<circle cx="50" cy="27" r="21"/><circle cx="26" cy="59" r="21"/>'
    '<circle cx="74" cy="59" r="21"/><path d="M45 45h10c0 24 4 38 14 52H31c10-14 14-28 14-52z"/>',
}
RED, BLACK = "#c41e2a", "#171717"
GOLD = "#f2c14e"
ATTACK, DEFEND, NEUTRAL, FADED = "#ff8f73", "#7cc4ff", "#e9e2cf", "#7c9a86"
GREEN = "#2e9d4f"
CARD_W, CARD_H = 44, 62
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"


def defs(body: str) -> str:
    """The shapes ``body`` uses: suits, the card back, the arrowhead, the shadow."""
    out = [
        f'<symbol id="s{k}" viewBox="0 0 100 100">{v}</symbol>'
        for k, v in SUITS.items()
        if f'href="#s{k}"' in body
    ]
    if "url(#back)" in body:
        out.append(
            '<pattern id="back" width="8" height="8" patternUnits="userSpaceOnUse"'
            ' patternTransform="rotate(45)"><rect width="8" height="8" fill="#a3262e"/>'
            '<rect width="4" height="4" fill="#c8434b"/><rect x="4" y="4" width="4" height="4"'
            ' fill="#c8434b"/></pattern>'
        )
    if "url(#arrow)" in body:
        out.append(
            '<marker id="arrow" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4.5"'
            ' markerHeight="4.5" orient="auto-start-reverse">'
            f'<path d="M0 0 10 5 0 10z" fill="{GOLD}"/></marker>'
        )
    if "url(#shadow)" in body:
        out.append(
            '<filter id="shadow" x="-20%" y="-20%" width="140%" height="140%">'
            '<feDropShadow dx="0" dy="1.5" stdDeviation="1.5" flood-opacity="0.35"/></filter>'
        )
    return f"<defs>{''.join(out)}</defs>"


def svg(width: int, height: int, body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
        f' width="{width}" height="{height}">{defs(body)}{body}</svg>\n'
    )


def card(
    x: float, y: float, code: str, *, rot: float = 0, trump: bool = False, dim: bool = False
) -> str:
    """A face-up card (``code``: rank then suit, "TD" for the ten of diamonds) with
    its top left corner at (x, y), turned ``rot`` degrees about its centre."""
    rank, suit = code[0], code[1]
    assert rank in "23456789TA", f"{code}: court cards have no language-neutral letter"
    label = "10" if rank == "T" else rank
    colour = RED if suit in "HD" else BLACK
    cx, cy = x + CARD_W / 2, y + CARD_H / 2
    edge = f'stroke="{GOLD}" stroke-width="3"' if trump else 'stroke="#c9c2ae" stroke-width="1"'
    parts = [
        f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" fill="#fffdf7" {edge}/>'
    ]
    if rank == "A":  # one big pip, no letter
        parts.append(
            f'<use href="#s{suit}" x="{x + 7}" y="{y + 16}" width="30" height="30"'
            f' fill="{colour}"/>'
        )
    else:
        parts += [
            f'<text x="{x + 4}" y="{y + 14}" font-family="{FONT}" font-size="13" font-weight="700"'
            f' fill="{colour}" letter-spacing="-0.5">{label}</text>',
            f'<use href="#s{suit}" x="{x + 4.5}" y="{y + 17}" width="9" height="9"'
            f' fill="{colour}"/>',
            f'<use href="#s{suit}" x="{x + 13}" y="{y + 25}" width="22" height="22"'
            f' fill="{colour}"/>',
        ]
    opacity = ' opacity="0.45"' if dim else ""
    turn = f' transform="rotate({rot} {cx} {cy})"' if rot else ""
    return f'<g filter="url(#shadow)"{turn}{opacity}>{"".join(parts)}</g>'


def back(x: float, y: float, *, rot: float = 0) -> str:
    cx, cy = x + CARD_W / 2, y + CARD_H / 2
    turn = f' transform="rotate({rot} {cx} {cy})"' if rot else ""
    return (
        f'<g filter="url(#shadow)"{turn}><rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}"'
        f' rx="5" fill="#fdfaf2"/><rect x="{x + 3}" y="{y + 3}" width="{CARD_W - 6}"'
        f' height="{CARD_H - 6}" rx="3" fill="url(#back)"/></g>'
    )


def arrow(d: str, *, colour: str = GOLD, dash: bool = False) -> str:
    dashes = ' stroke-dasharray="6 5"' if dash else ""
    return (
        f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="3.2" stroke-linecap="round"'
        f' stroke-linejoin="round" marker-end="url(#arrow)"{dashes}/>'
    )


def mark(x: float, y: float, ok: bool, r: float = 11) -> str:
    """A round ✓ (green) or ✗ (red) centred at (x, y)."""
    if ok:
        path = f"M{x - r * 0.45} {y + r * 0.02} l{r * 0.32} {r * 0.34} l{r * 0.6} -{r * 0.7}"
    else:
        k = r * 0.38
        path = f"M{x - k} {y - k} L{x + k} {y + k} M{x + k} {y - k} L{x - k} {y + k}"
    fill = GREEN if ok else RED
    return (
        f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="#fff" stroke-width="2"/>'
        f'<path d="{path}" fill="none" stroke="#fff" stroke-width="{r * 0.28}"'
        ' stroke-linecap="round" stroke-linejoin="round"/>'
    )


def seat(x: float, y: float, colour: str, *, ring: str | None = None, r: float = 15) -> str:
    """A player: head and shoulders in ``colour`` (attack, defend, neutral, faded)."""
    ring_el = (
        f'<circle cx="{x}" cy="{y}" r="{r + 5}" fill="none" stroke="{ring}" stroke-width="3"/>'
        if ring
        else ""
    )
    return (
        f'{ring_el}<circle cx="{x}" cy="{y}" r="{r}" fill="rgba(0,0,0,0.28)"/>'
        f'<circle cx="{x}" cy="{y - r * 0.3}" r="{r * 0.33}" fill="{colour}"/>'
        f'<path d="M{x - r * 0.62} {y + r * 0.62} a{r * 0.62} {r * 0.55} 0 0 1 {r * 1.24} 0z"'
        f' fill="{colour}"/>'
    )


def hat(x: float, top: float, size: float = 1) -> str:
    """A fool's cap (the durak's) whose brim is centred at (x, top)."""
    w, h = 9 * size, 20 * size
    return (
        f'<path d="M{x - w} {top} L{x + 2 * size} {top - h} L{x + w} {top} z" fill="{GOLD}"'
        f' stroke="#8a6414" stroke-width="1.5" stroke-linejoin="round"/>'
        f'<circle cx="{x + 2 * size}" cy="{top - h - 1}" r="{3 * size}" fill="{ATTACK}"/>'
    )


def pair(x: float, y: float, attack: str, cover: str | None, **kw: bool) -> str:
    out = card(x, y, attack, trump=kw.get("attack_trump", False))
    if cover:
        out += card(x + 14, y + 18, cover, trump=kw.get("cover_trump", False))
    return out


def felt(width: int, height: int) -> str:
    """A faint table under the cards (the page itself is the felt)."""
    return (
        f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="14"'
        ' fill="rgba(0,0,0,0.18)"'
        ' stroke="rgba(255,255,255,0.18)" stroke-width="1.5"/>'
    )


# ------------------------------------------------------------------ the diagrams
def deal() -> str:
    """Six cards each; the trump turned up under the deck."""
    body = felt(340, 150)
    hand = ["9S", "7H", "6C", "TD", "8S", "AH"]
    for i, c in enumerate(hand):
        angle = (i - 2.5) * 7
        x = 22 + i * 30
        y = 50 + abs(i - 2.5) * 3
        body += card(x, y, c, rot=angle)
    body += card(232, 60, "9C", rot=90, trump=True)
    for i in range(3):
        body += back(262 - i * 2.5, 32 - i * 2.5)
    return svg(340, 150, body)


def deck_sizes() -> str:
    """24 cards: 9 to ace; 36: 6 to ace; 52: 2 to ace."""
    body = felt(340, 110)
    for i, low in enumerate(["9", "6", "2"]):
        x = 10 + i * 112
        body += card(x, 24, f"{low}S")
        body += (
            f'<path d="M{x + 48} 55 h8" stroke="{NEUTRAL}" stroke-width="3"'
            ' stroke-linecap="round" stroke-dasharray="1 5"/>'
        )
        body += card(x + 60, 24, "AS")
    return svg(340, 110, body)


def cover() -> str:
    """A higher card of the suit covers; a trump covers any other suit; another suit does not."""
    body = felt(340, 150)
    body += pair(18, 22, "7S", "TS") + mark(96, 32, True)
    body += pair(128, 22, "9H", "6C", cover_trump=True) + mark(206, 32, True)
    body += pair(238, 22, "9S", "TH") + mark(316, 32, False)
    return svg(340, 150, body)


def attack_limit() -> str:
    """At most six attack cards in a round (five while the first-round cap applies)."""
    body = felt(340, 120)
    for i, c in enumerate(["7S", "7H", "9S", "9D", "7C"]):
        body += card(12 + i * 54, 26, c)
    x = 12 + 5 * 54
    body += (
        f'<rect x="{x}" y="26" width="{CARD_W}" height="{CARD_H}" rx="5" fill="none"'
        f' stroke="{NEUTRAL}" stroke-width="2" stroke-dasharray="5 4"/>'
    )
    body += mark(x + CARD_W / 2, 26 + CARD_H / 2, False)
    return svg(340, 120, body)


def lead_several() -> str:
    """Several cards of one rank may be led together."""
    body = felt(340, 140)
    for i, c in enumerate(["8C", "8H", "8D"]):
        body += card(24 + i * 26, 62, c, rot=(i - 1) * 8)
    body += arrow("M124 92 C160 92 180 70 210 62")
    for i, c in enumerate(["8C", "8H", "8D"]):
        body += card(210 + i * 36, 30, c)
    body += mark(318, 20, True)
    return svg(340, 140, body)


def throw_in() -> str:
    """Once all is covered, the attackers may add cards of a rank on the table."""
    body = felt(340, 160)
    body += pair(22, 22, "8S", "TS")
    body += card(170, 86, "8D") + card(268, 86, "9C")
    body += arrow("M190 82 C170 50 130 40 96 44")
    body += mark(214, 90, True) + mark(312, 90, False)
    return svg(340, 160, body)


def take() -> str:
    """The defender picks up every card on the table."""
    body = felt(340, 170)
    body += pair(16, 16, "9H", "TH") + pair(86, 16, "9C", None)
    body += arrow("M120 100 C150 130 190 136 214 130")
    for i, c in enumerate(["7D", "8S", "6C"]):
        body += card(224 + i * 22, 90 + abs(i - 1) * 3, c, rot=(i - 1) * 8)
    body += seat(300, 40, DEFEND, ring=DEFEND)
    return svg(340, 170, body)


def bito() -> str:
    """Bito: the covered cards go to the discard pile; the defender attacks next."""
    body = felt(340, 140)
    body += pair(16, 20, "7S", "TS") + pair(90, 20, "7H", "9H")
    body += arrow("M170 70 C200 70 220 66 246 64")
    body += back(262, 30, rot=14) + back(266, 38, rot=-8) + back(258, 44, rot=24)
    return svg(340, 140, body)


def transfer() -> str:
    """Perevodnoy: the defender adds a card of the same rank; the next player defends."""
    body = felt(340, 190)
    body += seat(40, 40, ATTACK) + seat(170, 40, DEFEND, ring=DEFEND) + seat(300, 40, NEUTRAL)
    body += card(104, 100, "7S") + card(168, 100, "7D")
    body += arrow("M52 66 C70 110 84 124 100 128")
    body += arrow("M176 66 L186 94")
    body += arrow("M196 24 C230 4 262 6 284 24", dash=True)
    body += (
        f'<circle cx="300" cy="40" r="20" fill="none" stroke="{DEFEND}" stroke-width="3"'
        ' stroke-dasharray="4 4"/>'
    )
    return svg(340, 190, body)


def show_trump() -> str:
    """Transfer by showing the trump of the attack's rank, which stays in the hand."""
    body = felt(340, 180)
    body += seat(170, 36, DEFEND, ring=DEFEND) + seat(300, 36, NEUTRAL)
    body += card(40, 96, "7S")
    for i, c in enumerate(["9D", "7C", "8H"]):
        lift = -16 if c == "7C" else 0
        body += card(150 + i * 30, 104 + lift, c, rot=(i - 1) * 8, trump=c == "7C")
    # an eye over the shown trump
    body += (
        '<path d="M170 68 q12 -12 24 0 q-12 12 -24 0z" fill="#fffdf7" stroke="#171717"'
        ' stroke-width="1.5"/><circle cx="182" cy="68" r="4" fill="#171717"/>'
    )
    body += arrow("M196 20 C230 0 262 2 284 20", dash=True)
    return svg(340, 180, body)


def ring_positions(n: int, cx: float, cy: float, rx: float, ry: float) -> list[tuple[float, float]]:
    """Seats round an oval table, seat 0 at the bottom, then clockwise."""
    out = []
    for i in range(n):
        a = math.pi / 2 + 2 * math.pi * i / n
        out.append((cx + rx * math.cos(a), cy + ry * math.sin(a)))
    return out


def table_oval(cx: float, cy: float, rx: float, ry: float) -> str:
    return (
        f'<ellipse cx="{cx}" cy="{cy}" rx="{rx}" ry="{ry}" fill="rgba(0,0,0,0.2)"'
        ' stroke="rgba(255,255,255,0.25)" stroke-width="2"/>'
    )


def partners(x1: float, y1: float, x2: float, y2: float, colour: str) -> str:
    """A dashed line between two partners."""
    return (
        f'<path d="M{x1} {y1} L{x2} {y2}" stroke="{colour}" stroke-width="2.5"'
        ' stroke-dasharray="5 5"/>'
    )


def teams() -> str:
    """Partners sit in alternate seats (2 against 2), or opposite each other (2 + 2 + 2)."""
    body = felt(340, 180)
    left = ring_positions(4, 85, 90, 58, 58)
    body += table_oval(85, 90, 44, 44)
    colours = [GOLD, "#56c7b8", "#c08ae6"]
    for a, b in ((0, 2), (1, 3)):
        (x1, y1), (x2, y2) = left[a], left[b]
        body += partners(x1, y1, x2, y2, colours[a])
    for i, (x, y) in enumerate(left):
        body += seat(x, y, colours[i % 2])
    right = ring_positions(6, 255, 90, 66, 62)
    body += table_oval(255, 90, 48, 44)
    for a in range(3):
        (x1, y1), (x2, y2) = right[a], right[a + 3]
        body += partners(x1, y1, x2, y2, colours[a])
    for i, (x, y) in enumerate(right):
        body += seat(x, y, colours[i % 3], r=13)
    return svg(340, 180, body)


def neighbours() -> str:
    """Throw-ins by the defender's neighbours only: the far seats may not."""
    body = felt(340, 190)
    pos = ring_positions(6, 170, 95, 120, 70)
    body += table_oval(170, 95, 92, 48)
    # seat 0 (bottom) defends; 1 and 5 are its neighbours (5 attacked)
    for i, (x, y) in enumerate(pos):
        if i == 0:
            body += seat(x, y, DEFEND, ring=DEFEND)
        elif i in (1, 5):
            body += seat(x, y, ATTACK) + mark(x + 18, y - 14, True, r=9)
        else:
            body += seat(x, y, FADED) + mark(x + 18, y - 14, False, r=9)
    body += card(150, 72, "9H", rot=-6)
    return svg(340, 190, body)


def first_attacker() -> str:
    """The next game: the last durak (the cap) is attacked by the player on their right."""
    body = felt(340, 180)
    pos = ring_positions(4, 170, 98, 110, 58)
    body += table_oval(170, 98, 80, 38)
    for i, (x, y) in enumerate(pos):
        colour = DEFEND if i == 0 else ATTACK if i == 3 else NEUTRAL
        body += seat(x, y, colour)
    x0, y0 = pos[0]
    body += hat(x0, y0 - 8)
    x3, y3 = pos[3]
    body += arrow(f"M{x3 - 4} {y3 + 22} Q{x3 - 14} {y0 + 2} {x0 + 28} {y0 + 2}")
    return svg(340, 180, body)


def pogony() -> str:
    """Pogony: the durak finished off with sixes, worn as epaulettes."""
    body = felt(340, 170)
    body += (
        f'<circle cx="170" cy="62" r="26" fill="{NEUTRAL}"/>'
        f'<path d="M84 166 C86 122 112 100 170 100 C228 100 254 122 256 166 z" fill="{NEUTRAL}"/>'
    )
    body += hat(170, 42, 1.5)
    # the sixes lie on the shoulders like epaulettes, sloping outwards
    body += card(94, 80, "6S", rot=-72) + card(202, 80, "6H", rot=72)
    return svg(340, 170, body)


def cheating() -> str:
    """A cheat lies face up: a cover that does not beat. Look closely, and catch it."""
    body = felt(340, 160)
    body += pair(40, 22, "9S", "7H")
    body += (
        '<circle cx="218" cy="76" r="36" fill="rgba(255,255,255,0.12)" stroke="#fffdf7"'
        ' stroke-width="7"/><path d="M244 102 L290 146" stroke="#fffdf7" stroke-width="12"'
        ' stroke-linecap="round"/>'
    )
    body += arrow("M184 72 C160 70 140 76 112 86")
    body += (
        f'<circle cx="116" cy="18" r="13" fill="{RED}" stroke="#fff" stroke-width="2"/>'
        '<path d="M116 10 v10 M116 25 v1" stroke="#fff" stroke-width="3.2" stroke-linecap="round"/>'
    )
    return svg(340, 160, body)


def repetition() -> str:
    """The same position a third time: a draw."""
    body = felt(340, 150)
    for i in range(3):
        x = 30 + i * 100
        body += card(x, 40, "9S", rot=-6) + card(x + 22, 44, "6D", rot=6)
    body += arrow("M94 28 C110 8 130 8 140 22", dash=True)
    body += arrow("M194 28 C210 8 230 8 240 22", dash=True)
    body += (
        f'<path d="M118 130 h104" stroke="{NEUTRAL}" stroke-width="4" stroke-linecap="round"/>'
        f'<path d="M118 120 h104" stroke="{NEUTRAL}" stroke-width="4" stroke-linecap="round"/>'
    )
    return svg(340, 150, body)


def after_take() -> str:
    """The defender takes; the attackers may still throw in, and it all goes to the defender."""
    body = felt(340, 170)
    body += pair(20, 20, "9H", "TH") + card(90, 20, "9C")
    body += card(170, 104, "9D") + arrow("M186 100 C180 70 176 56 150 46")
    body += seat(290, 50, DEFEND, ring=DEFEND)
    body += arrow("M140 110 C200 150 250 130 280 80", dash=True)
    return svg(340, 170, body)


DIAGRAMS = {
    "deal": deal,
    "deck": deck_sizes,
    "cover": cover,
    "limit": attack_limit,
    "lead-several": lead_several,
    "throw-in": throw_in,
    "take": take,
    "bito": bito,
    "transfer": transfer,
    "show-trump": show_trump,
    "teams": teams,
    "neighbours": neighbours,
    "first-attacker": first_attacker,
    "pogony": pogony,
    "cheating": cheating,
    "repetition": repetition,
    "after-take": after_take,
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, draw in DIAGRAMS.items():
        (OUT / f"{name}.svg").write_text(draw())
    print(f"{len(DIAGRAMS)} diagrams in {OUT}")


if __name__ == "__main__":
    main()
