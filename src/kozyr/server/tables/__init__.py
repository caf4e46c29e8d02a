"""Rooms and games: what the server is for.

* :mod:`.lobby` holds the hub: players, tokens, the room registry, and what
  each client message does.
* :mod:`.rooms` is a room: seats, host, move clocks, bots taking over, rematch.
* :mod:`.game_session` is one game: the engine's state, its record, versions.
* :mod:`.bot_pool` asks bots for moves in worker processes; :mod:`.timers`
  arms clocks; :mod:`.passphrase` is the back-off for wrong passphrases.
* :mod:`.ports` holds the seams to the layers around: ``Peer`` (a socket a
  room sends to), ``RoomHost`` and ``Coordinator`` (where rooms live; the
  cluster subclasses it).

This package imports nothing on purpose: bot worker processes import
:mod:`.bot_pool` and should not pay for the rest.
"""
