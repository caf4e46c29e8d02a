"""Players who come back (issue 26): profiles, candies, ratings, game history.

Revision ID: 0002_players
Revises: 0001_baseline
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002_players"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None

_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def upgrade() -> None:
    op.add_column("players", sa.Column("public_id", sa.String(16)))
    op.add_column("players", sa.Column("avatar", sa.String(24)))
    op.add_column("players", sa.Column("lang", sa.String(8)))
    # Every player who played before profiles gets a public id now.
    bind = op.get_bind()
    keys = [r[0] for r in bind.execute(sa.text("SELECT key FROM players")).all()]
    for key in keys:
        public_id = "".join(secrets.choice(_ALPHABET) for _ in range(10))
        bind.execute(
            sa.text("UPDATE players SET public_id = :p WHERE key = :k"), {"p": public_id, "k": key}
        )
    op.create_index("players_public_id", "players", ["public_id"], unique=True)
    #: Who made each move: a bot for the seat (the timeout bot, or for an absent person).
    op.add_column("moves", sa.Column("auto", sa.Boolean))
    op.create_table(
        "candy_grants",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("game_id", sa.Integer, nullable=False),
        sa.Column("amount", sa.Integer, nullable=False),
        sa.Column("reason", sa.String(24), nullable=False),
        sa.Column("capped", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.UniqueConstraint("player", "game_id", name="candy_grants_once"),
    )
    op.create_index("candy_grants_player_day", "candy_grants", ["player", "day"])
    op.create_table(
        "ratings",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("variant", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ratings_board", "ratings", ["variant", "mu"])
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player", sa.String(64)),
        sa.Column("bot_level", sa.Integer),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=False),
        sa.Column("candies", sa.Integer),
        sa.Column("rating_before", sa.Float),
        sa.Column("rating_after", sa.Float),
    )
    op.create_index("game_seats_history", "game_seats", ["player", "ended_at", "game_id"])
    op.create_table(
        "transfer_codes",
        sa.Column("code", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("secret", sa.String(256), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("used", sa.Boolean, nullable=False),
    )
    op.create_index("ix_transfer_codes_player", "transfer_codes", ["player"])


def downgrade() -> None:
    for table in ("transfer_codes", "game_seats", "ratings", "candy_grants"):
        op.drop_table(table)
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("auto")
    op.drop_index("players_public_id", "players")
    with op.batch_alter_table("players") as batch:
        for column in ("lang", "avatar", "public_id"):
            batch.drop_column(column)
