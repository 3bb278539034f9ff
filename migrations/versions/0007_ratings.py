"""Player ratings (issue 18): one row per sitting of a carded player, and per table its rules
(for the house edges), its books' gaming day and the ratings open there.

Revision ID: 0007_ratings
Revises: 0006_books
Create Date: 2026-12-01

Derived data only: the ratings projection starts from position 0 and rebuilds from the events.
Frozen text: a later change is a new revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations.ddl import ID, TIME, count, money

revision = "0007_ratings"
down_revision = "0006_books"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proj_ratings",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("player_id", sa.String(ID), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("card", sa.String(ID), nullable=False, server_default=""),
        sa.Column("seat", sa.Integer, nullable=False, server_default="0"),
        sa.Column("gaming_day", sa.String(10), nullable=False, server_default=""),
        sa.Column("status", sa.String(10), nullable=False, server_default="open"),
        sa.Column("started_at", sa.String(TIME), nullable=False, server_default=""),
        sa.Column("ended_at", sa.String(TIME), nullable=False, server_default=""),
        count("rounds", "0"),
        count("main_bets", "0"),
        money("main_wagered", "0"),
        count("side_bets", "0"),
        money("side_wagered", "0"),
        *(
            money(name, "0")
            for name in ("cash", "markers", "chips_in", "promotional", "cashed_out")
        ),
        money("result", "0"),
        money("theo_micro", "0"),
        sa.Column("edges_version", sa.String(40), nullable=False, server_default=""),
        sa.Column("corrected_average_bet", sa.BigInteger, nullable=True),
        sa.Column("corrected_minutes", sa.Integer, nullable=True),
        sa.Column("correction_reason", sa.String(500), nullable=True),
        count("corrections", "0"),
    )
    op.create_table(
        "proj_rating_tables",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("rules", sa.Text, nullable=False, server_default="{}"),
        sa.Column("gaming_day", sa.String(10), nullable=False, server_default=""),
        sa.Column("open_ratings", sa.Text, nullable=False, server_default="{}"),
    )


def downgrade() -> None:
    op.drop_table("proj_rating_tables")
    op.drop_table("proj_ratings")
