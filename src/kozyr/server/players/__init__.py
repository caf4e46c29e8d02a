"""Players who come back (issue 26): profiles, game history, candies, ratings.

Between ``tables`` (which finishes games) and ``storage`` (the database) in the
server's layers: the rules here are pure functions, and what touches the
database are jobs (``fn(conn)``) the store runs on its thread, the grant and the
rating inside the very transaction that finishes the game (docs/players.md).
"""
