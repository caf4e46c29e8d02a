"""Puzzle progress with the profile (issue 27 §5): each player's tries of each
puzzle, and their streak.

Revision ID: 0005_puzzle_progress
Revises: 0004_analyses
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_puzzle_progress"
down_revision = "0004_analyses"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzle_tries",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("puzzle", sa.String(40), primary_key=True),
        sa.Column("failed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("solved_at", sa.Float),
        sa.Column("first_at", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_streaks",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_streaks")
    op.drop_table("puzzle_tries")
