from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

PAIGOW = Path(sys.executable).with_name("paigow")

Run = Callable[..., subprocess.CompletedProcess[str]]
ROLES = ("security", "floor", "cage", "dealer", "count", "auditor")


def operator_keys(
    db: str,
    folder: Path,
    roles: tuple[str, ...] = ROLES,
    signing_key: Any = None,
    at: datetime | None = None,
    **actors: str,
) -> dict[str, Path]:
    """One API key file (mode 0600) per role in ``folder``, ``ROLE.key``, made in process as
    ``paigow keys create --out`` makes them: a store with no key gets a security key first (the
    bootstrap), which then creates the others. ``actors``: a role's actor (default ``ROLE-1``);
    ``at``: when they are made (default now).
    A relative SQLite URL is the folder's file, as the CLI run there reads it."""
    from adapters.store import open_store
    from service_layer.operators.keys import key_store_for
    from table_core.ports import Actor

    prefix = "sqlite:///"
    if db.startswith(prefix) and not db.startswith(prefix + "/"):
        db = prefix + str(folder / db[len(prefix) :])
    store = open_store(db, create=False, signing_key=signing_key)
    files: dict[str, Path] = {}
    try:
        keys = key_store_for(store)
        creator = None if keys.has_active() else Actor("cli:test", "bootstrap")
        for role in sorted(roles, key=lambda r: r != "security"):
            key, token = keys.create(
                actors.get(role, f"{role}-1"), role, at or datetime.now(UTC), by=creator
            )
            if role == "security":
                creator = Actor(key.actor_id, key.role)
            path = folder / f"{role}.key"
            path.write_text(token + "\n")
            path.chmod(0o600)
            files[role] = path
    finally:
        store.close()
    return files


@pytest.fixture
def paigow(tmp_path: Path) -> Run:
    """Run the installed ``paigow`` console script as a casino script would, in a scratch folder."""

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PAIGOW), *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
            check=False,
        )

    return run
