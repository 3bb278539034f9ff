"""docs/operations.md's two "First hour" sections, run as written: the ```sh blocks under each
heading are taken from the document and executed verbatim, in order, in ONE bash process (so
what a step exports, the next one has), with ``set -euo pipefail``: any failing command fails the
test. The only things the test chooses are the values of variables the document itself uses:
``HOME`` (the casino's folder is ``~/casino``: a temporary directory), ``PORT`` (a free port) and,
on PostgreSQL, ``CASINO_DB`` (a scratch database the test drops afterwards). The hour ends with
the regulator's audit: ``audit OK``, exit status 0."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import PAIGOW
from tests.e2e.serving import free_port

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
SECTIONS = {
    "sqlite": "## First hour: SQLite (one machine)",
    "postgresql": "## First hour: PostgreSQL",
}
BLOCK = re.compile(r"^( *)```sh\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)
ADMIN = ("-h", "127.0.0.1", "-U", "postgres")


def section(heading: str) -> str:
    text = DOC.read_text()
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def commands(heading: str) -> list[str]:
    """The section's ```sh blocks, in order, each with the list item's indent taken off."""
    blocks = []
    for indent, body in BLOCK.findall(section(heading)):
        lines = [line.removeprefix(indent) for line in body.splitlines()]
        blocks.append("\n".join(lines))
    return blocks


def test_each_first_hour_has_its_steps() -> None:
    for heading in SECTIONS.values():
        blocks = commands(heading)
        script = "\n".join(blocks)
        assert len(blocks) == 8, heading
        for step in ("paigow keys signing create", "paigow db upgrade", "paigow keys create",
                     "paigow serve", "/round/close", "paigow audit verify"):  # fmt: skip
            assert step in script, (heading, step)
        # The order an operator must keep: key, schema, API keys, server, round, audit.
        order = [script.index(s) for s in ("keys signing create", "db upgrade", "keys create",
                                           "serve", "/round/start", "audit verify")]  # fmt: skip
        assert order == sorted(order), heading


@pytest.fixture
def scratch_database() -> Iterator[str]:
    """A PostgreSQL database name nobody uses; the document's ``createdb`` makes it, the test
    drops it (after whatever the hour left running has been stopped)."""
    name = f"paigow_first_hour_{os.getpid()}_{secrets.token_hex(3)}"
    probe = subprocess.run(
        ["psql", *ADMIN, "-d", "postgres", "-Atc", "SELECT 1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        message = f"PostgreSQL is not reachable at 127.0.0.1:5432: {probe.stderr.strip()}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: PostgreSQL tests must run, not skip)")
        pytest.skip(message)
    try:
        yield name
    finally:
        subprocess.run(
            ["dropdb", *ADMIN, "--if-exists", "--force", name],
            capture_output=True, check=False,
        )  # fmt: skip


def environment(home: Path, **extra: str) -> dict[str, str]:
    """The test's environment, minus every PAIGOW_ setting (the hour sets its own), with the
    installed ``paigow`` first on the PATH and the variables the document uses."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIGOW_")}
    for kept in ("PAIGOW_PG_OWNER_ROLE", "PAIGOW_PG_SERVICE_ROLE"):  # this run's role names
        if kept in os.environ:
            env[kept] = os.environ[kept]
    env["PATH"] = f"{PAIGOW.parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(HOME=str(home), PORT=str(free_port()), **extra)
    return env


def run_the_hour(heading: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = "set -euo pipefail\n" + "\n".join(commands(heading)) + "\n"
    process = subprocess.Popen(
        ["bash", "-c", script],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: whatever it started is stopped below
    )
    try:
        out, err = process.communicate(timeout=600)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_the_first_hour_runs_as_written(
    store: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    extra = {}
    if store == "postgresql":
        extra["CASINO_DB"] = request.getfixturevalue("scratch_database")
    env = environment(tmp_path, **extra)
    done = run_the_hour(SECTIONS[store], env)
    casino = tmp_path / "casino"
    log = (casino / "serve.log").read_text() if (casino / "serve.log").exists() else ""
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}\n{log[-3000:]}"
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("audit OK: "), done.stdout[-2000:]
    assert "1 rounds re-derived" in last and "no custody record" not in last, last
    assert "Traceback" not in done.stderr + log
    # Every round's end and the server's stop sealed: nothing is left unsealed.
    verify = subprocess.run(
        [str(PAIGOW), "db", "verify"], cwd=casino, env={**env, **_db_of(env, casino)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verify.returncode == 0 and "unsealed" not in verify.stdout, verify.stderr


def _db_of(env: dict[str, str], casino: Path) -> dict[str, str]:
    """The settings the hour exported, for a command run after it."""
    if "CASINO_DB" in env:
        return {
            "PAIGOW_DB": f"postgresql+psycopg://postgres@127.0.0.1:5432/{env['CASINO_DB']}",
            "PAIGOW_SIGNING_KEY": str(casino / "signing-key.pem"),
        }
    return {"PAIGOW_DB": f"sqlite:///{casino / 'casino.db'}"}
