"""The online game server: rooms, WebSocket play, bots, storage.

Start here: ``app.py`` (routes and the socket loop; ``serve`` runs it) hands
each validated message (``protocol.py``) to the hub (``lobby.py``), which owns
players and rooms (``rooms.py``).  A room runs one game at a time
(``game_session.py``), asks bots for moves in worker processes
(``bot_pool.py``), arms move clocks (``timers.py``), and persists every move
(``store.py``) before broadcasting it.  docs/protocol.md is the protocol and
operations manual.

This package imports nothing on purpose: bot worker processes import
``kozyr.server.bot_pool`` and should not pay for the web stack.
"""
