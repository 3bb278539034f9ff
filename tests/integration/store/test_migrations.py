"""Schema through Alembic only: one head, upgrade from empty on both engines, and the migrated
schema is exactly the models' (``adapters.store.schema``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, pool

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.schema import APPEND_ONLY_TABLES, metadata
from table_core.ports import StoreError

REPO = Path(__file__).resolve().parents[3]


def test_the_migrations_have_exactly_one_head() -> None:
    heads = ScriptDirectory.from_config(migrate.alembic_config()).get_heads()
    # One head for the whole project (other features add their revisions after the store's).
    assert heads == [migrate.head_revision()]
    script = ScriptDirectory.from_config(migrate.alembic_config())
    assert "0001_event_store" in {revision.revision for revision in script.walk_revisions()}


def _store_table(name: str | None, type_: str, parent_names: object) -> bool:
    return type_ != "table" or name in metadata.tables


def _schema_diff(url: str) -> list[object]:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            # The store's tables only: other features' tables are theirs to compare.
            context = MigrationContext.configure(connection, opts={"include_name": _store_table})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_sqlite_upgrades_from_empty_to_the_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    assert migrate.upgrade(url, load_settings().pg_roles()) == migrate.head_revision()
    assert _schema_diff(url) == []
    assert _tables(url) >= set(APPEND_ONLY_TABLES) | {"sequencer_queue", "alembic_version"}
    assert (
        migrate.upgrade(url, load_settings().pg_roles()) == migrate.head_revision()
    )  # a second upgrade changes nothing


def test_postgresql_upgrades_from_empty_to_the_models(pg_url_empty: str) -> None:
    assert _tables(pg_url_empty) == set()
    assert migrate.upgrade(pg_url_empty, load_settings().pg_roles()) == migrate.head_revision()
    assert _schema_diff(pg_url_empty) == []
    tables = _tables(pg_url_empty)
    assert tables >= set(APPEND_ONLY_TABLES) | {"sequencer_queue", "alembic_version"}


def test_postgresql_upgrade_refuses_a_schema_of_another_application(pg_url_empty: str) -> None:
    engine = create_engine(pg_url_empty, poolclass=pool.NullPool)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE members (card TEXT, points INTEGER)")
    engine.dispose()
    with pytest.raises(StoreError, match=r"holds tables of another application \(members\)"):
        migrate.upgrade(pg_url_empty, load_settings().pg_roles())
    assert _tables(pg_url_empty) == {"members"}


def test_postgresql_is_never_migrated_behind_the_operators_back(pg_url_empty: str) -> None:
    with pytest.raises(StoreError, match="paigow db upgrade"):
        open_store(pg_url_empty)


def test_a_new_sqlite_file_is_upgraded_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "new-casino.db"
    store = open_store(f"sqlite:///{path}")
    store.close()
    assert _schema_diff(f"sqlite:///{path}") == []


def test_an_existing_sqlite_file_behind_the_head_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}", poolclass=pool.NullPool)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE something_else (id INTEGER)")
    engine.dispose()
    with pytest.raises(StoreError, match="schema is at nothing"):
        open_store(f"sqlite:///{path}")


def test_paigow_db_upgrade_works_from_any_directory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = (
        "import sys; from entrypoints.cli.commands import db; import argparse;"
        "p = argparse.ArgumentParser(); s = p.add_subparsers(); db.register(s);"
        "a = p.parse_args(sys.argv[1:]); sys.exit(a.handler(a))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", script, "db", "upgrade", "--db", "sqlite:///cli.db"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"schema at {migrate.head_revision()}" in done.stdout
    assert _schema_diff(f"sqlite:///{elsewhere / 'cli.db'}") == []
