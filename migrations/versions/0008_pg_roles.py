"""PostgreSQL: least privilege. An owner role owns the schema and everything in it; a service role
may only read and append.

Revision ID: 0008_pg_roles
Revises: 0007_ratings
Create Date: 2026-12-01

Issue 17: an insider with the service's login must not be able to change history with plain SQL.
The owner role (``PAIGOW_PG_OWNER_ROLE``, default ``paigow_owner``, NOLOGIN) owns the schema, the
tables (so their triggers) and the functions: only it (or a superuser) can drop or disable a
trigger, TRUNCATE or ALTER. The service role (``PAIGOW_PG_SERVICE_ROLE``, default
``paigow_service``, LOGIN, no password: the operator sets one) gets:

- SELECT and INSERT on the audit trail (``events``, ``event_log``, ``commands``, ``checkpoints``)
  and on ``sequencer_queue``; never UPDATE, DELETE or TRUNCATE. The triggers refuse UPDATE and
  DELETE even to the owner; privileges stop the service before them.
- SELECT on ``alembic_version`` and ``api_keys`` (keys are created and revoked by the owner).
- SELECT, INSERT, UPDATE, DELETE on the projections' tables: derived data, rebuilt from the
  events and checked against them by the audit (never TRUNCATE).
- EXECUTE on ``paigow_append`` (runs as the caller: its inserts are the service's own) and on
  ``paigow_sequence_tail``, which becomes SECURITY DEFINER (the owner's rights, a pinned
  search_path) because it drains ``sequencer_queue`` with a DELETE the service may not run.

``SET session_replication_role`` (which skips triggers) needs a superuser: neither role is one.
Roles are cluster-wide: they are created when missing and never dropped here (another database
may use them). The names come from ``config.attributes["pg_roles"]`` (``adapters.store.migrate``
puts the settings there). Run by a superuser or a member of the owner role. On SQLite a no-op.
A later revision that adds a table grants the service role its rights itself.
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import context, op

revision = "0008_pg_roles"
down_revision = "0007_ratings"
branch_labels = None
depends_on = None

DEFAULT_ROLES = ("paigow_owner", "paigow_service")
ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

# Frozen lists (a migration never imports today's models).
APPEND_ONLY = ("events", "event_log", "commands", "checkpoints", "sequencer_queue")
READ_ONLY = ("alembic_version", "api_keys")
PROJECTIONS = (
    "projection_checkpoints",
    "proj_bankroll_players",
    "proj_bankroll_house",
    "proj_rotation",
    "proj_rotation_players",
    "proj_bank_offers",
    "proj_rounds",
    "proj_round_seats",
    "proj_accounting",
    "proj_accounting_side_bets",
    "proj_tables",
    "proj_books_days",
    "proj_ratings",
    "proj_rating_tables",
)
FUNCTIONS = (
    "paigow_append_only()",
    "paigow_sequence_tail(bigint[], text[])",
    "paigow_append(jsonb)",
)
SERVICE_CALLS = ("paigow_sequence_tail(bigint[], text[])", "paigow_append(jsonb)")


def role_names() -> tuple[str, str]:
    owner, service = context.config.attributes.get("pg_roles") or DEFAULT_ROLES
    for name in (owner, service):
        if ROLE_NAME.fullmatch(name) is None:
            raise ValueError(f"{name!r} is not a role name this migration creates ([a-z0-9_])")
    if owner == service:
        raise ValueError("the owner role and the service role must differ")
    return owner, service


def _ensure_role(bind: sa.Connection, name: str, options: str) -> None:
    found = bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :n"), {"n": name})
    if found.first() is None:
        # Roles are cluster-wide: two databases (or schemas) migrated at once may both find the
        # role missing; the second CREATE then meets the first's and takes it as made. (The end
        # state is the same as before this guard: only the race is new.)
        op.execute(
            f'DO $$ BEGIN CREATE ROLE "{name}" {options}; '
            "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
        )


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    owner, service = role_names()
    _ensure_role(bind, owner, "NOLOGIN NOINHERIT")
    _ensure_role(bind, service, "LOGIN NOINHERIT NOCREATEDB NOCREATEROLE")
    superuser = bind.execute(sa.text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"))
    if not superuser.scalar():
        op.execute(f'GRANT "{owner}" TO CURRENT_USER')  # to hand it what the migrator owns
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar()
    op.execute(f'ALTER SCHEMA "{schema}" OWNER TO "{owner}"')
    for table in (*APPEND_ONLY, *READ_ONLY, *PROJECTIONS):
        op.execute(f'ALTER TABLE "{table}" OWNER TO "{owner}"')  # with its sequences, triggers
    for function in FUNCTIONS:
        op.execute(f'ALTER FUNCTION {function} OWNER TO "{owner}"')
        op.execute(f"REVOKE ALL ON FUNCTION {function} FROM PUBLIC")
    op.execute(
        "ALTER FUNCTION paigow_sequence_tail(bigint[], text[]) SECURITY DEFINER "
        f'SET search_path = "{schema}", pg_temp'
    )
    op.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{service}"')
    for table in APPEND_ONLY:
        op.execute(f'GRANT SELECT, INSERT ON "{table}" TO "{service}"')
    for table in READ_ONLY:
        op.execute(f'GRANT SELECT ON "{table}" TO "{service}"')
    for table in PROJECTIONS:
        op.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{table}" TO "{service}"')
    op.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{service}"')
    for function in SERVICE_CALLS:
        op.execute(f'GRANT EXECUTE ON FUNCTION {function} TO "{service}"')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    owner, service = role_names()
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar()
    op.execute(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{schema}" FROM "{service}"')
    op.execute(f'REVOKE ALL ON ALL SEQUENCES IN SCHEMA "{schema}" FROM "{service}"')
    op.execute(f'REVOKE ALL ON SCHEMA "{schema}" FROM "{service}"')
    op.execute("ALTER FUNCTION paigow_sequence_tail(bigint[], text[]) SECURITY INVOKER RESET ALL")
    for function in FUNCTIONS:
        op.execute(f'REVOKE ALL ON FUNCTION {function} FROM "{service}"')
        op.execute(f"GRANT EXECUTE ON FUNCTION {function} TO PUBLIC")
    op.execute(f'REASSIGN OWNED BY "{owner}" TO CURRENT_USER')
