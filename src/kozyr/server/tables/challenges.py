"""Challenges: a room's host seats a bot account by name (docs/bot-api.md).

The flow: the host sends ``challenge {seat, bot}`` in the lobby; the seat waits
(``SeatInfo.challenged``: nobody else takes it, the game cannot start) and one
idle connection of the bot account gets a ``challenge`` frame.  The bot answers
``accept`` (it sits down, as if it had joined with that seat) or ``decline``
within :attr:`~kozyr.server.config.ServerConfig.challenge_time` seconds.  A
decline, the time running out, the bot's connection closing, the host freeing
the seat or the room closing ends the challenge: the seat is free again and the
host (and the bot, unless it declined) gets ``challenge_closed``.

Why apart from :mod:`.rooms`: a room only marks the waiting seat; who was asked,
the timer and the answers live here, in one registry per process.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from .. import protocol as p
from ..telemetry import log
from .timers import Timer

if TYPE_CHECKING:
    from ..config import ServerConfig
    from .bot_accounts import BotAccounts
    from .rooms import Player, Room

Reason = Literal["declined", "timeout", "offline", "canceled"]


class Hub(Protocol):
    """What challenges need of :class:`~.lobby.Hub` (named by shape: the hub
    imports this module)."""

    config: ServerConfig
    players: dict[str, Player]
    bots: BotAccounts


@dataclass(eq=False)
class Challenge:
    id: str
    room: Room
    seat: int
    #: The connection of the bot account that was asked.
    bot: Player
    timer: Timer | None = None


class Challenges:
    """The open challenges of this process."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.open: dict[str, Challenge] = {}

    def of_player(self, player: Player) -> Challenge | None:
        return next((c for c in self.open.values() if c.bot is player), None)

    async def issue(self, room: Room, host: Player, index: int, name: str) -> Challenge:
        """The host asks bot account ``name`` to sit in seat ``index``."""
        room.require_host(host)
        if room.state != "lobby":
            raise p.ProtocolError(
                p.Code.WRONG_STATE, "bots are challenged in the lobby, between games"
            )
        if room.quick is not None:
            raise p.ProtocolError(
                p.Code.BAD_ROOM, "a quick-match room seats strangers, not challenged bots"
            )
        if not 0 <= index < len(room.seats):
            raise p.ProtocolError(
                p.Code.BAD_SEAT, f"there is no seat {index} at this {len(room.seats)}-seat table"
            )
        seat = room.seats[index]
        if seat.player is not None or seat.reserved is not None or seat.challenged is not None:
            raise p.ProtocolError(p.Code.BAD_SEAT, f"seat {index} is not empty")
        account = await self.hub.bots.by_name(name.strip())
        if account is None:
            raise p.ProtocolError(p.Code.NO_SUCH_BOT, f"no bot account is called {name!r}")
        if room.closed or room.state != "lobby" or room.seats[index] is not seat:
            raise p.ProtocolError(p.Code.WRONG_STATE, "the room changed meanwhile")
        if seat.player is not None or seat.challenged is not None:
            raise p.ProtocolError(p.Code.BAD_SEAT, f"seat {index} is not empty")
        online = [
            pl
            for pl in self.hub.players.values()
            if pl.account == account.key and pl.conn is not None
        ]
        if not online:
            raise p.ProtocolError(
                p.Code.BOT_OFFLINE, f"{account.name} is not connected; try again later"
            )
        idle = [pl for pl in online if pl.room is None and self.of_player(pl) is None]
        if not idle:
            raise p.ProtocolError(
                p.Code.BOT_BUSY, f"{account.name} is playing as many games as it can"
            )
        bot = idle[0]
        seat.bot, seat.auto = None, False  # the bot asked replaces a seated computer
        seat.challenged = account.name
        seconds = self.hub.config.challenge_time
        ch = Challenge(secrets.token_urlsafe(12), room, index, bot)
        ch.timer = Timer(seconds, lambda: self.close(ch, "timeout"))
        self.open[ch.id] = ch
        log.event("challenge", room=room.code, seat=index, bot=account.name, host=host.name)
        room.changed()
        room.broadcast_room()
        bot.send(
            p.ChallengeOffer(
                challenge=ch.id,
                room=room.info(),
                seat=index,
                host=host.name,
                expires=int((time.time() + seconds) * 1000),
                seconds=seconds,
            )
        )
        return ch

    def _mine(self, player: Player, cid: str, kind: str) -> Challenge:
        ch = self.open.get(cid)
        if ch is None or ch.bot is not player:
            raise p.ProtocolError(
                p.Code.NO_SUCH_CHALLENGE, "no open challenge of yours has that id", kind
            )
        return ch

    def accept(self, player: Player, cid: str) -> None:
        """The bot takes the seat it was offered."""
        ch = self._mine(player, cid, "accept")
        if player.room is not None:
            self.close(ch, "declined")
            raise p.ProtocolError(
                p.Code.ALREADY_IN_ROOM, "this connection is in a room already", "accept"
            )
        self._end(ch)
        room = ch.room
        room.seats[ch.seat].challenged = None
        room.kicked.pop(player.key, None)  # asked back by the host: the ban is lifted
        log.event("challenge_accepted", room=room.code, seat=ch.seat, bot=player.name)
        room.add_player(player, ch.seat)

    def decline(self, player: Player, cid: str) -> None:
        self.close(self._mine(player, cid, "decline"), "declined")

    def close(self, ch: Challenge, reason: Reason) -> None:
        """End a challenge without the bot sitting down: the seat is free again."""
        if self.open.get(ch.id) is not ch:
            return
        self._end(ch)
        room = ch.room
        seat = room.seats[ch.seat]
        name = seat.challenged or ch.bot.name
        seat.challenged = None
        log.event("challenge_closed", room=room.code, seat=ch.seat, bot=name, reason=reason)
        closed = p.ChallengeClosed(
            challenge=ch.id, room=room.code, seat=ch.seat, bot=name, reason=reason
        )
        if reason != "declined":
            ch.bot.send(closed)
        if room.closed:
            return
        if room.host is not None:
            room.host.send(closed)
        room.changed()
        room.broadcast_room()

    def _end(self, ch: Challenge) -> None:
        self.open.pop(ch.id, None)
        if ch.timer is not None:
            ch.timer.cancel()
            ch.timer = None

    def of_seat(self, room: Room, index: int) -> Challenge | None:
        return next((c for c in self.open.values() if c.room is room and c.seat == index), None)

    def withdraw(self, room: Room, host: Player, index: int) -> bool:
        """``free_seat`` of a seat that waits for a bot: the challenge is withdrawn
        (True); False if that seat has no challenge."""
        ch = self.of_seat(room, index)
        if ch is None:
            return False
        room.require_host(host)
        self.close(ch, "canceled")
        return True

    def gone(self, player: Player) -> None:
        """A connection closed: a challenge it was answering ends (``offline``)."""
        ch = self.of_player(player)
        if ch is not None:
            self.close(ch, "offline")

    def room_closed(self, room: Room) -> None:
        for ch in [c for c in self.open.values() if c.room is room]:
            self.close(ch, "canceled")
