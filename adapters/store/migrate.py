"""Alembic, configured from code so ``paigow db upgrade --db URL`` works from any directory."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, inspect, pool
from sqlalchemy.engine import URL, make_url

from table_core.ports import StoreError

# migrations/ sits at the repository root, beside adapters/ (editable install).
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# The revisions share frozen DDL, ``migrations/ddl.py``, imported as ``migrations.ddl``: the
# repository's root must be importable from any directory (appended: it shadows nothing).
if str(MIGRATIONS.parent) not in sys.path:
    sys.path.append(str(MIGRATIONS.parent))


#: PostgreSQL's two roles: (owner, service).
PgRoles = tuple[str, str]


def alembic_config(
    url: str | None = None, connection: Connection | None = None, pg_roles: PgRoles | None = None
) -> Config:
    """Alembic's configuration; ``pg_roles``: the roles migration 0008 creates (the settings'
    ``pg_owner_role`` and ``pg_service_role``; none: the migrations' own defaults)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        # ConfigParser interpolation would read a % in a URL as a reference.
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    if pg_roles is not None:
        # Migration 0008 creates these PostgreSQL roles (cluster-wide names: a setting each).
        config.attributes["pg_roles"] = pg_roles
    return config


@functools.cache
def _script() -> ScriptDirectory:
    # Once a process: every store opened checks the revisions, and reading their files costs
    # ~10-20 ms; they are this code's own (a new release is a new process).
    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    heads = _script().get_heads()
    if len(heads) != 1:
        raise RuntimeError(f"migrations must have exactly one head, found {heads}")
    return str(heads[0])


def newer_than_code(revision: str | None, url: str | URL) -> StoreError | None:
    """The refusal for a database whose schema revision this code does not know: a newer
    release upgraded it (a schema is never taken back down), so running ``db upgrade`` with
    this code cannot help; None for a revision this code knows, or none."""
    if revision is None or revision in {r.revision for r in _script().walk_revisions()}:
        return None
    shown = make_url(url).render_as_string(hide_password=True)
    return StoreError(
        f"{shown}: the database schema is at {revision}, which this code does not know (its "
        f"newest is {head_revision()}): a newer release upgraded it; run that release, as "
        "schemas are never taken back down"
    )


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def half_made(connection: Connection) -> bool:
    """Tables but no schema revision: a database whose creation was killed half-way by code
    before issue 17 (creation is atomic now). Neither usable nor upgradable as it stands."""
    return current_revision(connection) is None and inspect(connection).has_table("events")


def someone_elses(connection: Connection, url: str) -> StoreError | None:
    """The refusal for a database with no schema revision that holds tables already: another
    application's (a wrong name), where the log would be kept, backed up and granted as that
    application's; None for an empty one or one of ours."""
    if current_revision(connection) is not None:
        return None
    tables = sorted(inspect(connection).get_table_names())
    if not tables:
        return None
    shown = make_url(url).render_as_string(hide_password=True)
    named = ", ".join(tables[:3]) + (f" and {len(tables) - 3} more" if len(tables) > 3 else "")
    return StoreError(
        f"{shown} holds tables of another application ({named}) and no paigow schema: the event "
        "store keeps a database of its own; name a new one (nothing was written)"
    )


def upgrade(url: str, pg_roles: PgRoles | None = None) -> str:
    """Bring the database at ``url`` to the head revision; returns that revision. A new SQLite
    file is created atomically (:func:`create_sqlite`). ``pg_roles``: as :func:`alembic_config`."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database:
        path = Path(parsed.database)
        if not path.exists() or path.stat().st_size == 0:
            return create_sqlite(parsed)
    return _upgrade(url, pg_roles)


def _upgrade(url: str, pg_roles: PgRoles | None = None) -> str:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.begin() as connection:
            if half_made(connection):
                shown = make_url(url).render_as_string(hide_password=True)
                raise StoreError(
                    f"{shown} has tables but no schema revision: its creation was killed "
                    "half-way; move it away (it was never usable) and start again"
                )
            refused = newer_than_code(current_revision(connection), url) or someone_elses(
                connection, url
            )
            if refused is not None:
                raise refused
            command.upgrade(alembic_config(connection=connection, pg_roles=pg_roles), "head")
            revision = current_revision(connection)
    finally:
        engine.dispose()
    return revision or ""


#: A SQLite file being created: ``.<name>.creating-<pid>-<random>`` beside it.
_CREATING = ".{name}.creating-"


def create_sqlite(url: URL) -> str:
    """Create the SQLite file of ``url`` at the head revision, atomically: migrated under a
    temporary name in the same folder, made durable, then linked to its name, so a process
    killed at any moment (``kill -9``) leaves either no database or a whole one, never tables
    without ``alembic_version``. If another process created the file meanwhile, its file is
    kept (it was made the same way). Temporary files of dead processes are removed."""
    path = Path(url.database or "")
    folder = path.parent
    prefix = _CREATING.format(name=path.name)
    try:
        _remove_abandoned(folder, prefix)
        descriptor, temporary = tempfile.mkstemp(prefix=f"{prefix}{os.getpid()}-", dir=folder)
    except OSError as error:  # no such folder, or not writable: one line, as the driver's are
        raise StoreError(
            f"cannot open the database at {url.render_as_string(hide_password=True)}: "
            f"{error.strerror} ({folder}); check that the path is a paigow database, its folder "
            "exists and is writable"
        ) from None
    os.close(descriptor)
    try:
        revision = _upgrade(url.set(database=temporary).render_as_string(hide_password=False))
        _fsync(temporary)
        if path.exists() and path.stat().st_size == 0:
            os.replace(temporary, path)  # an empty file (touched, or made by a bare connect)
        else:
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)  # never over a file another process just made
        _fsync(folder)
    finally:
        for leftover in (temporary, f"{temporary}-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)
    return revision


def _fsync(name: str | Path) -> None:
    descriptor = os.open(name, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _remove_abandoned(folder: Path, prefix: str) -> None:
    for leftover in folder.glob(f"{prefix}*"):
        pid = leftover.name[len(prefix) :].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
