"""Rooms: seats, host, spectators, and the flow of a game at one table.

A room is created by its host, who sits in seat 0.  Others join by invite code: a free seat
while the room is in the lobby, otherwise as spectators who get a seat from the next game.
Seated players and spectators alike keep their place for ``--grace`` seconds after their socket
drops (and after a restart or a change of owner), so a reconnecting client is back where it was.
The host starts; empty seats are filled with bots of the room's level.  After a game, "back to
room" returns the same table to the lobby and "rematch" deals the next game at once; the
previous durak is passed to the deal so the ``first_attacker`` rule decides who leads.

Authority: only this module changes a game.  Every move — a human's, a bot's,
a timed-out human's — goes through :meth:`Room._apply` under the room's lock,
is checked by the engine, persisted, and only then broadcast.  Each human
receives its own seat's view; spectators get the view without any hand.

Turn scheduling: at most one pending "turn" per room (a human's move clock or
a bot thinking), replaced after every move.  Nobody connected means the game
pauses (no bot burns CPU for an empty room); it resumes when someone returns.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from kozyr.engine.actions import Action, ActionError, Kind
from kozyr.engine.rules import Rules
from kozyr.engine.state import LAST_CALL, IllegalAction
from kozyr.engine.view import view_of

from .. import protocol as p
from ..players.settle import GameFacts, SeatFacts, settle
from ..storage.store import Fence, Fenced
from ..telemetry import log
from .game_session import Applied, GameSession
from .limits import TokenBucket
from .timers import Alarm, Timer

if TYPE_CHECKING:
    from .ports import Peer, RoomHost

RoomStateName = Literal["lobby", "playing", "over"]
_PBKDF2_ROUNDS = 100_000


@dataclass(eq=False)
class Player:
    """A person, known by the hash of their secret token (``key``)."""

    key: str
    name: str
    conn: Peer | None = None
    room: Room | None = None
    #: A bot account's key when this is one of its connections (``hello.slot``),
    #: None for a person (docs/bot-api.md).
    account: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.account is not None

    @property
    def connected(self) -> bool:
        return self.conn is not None

    def send(self, message: p.ServerMessage) -> None:
        if self.conn is not None and self._may_speak():
            self.conn.send(message)

    def send_raw(self, text: str) -> None:
        if self.conn is not None and self._may_speak():
            self.conn.send_raw(text)

    def _may_speak(self) -> bool:
        """False while the room's process is unsure it still owns the room
        (cluster mode: the lease may have run out, :class:`~kozyr.server.storage.store.Fence`)."""
        room = self.room
        return room is None or room.fence is None or not room.fence.silent()


@dataclass(eq=False)
class Seat:
    index: int
    player: Player | None = None
    #: Level of the bot sitting here when no human does.
    bot: int | None = None
    #: The bot was put here only because the seat was empty at the start (a
    #: waiting spectator may take the seat for the next game).
    auto: bool = False
    #: A human whose moves a bot makes (disconnected past the grace period).
    away: bool = False
    grace: Timer | None = None
    #: Between games: the player here marked themselves ready.
    ready: bool = False
    #: (key, name) of a player who left during a game: the seat is theirs again
    #: if they come back before the next game starts (a bot plays it meanwhile).
    reserved: tuple[str, str] | None = None
    #: A bot account (its name) asked to sit here that has not answered yet
    #: (:mod:`.challenges` keeps the challenge itself).
    challenged: str | None = None

    @property
    def bot_moves(self) -> bool:
        return self.player is None or self.away


def hash_passphrase(passphrase: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode(), salt, _PBKDF2_ROUNDS)


@dataclass(eq=False)
class Room:
    hub: RoomHost
    code: str
    rules: Rules
    move_time: int | None
    visibility: Literal["public", "private"]
    bot_level: int
    invite: str
    #: (salt, pbkdf2 hash) of the passphrase, or None.
    passphrase: tuple[bytes, bytes] | None = None
    #: Games here change ratings (docs/players.md).
    rated: bool = False
    #: ... and rate bot accounts' seats too (docs/bot-api.md): never otherwise.
    rate_bots: bool = False
    seats: list[Seat] = field(default_factory=list)
    spectators: list[Player] = field(default_factory=list)
    host: Player | None = None
    state: RoomStateName = "lobby"
    game: GameSession | None = None
    game_no: int = 0
    #: Version the next game starts at (versions never repeat within a room).
    next_version: int = 0
    last_durak: int | None = None
    closed: bool = False
    idle_since: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Cluster mode: this process's fencing token for the room (every write
    #: carries it; None on a single process).
    fence: Fence | None = None
    #: The move clock while it runs (an armed ``_alarm``), else None.
    _turn_timer: Alarm | None = None
    _alarm: Alarm = field(default_factory=Alarm)
    _turn_task: asyncio.Task[None] | None = None
    _paused: bool = False
    _last_move_at: float = 0.0
    #: Disconnected spectators' grace timers, by player key.
    _watch_grace: dict[str, Timer] = field(default_factory=dict)
    #: A move is applied but not yet broadcast (its store write is awaited):
    #: resyncs asked meanwhile wait for the broadcast (:meth:`resync`).
    _applying: bool = False
    _resync_after: list[Player] = field(default_factory=list)
    #: People the host sent out: player key -> until when (``time.monotonic()``).
    kicked: dict[str, float] = field(default_factory=dict)
    #: A quick-match room: its kind ("podkidnoy:2"), and when it starts with
    #: bots in the empty seats (Unix ms) — :mod:`.quick`.
    quick: str | None = None
    quick_start: int | None = None
    _quick_timer: Timer | None = None
    #: When the last connected person went (Unix ms), None while someone is here.
    _empty_since: int | None = None
    #: The host is disconnected: the role passes on if they stay away.
    _host_timer: Timer | None = None
    #: Quick phrases and reactions: a token bucket per person (:mod:`.chatter`).
    chatter: dict[str, TokenBucket] = field(default_factory=dict)
    #: Hints (issue 27, :mod:`.hints`): a token bucket per person.
    hint_buckets: dict[str, TokenBucket] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [Seat(i) for i in range(self.rules.players)]
        #: Rules never change in a room; ``to_dict`` deep-copies, so keep one copy.
        self._rules_json = self.rules.to_dict()

    # ------------------------------------------------------------ queries
    def seat_of(self, player: Player) -> int | None:
        for seat in self.seats:
            if seat.player is player:
                return seat.index
        return None

    def humans(self) -> list[Player]:
        """Seated humans and spectators."""
        return [s.player for s in self.seats if s.player is not None] + self.spectators

    def watchers(self) -> list[Player]:
        return [pl for pl in self.humans() if pl.conn is not None]

    def _listeners(self) -> list[Player]:
        """Who hears a move: the watchers, except those whose resync waits for
        the move's broadcast (they get the whole table right after it)."""
        waiting = self._resync_after
        return [pl for pl in self.watchers() if not (waiting and pl in waiting)]

    def watched(self) -> bool:
        # Asked after every move: look at the seats without building lists.
        for seat in self.seats:
            if seat.player is not None and seat.player.conn is not None:
                return True
        return any(pl.conn is not None for pl in self.spectators)

    def check_passphrase(self, given: str | None) -> bool:
        if self.passphrase is None:
            return True
        if given is None:
            return False
        salt, digest = self.passphrase
        return hmac.compare_digest(hash_passphrase(given, salt), digest)

    def info(self) -> p.RoomInfo:
        host_seat = self.seat_of(self.host) if self.host else None
        seats = [
            p.SeatInfo(
                seat=s.index,
                name=s.player.name if s.player else None,
                bot=s.bot if s.player is None else (self.bot_level if s.away else None),
                human=s.player is not None,
                connected=s.player is not None and s.player.connected,
                away=s.away,
                host=s.player is not None and s.player is self.host,
                ready=s.ready,
                reserved_for=s.reserved[1] if s.reserved and s.player is None else None,
                bot_account=s.player is not None and s.player.account is not None,
                challenged=s.challenged,
            )
            for s in self.seats
        ]
        connected = sum(1 for pl in self.humans() if pl.connected)
        # Noted when first seen empty (every change of who is connected is
        # broadcast, so info() is asked at that moment): the lobby list leaves
        # a room nobody is in after a minute (docs/protocol.md, "Lobby").
        if connected:
            self._empty_since = None
        elif self._empty_since is None:
            self._empty_since = int(time.time() * 1000)
        return p.RoomInfo(
            code=self.code,
            invite=self.invite,
            state=self.state,
            host=host_seat,
            host_name=self.host.name if self.host else None,
            rules=self._rules_json,
            move_time=self.move_time,
            visibility=self.visibility,
            has_passphrase=self.passphrase is not None,
            bot_level=self.bot_level,
            seats=seats,
            spectators=[pl.name for pl in self.spectators],
            game=self.game_no,
            version=self.game.version if self.game else self.next_version,
            connected=connected,
            empty_since=self._empty_since,
            quick_start=self.quick_start if self.state == "lobby" else None,
            host_bot=self.host is not None and self.host.account is not None,
            bot_spectators=[i for i, pl in enumerate(self.spectators) if pl.account is not None],
            rated=self.rated,
            rate_bots=self.rate_bots,
        )

    def room_message(self, player: Player, info: p.RoomInfo | None = None) -> p.RoomState:
        seat = self.seat_of(player)
        you = p.You(seat=seat, host=player is self.host, spectator=seat is None)
        return p.RoomState(room=info or self.info(), you=you)

    def broadcast_room(self) -> None:
        info = self.info()
        for pl in self.watchers():
            pl.send(self.room_message(pl, info))
        self.hub.coord.room_changed(self)  # a cluster's lobby list shows who is here

    def game_frame(self, player: Player) -> p.GameFrame | None:
        return self._frame_for(self.seat_of(player))

    def _frame_for(
        self, seat: int | None, clock: tuple[int | None, int | None] | None = None
    ) -> p.GameFrame | None:
        """The game frame of ``seat`` (None: a spectator's, without any hand);
        ``clock`` is :meth:`_clock` when a broadcast read it once for all seats."""
        g = self.game
        if g is None:
            return None
        legal: list[dict[str, Any]] = []
        if seat is None:
            view = g.spectator_view()
        else:
            view, legal = g.seat_view(seat)
        deadline, time_left = clock or self._clock()
        return p.GameFrame(
            game=g.game_no,
            version=g.version,
            seat=seat,
            view=view,
            legal=legal,
            to_move=g.to_move,
            deadline=deadline,
            time_left=time_left,
        )

    def _clock(self) -> tuple[int | None, int | None]:
        """(deadline, time left) of the move clock for a frame sent now."""
        timer = self._turn_timer
        return (timer.deadline_ms, timer.time_left_ms()) if timer else (None, None)

    def game_over_message(self, player: Player | None = None) -> p.GameOver | None:
        """The ``game_over`` frame, with ``player``'s own candies and rating."""
        g = self.game
        if g is None or g.result is None:
            return None
        res = g.result
        durak = self.seats[res.durak] if res.durak is not None else None
        return p.GameOver(
            game=g.game_no,
            version=g.version,
            game_id=g.game_id,
            result=res.to_json(),
            durak=res.durak,
            durak_name=durak.player.name if durak and durak.player else None,
            pogony=res.pogony,
            cards_left=g.cards_left(),
            places=g.places(),
            record=f"/api/games/{g.game_id}" if g.game_id is not None else None,
            **(g.awards.get(player.key) or {} if player is not None else {}),
            hints=g.hints.get(seat, 0) if (seat := self._seat_or_none(player)) is not None else 0,
        )

    def _seat_or_none(self, player: Player | None) -> int | None:
        return None if player is None else self.seat_of(player)

    def resync(self, player: Player) -> None:
        """Everything a client needs to draw the table from scratch.

        While a move is applied but not yet broadcast, the resync waits for
        the broadcast: sent now, it would show the new version, and the move's
        event would then arrive after it (the client would see it twice)."""
        if self._applying:
            if player not in self._resync_after:
                self._resync_after.append(player)
            return
        player.send(self.room_message(player))
        frame = self.game_frame(player)
        if frame is not None:
            player.send(frame)
        if self.state == "over":
            over = self.game_over_message(player)
            if over is not None:
                player.send(over)

    # ------------------------------------------------------------ membership
    def add_player(self, player: Player, wish: int | None) -> None:
        """Seat ``player`` (lobby, free seat; or the seat kept for them since
        they left during a game) or make them a spectator."""
        if wish is not None and not 0 <= wish < len(self.seats):
            raise p.ProtocolError(
                p.Code.BAD_SEAT, f"there is no seat {wish} at this {len(self.seats)}-seat table"
            )
        self.check_not_kicked(player)
        seat = self.reserved_seat(player)
        if seat is None and self.state == "lobby":
            if wish is not None:
                seat = self.seats[wish]
                if not self.free(seat):
                    raise p.ProtocolError(p.Code.BAD_SEAT, f"seat {wish} is taken")
            else:
                seat = next((s for s in self.seats if self.free(s)), None)
        player.room = self
        if seat is not None:
            seat.player = player
            seat.bot = None  # a returning player takes the seat back from the bot
            seat.auto = seat.away = False
            seat.reserved = None
        else:
            self.spectators.append(player)
        if self.host is None:
            self.host = player
        log.event("room_joined", room=self.code, player=player.name, seat=seat and seat.index)
        self.changed()
        self.resync(player)
        self.broadcast_room_except(player)
        self.resume_if_paused()
        if seat is not None and self.quick is not None:
            self.hub.tasks.spawn(self.quick_if_full(), f"quick-{self.code}")

    def free(self, seat: Seat) -> bool:
        """Empty, and not kept for a player who left during a game."""
        return (
            seat.player is None
            and seat.bot is None
            and seat.reserved is None
            and seat.challenged is None
        )

    def reserved_seat(self, player: Player) -> Seat | None:
        """The seat kept for ``player`` (they left during a game), if any."""
        for seat in self.seats:
            kept = seat.reserved
            if kept is not None and kept[0] == player.key and seat.player is None:
                return seat
        return None

    def check_not_kicked(self, player: Player) -> None:
        until = self.kicked.get(player.key)
        if until is None:
            return
        left = until - time.monotonic()
        if left <= 0:
            del self.kicked[player.key]
            return
        raise p.ProtocolError(
            p.Code.KICKED,
            f"the host sent you out of this room; you may come back in {left / 60:.0f} min",
            "join",
            round(left, 1),
        )

    def broadcast_room_except(self, player: Player) -> None:
        info = self.info()
        for pl in self.watchers():
            if pl is not player:
                pl.send(self.room_message(pl, info))
        self.hub.coord.room_changed(self)

    def remove_player(self, player: Player) -> None:
        """``player`` leaves the room for good: a bot finishes their game."""
        idx = self.seat_of(player)
        if idx is not None:
            seat = self.seats[idx]
            self._cancel_grace(seat)
            seat.player = None
            seat.away = seat.ready = False
            if self.state == "playing":
                # A bot plays on; the seat is theirs again if they come back
                # before the next game starts (docs/protocol.md, "Seats").
                seat.bot, seat.auto = self.bot_level, True
                seat.reserved = (player.key, player.name)
            else:
                seat.bot, seat.auto = None, False
        elif player in self.spectators:
            self.spectators.remove(player)
            self._cancel_watch_grace(player)
        player.room = None
        log.event("room_left", room=self.code, player=player.name, seat=idx)
        if self.host is player:
            self.pass_host()
        if not self.humans():
            self.hub.close_room(self, "empty")
            return
        self.changed()
        self.broadcast_room()
        if self.game and not self.game.over and self.game.to_move == idx:
            self._schedule_turn()
        self._pause_if_unwatched()

    def disconnected(self, player: Player) -> None:
        """The player's socket closed; they keep their seat for the grace period
        (and a host who stays away longer hands the role to someone here)."""
        if player is self.host:
            self._cancel_host_timer()
            self._host_timer = Timer(self.hub.config.grace, self._host_gone)
        idx = self.seat_of(player)
        if idx is None:
            if player in self.spectators:
                self._watch_grace_for(player)
        elif self.state == "playing":
            seat = self.seats[idx]
            self._cancel_grace(seat)
            seat.grace = Timer(self.hub.config.grace, lambda: self._takeover(seat))
            g = self.game
            if g is not None and not g.over and g.to_move == idx:
                self._waiting(seat, g.version)
        self.broadcast_room()
        self._pause_if_unwatched()

    def reconnected(self, player: Player) -> None:
        """The player is back (same token): give the seat back, resync."""
        idx = self.seat_of(player)
        self._cancel_watch_grace(player)
        if player is self.host:
            self._cancel_host_timer()
        elif self.host is None or (not self.host.connected and self._host_timer is None):
            self.pass_host()  # the host went away for good while nobody was here
        was_away = False
        if idx is not None:
            seat = self.seats[idx]
            self._cancel_grace(seat)
            was_away, seat.away = seat.away, False
        log.event("room_rejoined", room=self.code, player=player.name, seat=idx)
        g = self.game
        playing = g is not None and not g.over and self.state == "playing"
        if playing and (self._paused or (was_away and g is not None and g.to_move == idx)):
            self._paused = False
            self._schedule_turn()
        self.resync(player)
        self.broadcast_room_except(player)

    def recovered(self) -> None:
        """After a restart or a change of owner: the game waits (paused) and
        each absent player's grace period starts now (a spectator's too)."""
        if self.state == "playing":
            self._paused = True
        for seat in self.seats:
            if seat.player is not None and self.state == "playing":
                seat.grace = Timer(self.hub.config.grace, partial(self._takeover, seat))
        for pl in self.spectators:
            if not pl.connected:
                self._watch_grace_for(pl)

    def rejoin(self, player: Player) -> None:
        """A socket that was in this room before the room changed owner is
        attached here now.  A player the room knows is back in their place; one
        it does not (their join was not stored before the old owner died)
        watches, and is never seated without asking."""
        if player.room is self:
            self.reconnected(player)
            return
        player.room = self
        self.spectators.append(player)
        log.event("room_joined", room=self.code, player=player.name, seat=None)
        self.changed()
        self.resync(player)
        self.broadcast_room_except(player)
        self.resume_if_paused()

    def pass_host(self) -> None:
        """The host role goes to someone connected (seated first, in seat order),
        else to anyone still in the room; a notice-worthy change (``room`` frame)."""
        old = self.host
        people = self.humans()
        self.host = next((pl for pl in people if pl.connected), None) or next(iter(people), None)
        self._cancel_host_timer()
        if self.host is not old:
            log.event("host_changed", room=self.code, host=self.host.name if self.host else None)

    def _host_gone(self) -> None:
        self._host_timer = None
        if self.host is None or self.host.connected or self.closed:
            return
        if any(pl.connected for pl in self.humans()):
            self.pass_host()
            self.changed()
            self.broadcast_room()

    def _cancel_host_timer(self) -> None:
        if self._host_timer is not None:
            self._host_timer.cancel()
            self._host_timer = None

    def _watch_grace_for(self, player: Player) -> None:
        """A spectator's socket dropped: they keep watching for the grace period."""
        self._cancel_watch_grace(player)
        self._watch_grace[player.key] = Timer(
            self.hub.config.grace, partial(self._stop_watching, player)
        )

    def _cancel_watch_grace(self, player: Player) -> None:
        timer = self._watch_grace.pop(player.key, None)
        if timer is not None:
            timer.cancel()

    def _stop_watching(self, player: Player) -> None:
        """A spectator did not come back within the grace period: they leave."""
        self._watch_grace.pop(player.key, None)
        if player.connected or player not in self.spectators or self.closed:
            return
        self.spectators.remove(player)
        player.room = None
        log.event("room_left", room=self.code, player=player.name, seat=None)
        self.hub.forget(player)
        if self.host is player:
            self.pass_host()
        if not self.humans():
            self.hub.close_room(self, "empty")
            return
        self.changed()
        self.broadcast_room()

    def _takeover(self, seat: Seat) -> None:
        seat.grace = None
        if seat.player is None or seat.player.connected or self.state != "playing":
            return
        seat.away = True
        log.event("bot_takeover", room=self.code, seat=seat.index, player=seat.player.name)
        self.broadcast_room()
        g = self.game
        if g is not None and g.to_move == seat.index:
            self._schedule_turn()

    def _cancel_grace(self, seat: Seat) -> None:
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None

    def _pause_if_unwatched(self) -> None:
        if self.watched() or self.closed:
            return
        self.idle_since = time.monotonic()
        if self.state == "playing":
            self._cancel_turn()
            self._paused = True

    def resume_if_paused(self) -> None:
        if self._paused and self.watched():
            self._paused = False
            self._schedule_turn()

    def changed(self) -> None:
        """Persist the room's settings and seats (queued, in order)."""
        self.hub.store.save_room(self.code, self.state, self.to_store(), self.closed, self.fence)
        self.hub.coord.room_changed(self)
        self.hub.emit({"kind": "room", "room": self.code})

    def to_store(self) -> dict[str, Any]:
        return {
            "rules": self._rules_json,
            "move_time": self.move_time,
            "visibility": self.visibility,
            "rated": self.rated,
            "rate_bots": self.rate_bots,
            "bot_level": self.bot_level,
            "invite": self.invite,
            "passphrase": (
                [self.passphrase[0].hex(), self.passphrase[1].hex()] if self.passphrase else None
            ),
            "host": self.host.key if self.host else None,
            "seats": [
                {
                    "player": s.player.key if s.player else None,
                    "name": s.player.name if s.player else None,
                    "account": s.player.account if s.player else None,
                    "bot": s.bot,
                    "auto": s.auto,
                    "reserved": list(s.reserved) if s.reserved else None,
                }
                for s in self.seats
            ],
            "spectators": [
                {"player": pl.key, "name": pl.name, "account": pl.account} for pl in self.spectators
            ],
            # Wall-clock ends of the kicks (another process reads them).
            "kicked": {k: time.time() + t - time.monotonic() for k, t in self.kicked.items()},
            "state": self.state,
            "game_no": self.game_no,
            "next_version": self.next_version,
            "last_durak": self.last_durak,
            "game_id": self.game.game_id if self.game else None,
        }

    # ------------------------------------------------------------ quick match
    def arm_quick(self, kind: str, wait: float) -> None:
        """A quick-match room: it starts when every seat has a person, or after
        ``wait`` seconds with bots in the empty seats."""
        self.quick = kind
        self.quick_start = int((time.time() + wait) * 1000)

        def go() -> None:
            self.hub.tasks.spawn(self._quick_go(), f"quick-{self.code}")

        self._quick_timer = Timer(wait, go)

    async def quick_if_full(self) -> None:
        if all(s.player is not None for s in self.seats):
            await self._quick_go()

    async def _quick_go(self) -> None:
        async with self.lock:
            if self.quick is None or self.state != "lobby" or self.closed:
                return
            if any(s.player is not None for s in self.seats):
                await self._start()

    def end_quick(self) -> None:
        """No longer a waiting quick-match room (it started, or closed)."""
        if self._quick_timer is not None:
            self._quick_timer.cancel()
            self._quick_timer = None
        if self.quick is not None:
            self.hub.coord.quick_done(self.quick, self.code)
            self.quick = self.quick_start = None

    # ------------------------------------------------------------ host actions
    def require_host(self, player: Player) -> None:
        if player is not self.host:
            raise p.ProtocolError(p.Code.NOT_HOST, "only the host can do that")

    def seat_bot(self, player: Player, index: int, level: int | None) -> None:
        self.require_host(player)
        if self.state != "lobby":
            raise p.ProtocolError(p.Code.WRONG_STATE, "bots are seated in the lobby, between games")
        seat = self._seat(index)
        if seat.player is not None:
            raise p.ProtocolError(p.Code.BAD_SEAT, f"seat {index} has a player")
        self.check_not_challenged(seat)
        seat.bot, seat.auto = level or self.bot_level, False
        self.changed()
        self.broadcast_room()

    def free_seat(self, player: Player, index: int) -> None:
        self.require_host(player)
        if self.state != "lobby":
            raise p.ProtocolError(p.Code.WRONG_STATE, "seats are changed in the lobby")
        seat = self._seat(index)
        if seat.player is not None:
            raise p.ProtocolError(p.Code.BAD_SEAT, f"seat {index} has a player, not a bot")
        seat.bot, seat.auto = None, False
        self.changed()
        self.broadcast_room()

    def check_not_challenged(self, seat: Seat) -> None:
        if seat.challenged is not None:
            raise p.ProtocolError(
                p.Code.BAD_SEAT,
                f"seat {seat.index} waits for {seat.challenged}'s answer to a challenge "
                "(free_seat withdraws it)",
            )

    def _seat(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats):
            raise p.ProtocolError(
                p.Code.BAD_SEAT, f"there is no seat {index} at this {len(self.seats)}-seat table"
            )
        return self.seats[index]

    async def start(self, player: Player) -> None:
        self.require_host(player)
        async with self.lock:
            if self.state == "playing":
                raise p.ProtocolError(p.Code.WRONG_STATE, "the game is already running")
            if self.state == "over":
                self._clear_auto_bots()
            await self._start()

    async def rematch(self, player: Player) -> None:
        self.require_host(player)
        async with self.lock:
            if self.state != "over":
                raise p.ProtocolError(p.Code.WRONG_STATE, "a rematch follows a finished game")
            self._clear_auto_bots()
            await self._start()

    def back_to_room(self, player: Player) -> None:
        """After a game, a seated player takes the table back to the lobby (same
        seats; nobody is seated who did not ask).  A spectator may send it too:
        they are shown the room, to watch the next game, and nothing changes."""
        if self.seat_of(player) is None:
            self.resync(player)
            return
        if self.state != "over":
            raise p.ProtocolError(p.Code.WRONG_STATE, "the game is not over")
        self.state = "lobby"
        self._clear_auto_bots()
        self.changed()
        self.broadcast_room()

    def _clear_auto_bots(self) -> None:
        for seat in self.seats:
            if seat.player is None and seat.auto:
                seat.bot, seat.auto = None, False
            seat.away = seat.ready = False

    async def _start(self) -> None:
        if not any(s.player is not None for s in self.seats):
            raise p.ProtocolError(p.Code.WRONG_STATE, "at least one person must be seated")
        waiting = [s for s in self.seats if s.challenged is not None]
        if waiting:
            raise p.ProtocolError(
                p.Code.WRONG_STATE,
                f"seat {waiting[0].index} waits for {waiting[0].challenged}'s answer "
                "to a challenge (free_seat withdraws it)",
            )
        self.end_quick()
        for seat in self.seats:
            seat.reserved = None  # kept until this start: a bot plays the seat now
            seat.ready = False
            if seat.player is None and seat.bot is None:
                seat.bot, seat.auto = self.bot_level, True
            if seat.player is not None and not seat.player.connected and seat.grace is None:
                seat.grace = Timer(self.hub.config.grace, partial(self._takeover, seat))
        meta = {
            "room": self.code,
            "game": self.game_no + 1,
            "base_version": self.next_version,
            "players": [s.player.name if s.player else f"bot level {s.bot}" for s in self.seats],
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        g = GameSession.deal(self.rules, self.game_no + 1, self.next_version, self.last_durak, meta)
        store = self.hub.store
        g.game_id = await store.create_game(
            self.code, g.game_no, g.base_version, g.header(), self.fence
        )
        self.game, self.game_no, self.state = g, g.game_no, "playing"
        self._last_move_at = asyncio.get_running_loop().time()
        self.changed()
        log.event(
            "game_started",
            room=self.code,
            game=g.game_no,
            game_id=g.game_id,
            version=g.version,
            seats=meta["players"],
        )
        self._paused = False
        self._schedule_turn()
        self.broadcast_room()
        self._broadcast_frames()

    # ------------------------------------------------------------ moves
    async def move(self, player: Player, msg: p.Move) -> None:
        received = time.perf_counter()
        seat = self.seat_of(player)
        if seat is None:
            raise p.ProtocolError(p.Code.NOT_SEATED, "spectators cannot move", "move")
        try:
            action = Action.from_json(msg.action)
        except ActionError as exc:
            raise p.ProtocolError(p.Code.BAD_ACTION, str(exc), "move") from None
        if action.seat != seat:
            raise p.ProtocolError(
                p.Code.FORGED_SEAT, f"you sit in seat {seat}, not seat {action.seat}", "move"
            )
        async with self.lock:
            g = self.game
            if g is None or self.state != "playing":
                raise p.ProtocolError(p.Code.WRONG_STATE, "no game is being played", "move")
            if msg.version != g.version:
                raise p.ProtocolError(
                    p.Code.STALE_VERSION,
                    f"your move was made at version {msg.version} but the game is at "
                    f"version {g.version}; look at the latest game frame",
                    "move",
                )
            if g.to_move != seat and not out_of_turn(g, action):
                raise p.ProtocolError(
                    p.Code.NOT_YOUR_TURN, f"it is seat {g.to_move}'s turn, not yours", "move"
                )
            try:
                await self._apply(action, "player", received)
            except IllegalAction as exc:
                raise p.ProtocolError(p.Code.ILLEGAL_MOVE, str(exc), "move") from None

    async def _apply(self, action: Action, by: str, received: float | None = None) -> None:
        """Apply, persist, schedule the next turn, broadcast (caller holds the lock).

        ``received`` (``time.perf_counter()``) is when a player's move arrived; the
        ``move`` log line then reports ``ms``, the server's time until the broadcast.
        """
        self._applying = True
        try:
            await self._apply_and_broadcast(action, by, received)
        finally:
            self._applying = False
            waiting, self._resync_after = self._resync_after, []
            if not self.closed:
                for pl in waiting:
                    if pl.room is self:
                        self.resync(pl)

    async def _apply_and_broadcast(self, action: Action, by: str, received: float | None) -> None:
        g = self.game
        assert g is not None
        loop = asyncio.get_running_loop()
        applied = g.apply(action)
        self.hub.moves += 1
        # The record's JSON of this move, shared (read-only) by the store, the
        # event and the log line: converted once.
        action_json = g.record.actions[-1]
        if g.game_id is not None:
            try:
                idx = len(g.record.actions) - 1
                auto = by != "player"  # a bot made it (timeout, away, last call)
                await self.hub.store.add_move(g.game_id, idx, action_json, self.fence, auto)
            except Fenced:
                # Another process owns the room now: this move never happened
                # (it is not stored, so it must not be shown either).
                self.hub.coord.lost(self)
                return
            except Exception as exc:
                log.error("store_move_failed", room=self.code, error=repr(exc))
        # Bots are paced from the moment people see this move (after the store
        # write, which may take a while on a busy machine), not from when it came.
        self._last_move_at = loop.time()
        if applied.over:
            self._cancel_turn()
            await self.finish()
            if self.closed:  # the finish was refused: another process owns the room
                return
        else:
            self._schedule_turn()
        self._broadcast_move(applied, by, action_json)
        took = None if received is None else time.perf_counter() - received
        self.hub.metrics.move_applied(took)
        log.event(
            "move",
            room=self.code,
            game=g.game_no,
            version=applied.version,
            seat=action.seat,
            action=action_json,
            by=by,
            ms=None if took is None else round(took * 1000, 2),
        )
        if applied.over:
            assert g.result is not None
            log.event(
                "game_over",
                room=self.code,
                game=g.game_no,
                game_id=g.game_id,
                result=g.result.to_json(),
                moves=len(g.record.actions),
            )
            over = self.game_over_message()
            if over is not None:
                text = p.encode(over).decode()
                for pl in self._listeners():
                    seat = self.seat_of(pl)
                    used = g.hints.get(seat, 0) if seat is not None else 0
                    if pl.key in g.awards or used:  # a person's own grant, rating, hints
                        pl.send(self.game_over_message(pl) or over)
                    else:
                        pl.send_raw(text)
                self.hub.emit(
                    {"kind": "over", "room": self.code, "game": g.game_no, "durak": over.durak,
                     "durak_name": over.durak_name, "pogony": over.pogony,
                     "host": self.host.name if self.host else None,
                     "awards": g.awards}
                )  # fmt: skip
            self.broadcast_room()

    async def finish(self) -> None:
        """Record a finished game: the room's state, the stored record, the results."""
        g = self.game
        assert g is not None and g.result is not None
        res = g.result
        self.state = "over"
        self.last_durak = res.durak
        self.next_version = g.version + 1
        levels = [s.bot for s in self.seats if s.player is None and s.bot is not None]
        outcomes: list[tuple[str, str, int, str]] = []
        if levels:
            level = max(levels)
            for s in self.seats:
                if s.player is None:
                    continue
                if res.durak is None:
                    outcome = "draw"
                elif s.index == res.durak or s.index in res.team:
                    outcome = "loss"
                else:
                    outcome = "win"
                outcomes.append((s.player.key, s.player.name, level, outcome))
        if g.game_id is not None:
            facts = self._facts(g.game_id)

            def settled(conn: Any, now: float) -> dict[str, dict[str, Any]]:
                facts.ended_at = now
                return settle(conn, facts)

            try:
                g.awards = (
                    await self.hub.store.finish_game(
                        g.game_id, g.record.to_json(res.to_json()), "finished", outcomes,
                        self.fence, settled,
                    )
                    or {}
                )  # fmt: skip
            except Fenced:
                self.hub.coord.lost(self)
                return
            except Exception as exc:
                log.error("store_finish_failed", room=self.code, error=repr(exc))
        self.changed()

    def _facts(self, game_id: int) -> GameFacts:
        """What settling the finished game needs (candies, ratings, history):
        each seat's person (one who left during the game too) or bot."""
        g = self.game
        assert g is not None and g.result is not None
        seats = []
        for s in self.seats:
            if s.player is not None:
                seats.append(SeatFacts(s.index, s.player.key, hints=g.hints.get(s.index, 0)))
            elif s.reserved is not None:
                seats.append(SeatFacts(s.index, s.reserved[0], left=True))
            else:
                seats.append(SeatFacts(s.index, None, s.bot or self.bot_level))
        return GameFacts(
            game_id=game_id,
            variant=self.rules.variant,
            action_seats=[int(a["seat"]) for a in g.record.actions],
            seats=seats,
            durak=g.result.durak,
            losers=tuple(g.result.team),
            teams=self.rules.team_count,
            rated=self.rated,
            rate_bots=self.rate_bots,
            cap=self.hub.config.candy_cap,
        )

    def _broadcast_move(self, applied: Applied, by: str, action_json: dict[str, Any]) -> None:
        g = self.game
        assert g is not None
        event = p.Event(
            game=g.game_no,
            version=applied.version,
            seat=applied.action.seat,
            action=action_json,
            by=by,
            round_end=applied.round_end,
            draws=applied.draws,
            deck=applied.deck,
            accusation=applied.accusation,
        )
        text = p.encode(event).decode()
        for pl in self._listeners():
            pl.send_raw(text)
        self._broadcast_frames()

    def _broadcast_frames(self) -> None:
        """Each seated human gets its own view; spectators share one (no hand).
        Seats are walked directly (this runs after every move)."""
        if self.game is None or (self.fence is not None and self.fence.silent()):
            return
        clock = self._clock()  # the same moment for every seat's frame
        waiting = self._resync_after
        for seat in self.seats:
            pl = seat.player
            if pl is not None and pl.conn is not None and not (waiting and pl in waiting):
                frame = self._frame_for(seat.index, clock)
                if frame is not None:
                    pl.conn.send(frame)
        spectator_text: str | None = None
        for pl in self.spectators:
            if pl.conn is None or (waiting and pl in waiting):
                continue
            if spectator_text is None:
                frame = self._frame_for(None, clock)
                if frame is None:
                    return
                spectator_text = p.encode(frame).decode()
            pl.conn.send_raw(spectator_text)

    # ------------------------------------------------------------ turns
    def _schedule_turn(self) -> None:
        """Arm whatever makes the next move happen: a bot, or a human's clock."""
        self._cancel_turn()
        g = self.game
        if g is None or g.over or self.state != "playing" or g.to_move is None:
            return
        version = g.version
        seat = self.seats[g.to_move]
        if seat.player is not None and not seat.player.connected and g.state.phase != LAST_CALL:
            self._waiting(seat, version)  # even while the room pauses: a reminder helps
        if not self.watched():
            self._paused = True
            return
        if g.state.phase == LAST_CALL:
            self._schedule_last_call(g, version)
            return
        if seat.bot_moves:
            by = "bot" if seat.player is None else "takeover"
            self._start_bot(seat.index, version, by)
        elif self.move_time:
            self._turn_timer = self._alarm.arm(
                self.move_time * self.hub.config.move_time_scale,
                lambda: self._start_bot(seat.index, version, "timeout"),
            )

    def _waiting(self, seat: Seat, version: int) -> None:
        """The turn waits for a person who is not connected (a bot may play it
        for them): an event for a program that reminds people (Telegram)."""
        pl = seat.player
        if pl is None or not self.move_time:
            return
        others = [s.player.name for s in self.seats if s.player is not None and s is not seat]
        self.hub.emit(
            {"kind": "waiting", "room": self.code, "version": version, "player": pl.key,
             "name": pl.name, "others": others}
        )  # fmt: skip

    def _schedule_last_call(self, g: GameSession, version: int) -> None:
        """Rule 13's last call: every pending bot answers at once (one at a time,
        without the pacing delay), then people get ``config.last_call`` seconds
        to call out a card before the server passes for them."""
        pending = [s for s in self.seats if g.state.pending >> s.index & 1]
        for seat in pending:
            if seat.bot_moves:
                by = "bot" if seat.player is None else "takeover"
                self._start_bot(seat.index, version, by, paced=False)
                return
        if pending:
            delay = self.hub.config.last_call * self.hub.config.move_time_scale
            self._turn_timer = self._alarm.arm(
                delay, lambda: self._turn_task_for(self._last_call_over(version))
            )

    def _turn_task_for(self, coro: Any) -> None:
        self._turn_timer = None
        self._turn_task = self.hub.tasks.spawn(coro, f"last-call-{self.code}")

    async def _last_call_over(self, version: int) -> None:
        """The last call's time is up: every person still pending passes."""
        async with self.lock:
            g = self.game
            if g is None or g.version != version or self.state != "playing":
                return
            if self._turn_task is asyncio.current_task():
                self._turn_task = None
            while g.state.phase == LAST_CALL and not g.over:
                seat = g.to_move
                assert seat is not None
                await self._apply(Action(seat, Kind.PASS), "last_call")
                if self.game is not g:
                    return

    def _start_bot(self, seat: int, version: int, by: str, paced: bool = True) -> None:
        self._turn_timer = None
        self._turn_task = self.hub.tasks.spawn(
            self._bot_turn(seat, version, by, paced), f"bot-{self.code}-{version}"
        )

    def _cancel_turn(self) -> None:
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None
        task = self._turn_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        self._turn_task = None

    async def _bot_turn(self, seat: int, version: int, by: str, paced: bool = True) -> None:
        g = self.game
        if g is None or g.version != version:
            return
        level = self.seats[seat].bot or self.bot_level
        action = await self.hub.pool.choose(level, view_of(g.state, seat))
        loop = asyncio.get_running_loop()
        wait = self._last_move_at + self.hub.config.bot_delay - loop.time()
        if wait > 0 and paced:
            await asyncio.sleep(wait)
        async with self.lock:
            if self.game is not g or g.version != version or self.state != "playing":
                return
            # From here on nothing may cancel this task: a move half applied
            # (state changed, not yet broadcast) would leave the table stuck.
            if self._turn_task is asyncio.current_task():
                self._turn_task = None
            try:
                await self._apply(action, by)
            except IllegalAction as exc:  # pragma: no cover - the pool checks legality
                log.error("bot_move_illegal", room=self.code, seat=seat, error=str(exc))

    # ------------------------------------------------------------ closing
    def shutdown(self) -> None:
        """Stop every timer and task of this room (closing or server exit)."""
        self.closed = True
        self._cancel_turn()
        for seat in self.seats:
            self._cancel_grace(seat)
        for timer in self._watch_grace.values():
            timer.cancel()
        self._watch_grace.clear()
        self._cancel_host_timer()
        self.end_quick()


def out_of_turn(g: GameSession, action: Action) -> bool:
    """Rule 13: an accusation, or a pass in the last call, that the seat may make
    although it is not its turn (the engine judges it; this only lets it through)."""
    state = g.state
    return (
        state.rules.cheating
        and action.kind in (Kind.ACCUSE, Kind.PASS)
        and state.check(action) is None
    )


#: Characters of an invite code: 16 of 31 (about 79 random bits, unguessable;
#: passphrase rooms are throttled on top).
CODE_LENGTH = 16


def new_code() -> str:
    """An unguessable invite code in :data:`protocol.CODE_ALPHABET`: no
    punctuation and no characters that look alike (0/O, 1/I/L)."""
    return "".join(secrets.choice(p.CODE_ALPHABET) for _ in range(CODE_LENGTH))
