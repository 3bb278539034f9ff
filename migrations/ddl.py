"""What several revisions write alike, written once: column makers, the append-only triggers, the
text of ``paigow_append``, the NOTIFY triggers and the PostgreSQL role names.

History, as the revisions are (a migration never imports today's models): a revision that calls
a function here must produce the very schema it produced when it was written, so nothing here is
ever changed. A revision that needs something else adds a new function, or writes it itself.
``adapters.store.migrate`` puts the repository on ``sys.path`` so revisions import this module
as ``migrations.ddl`` from any directory.
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import context, op

ID = 200  # stream, table and player ids: the store's limit
TIME = 32  # the store's text form of a time
DEFAULT_ROLES = ("paigow_owner", "paigow_service")
ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def money(name: str, server_default: str | None = None) -> sa.Column[int]:
    """A projection's money column: integer minor units."""
    return sa.Column(name, sa.BigInteger, nullable=False, server_default=server_default)


def count(name: str, server_default: str | None = None) -> sa.Column[int]:
    return sa.Column(name, sa.Integer, nullable=False, server_default=server_default)


def append_only(tables: tuple[str, ...]) -> None:
    """Triggers refusing UPDATE and DELETE on ``tables`` (and TRUNCATE on PostgreSQL, through
    the function ``paigow_append_only`` of revision 0001)."""
    if op.get_bind().dialect.name != "postgresql":
        for table in tables:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, 'paigow: {action} on {table} refused: "
                    "the event store is append-only'); END"
                )
        return
    for table in tables:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION paigow_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION paigow_append_only()"
        )


def role_names() -> tuple[str, str]:
    """PostgreSQL's (owner, service) roles as revision 0008 made them: the settings' names
    (``config.attributes["pg_roles"]``) or the defaults."""
    owner, service = context.config.attributes.get("pg_roles") or DEFAULT_ROLES
    return owner, service


def checked_role_names() -> tuple[str, str]:
    """``role_names``, each checked as 0008 checks them: the names go into the SQL."""
    owner, service = role_names()
    for name in (owner, service):
        if ROLE_NAME.fullmatch(name) is None:
            raise ValueError(f"{name!r} is not a role name ([a-z0-9_])")
    return owner, service


# ``paigow_append`` (revisions 0005, 0009, 0012): the batch's rows inserted in one statement, then
# ``paigow_sequence_tail`` (0004). ``{checks}``: statements run first (0012's checks of the heads
# the append extends, with the variables ``{declare}`` adds); ``{tags}``: 0009's insert of the
# batch's append tags.
_APPEND = """
{create} FUNCTION paigow_append(batch jsonb)
RETURNS TABLE(log_position bigint, log_event_id bigint, log_hash text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    ids bigint[];
    digests text[];
{declare}BEGIN
{checks}    WITH ins AS (
        INSERT INTO events (stream_id, version, type, schema_version, payload, recorded_at,
                            actor_id, actor_role, command_id, prev_hash, hash)
        SELECT r->>0, (r->>1)::int, r->>2, (r->>3)::int, r->>4, r->>5, r->>6, r->>7, r->>8,
               r->>9, r->>10
        FROM jsonb_array_elements(batch->'events') WITH ORDINALITY AS e(r, n) ORDER BY n
        RETURNING id, version, hash
    ), cmd AS (
        INSERT INTO commands (command_id, stream_id, first_version, last_version)
        SELECT r->>0, r->>1, (r->>2)::int, (r->>3)::int
        FROM jsonb_array_elements(batch->'commands') AS c(r)
    ){tags}
    SELECT array_agg(id ORDER BY version), array_agg(hash ORDER BY version)
        INTO ids, digests FROM ins;
    RETURN QUERY SELECT * FROM paigow_sequence_tail(ids, digests);
END
$$
"""
_APPEND_TAGS = """, tag AS (
        INSERT INTO append_tags (stream_id, first_version, last_version, last_hash, tag)
        SELECT r->>0, (r->>1)::int, (r->>2)::int, r->>3, r->>4
        FROM jsonb_array_elements(coalesce(batch->'tags', '[]'::jsonb)) AS t(r)
    )"""


def append_function(replace: bool, tags: bool, declare: str = "", checks: str = "") -> str:
    """The text of ``paigow_append`` (``replace``: CREATE OR REPLACE)."""
    return _APPEND.format(
        create="CREATE OR REPLACE" if replace else "CREATE",
        declare=declare,
        checks=checks,
        tags=_APPEND_TAGS if tags else "",
    )


def notify_on_insert(function: str, channel: str, trigger: str, table: str) -> None:
    """PostgreSQL: NOTIFY ``channel`` (the payload: the table's schema) after each statement that
    inserts into ``table``. The function belongs to the table's owner; nobody may EXECUTE it (a
    trigger function is not checked for EXECUTE when it fires)."""
    op.execute(
        f"""
        CREATE FUNCTION {function} RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{channel}', TG_TABLE_SCHEMA);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        f"CREATE TRIGGER {trigger} AFTER INSERT ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {function}"
    )
    owner = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT tableowner FROM pg_tables "
                "WHERE schemaname = current_schema() AND tablename = :table"
            ),
            {"table": table},
        )
        .scalar()
    )
    op.execute(f'ALTER FUNCTION {function} OWNER TO "{owner}"')
    op.execute(f"REVOKE ALL ON FUNCTION {function} FROM PUBLIC")
