"""Least privilege on PostgreSQL (migrations 0008, 0009, 0011, 0012, 0014): the service role holds
exactly the privileges docs/operations.md ("PostgreSQL roles") lists, and each for a reason there;
PUBLIC may create nothing in the schema. Read from the server's own catalogue, so a migration that
grants more fails here."""

from __future__ import annotations

import os
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

#: table -> the service role's privileges on it (docs/operations.md says why).
TABLES = {
    "alembic_version": "SELECT",
    "api_keys": "SELECT",
    "floor_sessions": "DELETE INSERT SELECT UPDATE",
    "feed_subscriptions": "DELETE INSERT SELECT UPDATE",
    "append_tag_anchors": "SELECT",
    "append_tags": "INSERT SELECT",
    "checkpoints": "INSERT SELECT",
    "commands": "INSERT SELECT",
    "event_log": "SELECT",
    "events": "INSERT SELECT",
    "sequencer_queue": "SELECT",
    "table_snapshots": "INSERT SELECT",
    **{
        projection: "DELETE INSERT SELECT UPDATE"
        for projection in (
            "projection_checkpoints",
            "proj_accounting",
            "proj_accounting_side_bets",
            "proj_bank_offers",
            "proj_bankroll_house",
            "proj_bankroll_players",
            "proj_books_days",
            "proj_rating_tables",
            "proj_ratings",
            "proj_rotation",
            "proj_rotation_players",
            "proj_round_seats",
            "proj_rounds",
            "proj_tables",
        )
    },
}
FUNCTIONS = {
    "paigow_append": True,
    "paigow_sequence_tail": True,
    "paigow_append_only": False,
    "paigow_notify_events": False,
}


def _connect(url: str) -> Any:
    parsed = make_url(url)
    options = parsed.query["options"]
    assert isinstance(options, str)
    return psycopg.connect(
        host=parsed.host, port=parsed.port, user=parsed.username, dbname=parsed.database,
        options=options, autocommit=True,
    )  # fmt: skip


def test_the_service_role_holds_exactly_what_the_service_uses(pg_url: str) -> None:
    service = os.environ["PAIGOW_PG_SERVICE_ROLE"]
    with _connect(pg_url) as admin:
        schema = admin.execute("SELECT current_schema()").fetchone()[0]
        granted: dict[str, set[str]] = {}
        for table, privilege in admin.execute(
            "SELECT table_name, privilege_type FROM information_schema.role_table_grants "
            "WHERE grantee = %s AND table_schema = %s",
            (service, schema),
        ):
            granted.setdefault(table, set()).add(privilege)
        functions = {
            name: admin.execute(
                "SELECT has_function_privilege(%s, p.oid, 'EXECUTE') FROM pg_proc p "
                "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s "
                "AND p.proname = %s",
                (service, schema, name),
            ).fetchone()[0]
            for name in FUNCTIONS
        }
        on_schema = admin.execute(
            "SELECT has_schema_privilege(%s, %s, 'USAGE'), has_schema_privilege(%s, %s, 'CREATE'),"
            " has_schema_privilege('public', %s, 'CREATE')",
            (service, schema, service, schema, schema),
        ).fetchone()
        superuser = admin.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = %s",
            (service,),
        ).fetchone()
    assert {t: " ".join(sorted(p)) for t, p in granted.items()} == TABLES
    assert functions == FUNCTIONS
    assert on_schema == (True, False, False)  # use the schema; nobody but its owner creates
    assert superuser == (False, False, False)
