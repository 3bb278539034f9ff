"""The books (issue 18): the tables and their gaming days, and the drop recorded at the table.

Revision ID: 0006_books
Revises: 0005_pg_append_call
Create Date: 2026-12-01

``proj_tables``: every table, its gaming day, status and House Way (``GET /tables``);
``proj_books_days``: per table and gaming day, opener, fills, credits, closer, the drop recorded at
the table and counted, and the game win; ``proj_accounting.buy_in_drop``: the cash and marker
buy-ins per quarter hour (the drop of a table without books). The accounting projection is emptied
and its checkpoint set to 0, so it rebuilds from the events with the new column. Derived data only.
Frozen text: a later change is a new revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations.ddl import ID, count, money

revision = "0006_books"
down_revision = "0005_pg_append_call"
branch_labels = None
depends_on = None

BOOK_MONEY = (
    "opener", "opener_variance", "fills", "credits", "closer", "closer_variance", "drop_recorded",
    "cash", "markers", "chips_in", "promotional", "drop_counted", "count_cash", "count_markers",
    "game_win",
)  # fmt: skip


def upgrade() -> None:
    op.add_column("proj_accounting", money("buy_in_drop", "0"))
    op.execute("DELETE FROM proj_accounting")
    op.execute("DELETE FROM proj_accounting_side_bets")
    op.execute("UPDATE projection_checkpoints SET position = 0 WHERE name = 'accounting'")
    op.create_table(
        "proj_tables",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("gaming_day", sa.String(10), nullable=False, server_default=""),
        sa.Column("status", sa.String(20), nullable=False, server_default="open"),
        sa.Column("house_way", sa.String(50), nullable=False, server_default=""),
    )
    op.create_table(
        "proj_books_days",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("gaming_day", sa.String(10), primary_key=True),
        sa.Column("status", sa.String(20), nullable=False, server_default="open"),
        *(money(name, "0") for name in BOOK_MONEY),
        count("fill_slips", "0"),
        count("credit_slips", "0"),
        sa.Column("counted", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_table("proj_books_days")
    op.drop_table("proj_tables")
    with op.batch_alter_table("proj_accounting") as batch:
        batch.drop_column("buy_in_drop")
