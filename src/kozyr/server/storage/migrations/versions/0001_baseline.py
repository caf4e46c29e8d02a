"""The baseline: the schema of the server before Alembic (commit ab91f77).

Revision ID: 0001_baseline
Revises:
"""

from __future__ import annotations

from alembic import op

from kozyr.server.storage.baseline import metadata

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    metadata.create_all(op.get_bind())


def downgrade() -> None:
    metadata.drop_all(op.get_bind())
