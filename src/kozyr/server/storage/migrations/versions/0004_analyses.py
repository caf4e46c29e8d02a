"""Post-game analyses (issue 27): one row per finished game and seat.

Revision ID: 0004_analyses
Revises: 0003_bot_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_analyses"
down_revision = "0003_bot_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("budget", sa.Integer, nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("result", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analyses")
