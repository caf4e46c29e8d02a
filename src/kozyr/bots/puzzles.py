"""Durak puzzles (issue 27 §5): only-move positions from real bot games.

A puzzle is a position of a real game (a record prefix: rules, deal seed and
the actions up to it, so the engine can replay and verify it) of one of two kinds:

* ``exact``: the seat to move has one move that keeps it from being the durak
  and every other legal move makes it the durak, by the exact endgame solver
  (:mod:`.endgame`).  Those positions have an empty stock and two players left,
  so every card's place is known.
* ``search``: three players still hold cards, so the player does not know who
  holds which of the cards still out.  One move is far better than every other
  (by :data:`SEARCH_MARGIN` at least) by a deep search of the player's own view
  (:func:`kozyr.bots.ismcts.refine_actions`, :data:`SEARCH_BUDGET` iterations for
  each move, on two seeds that must agree).  The puzzle is that one move; the
  chances are stored with it, and the page never shows a hidden card.

An exact puzzle goes on while the player still has a decision in the
solver's main line where some move loses: the opponent answers with its best
(the solver's) reply.  ``moves`` counts the player's moves the solution needs
and ``critical`` those among them where a wrong move exists; the hardness
score (docs/puzzles.md) grows with both and with the number of alternatives.

Actions are stored in a compact text notation (:func:`encode`): the seat, a
letter for the kind, then the cards (``0A8C8H``, ``1DJC8C`` defends with JC
on 8C, ``1K`` takes, ``0P`` passes, ``1X8D`` transfers, ``1S8D`` shows a trump).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import card_str, cards_of, cards_str, parse_card
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import OVER, GameState
from kozyr.engine.view import view_json, view_of

from .endgame import OutOfBudget, Solver, two_sided
from .ismcts import refine_actions
from .sampler import Slots

DATA: Final = Path(__file__).with_name("puzzles.json")
#: Solver positions allowed for one question (a mined position needs far fewer).
NODE_BUDGET: Final = 400_000
#: A solution line stops after this many of the player's moves.
MAX_MOVES: Final = 6
#: A losing line shown after a wrong move is cut after this many plies.
MAX_LINE: Final = 80
#: A search puzzle's move beats every other move's chance by at least this much.
SEARCH_MARGIN: Final = 0.25
#: Search iterations for each legal move of a search puzzle, on each seed.
SEARCH_BUDGET: Final = 100_000
#: The seeds whose searches must agree on a search puzzle's move.
SEARCH_SEEDS: Final = (1, 2)

_LETTER: Final = {
    Kind.ATTACK: "A",
    Kind.DEFEND: "D",
    Kind.THROW: "T",
    Kind.TAKE: "K",
    Kind.PASS: "P",
    Kind.TRANSFER: "X",
    Kind.SHOW_TRUMP: "S",
}
_KIND: Final = {v: k for k, v in _LETTER.items()}


class PuzzleError(ValueError):
    """A puzzle that cannot be read, or a position the solver cannot settle."""


def encode(a: Action) -> str:
    """The compact notation of ``a`` (see the module's docstring)."""
    text = f"{a.seat}{_LETTER[a.kind]}" + "".join(card_str(c) for c in cards_of(a.cards))
    if a.kind == Kind.DEFEND:
        text += card_str(a.target)
    return text


def decode(text: str) -> Action:
    """The action of a compact notation; raises :class:`PuzzleError`."""
    i = 0
    while i < len(text) and text[i].isdigit():
        i += 1
    if i == 0 or i >= len(text) or text[i] not in _KIND or (len(text) - i - 1) % 2:
        raise PuzzleError(f"not an action: {text!r}")
    seat, kind = int(text[:i]), _KIND[text[i]]
    try:
        cards = [parse_card(text[j : j + 2]) for j in range(i + 1, len(text), 2)]
    except ValueError as exc:
        raise PuzzleError(f"not an action: {text!r}: {exc}") from None
    if kind == Kind.DEFEND:
        if len(cards) != 2:
            raise PuzzleError(f"not an action: {text!r}")
        return Action(seat, kind, 1 << cards[0], cards[1])
    mask = 0
    for c in cards:
        mask |= 1 << c
    return Action(seat, kind, mask)


# ------------------------------------------------------------------ the solver
class Judge:
    """Exact values for one seat, from one solver whose table every question
    shares (a puzzle's line asks about positions that follow one another, so
    later questions are nearly free)."""

    def __init__(self, seat: int, budget: int | None = None) -> None:
        self.seat = seat
        self.solver = Solver(seat, NODE_BUDGET if budget is None else budget)

    def values(self, state: GameState) -> list[tuple[Action, float]] | None:
        """Every legal action of the seat to move with its exact value for
        :attr:`seat` (1 not the durak, 0 the durak, 0.5 a draw); None when the
        position is not two-sided or the solver runs out of budget."""
        if state.phase == OVER or state.to_move is None or not two_sided(state):
            return None
        out = []
        self.solver.nodes = 0  # the budget is per question; the table is kept
        try:
            for act in state.legal_actions():
                child = state.copy()
                child.do(act)
                out.append((act, self.solver.value(child, -1.0, 2.0)))
        except OutOfBudget:
            return None
        return out

    def best(self, state: GameState) -> Action:
        """The solver's move for the seat to move: the first (in the solver's
        order, the heuristic's choice first) of its best ones.

        Why not :meth:`values`: the side to move needs one move of the best
        value, not every move's exact value, and null-window questions ("is
        this move worth at least / at most v?") cut far sooner."""
        legal = self.solver.ordered(state)
        if len(legal) == 1:
            return legal[0]
        to_move = state.to_move
        assert to_move is not None
        mine = state.team[to_move] == state.team[self.seat]
        self.solver.nodes = 0
        try:
            for goal in (1.0, 0.5) if mine else (0.0, 0.5):
                for act in legal:
                    child = state.copy()
                    child.do(act)
                    if mine and self.solver.value(child, goal - 0.25, goal) >= goal:
                        return act
                    if not mine and self.solver.value(child, goal, goal + 0.25) <= goal:
                        return act
        except OutOfBudget:
            raise PuzzleError("the solver cannot settle this position") from None
        return legal[0]  # every move is worth the worst value

    def line(self, state: GameState, limit: int = MAX_LINE) -> list[Action]:
        """Best play by both sides from ``state`` to the end (at most ``limit``
        plies, and cut short where the solver runs out of budget)."""
        s = state.copy()
        out: list[Action] = []
        while s.phase != OVER and len(out) < limit:
            try:
                act = self.best(s)
            except PuzzleError:
                break  # a question too big for the budget: the line stops here
            s.do(act)
            out.append(act)
        return out


def exact_values(
    state: GameState, seat: int, budget: int | None = None
) -> list[tuple[Action, float]] | None:
    """:meth:`Judge.values` of a fresh judge for ``seat`` (to move)."""
    if state.to_move != seat:
        return None
    return Judge(seat, budget).values(state)


def only_move(state: GameState, seat: int, budget: int | None = None) -> tuple[Action, int] | None:
    """(the one winning action, the number of legal actions) when exactly one
    legal action keeps ``seat`` from being the durak and all others lose."""
    values = exact_values(state, seat, budget)
    if values is None or len(values) < 2:
        return None
    if any(v not in (0.0, 1.0) for _, v in values):
        return None
    wins = [a for a, v in values if v == 1.0]
    return (wins[0], len(values)) if len(wins) == 1 else None


@dataclass(frozen=True)
class Line:
    """A solution: the plies from the puzzle's position (player and replies),
    the player's moves it needs, and how many of them were critical."""

    plies: list[Action]
    moves: int
    critical: int


def solution_line(state: GameState, seat: int) -> Line | None:
    """The player's winning line from a position with an only move, up to the
    last of its decisions where a wrong move exists (at most :data:`MAX_MOVES`)."""
    judge = Judge(seat)
    s = state.copy()
    plies: list[Action] = []
    moves = critical = 0
    end = (0, 0, 0)  # plies, moves, critical at the last critical decision
    while s.phase != OVER and moves < MAX_MOVES:
        to_move = s.to_move
        assert to_move is not None
        if to_move == seat:
            values = judge.values(s)
            if values is None:
                return None
            wins = [a for a, v in values if v == 1.0]
            if not wins:
                return None
            moves += 1
            act = wins[0]
            if len(wins) < len(values):
                critical += 1
                s.do(act)
                plies.append(act)
                end = (len(plies), moves, critical)
                continue
        else:
            act = judge.best(s)
        s.do(act)
        plies.append(act)
    n, moves, critical = end
    return Line(plies[:n], moves, critical) if critical else None


def search_only_move(
    state: GameState, seat: int, budget: int = SEARCH_BUDGET, seeds: tuple[int, ...] = SEARCH_SEEDS
) -> list[tuple[Action, float]] | None:
    """Every legal move of ``seat`` (to move) with its chance of not being the
    durak (the mean over ``seeds``), best first, when on every seed the same
    move is best by :data:`SEARCH_MARGIN` or more over each other move; else None.

    Only the seat's view is searched (never the hidden cards), each move with a
    search of its own rooted after it (``budget`` iterations a seed)."""
    if state.to_move != seat or state.phase == OVER:
        return None
    view = view_of(state, seat)
    legal = list(view.legal)
    if len(legal) < 2:
        return None
    runs = [refine_actions(view, legal, budget, seed) for seed in seeds]
    tops = {max(range(len(legal)), key=run.__getitem__) for run in runs}
    if len(tops) != 1:
        return None  # the seeds disagree on the best move
    (top,) = tops
    for chances in runs:
        if any(k != top and chances[top] - c < SEARCH_MARGIN for k, c in enumerate(chances)):
            return None
    mean = [sum(run[k] for run in runs) / len(runs) for k in range(len(legal))]
    return sorted(zip(legal, mean, strict=True), key=lambda av: -av[1])


def hardness(moves: int, critical: int, alternatives: int) -> int:
    """A score from 1 up: more of the player's moves, more of them critical and
    more legal alternatives at the first make a harder puzzle (docs/puzzles.md)."""
    return critical * 2 + (moves - critical) + min(alternatives - 1, 6) // 2


def level_of(score: int) -> str:
    if score <= 3:
        return "easy"
    if score <= 6:
        return "medium"
    return "hard"


# ------------------------------------------------------------------ the data
@dataclass(frozen=True)
class Puzzle:
    id: str
    rules: Rules
    seed: int
    actions: tuple[str, ...]
    seat: int
    solution: tuple[str, ...]
    moves: int
    critical: int
    alternatives: int
    hardness: int
    #: "exact" (the solver's) or "search" (hidden cards; see the module's docstring).
    kind: str = "exact"
    #: A search puzzle's legal moves (compact notation) with their chances, best first.
    chances: tuple[tuple[str, float], ...] = ()

    @property
    def level(self) -> str:
        return level_of(self.hardness)

    @property
    def tags(self) -> dict[str, Any]:
        first = decode(self.solution[0])
        return {
            "variant": self.rules.variant,
            "players": self.rules.players,
            "role": "defend" if first.kind in _DEFENDING else "attack",
            "kind": self.kind,
        }

    def position(self) -> GameState:
        """The puzzle's position, replayed by the referee from the deal."""
        state = GameState.new(self.rules, Deal.from_seed(self.rules, self.seed))
        for text in self.actions:
            state.apply(decode(text))
        return state

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rules": {k: v for k, v in self.rules.to_dict().items() if _DEFAULTS.get(k) != v},
            "seed": self.seed,
            "actions": list(self.actions),
            "seat": self.seat,
            "solution": list(self.solution),
            "moves": self.moves,
            "critical": self.critical,
            "alternatives": self.alternatives,
            "hardness": self.hardness,
        } | (
            {"kind": self.kind, "chances": [[a, c] for a, c in self.chances]}
            if self.kind != "exact"
            else {}
        )

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Puzzle:
        return cls(
            id=str(d["id"]),
            rules=Rules.from_dict(d["rules"]),
            seed=int(d["seed"]),
            actions=tuple(d["actions"]),
            seat=int(d["seat"]),
            solution=tuple(d["solution"]),
            moves=int(d["moves"]),
            critical=int(d["critical"]),
            alternatives=int(d["alternatives"]),
            hardness=int(d["hardness"]),
            kind=str(d.get("kind", "exact")),
            chances=tuple((str(a), float(c)) for a, c in d.get("chances", ())),
        )


