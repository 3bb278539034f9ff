"""Alembic, configured from code so ``paigow db upgrade --db URL`` works from any directory."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, pool

from adapters.settings import load_settings

# migrations/ sits at the repository root, beside adapters/ (editable install).
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        # ConfigParser interpolation would read a % in a URL as a reference.
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    settings = load_settings()
    # Migration 0006 creates these PostgreSQL roles (cluster-wide names: a setting each).
    config.attributes["pg_roles"] = (settings.pg_owner_role, settings.pg_service_role)
    return config


def head_revision() -> str:
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    if len(heads) != 1:
        raise RuntimeError(f"migrations must have exactly one head, found {heads}")
    return heads[0]


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(url: str) -> str:
    """Bring the database at ``url`` to the head revision; returns that revision."""
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection=connection), "head")
            revision = current_revision(connection)
    finally:
        engine.dispose()
    return revision or ""
