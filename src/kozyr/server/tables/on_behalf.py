"""What a program does in a room for a person who is not connected there.

Why: the Telegram bot seats a group member with one tap on a button, starts a
table for its host, and moves a player out of a finished table into a new one,
while that person's browser may be closed or open elsewhere.  Going through a
socket would make the bot "connect from somewhere else" and take the person's
real connection away; so these actions take the person (by key and name), run
the room's own checks where the room lives, and answer with a short code that
the program words for its users.

Answers, by action:

* ``seat`` (take a free seat in the lobby): ``seated``, ``already_seated``,
  ``not_lobby``, ``full``, ``playing`` (a person playing a game at another
  table stays there);
* ``start`` (the host starts) and ``start_if_full`` (a table whose every seat
  has a person starts, for its host): ``started``, ``not_host``,
  ``not_lobby``, ``not_full``, ``refused:<message>``;
* ``leave`` (leave the room unless playing a game there): ``left``, ``playing``.
"""

from __future__ import annotations

from .. import protocol as p
from .rooms import Player, Room

#: The actions a program may take for a person.
ACTIONS = ("seat", "start", "start_if_full", "leave")


async def act(room: Room, player: Player | None, action: str) -> str:
    """Do ``action`` for ``player`` in ``room`` (its owner's process); the answer.
    ``start_if_full`` needs no player: it starts the table for its host."""
    if action == "start_if_full":
        return await _start_if_full(room)
    if player is None:
        raise ValueError(f"{action!r} is done for a person")
    if action == "seat":
        return _seat(room, player)
    if action == "start":
        return await _start(room, player)
    if action == "leave":
        return leave(room, player)
    raise ValueError(f"unknown action {action!r}")


def _seat(room: Room, player: Player) -> str:
    if room.seat_of(player) is not None:
        return "already_seated"
    if room.state != "lobby":
        return "not_lobby"
    if all(s.player is not None or s.bot is not None for s in room.seats):
        return "full"
    if player.room is not None and player.room is not room:
        if leave(player.room, player) == "playing":
            return "playing"
    elif player in room.spectators:
        room.spectators.remove(player)
        player.room = None
    room.add_player(player, None)
    return "seated"


async def _start_if_full(room: Room) -> str:
    if room.host is None:
        return "not_host"
    if room.state != "lobby":
        return "not_lobby"
    if not all(s.player is not None for s in room.seats):
        return "not_full"
    return await _start(room, room.host)


async def _start(room: Room, player: Player) -> str:
    if room.host is not player:
        return "not_host"
    if room.state != "lobby":
        return "not_lobby"
    try:
        await room.start(player)
    except p.ProtocolError as exc:  # e.g. a start that raced this one
        return f"refused:{exc.message}"
    return "started"


def leave(room: Room, player: Player) -> str:
    """``player`` leaves ``room`` for another table, unless they play a game there."""
    if room.state == "playing" and room.seat_of(player) is not None:
        return "playing"
    if player.room is room:
        room.remove_player(player)
    return "left"
