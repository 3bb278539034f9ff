"""A PostgreSQL schema at the head revision in one round trip, for the tests.

The real Alembic migrations run ONCE a session (a test process) into a template schema;
``pg_dump`` captures it whole (tables, sequences, functions, triggers, owners, grants, and the
rows the migrations insert: ``alembic_version``, 0009's tag anchor), and each test's schema is
that script with the template's name replaced. Why: migrating a fresh schema costs about 0.3 s
on a quiet machine (eleven revisions), more on a loaded one, and hundreds of tests need one.
The copies are made one ahead and dropped behind, on a thread (``Schemas``).
tests/integration/store/test_pg_template.py checks that a copy equals a migrated schema.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.engine import URL, make_url


def pg_dump_for(admin: Any) -> str | None:
    """A ``pg_dump`` of the server's major version (Debian's, else the one on PATH), or None:
    another major's script is not promised to load into this server."""
    major = admin.info.server_version // 10000
    for candidate in (f"/usr/lib/postgresql/{major}/bin/pg_dump", shutil.which("pg_dump")):
        if not candidate or not os.access(candidate, os.X_OK):
            continue
        shown = subprocess.run(
            [candidate, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
        found = re.search(r"\)\s+(\d+)", shown)
        if found and int(found.group(1)) == major:
            return candidate
    return None


def capture(pg_dump: str, url: URL, schema: str) -> str:
    """The script that recreates ``schema`` (its DDL and rows) under the same name."""
    environment = {**os.environ, "PGPASSWORD": str(url.password or "")}
    dumped = subprocess.run(
        [
            pg_dump,
            f"--host={url.host or '127.0.0.1'}",
            f"--port={url.port or 5432}",
            f"--username={url.username}",
            f"--dbname={url.database}",
            f"--schema={schema}",
            "--inserts",  # INSERT, not COPY FROM stdin: one script a driver can send
            "--no-password",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=environment,
    ).stdout
    # pg_dump 15.14+ brackets its script with psql meta-commands (\restrict KEY): not SQL.
    script = "\n".join(line for line in dumped.splitlines() if not line.startswith("\\"))
    if f"CREATE SCHEMA {schema};" not in script:
        raise RuntimeError(f"pg_dump gave no CREATE SCHEMA {schema}: {dumped[:300]!r}")
    return script


def create_from(admin: Any, script: str, template: str, schema: str) -> None:
    """Make ``schema`` from the template's script: one statement list, one round trip (no
    parameters, so psycopg sends it as a simple query: one implicit transaction, all or
    nothing). Both names are lower-case identifiers, which pg_dump writes unquoted."""
    admin.execute(script.replace(template, schema))


def schema_url(base: str, schema: str) -> str:
    """The URL that puts ``schema`` first on the search path."""
    return (
        make_url(base)
        .update_query_dict({"options": f"-csearch_path={schema}"})
        .render_as_string(hide_password=False)
    )


class Schemas:
    """Copies of the template, made one ahead and dropped behind on one thread with its own
    connection, so that a test waits for neither: a copy is ~0.1 s of server CPU, a drop mostly
    waits on the disk (~0.15 s each on a busy machine, all paid at the session's end before).
    Also copies of another schema a session fixture filled once (``capture``, ``copy``)."""

    def __init__(
        self,
        connect: Callable[[], Any],
        dump: Callable[[str], str],
        template: str,
        names: Iterator[str],
    ) -> None:
        self._connect, self._dump, self._names = connect, dump, names
        self._script, self._template = dump(template), template
        self._connection: Any = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-schemas")
        self._next = self._thread.submit(self._create, self._script, template, next(names))

    def _session(self) -> Any:
        if self._connection is None or self._connection.closed:
            self._connection = self._connect()
            # A drop waiting on a test's leaked transaction gives up; the session's sweep drops it.
            self._connection.execute("SET lock_timeout = '5s'")
        return self._connection

    def _create(self, script: str, template: str, schema: str) -> str:
        create_from(self._session(), script, template, schema)
        return schema

    def _drop(self, schema: str) -> None:
        with contextlib.suppress(Exception):  # left to the sweep at the session's end
            self._session().execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def take(self) -> str:
        """A copy of this test's own (made while the previous test ran); the next one is begun."""
        made = self._next
        self._next = self._thread.submit(
            self._create, self._script, self._template, next(self._names)
        )
        return str(made.result())

    def capture(self, schema: str) -> str:
        """The script that copies ``schema`` as it stands now (its rows too)."""
        return self._dump(schema)

    def copy(self, script: str, template: str) -> str:
        """A new schema made from a script ``capture`` gave of ``template``, now."""
        made = self._thread.submit(self._create, script, template, next(self._names))
        return str(made.result())

    def release(self, schema: str) -> None:
        """The test is done with ``schema``: dropped while the next tests run."""
        self._thread.submit(self._drop, schema)

    def close(self) -> None:
        """Wait for the drops begun; the copy made ahead is left to the session's sweep."""
        self._thread.shutdown(wait=True)
        if self._connection is not None:
            self._connection.close()
