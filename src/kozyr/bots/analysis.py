"""Post-game analysis (issue 27): every decision of a record, judged by the search.

For each decision of the chosen seats, the seat's :class:`View` at that moment
(its hand and everything public, the history included: the same observer the
bots play from) goes to :func:`kozyr.bots.ismcts.evaluate_actions`, which gives
every legal action a chance of not being the durak (exact once nothing is
hidden and two sides are left).  The played action is then compared with the
best one: the *loss* is the difference of their chances, and the label follows
from it (:data:`THRESHOLDS`, chosen by measurement in docs/analysis.md).

Decisions are independent, so they are spread over threads (the core releases
the GIL), each with its own seed derived from the analysis seed and the view:
the output depends on the record, the seats, the seed and the budget only,
never on ``workers`` or the machine.

At a cheating table (rule 13) only honest play is judged: a seat's decisions
are the moves it made as the player to move with an honest action, judged
among the honest actions; cheats and accusations are counted as ``not_judged``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

from kozyr.engine.actions import Action, ActionError
from kozyr.engine.record import GameRecord, RecordError
from kozyr.engine.state import IllegalAction
from kozyr.engine.view import View, view_of

from .cheating import honest, is_cheat
from .ismcts import ActionValue, IsmctsConfig, budget, evaluate_actions, refine_actions
from .levels import LEVELS

#: Loss limits of ``good``, ``inaccuracy`` and ``mistake``: a loss below the
#: first is ``good``, below the second an ``inaccuracy``, below the third a
#: ``mistake``, and from the third on a ``blunder`` (docs/analysis.md).
THRESHOLDS: Final = (0.05, 0.10, 0.20)
LABELS: Final = ("best", "good", "inaccuracy", "mistake", "blunder", "forced")
#: A played action this close to the best one's chance is ``best`` too: closer
#: than the search tells two actions apart at the default budget (measured: a
#: decision's loss varies between seeds by up to 0.03-0.04 in nine cases of ten),
#: so the label does not flip between ``best`` and ``good`` with the seed
#: (docs/analysis.md, "Labels").
BEST_MARGIN: Final = 0.02
#: A decision's accuracy falls linearly from 100 (no loss) to 0 at this loss.
ACCURACY_ZERO: Final = THRESHOLDS[2]
#: The default budget is this many times level 10's at the table.
BUDGET_MULTIPLE: Final = 3
#: When the played action is not the search's choice, each of the two gets a
#: search of its own with this fraction of the budget, and their chances come
#: from those: the loss then compares two equally deep looks instead of the
#: best action's big tree with the played one's leftovers (docs/analysis.md,
#: "Stable").  Decisions where the choice was played cost nothing more.
REFINE_SHARE: Final = 4
#: A forced decision is searched with this fraction of the budget: its chance
#: only draws the graph, nothing is judged.
FORCED_SHARE: Final = 10


class AnalysisError(ValueError):
    """A record that cannot be analysed (unreadable, illegal, or a bad seat)."""


def default_budget(players: int) -> int:
    """Three times level 10's iterations at a table of ``players``."""
    config = LEVELS[10].search
    assert isinstance(config, IsmctsConfig)
    return BUDGET_MULTIPLE * budget(config, players)


@dataclass(frozen=True)
class Point:
    """One decision to judge: the record's action ``index``, what the seat saw."""

    index: int
    view: View
    played: Action

    @property
    def forced(self) -> bool:
        return len(self.view.legal) == 1


@dataclass(frozen=True)
class Decision:
    index: int
    seat: int
    played: Action
    best: Action
    chance_played: float
    chance_best: float
    label: str
    #: True when every chance was solved exactly (no search).
    exact: bool
    values: tuple[ActionValue, ...] = ()

    @property
    def loss(self) -> float:
        return max(0.0, self.chance_best - self.chance_played)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "played": self.played.to_json(),
            "best": self.best.to_json(),
            "chance_played": round(self.chance_played, 4),
            "chance_best": round(self.chance_best, 4),
            "label": self.label,
            "exact": self.exact,
        }


@dataclass
class SeatAnalysis:
    seat: int
    decisions: list[Decision] = field(default_factory=list)
    #: Cheats and accusations at a cheating table (not judged).
    not_judged: int = 0

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.decisions)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(LABELS, 0)
        for d in self.decisions:
            out[d.label] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return seat_json(self.accuracy, [d.to_json() for d in self.decisions], self.not_judged)


def seat_json(
    accuracy: float | None, decisions: list[dict[str, Any]], not_judged: int
) -> dict[str, Any]:
    """The seat object of ``kozyr analyse --json``, for the command and the
    server's analysis alike (the accuracy unrounded: it is rounded here)."""
    return {
        "accuracy": None if accuracy is None else round(accuracy, 1),
        "decisions": decisions,
        "not_judged": not_judged,
    }


@dataclass
class Analysis:
    budget: int
    seed: int
    seats: dict[int, SeatAnalysis]

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": {str(s): a.to_json() for s, a in sorted(self.seats.items())},
            "budget": self.budget,
            "seed": self.seed,
        }


def label_of(loss: float, is_best: bool, forced: bool) -> str:
    """The label of a decision whose played action lost ``loss`` against the best."""
    if forced:
        return "forced"
    if is_best or loss < BEST_MARGIN:
        return "best"
    good, inaccuracy, mistake = THRESHOLDS
    if loss < good:
        return "good"
    if loss < inaccuracy:
        return "inaccuracy"
    if loss < mistake:
        return "mistake"
    return "blunder"


