"""``pg_url``'s schema is a copy of a template (tests/integration/pg_template.py), not a migrated
schema: the copy must be exactly what the migrations make, or every PostgreSQL test would test
something production never runs. Compared through the catalog (not through pg_dump, which made
the copy), then through pg_dump too; and the comparison is shown to see the differences it must.
"""

from __future__ import annotations

from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from adapters.settings import load_settings
from adapters.store import migrate
from tests.integration import pg_template
from tests.integration.conftest import ADMIN_URL, _admin_connection

#: What the catalog says of one schema's objects, one query each (``%(s)s``: the schema).
CATALOG = {
    "schema": """
        SELECT nspowner::regrole::text, nspacl::text FROM pg_namespace WHERE nspname = %(s)s""",
    "relations": """
        SELECT c.relname, c.relkind, c.relowner::regrole::text, c.relacl::text, c.relpersistence,
               c.relrowsecurity, c.reloptions::text
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %(s)s ORDER BY 1""",
    "columns": """
        SELECT table_name, ordinal_position, column_name, data_type, udt_name, is_nullable,
               column_default, character_maximum_length, numeric_precision, is_identity,
               identity_generation, collation_name, is_generated, generation_expression
        FROM information_schema.columns WHERE table_schema = %(s)s ORDER BY 1, 2""",
    "constraints": """
        SELECT c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid), k.condeferrable,
               k.condeferred
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
        JOIN pg_namespace n ON n.oid = k.connamespace
        WHERE n.nspname = %(s)s ORDER BY 1, 2""",
    "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = %(s)s "
    "ORDER BY 1, 2",
    "functions": """
        SELECT p.proname, pg_get_function_identity_arguments(p.oid),
               pg_get_function_result(p.oid), l.lanname, p.prosrc, p.prosecdef,
               p.proconfig::text, p.provolatile, p.proowner::regrole::text, p.proacl::text
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        JOIN pg_language l ON l.oid = p.prolang
        WHERE n.nspname = %(s)s ORDER BY 1, 2""",
    "triggers": """
        SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid), t.tgenabled
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %(s)s AND NOT t.tgisinternal ORDER BY 1, 2""",
    "sequences": """
        SELECT sequencename, data_type::text, start_value, min_value, max_value, increment_by,
               cycle, cache_size, last_value
        FROM pg_sequences WHERE schemaname = %(s)s ORDER BY 1""",
    "sequence_owners": """
        SELECT s.relname, t.relname, a.attname, d.deptype
        FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
        JOIN pg_class t ON t.oid = d.refobjid
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
        JOIN pg_namespace n ON n.oid = s.relnamespace
        WHERE n.nspname = %(s)s ORDER BY 1""",
    "default_privileges": """
        SELECT d.defaclrole::regrole::text, d.defaclobjtype, d.defaclacl::text
        FROM pg_default_acl d JOIN pg_namespace n ON n.oid = d.defaclnamespace
        WHERE n.nspname = %(s)s ORDER BY 1, 2""",
    "policies_and_rules": """
        SELECT 'policy', tablename, policyname, qual FROM pg_policies WHERE schemaname = %(s)s
        UNION ALL
        SELECT 'rule', tablename, rulename, definition FROM pg_rules WHERE schemaname = %(s)s
        ORDER BY 1, 2, 3""",
}


def _schema(url: str) -> str:
    return str(make_url(url).query["options"]).removeprefix("-csearch_path=")


def _rows(admin: Any, schema: str) -> dict[str, str]:
    """Every table's rows (the migrations insert some: the revision, 0009's anchor)."""
    tables = admin.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind = 'r' ORDER BY 1",
        (schema,),
    ).fetchall()
    every = "SELECT coalesce(array_agg(t::text ORDER BY t::text), '{{}}')::text FROM {} t"
    return {
        name: admin.execute(every.format(f'"{schema}"."{name}"')).fetchone()[0]
        for (name,) in tables
    }


def catalog(schema: str) -> dict[str, Any]:
    """The schema's objects, owners, grants and rows, its own name written ``<schema>``."""
    with _admin_connection() as admin:
        found: dict[str, Any] = {
            part: admin.execute(query, {"s": schema}).fetchall() for part, query in CATALOG.items()
        }
        found["rows"] = _rows(admin, schema)
    text = repr(found).replace(schema, "<schema>")
    assert found["relations"] and found["functions"] and found["triggers"]  # not an empty schema
    return {"text": text, **found}


def _dumped(schema: str) -> str | None:
    with _admin_connection() as admin:
        pg_dump = pg_template.pg_dump_for(admin)
    if pg_dump is None:
        return None
    return pg_template.capture(pg_dump, make_url(ADMIN_URL), schema).replace(schema, "<schema>")


def test_a_copy_of_the_template_is_the_migrated_schema(pg_url: str, pg_url_empty: str) -> None:
    migrate.upgrade(
        pg_url_empty, load_settings().pg_roles()
    )  # the real migrations, into an empty schema
    migrated, copied = _schema(pg_url_empty), _schema(pg_url)
    assert catalog(copied)["text"] == catalog(migrated)["text"]
    assert _dumped(copied) == _dumped(migrated)


#: Changes a copy could miss; each must show in the comparison above.
DIFFERENCES = [
    'REVOKE INSERT ON events FROM "{service}"',
    "DROP TRIGGER events_no_truncate ON events",
    "ALTER FUNCTION paigow_sequence_tail(bigint[], text[]) SECURITY INVOKER",
    "ALTER FUNCTION paigow_sequence_tail(bigint[], text[]) RESET search_path",
    "CREATE INDEX extra ON events (type)",
    "ALTER TABLE proj_tables ALTER COLUMN status SET DEFAULT 'closed'",
    "UPDATE alembic_version SET version_num = '0010_notify_checkpoint'",
    "SELECT setval('events_id_seq', 5)",
    'ALTER TABLE api_keys OWNER TO "{service}"',
]


def test_the_comparison_sees_each_change_a_copy_could_miss(pg_url: str) -> None:
    schema = _schema(pg_url)
    service = load_settings().pg_service_role
    before = catalog(schema)["text"]
    with psycopg.connect(pg_url.replace("+psycopg", ""), autocommit=True) as connection:
        for change in DIFFERENCES:  # one after the other: each must show on its own
            connection.execute(change.format(service=service))
            after = catalog(schema)["text"]
            assert after != before, change
            before = after