_DEFAULTS: Final = Rules().to_dict()
_DEFENDING: Final = (Kind.DEFEND, Kind.TAKE, Kind.TRANSFER, Kind.SHOW_TRUMP)


def dump(puzzles: list[Puzzle], path: Path, meta: dict[str, Any]) -> None:
    """Write ``puzzles`` one a line (small diffs), sorted by hardness then id."""
    rows = sorted(puzzles, key=lambda p: (p.hardness, p.id))
    lines = [json.dumps(p.to_json(), separators=(",", ":")) for p in rows]
    head = json.dumps(meta, separators=(",", ":"))
    path.write_text(
        '{"meta":' + head + ',"puzzles":[\n' + ",\n".join(lines) + "\n]}\n", encoding="utf-8"
    )


def load(path: Path) -> list[Puzzle]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Puzzle.from_json(d) for d in data["puzzles"]]


@lru_cache(maxsize=1)
def shipped() -> tuple[Puzzle, ...]:
    """The puzzles shipped with Kozyr (``puzzles.json`` beside this module)."""
    return tuple(load(DATA)) if DATA.exists() else ()


# ------------------------------------------------------------------ playing
def position_json(state: GameState, seat: int) -> dict[str, Any]:
    """What the player sees: its view, the legal moves when it is to move, and
    ``hands``: every hand when every card's place is known to the player (or
    the game is over), else its own hand and, of the others, only the cards
    known to be there (the page shows the rest face down)."""
    data = view_json(state, seat)
    every = state.phase == OVER or Slots(view_of(state, seat)).determined()
    data["hands"] = [
        cards_str(h if every or s == seat else h & state.known[s])
        for s, h in enumerate(state.hands)
    ]
    data["all_known"] = every
    data["legal"] = (
        [a.to_json() for a in state.legal_actions()]
        if state.phase != OVER and state.to_move == seat
        else []
    )
    return data


