"""Alembic's environment: migrations run on the connection :mod:`..migrate` hands
over (``config.attributes["connection"]``), inside its transaction and lock."""

from __future__ import annotations

from alembic import context

from kozyr.server.storage.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only kozyr's own runner is supported
    raise RuntimeError("run migrations with kozyr.server.storage.migrate.upgrade(engine)")
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
