"""Projections: bankroll, banker rotation, round history (recall) and table accounting.

Revision ID: 0002_projections
Revises: 0001_event_store
Create Date: 2026-01-01

Frozen copy of ``adapters.projections.schema`` (a migration never imports today's models); a test
compares the result with it. These tables are derived data, rebuilt from the events alone, so
they carry no append-only triggers and their downgrade may drop them: the events stay.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations.ddl import ID, TIME, count, money

revision = "0002_projections"
down_revision = "0001_event_store"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "projection_checkpoints",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "proj_bankroll_players",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("player_id", sa.String(ID), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=True),
        *(
            money(name)
            for name in (
                "balance",
                "in_play",
                "bought_in",
                "cashed_out",
                "main_result",
                "side_result",
                "commission_paid",
                "banker_result",
                "banker_commission",
            )
        ),
        count("hands_played"),
        count("rounds_banked"),
    )
    op.create_table(
        "proj_bankroll_house",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        *(
            money(name)
            for name in (
                "main_result",
                "commission",
                "side_result",
                "envy_paid",
                "meter",
                "meter_seeded",
            )
        ),
        count("rounds_settled"),
    )
    op.create_table(
        "proj_rotation",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("round_status", sa.String(20), nullable=True),
        sa.Column("banker_seat", sa.Integer, nullable=True),
        sa.Column("banker_player_id", sa.String(ID), nullable=True),
        sa.Column("co_bank", sa.Boolean, nullable=False),
        sa.Column("offered_seat", sa.Integer, nullable=True),
        sa.Column("bank_pointer", sa.Integer, nullable=False),
        sa.Column("last_bank_was_player", sa.Boolean, nullable=False),
        sa.Column("last_dealer_wagers", sa.Text, nullable=False),
        count("dealer_banked_rounds"),
        count("player_banked_rounds"),
    )
    op.create_table(
        "proj_rotation_players",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("player_id", sa.String(ID), primary_key=True),
        count("offers_accepted"),
        count("offers_declined"),
        count("offers_passed"),
        count("rounds_banked"),
    )
    op.create_table(
        "proj_bank_offers",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.String(ID), nullable=True),
        sa.Column("eligible", sa.Boolean, nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        money("balance"),
        money("required"),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Column("at", sa.String(TIME), nullable=False),
    )
    op.create_index("ix_proj_bank_offers_at", "proj_bank_offers", ["at"])
    op.create_table(
        "proj_rounds",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("started_at", sa.String(TIME), nullable=False),
        sa.Column("ended_at", sa.String(TIME), nullable=True),
        sa.Column("banker_seat", sa.Integer, nullable=True),
        sa.Column("banker_player_id", sa.String(ID), nullable=True),
        sa.Column("first_position", sa.BigInteger, nullable=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
    )
    op.create_table(
        "proj_round_seats",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(ID), nullable=False),
    )
    op.create_index("ix_proj_round_seats_seat", "proj_round_seats", ["table_id", "seat", "round"])
    op.create_index(
        "ix_proj_round_seats_player", "proj_round_seats", ["table_id", "player_id", "round"]
    )
    op.create_table(
        "proj_accounting",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("bucket", sa.BigInteger, primary_key=True),
        *(count(name) for name in ("rounds_played", "rounds_voided", "hands", "pushes")),
        *(money(name) for name in ("drop_amount", "main_result", "commission", "envy_paid")),
    )
    op.create_index("ix_proj_accounting_bucket", "proj_accounting", ["bucket"])
    op.create_table(
        "proj_accounting_side_bets",
        sa.Column("table_id", sa.String(ID), primary_key=True),
        sa.Column("bucket", sa.BigInteger, primary_key=True),
        sa.Column("bet", sa.String(50), primary_key=True),
        count("bets"),
        money("handle"),
        money("result"),
    )
    op.create_index("ix_proj_accounting_side_bets_bucket", "proj_accounting_side_bets", ["bucket"])


def downgrade() -> None:
    # Derived data only: the events they were built from stay, and a rebuild restores them.
    for table in (
        "proj_accounting_side_bets",
        "proj_accounting",
        "proj_round_seats",
        "proj_rounds",
        "proj_bank_offers",
        "proj_rotation_players",
        "proj_rotation",
        "proj_bankroll_house",
        "proj_bankroll_players",
        "projection_checkpoints",
    ):
        op.drop_table(table)
