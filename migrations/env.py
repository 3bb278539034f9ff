"""Alembic environment, configured from code (``adapters.store.migrate``), never from a cwd file.

The caller passes either an open connection (``config.attributes["connection"]``) or a URL
(``sqlalchemy.url``). Only online migrations: an event store is never migrated from SQL scripts
written blind.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from adapters.store.schema import metadata

config = context.config


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url"), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            context.configure(connection=connection, target_metadata=metadata)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported: run paigow db upgrade")
run_migrations_online()
