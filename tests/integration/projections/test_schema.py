"""The projection tables come from migration 0002_projections, exactly as the projections'
metadata declares them, on both engines; being derived data, they may be dropped again (the
events stay) and rebuilt."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, pool

from adapters.projections.schema import metadata
from adapters.settings import load_settings
from adapters.store import migrate

REVISION = "0002_projections"


def _ours(name: str | None, type_: str, parent_names: object) -> bool:
    return type_ != "table" or name in metadata.tables


def _diff_and_tables(url: str) -> tuple[list[object], set[str]]:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            # The projections' tables only: the store's and other features' are theirs to check.
            context = MigrationContext.configure(connection, opts={"include_name": _ours})
            diff = list(compare_metadata(context, metadata))
        return diff, set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _migrate(url: str, step: str, target: str) -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.begin() as connection:
            getattr(command, step)(
                migrate.alembic_config(connection=connection, pg_roles=load_settings().pg_roles()),
                target,
            )
    finally:
        engine.dispose()


def _check(url: str) -> None:
    assert migrate.upgrade(url, load_settings().pg_roles()) == migrate.head_revision()
    diff, tables = _diff_and_tables(url)
    assert diff == []
    assert set(metadata.tables) <= tables


def _check_down_and_up(url: str) -> None:
    _migrate(url, "upgrade", REVISION)
    # 0006 (issue 18) added the books' tables; 0005 is never downgraded, so 0002's are checked.
    later = {"proj_tables", "proj_books_days", "proj_ratings", "proj_rating_tables"}
    assert set(metadata.tables) - later <= _diff_and_tables(url)[1]
    _migrate(url, "downgrade", "0001_event_store")
    tables = _diff_and_tables(url)[1]
    assert not set(metadata.tables) & tables and "events" in tables
    _migrate(url, "upgrade", "head")  # through 0006, the books' tables
    assert _diff_and_tables(url)[0] == []


def test_sqlite_migrates_the_projection_tables_to_the_metadata(tmp_path: Path) -> None:
    _check(f"sqlite:///{tmp_path / 'casino.db'}")
    _check_down_and_up(f"sqlite:///{tmp_path / 'again.db'}")


def test_postgresql_migrates_the_projection_tables_to_the_metadata(pg_url_empty: str) -> None:
    _check(pg_url_empty)


def test_the_projections_revision_follows_the_event_stores() -> None:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(migrate.alembic_config())
    assert script.get_revision(REVISION).down_revision == "0001_event_store"
