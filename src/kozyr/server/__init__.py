"""The online game server: rooms, WebSocket play, bots, storage.

Its layers, each a package, import downwards only (docs/architecture.md):

==============  ============================================================
``edge/``       the network edge: ASGI app, HTTP, WebSocket, static files,
                rate limits, running with uvicorn, ``--workers``
``cluster/``    many processes sharing rooms through Redis (``--redis``)
``tables/``     rooms and games: the hub, rooms, sessions, timers, bot seats
``storage/``    the database's tables and the store that writes them
``telemetry/``  JSON logs and metrics
==============  ============================================================

``protocol.py`` (every message) and ``config.py`` (the settings) sit under
them all.  Start reading at ``edge/app.py``: it hands each validated message
(``protocol.py``) to the hub (``tables/lobby.py``), which owns players and
rooms (``tables/rooms.py``).  A room runs one game at a time
(``tables/game_session.py``), asks bots for moves in worker processes
(``tables/bot_pool.py``), arms move clocks (``tables/timers.py``), and
persists every move (``storage/store.py``) before broadcasting it.
docs/protocol.md is the protocol and operations manual.

This package imports nothing on purpose: bot worker processes import
``kozyr.server.tables.bot_pool`` and should not pay for the web stack.
"""