def public_json(p: Puzzle) -> dict[str, Any]:
    """A puzzle as the page gets it: never its solution."""
    state = p.position()
    return {
        "id": p.id,
        "level": p.level,
        "hardness": p.hardness,
        "moves": p.moves,
        "tags": p.tags,
        "rules": p.rules.to_dict(),
        "seat": p.seat,
        "last": [decode(a).to_json() for a in p.actions[-6:]],
        "position": position_json(state, p.seat),
    }


def play(p: Puzzle, moves: list[Action]) -> dict[str, Any]:
    """Judge the player's ``moves`` from the puzzle's position, in order.

    Each must be legal (else :class:`PuzzleError`) and keep the player from
    being the durak.  The answer says ``right`` (with the opponent's replies),
    ``solved`` once the solution's moves are made, or ``wrong`` at the first
    losing move, with the line it leads to under best play.  A search puzzle
    is one move: :func:`play_search`."""
    if p.kind == "search":
        return play_search(p, moves)
    state = p.position()
    judge = Judge(p.seat)
    line = [decode(a) for a in p.solution]
    played: list[Action] = []  # every ply from the position, both sides
    replies: list[Action] = []
    for i, move in enumerate(moves):
        if state.phase == OVER or state.to_move != p.seat:
            raise PuzzleError(f"move {i}: it is not the player's turn")
        if move.seat != p.seat or state.check(move) is not None:
            raise PuzzleError(f"move {i} is not legal here: {move}")
        values = judge.values(state)
        if values is None:
            raise PuzzleError("the solver cannot settle this position")
        value = next(v for a, v in values if a == move)
        if value < 1.0:
            state.do(move)
            rest = judge.line(state)
            return {
                "result": "wrong",
                "move": i,
                "line": [a.to_json() for a in rest],
                "durak": state_after(state, rest),
                "position": position_json(state, p.seat),
            }
        state.do(move)
        played.append(move)
        replies = []
        while state.phase != OVER and state.to_move != p.seat:
            k = len(played)
            follows = played == line[:k] and k < len(line)
            reply = line[k] if follows else judge.best(state)
            state.do(reply)
            played.append(reply)
            replies.append(reply)
    done = len(moves) >= p.moves or state.phase == OVER
    return {
        "result": "solved" if done and moves else "right" if moves else "start",
        "replies": [a.to_json() for a in replies],
        "position": position_json(state, p.seat),
    }


