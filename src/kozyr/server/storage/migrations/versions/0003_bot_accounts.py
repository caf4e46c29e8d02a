"""Bot accounts (issue 28): a player row marked as a program.

``bot`` is the flag (false for every person, and for everyone before this
revision); ``bot_name`` is a bot's name case-folded, unique, so hosts can
challenge a bot by name whatever case they type (null for people: a unique
index allows any number of nulls).

Revision ID: 0003_bot_accounts
Revises: 0002_players
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_bot_accounts"
down_revision = "0002_players"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "players", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.add_column("players", sa.Column("bot_name", sa.String(64)))
    op.create_index("players_bot_name", "players", ["bot_name"], unique=True)


def downgrade() -> None:
    op.drop_index("players_bot_name", "players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("bot_name")
        batch.drop_column("bot")
