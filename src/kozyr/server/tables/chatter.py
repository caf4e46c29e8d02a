"""Quick phrases and reactions at a table.

Why a fixed set and no free text: nothing to moderate, and each client shows a
phrase in its own player's language (the ids are in protocol.PHRASES and
protocol.REACTIONS; the words are the web client's i18n).  Seated players may
say phrases; everyone in the room, spectators too, may react.  Each person
has a token bucket: three at once, then one every two seconds; more is
refused with ``rate_limited`` and ``retry_after``.  Muting is the client's
(each person mutes whom they like); the server sends every phrase to everyone.
"""

from __future__ import annotations

from .. import protocol as p
from .limits import TokenBucket
from .rooms import Player, Room

#: Phrases and reactions per person: a burst of three, then one every 2 s.
RATE, BURST = 0.5, 3.0


def _allowed(room: Room, player: Player, kind: str) -> None:
    bucket = room.chatter.get(player.key)
    if bucket is None:
        bucket = room.chatter[player.key] = TokenBucket(RATE, BURST)
    if not bucket.allow():
        raise p.ProtocolError(
            p.Code.RATE_LIMITED,
            "one phrase or reaction every two seconds, please",
            kind,
            round(bucket.wait(), 2),
        )


def say(room: Room, player: Player, phrase: str) -> None:
    seat = room.seat_of(player)
    if seat is None:
        raise p.ProtocolError(p.Code.NOT_SEATED, "spectators react; players say phrases", "say")
    _allowed(room, player, "say")
    text = p.encode(p.Said(seat=seat, name=player.name, phrase=phrase, bot=player.is_bot)).decode()
    for pl in room.watchers():
        pl.send_raw(text)


def react(room: Room, player: Player, reaction: str) -> None:
    _allowed(room, player, "react")
    seat = room.seat_of(player)
    text = p.encode(
        p.Reacted(seat=seat, name=player.name, reaction=reaction, bot=player.is_bot)
    ).decode()
    for pl in room.watchers():
        pl.send_raw(text)