def play_search(p: Puzzle, moves: list[Action]) -> dict[str, Any]:
    """A search puzzle: its one move is ``solved`` (with every move's stored
    chance), any other legal move ``wrong`` (with its chance and the best one's,
    not the best move itself, so that Try again stays a puzzle)."""
    state = p.position()
    if not moves:
        return {"result": "start", "replies": [], "position": position_json(state, p.seat)}
    if len(moves) > 1:
        raise PuzzleError("move 1: this puzzle takes one move")
    move = moves[0]
    if move.seat != p.seat or state.check(move) is not None:
        raise PuzzleError(f"move 0 is not legal here: {move}")
    chances = {decode(a): c for a, c in p.chances}
    if move not in chances:
        raise PuzzleError("this puzzle has no chance stored for that move")
    state.do(move)
    best = decode(p.solution[0])
    common = {"position": position_json(state, p.seat), "chance": chances[move]}
    if move != best:
        return {"result": "wrong", "move": 0, "line": [], "durak": None,
                "chance_best": chances[best]} | common  # fmt: skip
    return {"result": "solved", "replies": [],
            "chances": [{"action": decode(a).to_json(), "chance": c} for a, c in p.chances],
            } | common  # fmt: skip


def state_after(state: GameState, line: list[Action]) -> int | None:
    """The durak's seat at the end of ``line`` played from ``state``."""
    s = state.copy()
    for a in line:
        s.do(a)
    return s.result.durak if s.result is not None else None


def by_id(puzzle_id: str) -> Puzzle | None:
    return _index().get(puzzle_id)


@lru_cache(maxsize=1)
def _index() -> dict[str, Puzzle]:
    return {p.id: p for p in shipped()}


def daily(day: int) -> Puzzle:
    """The puzzle of day ``day`` (days since 1970-01-01, UTC): the same for
    everyone, easy and medium ones only, in a fixed shuffled order."""
    pool = [p for p in shipped() if p.level != "hard"] or list(shipped())
    if not pool:
        raise PuzzleError("no puzzles are shipped")
    order = sorted(pool, key=lambda p: hash_id(p.id))
    return order[day % len(order)]


def hash_id(text: str) -> int:
    """A stable hash (Python's own changes between runs)."""
    h = 2166136261
    for ch in text.encode():
        h = (h ^ ch) * 16777619 & 0xFFFFFFFF
    return h
