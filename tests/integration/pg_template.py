"""A PostgreSQL schema at the head revision in one round trip, for the tests.

The real Alembic migrations run ONCE a session (a test process) into a template schema;
``pg_dump`` captures it whole (tables, sequences, functions, triggers, owners, grants, and the
rows the migrations insert: ``alembic_version``, 0009's tag anchor), and each test's schema is
that script with the template's name replaced. Why: migrating a fresh schema costs about 0.3 s
on a quiet machine (eleven revisions), more on a loaded one, and hundreds of tests need one.
tests/integration/store/test_pg_template.py checks that a copy equals a migrated schema.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any

from sqlalchemy.engine import URL


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
