"""A real PostgreSQL for integration tests: 127.0.0.1:5432, user postgres, database ``test``.

Each test gets a fresh schema named after the run (pid + random), so runs never collide and tests
never see each other's events: ``pg_url`` one already at the head revision (a copy of a template
migrated once a process, tests/integration/pg_template.py; dropped after its test),
``pg_url_empty`` an empty one for the tests of the migrations themselves. Whatever is left is
dropped at the end of the run (and the schemas of killed runs at the start of the next). Without
a reachable server the PostgreSQL tests are SKIPPED locally and FAIL when ``CI=true``: CI must
never skip them.
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.settings import load_settings
from tests.integration import pg_template

ADMIN_URL = os.environ.get("PAIGOW_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
PREFIX = "paigow_t_"
_schemas = itertools.count(1)


def _admin_connection():  # type: ignore[no-untyped-def]
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(ADMIN_URL)
    return psycopg.connect(
        host=url.host,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        dbname=url.database,
        autocommit=True,
        connect_timeout=3,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """The URL of the ``test`` database and this run's schema prefix (``URL#prefix``).

    Schemas, not databases: CREATE/DROP DATABASE force a checkpoint, seconds on a busy disk."""
    try:
        admin = _admin_connection()
    except Exception as error:
        message = f"PostgreSQL is not reachable at {ADMIN_URL}: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: PostgreSQL tests must run, not skip)")
        pytest.skip(message)
    with admin:
        # Schemas of earlier runs that were killed before cleaning up (their pid is gone).
        for (name,) in admin.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (PREFIX + "%",)
        ).fetchall():
            pid = name[len(PREFIX) :].split("_")[0]
            if pid.isdigit() and not _alive(int(pid)):
                admin.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    prefix = f"{PREFIX}{os.getpid()}_{secrets.token_hex(3)}_"
    try:
        yield f"{ADMIN_URL}#{prefix}"
    finally:
        with _admin_connection() as admin:
            for (name,) in admin.execute(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (prefix + "%",)
            ).fetchall():
                admin.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture(scope="session")
def pg_head_template(pg_database: str) -> Iterator[pg_template.Schemas | None]:
    """Copies of this process's template schema, migrated by Alembic to the head revision; None
    without a ``pg_dump`` of the server's version (then each ``pg_url`` is migrated, as slow as
    before, but the same schema)."""
    from sqlalchemy.engine import make_url

    from adapters.store import migrate

    base, prefix = pg_database.split("#")
    template = f"{prefix}template"
    with _admin_connection() as admin:
        pg_dump = pg_template.pg_dump_for(admin)
        if pg_dump is None:
            warnings.warn(
                "no pg_dump of the server's version: each pg_url schema is migrated", stacklevel=1
            )
            yield None
            return
        admin.execute(f'CREATE SCHEMA "{template}"')
    migrate.upgrade(pg_template.schema_url(base, template), load_settings().pg_roles())
    names = (f"{prefix}{number}" for number in _schemas)

    def dump(schema: str) -> str:
        return pg_template.capture(pg_dump, make_url(base), schema)

    schemas = pg_template.Schemas(_admin_connection, dump, template, names)
    try:
        yield schemas
    finally:
        schemas.close()


@pytest.fixture
def pg_url(pg_database: str, pg_head_template: pg_template.Schemas | None) -> Iterator[str]:
    """A fresh schema of its own at the head revision: the URL puts it first on the search path."""
    if pg_head_template is not None:
        schema = pg_head_template.take()
        yield pg_template.schema_url(pg_database.split("#")[0], schema)
        pg_head_template.release(schema)
        return
    from adapters.store import migrate

    url = _empty_schema(pg_database)
    migrate.upgrade(url, load_settings().pg_roles())
    yield url


@pytest.fixture
def pg_url_empty(pg_database: str) -> str:
    """A fresh, EMPTY schema of its own (no revision): for the tests of the migrations, of
    ``db upgrade`` and of what refuses a database not at the head."""
    return _empty_schema(pg_database)


def _empty_schema(pg_database: str) -> str:
    """A new empty schema of this run's, as the URL that puts it first on the search path."""
    base, prefix = pg_database.split("#")
    schema = f"{prefix}{next(_schemas)}"
    with _admin_connection() as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    return pg_template.schema_url(base, schema)


@pytest.fixture(scope="session")
def sqlite_head_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated by Alembic to the head revision, once a process: a test's copy
    costs a millisecond where a new file's migrations and fsyncs cost ~0.3 s."""
    from adapters.store import migrate

    path = tmp_path_factory.mktemp("sqlite-head") / "head.db"
    migrate.upgrade(f"sqlite:///{path}", load_settings().pg_roles())
    return path


@pytest.fixture
def sqlite_url(sqlite_head_template: Path, tmp_path: Path) -> str:
    """A SQLite database of its own at the head revision, ``casino.db`` in the test's folder,
    no signing key yet (the store makes one on first use, as for a database `paigow db
    upgrade` made). The tests of creating a file (atomically, with its key) make their own."""
    path = tmp_path / "casino.db"
    shutil.copyfile(sqlite_head_template, path)
    return f"sqlite:///{path}"
