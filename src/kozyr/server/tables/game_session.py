"""One game at a table: the referee's state, its record, and what each seat sees.

Why a separate layer: this module is pure (no sockets, no database, no
clock), so it is the place where "never a hidden card" is decided and
tested — views come from the engine (:func:`kozyr.engine.view.view_json`, the
JSON of :func:`kozyr.engine.view_of`), spectators get that
view minus the hand, and events carry only the played action plus counts.

The *version* of a game is ``base_version + number of actions applied``.  A
room's next game starts one above its last version, so a version never
repeats within a room and a move aimed at a previous game is refused as stale.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import msgspec

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import card_str, cards_str
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState, Result
from kozyr.engine.view import legal_of, view_json

_encode = msgspec.json.Encoder().encode

_PLACES_CARDS = (Kind.ATTACK, Kind.THROW, Kind.TRANSFER, Kind.DEFEND)


@dataclass(frozen=True, slots=True)
class Applied:
    """What happened when an action was applied: only public facts."""

    action: Action
    version: int
    #: None, "bito" or "took" when the action ended the round.
    round_end: str | None
    #: Cards each seat drew from the deck at the end of the round (counts only).
    draws: list[int] | None
    deck: int
    over: bool
    #: An accusation's outcome (rule 13), see protocol.Event.accusation.
    accusation: dict[str, Any] | None = None


class GameSession:
    """The state of one game plus the record that rebuilds it."""

    def __init__(
        self, record: GameRecord, state: GameState, game_no: int, base_version: int
    ) -> None:
        self.record = record
        self.state = state
        self.game_no = game_no
        self.base_version = base_version
        #: The database id of the game, once stored.
        self.game_id: int | None = None
        #: The public part of every seat's view (its JSON after "seat" and
        #: "hand"), for the version it was made at, with the seat whose view it
        #: came from and that seat's legal actions.
        self._public: tuple[int, bytes, int, tuple[Action, ...]] | None = None
        #: Each seat's hand as (bit mask, JSON list of cards): a hand changes
        #: only when its seat plays or draws, not at every move.
        self._hands: dict[int, tuple[int, bytes]] = {}
        #: Hints each seat asked for and got (issue 27), by seat.
        self.hints: dict[int, int] = {}
        #: places() cached with the number of actions it was computed from.
        self._places: tuple[int, list[list[int]]] | None = None
        #: Once finished: each person's candies and rating for this game, by
        #: player key (``game_over`` tells each their own).
        self.awards: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------ creation
    @classmethod
    def deal(
        cls,
        rules: Rules,
        game_no: int,
        base_version: int,
        previous_durak: int | None = None,
        meta: dict[str, Any] | None = None,
    ) -> GameSession:
        """A new game dealt from a secret random seed (63 bits: a signed 64-bit
        integer in any database).  ``previous_durak`` lets the rules'
        ``first_attacker`` option decide who leads a rematch."""
        seed = secrets.randbits(63)
        deal = Deal.from_seed(rules, seed, previous_durak=previous_durak)
        record = GameRecord(rules, deal, [], dict(meta or {}))
        return cls(record, record.start(), game_no, base_version)

    @classmethod
    def resume(cls, record: GameRecord, game_no: int, base_version: int) -> GameSession:
        """Rebuild a game in progress from its record (after a restart)."""
        replay = record.replay()
        if not replay.ok:
            raise ValueError(f"record does not replay: action {replay.error_index}: {replay.error}")
        session = cls(record, replay.state, game_no, base_version)
        session.hints = hints_of(record.meta)
        return session

    # ------------------------------------------------------------ queries
    @property
    def version(self) -> int:
        return self.base_version + len(self.record.actions)

    @property
    def over(self) -> bool:
        return self.state.game_over

    @property
    def to_move(self) -> int | None:
        return self.state.to_move

    @property
    def result(self) -> Result | None:
        return self.state.result

    def count_hint(self, seat: int) -> int:
        """One more hint for ``seat``; how many it has had.  The record's
        ``meta.hints`` follows at once (the finished record and the stored
        header of a game in play both say it)."""
        used = self.hints[seat] = self.hints.get(seat, 0) + 1
        self.record.meta["hints"] = {str(s): n for s, n in sorted(self.hints.items())}
        return used

    def header(self) -> dict[str, Any]:
        """The record without actions: what the database keeps for a game in play."""
        data = self.record.to_json()
        data["actions"] = []
        return data

    def seat_view(self, seat: int) -> tuple[msgspec.Raw, list[dict[str, Any]]]:
        """``seat``'s view as JSON ready to send, and its legal actions: exactly
        ``view_of(state, seat)``'s ``to_json()`` (same keys, same order) and
        ``legal``.

        Why not encode ``view_of`` for each seat: every seat's view differs from
        the others' only in ``seat`` and ``hand``, so a move's frames share one
        public part, made and encoded once per version, and each seat's JSON is
        its seat and hand joined to those bytes.  tests/server/test_units.py
        checks the result against ``view_of`` at every position of whole games.
        """
        _, rest, from_seat, legal = self._public_view()
        view = b'{"seat":%d,"hand":%s,%s' % (seat, self._hand_bytes(seat), rest)
        # The public part came from the seat to move: its legal actions are made.
        legal = legal if from_seat == seat else legal_of(self.state, seat)
        return msgspec.Raw(view), [a.to_json() for a in legal]

    def spectator_view(self) -> msgspec.Raw:
        """The public view: any seat's view with ``seat`` null and no hand."""
        return msgspec.Raw(b'{"seat":null,' + self._public_view()[1])

    def _hand_bytes(self, seat: int) -> bytes:
        """``seat``'s hand as a JSON list of cards, kept until the hand changes
        (most moves change one hand at most)."""
        mask = self.state.hands[seat]
        cached = self._hands.get(seat)
        if cached is None or cached[0] != mask:
            cached = self._hands[seat] = (mask, _encode(cards_str(mask)))
        return cached[1]

    def _public_view(self) -> tuple[int, bytes, int, tuple[Action, ...]]:
        """(version, the view's JSON after its ``seat`` and ``hand``, the seat it
        was made for, that seat's legal actions), made once per version for the
        seat to move (whose legal actions a frame needs anyway)."""
        version = self.version
        cached = self._public
        if cached is None or cached[0] != version:
            state = self.state
            seat = state.to_move
            seat = 0 if seat is None else seat
            data = view_json(state, seat)
            encoded = _encode(data)
            # The view's first keys are "seat" and "hand" (the engine's order):
            # what follows them is the same for every seat.
            head = _encode({"seat": data["seat"], "hand": data["hand"]})
            if encoded[: len(head) - 1] + b"}" != head:  # pragma: no cover - engine change
                raise AssertionError("a view's JSON must begin with its seat and hand")
            rest = encoded[len(head) :]
            cached = self._public = (version, rest, seat, legal_of(state, seat))
        return cached

    def cards_left(self) -> list[int]:
        return self.state.hand_counts()

    def places(self) -> list[list[int]]:
        """The finishing order: seats grouped by the moment they went out, first
        out first (several seats leave together when one round's end empties
        their hands); the seats still holding cards at the end (the durak, a
        losing team, everyone left in a draw by repetition) are the last group.

        The state keeps only the order of ``out``, not which seats left
        together, so the record is replayed (a few hundred actions at most,
        once per finished game: the result is cached)."""
        if self._places is None or self._places[0] != len(self.record.actions):
            state = self.record.start()
            groups: list[list[int]] = [list(state.out)] if state.out else []
            for data in self.record.actions:
                known = len(state.out)
                state.apply(Action.from_json(data))
                if len(state.out) > known:
                    groups.append(list(state.out[known:]))
            rest = [s for s in range(state.n) if s not in state.out]
            if rest:
                groups.append(rest)
            self._places = (len(self.record.actions), groups)
        return [list(g) for g in self._places[1]]

    # ------------------------------------------------------------ moves
    def apply(self, action: Action) -> Applied:
        """Apply a move (raises IllegalAction, leaving everything unchanged) and
        describe it publicly: the round's end and per-seat draw counts."""
        state = self.state
        before_hands = state.hand_counts()
        before_deck = len(state.stock)
        before_rounds = state.rounds
        was_taking = state.taking
        defender = state.defender
        table_before = len(state.att) + sum(1 for d in state.dfn if d >= 0)
        event = state.cheat_event(action) if action.kind == Kind.ACCUSE else None
        state.apply(action)
        self.record.append(action)
        round_end: str | None = None
        draws: list[int] | None = None
        if state.rounds != before_rounds:
            took = was_taking or action.kind == Kind.TAKE
            round_end = "took" if took else "bito"
            placed = action.cards.bit_count() if action.kind in _PLACES_CARDS else 0
            after = state.hand_counts()
            draws = []
            for seat in range(state.n):
                delta = after[seat] - before_hands[seat]
                if seat == action.seat:
                    delta += placed
                if took and seat == defender:
                    delta -= table_before + placed
                draws.append(max(0, delta))
            if sum(draws) != before_deck - len(state.stock):  # pragma: no cover - invariant
                draws = None
        accusation = None
        if event is not None:
            verdict, _, card, player = event
            accusation = {"verdict": verdict, "card": card_str(card), "player": player}
        return Applied(
            action, self.version, round_end, draws, len(state.stock), state.game_over, accusation
        )


def hints_of(meta: dict[str, Any]) -> dict[int, int]:
    """The hints per seat kept in a record's ``meta`` (``{"0": 2}``): a game
    resumed after a restart still knows them, and still pays no candies."""
    found = meta.get("hints")
    if not isinstance(found, dict):
        return {}
    out = {}
    for seat, n in found.items():
        if str(seat).isdigit() and isinstance(n, int) and n > 0:
            out[int(seat)] = n
    return out
