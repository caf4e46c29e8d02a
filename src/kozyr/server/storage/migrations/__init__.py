"""Alembic migrations of the server's database (:mod:`kozyr.server.storage.migrate` runs them)."""
