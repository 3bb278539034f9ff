"""The projections' tables, as SQLAlchemy Core metadata; migration ``0002_projections`` creates
them (a frozen copy) and a test checks that the migrated schema matches this metadata.

Projections are derived data: every row here is rebuilt from the events alone (``paigow report
--rebuild``), so these tables, unlike the store's, are updated and deleted freely. Money columns
are integer minor units. Times are the store's text form (UTC, ``...Z``), so they sort as text.

- ``projection_checkpoints``: the global position each projection has applied, written in the
  same transaction as its rows (exactly once).
- bankroll: ``proj_bankroll_players`` (per table and player), ``proj_bankroll_house`` (per table).
- banker rotation: ``proj_rotation`` (per table), ``proj_rotation_players``, ``proj_bank_offers``.
- round history (recall): ``proj_rounds`` (one row per round, the whole record as JSON) and
  ``proj_round_seats`` (which seats and players had action in a round, for per-seat recall).
- table accounting: ``proj_accounting`` and ``proj_accounting_side_bets``, per table and UTC
  quarter hour; a gaming day is a range of quarter hours chosen when reading, so the cut-off hour
  and the time zone are settings of the report, not of the stored rows.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

ID = 200  # stream, table and player ids: the store's limit
TIME = 32


def _money(name: str) -> Column[int]:
    return Column(name, BigInteger, nullable=False, default=0)


def _count(name: str) -> Column[int]:
    return Column(name, Integer, nullable=False, default=0)


projection_checkpoints = Table(
    "projection_checkpoints",
    metadata,
    Column("name", String(100), primary_key=True),
    Column("position", BigInteger, nullable=False),
)

# --- bankroll ------------------------------------------------------------------------------------

#: A player's money at a table, in column order (the bankroll report lists them so too).
PLAYER_MONEY = (
    "balance", "in_play", "bought_in", "cashed_out", "main_result", "side_result",
    "commission_paid", "banker_result", "banker_commission",
)  # fmt: skip

bankroll_players = Table(
    "proj_bankroll_players",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("player_id", String(ID), primary_key=True),
    Column("seat", Integer, nullable=True),
    *(_money(name) for name in PLAYER_MONEY),
    _count("hands_played"),
    _count("rounds_banked"),
)

bankroll_house = Table(
    "proj_bankroll_house",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    _money("main_result"),
    _money("commission"),
    _money("side_result"),
    _money("envy_paid"),
    _money("meter"),
    _money("meter_seeded"),
    _count("rounds_settled"),
)

# --- banker rotation -----------------------------------------------------------------------------

rotation = Table(
    "proj_rotation",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("round", Integer, nullable=False, default=0),
    Column("round_status", String(20), nullable=True),
    Column("banker_seat", Integer, nullable=True),
    Column("banker_player_id", String(ID), nullable=True),
    Column("co_bank", Boolean, nullable=False, default=False),
    Column("offered_seat", Integer, nullable=True),
    Column("bank_pointer", Integer, nullable=False, default=0),
    Column("last_bank_was_player", Boolean, nullable=False, default=False),
    Column("last_dealer_wagers", Text, nullable=False),
    _count("dealer_banked_rounds"),
    _count("player_banked_rounds"),
)

rotation_players = Table(
    "proj_rotation_players",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("player_id", String(ID), primary_key=True),
    _count("offers_accepted"),
    _count("offers_declined"),
    _count("offers_passed"),
    _count("rounds_banked"),
)

bank_offers = Table(
    "proj_bank_offers",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("player_id", String(ID), nullable=True),
    Column("eligible", Boolean, nullable=False),
    Column("reason", Text, nullable=True),
    _money("balance"),
    _money("required"),
    Column("outcome", String(20), nullable=False),
    Column("at", String(TIME), nullable=False),
    Index("ix_proj_bank_offers_at", "at"),
)

# --- round history (game recall) -----------------------------------------------------------------

rounds = Table(
    "proj_rounds",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("status", String(20), nullable=False),
    Column("started_at", String(TIME), nullable=False),
    Column("ended_at", String(TIME), nullable=True),
    Column("banker_seat", Integer, nullable=True),
    Column("banker_player_id", String(ID), nullable=True),
    Column("first_position", BigInteger, nullable=False),
    Column("last_position", BigInteger, nullable=False),
    Column("record", Text, nullable=False),
)

round_seats = Table(
    "proj_round_seats",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(ID), nullable=False),
    Index("ix_proj_round_seats_seat", "table_id", "seat", "round"),
    Index("ix_proj_round_seats_player", "table_id", "player_id", "round"),
)

# --- table accounting ----------------------------------------------------------------------------

accounting = Table(
    "proj_accounting",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("bucket", BigInteger, primary_key=True),  # UTC quarter hour: epoch seconds
    _count("rounds_played"),
    _count("rounds_voided"),
    _count("hands"),
    _count("pushes"),
    _money("drop_amount"),
    _money("main_result"),
    _money("commission"),
    _money("envy_paid"),
    _money("buy_in_drop"),  # cash and marker buy-ins: the drop as recorded at the table
    Index("ix_proj_accounting_bucket", "bucket"),  # a gaming day is a range of buckets
)

accounting_side_bets = Table(
    "proj_accounting_side_bets",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("bucket", BigInteger, primary_key=True),
    Column("bet", String(50), primary_key=True),
    _count("bets"),
    _money("handle"),
    _money("result"),
    Index("ix_proj_accounting_side_bets_bucket", "bucket"),
)

# --- the books (issue 18): tables, their gaming days, opener, fills, credits, closer, count -------

BOOK_MONEY = (
    "opener", "opener_variance", "fills", "credits", "closer", "closer_variance", "drop_recorded",
    "cash", "markers", "chips_in", "promotional", "drop_counted", "count_cash", "count_markers",
    "game_win",
)  # fmt: skip

tables = Table(
    "proj_tables",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("gaming_day", String(10), nullable=False, default=""),
    Column("status", String(20), nullable=False, default="open"),
    Column("house_way", String(50), nullable=False, default=""),
)

books_days = Table(
    "proj_books_days",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("gaming_day", String(10), primary_key=True),
    Column("status", String(20), nullable=False, default="open"),
    *(_money(name) for name in BOOK_MONEY),
    _count("fill_slips"),
    _count("credit_slips"),
    Column("counted", Boolean, nullable=False, default=False),
)

#: Player ratings (issue 18, ``ratings.py``; migration ``0007_ratings``): one row per sitting of a
#: carded player at a table (``seq`` counts the player's sittings there).
ratings = Table(
    "proj_ratings",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("player_id", String(ID), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("card", String(ID), nullable=False, default=""),
    Column("seat", Integer, nullable=False, default=0),
    Column("gaming_day", String(10), nullable=False, default=""),
    Column("status", String(10), nullable=False, default="open"),
    Column("started_at", String(TIME), nullable=False, default=""),
    Column("ended_at", String(TIME), nullable=False, default=""),
    _count("rounds"),
    _count("main_bets"),
    _money("main_wagered"),
    _count("side_bets"),
    _money("side_wagered"),
    *(_money(name) for name in ("cash", "markers", "chips_in", "promotional", "cashed_out")),
    _money("result"),
    _money("theo_micro"),
    Column("edges_version", String(40), nullable=False, default=""),
    Column("corrected_average_bet", BigInteger, nullable=True),
    Column("corrected_minutes", Integer, nullable=True),
    Column("correction_reason", String(500), nullable=True),
    _count("corrections"),
)
#: Per table: its rules (JSON, for the edges), its books' gaming day, the ratings open there.
rating_tables = Table(
    "proj_rating_tables",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("rules", Text, nullable=False, default="{}"),
    Column("gaming_day", String(10), nullable=False, default=""),
    Column("open_ratings", Text, nullable=False, default="{}"),  # open and last seq per player
)

PROJECTION_TABLES = tuple(metadata.tables)