def decision_accuracy(loss: float) -> float:
    """100 for no loss, falling linearly to 0 at a blunder's loss."""
    return max(0.0, 100.0 * (1.0 - loss / ACCURACY_ZERO))


def accuracy(decisions: Iterable[Decision]) -> float | None:
    """The mean of :func:`decision_accuracy` over the decisions with a choice
    (None when the seat never had one)."""
    return mean_accuracy(d.loss for d in decisions if d.label != "forced")


def mean_accuracy(losses: Iterable[float]) -> float | None:
    """The mean of :func:`decision_accuracy` over ``losses`` (None for none).
    From the losses at full precision: the JSON's chances are rounded, and a
    mean of rounded losses can round to another tenth."""
    scores = [decision_accuracy(loss) for loss in losses]
    return sum(scores) / len(scores) if scores else None


# ------------------------------------------------------------------ decisions
def decision_points(
    record: GameRecord, seats: Sequence[int] | None = None
) -> tuple[list[Point], dict[int, int], int]:
    """(the decisions of ``seats`` in record order, the not-judged count per
    seat, the table size).  ``seats`` None: every seat that had a choice."""
    state = record.start()
    n = state.n
    if seats is not None:
        for s in seats:
            if not 0 <= s < n:
                raise AnalysisError(f"there is no seat {s} at a {n}-player table")
    cheating = record.rules.cheating
    points: list[Point] = []
    skipped: dict[int, int] = {}
    for i, data in enumerate(record.actions):
        try:
            action = Action.from_json(data)
        except ActionError as exc:
            raise AnalysisError(f"action {i}: {exc}") from None
        seat = action.seat
        if 0 <= seat < n and (seats is None or seat in seats) and not state.game_over:
            view = view_of(state, seat)
            if cheating:
                if state.to_move != seat or action not in view.legal or is_cheat(view, action):
                    if action in view.legal:
                        skipped[seat] = skipped.get(seat, 0) + 1
                    view = dataclasses.replace(view, legal=())
                else:
                    view = dataclasses.replace(view, legal=honest(view))
            if action in view.legal:
                points.append(Point(i, view, action))
        try:
            state.apply(action)
        except IllegalAction as exc:
            raise AnalysisError(f"action {i} is illegal: {exc}") from None
    if not state.game_over:
        raise AnalysisError("the record does not reach the end of the game")
    return points, skipped, n


def judge(point: Point, budget: int, seed: int) -> Decision:
    """Evaluate every legal action of one decision and label the played one."""
    view = point.view
    forced = point.forced
    values = evaluate_actions(view, max(1, budget // FORCED_SHARE) if forced else budget, seed)
    exact = all(v.visits == 0 for v in values)
    played = next(v for v in values if v.action == point.played)
    if exact:
        # Exact chances: the played action is best when nothing beats it.
        top = max(v.chance for v in values)
        best = played if played.chance >= top else next(v for v in values if v.chance == top)
    else:
        # Searched chances: the search's choice is its most visited action (an
        # action with few visits has a rough value, so the highest mean could
        # be luck); ties go to the higher chance, then to the legal order.
        best = max(values, key=lambda v: (v.visits, v.chance))
        if best.action != played.action and not forced:
            # The played action had the search's leftovers: give it and the
            # best one a deep look each before comparing them (REFINE_SHARE).
            chance_best, chance_played = refine_actions(
                view, (best.action, played.action), max(1, budget // REFINE_SHARE), seed
            )
            refined = {
                best.action: ActionValue(best.action, chance_best, best.visits),
                played.action: ActionValue(played.action, chance_played, played.visits),
            }
            values = [refined.get(v.action, v) for v in values]
            played = refined[played.action]
            best = played if chance_played >= chance_best else refined[best.action]
    is_best = best.action == played.action
    loss = max(0.0, best.chance - played.chance)
    return Decision(
        index=point.index,
        seat=view.seat,
        played=played.action,
        best=best.action,
        chance_played=played.chance,
        chance_best=best.chance,
        label=label_of(loss, is_best, forced),
        exact=exact,
        values=tuple(values),
    )


def analyse(
    record: GameRecord,
    seats: Sequence[int] | None = None,
    budget: int | None = None,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Judge every decision of ``seats`` (default: every seat with a choice).

    ``budget``: search iterations per decision (default :func:`default_budget`);
    ``progress(done, total)`` is called after each decision (from this thread)."""
    try:
        points, skipped, n = decision_points(record, seats)
    except RecordError as exc:
        raise AnalysisError(str(exc)) from None
    if budget is None:
        budget = default_budget(n)
    if budget < 1:
        raise AnalysisError("the budget must be at least 1 iteration")
    widest = max((len(p.view.legal) for p in points), default=1)
    if budget < widest:
        raise AnalysisError(f"a budget of {budget} cannot visit {widest} actions")
    if seats is None:
        chosen = sorted({p.view.seat for p in points if not p.forced})
    else:
        chosen = sorted(set(seats))
    points = [p for p in points if p.view.seat in chosen]
    out = {s: SeatAnalysis(s, not_judged=skipped.get(s, 0)) for s in chosen}
    total = len(points)
    if progress is not None:
        progress(0, total)
    results: list[Decision] = []
    if workers <= 1:
        for k, point in enumerate(points):
            results.append(judge(point, budget, seed))
            if progress is not None:
                progress(k + 1, total)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(judge, p, budget, seed) for p in points]
            for k, fut in enumerate(futures):
                results.append(fut.result())
                if progress is not None:
                    progress(k + 1, total)
    for d in results:
        out[d.seat].decisions.append(d)
    return Analysis(budget, seed, out)
