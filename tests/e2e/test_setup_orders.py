"""A new casino's first steps in any order, on SQLite and PostgreSQL: ``paigow db upgrade``, the
first API keys (``paigow keys create``), the signing key (``paigow keys signing create``) and
``paigow serve``. Each step either works or refuses with ONE line naming what to run first, and
writes nothing; every command such a line suggests (between backticks) is run as printed, in the
test that provoked it, and works for that store (FILE is the one placeholder, filled in).

The commands run in process (``entrypoints.cli.main``); ``serve`` runs as the installed script.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog
from sqlalchemy import create_engine

from adapters.settings import load_settings
from adapters.store import open_configured, open_store
from entrypoints.cli.main import main
from eventlog.system_events import ServiceStopped
from service_layer.system_stream import SystemStream
from tests.e2e.conftest import PAIGOW
from tests.e2e.serving import free_port, serving
from tests.integration.conftest import pg_database, pg_url_empty  # noqa: F401 (fixtures)

SUGGESTED = re.compile(r"`((?:paigow|export) [^`]*)`")


@pytest.fixture(autouse=True)
def _logging_kept() -> Iterator[None]:
    """Commands run in process may configure logging onto the captured stderr: put it back."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store that does not exist yet (SQLite: no file; PostgreSQL: an empty schema), the
    commands run in ``tmp_path`` with no key of any kind in the environment."""
    monkeypatch.chdir(tmp_path)
    for name in ("PAIGOW_SIGNING_KEY", "PAIGOW_PUBLIC_KEY", "PAIGOW_API_KEY", "PAIGOW_DB"):
        monkeypatch.delenv(name, raising=False)
    if request.param == "sqlite":
        return "sqlite:///casino.db"
    empty: str = request.getfixturevalue("pg_url_empty")
    return empty


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def _written(url: str) -> tuple[int, int]:
    """(events, API key rows) in the store, read with plain SQL: the count never writes."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            events = connection.exec_driver_sql("SELECT count(*) FROM events").scalar()
            keys = connection.exec_driver_sql("SELECT count(*) FROM api_keys").scalar()
    finally:
        engine.dispose()
    return int(events or 0), int(keys or 0)


def _refused(capsys: Any, *argv: str) -> str:
    """The one line of a refusal (exit 2, nothing on standard output)."""
    status, out, err = _run(capsys, *argv)
    assert (status, out) == (2, ""), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("paigow: ")
    return err.strip()


def _follow(
    capsys: Any, monkeypatch: pytest.MonkeyPatch, line: str, **filled: str
) -> list[tuple[str, str]]:
    """Run every command ``line`` suggests, as printed (``FILE`` and the like filled in from
    ``filled``); each must succeed. Returns (command, its standard output)."""
    done = []
    suggestions = SUGGESTED.findall(line)
    assert suggestions, line
    for command in suggestions:
        for placeholder, value in filled.items():
            command = command.replace(placeholder, value)
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            monkeypatch.setenv(name, value.replace("$PWD", os.getcwd()))
            done.append((command, ""))
            continue
        argv = shlex.split(command)
        assert argv[0] == "paigow"
        if argv[1] == "serve":
            with _serving_as_suggested(argv[1:]) as base:
                assert httpx.get(f"{base}/health").status_code == 200
            done.append((command, ""))
            continue
        status, out, err = _run(capsys, *argv[1:])
        assert status == 0, (command, err)
        done.append((command, out))
    return done


@contextmanager
def _serving_as_suggested(argv: list[str]) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [str(PAIGOW), *argv, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=60)


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def test_keys_first_then_the_database_then_the_key(
    url: str, capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The worst order: keys before the database, keys before the signing key. Each refusal
    names the command to run, which works; the keys come last, and the server serves."""
    shown = _shown(url)
    first = ("keys", "create", "--role", "security", "--out", "security.key", "--db", url)
    line = _refused(capsys, *first)
    assert f"`paigow db upgrade --db {shown}`" in line
    _follow(capsys, monkeypatch, line)
    assert _written(url) == (0, 0)

    if url.startswith("sqlite"):  # a database made with a key kept elsewhere: none beside it
        (tmp_path / "casino.db.signing-key").unlink()
        (tmp_path / "casino.db.signing-key.pub").unlink()
    line = _refused(capsys, *first)
    assert line.startswith(f"paigow: no signing key for {shown}: create one first with ")
    assert line.endswith("; nothing was written")
    assert _written(url) == (0, 0)  # neither the key's row nor its event
    made = _follow(capsys, monkeypatch, line)
    assert json.loads(made[0][1])["key_id"]

    # The first key must be a security key: the line says how to make one, as printed.
    line = _refused(capsys, "keys", "create", "--role", "floor", "--db", url)
    assert "has no API key yet" in line
    _follow(capsys, monkeypatch, line)
    assert _written(url) == (1, 1)
    assert not (tmp_path / "floor.key").exists()

    # Keys are the key officer's: a second one made without a key is refused, naming how to
    # find the store's keys.
    line = _refused(capsys, "keys", "create", "--role", "floor", "--db", url)
    assert "an API key of the security role" in line
    assert _follow(capsys, monkeypatch, line)[0][0] == f"paigow keys list --db {shown}"

    # A floor command with no API key: the key officer's command to make one, as printed.
    digest = json.loads(_run(capsys, "service", "identity")[1])["digest"]
    authorise = ("service", "authorise-version", digest, "--reason", "CHG-1", "--db", url)
    line = _refused(capsys, *authorise)
    assert "--key-file security.key" in line
    _follow(capsys, monkeypatch, line)
    status, _out, err = _run(capsys, *authorise, "--key-file", "floor.key")
    assert status == 0, err

    # Served: ready, with the key the log is signed by.
    with serving(url, tmp_path, dict(os.environ)) as served:
        ready = httpx.get(f"{served.base}/ready").json()
        assert ready["checks"]["signing_key"] is True, ready
    status, out, _ = _run(capsys, "db", "verify", "--db", url)
    assert status == 0 and out.startswith("ok: "), out


def test_a_signed_store_refuses_no_key_and_another_key_naming_its_own(
    url: str, capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Once the log is signed, a new key is never the fix: without the key, or with another one,
    every writing command and the server refuse in one line naming the key the log is signed by;
    the commands the line names tell a file's key id, and ``--read-only`` serves without it."""
    shown = _shown(url)
    assert _run(capsys, "keys", "signing", "create", "--out", "casino.pem")[0] == 0
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(tmp_path / "casino.pem"))
    assert _run(capsys, "db", "upgrade", "--db", url)[0] == 0
    made = _run(
        capsys, "keys", "create", "--role", "security", "--out", "security.key", "--db", url
    )
    assert made[0] == 0, made[2]
    signed_by = json.loads(_run(capsys, "keys", "signing", "show")[1])["key_id"]
    written = _written(url)

    assert _run(capsys, "keys", "signing", "create", "--out", "other.pem")[0] == 0
    floor = ("keys", "create", "--role", "floor", "--out", "floor.key", "--db", url)
    for key in (None, str(tmp_path / "other.pem")):
        if key is None:
            monkeypatch.delenv("PAIGOW_SIGNING_KEY")
        else:
            monkeypatch.setenv("PAIGOW_SIGNING_KEY", key)
        lines = {}
        for argv in (
            (*floor, "--key-file", "security.key"),
            ("deck", "receive", "--table", "PG-1", "--deck", "D-1", "--seal", "S-1", "--db", url),
            ("db", "adopt", "--db", url),
            ("simulate", "--db", url, "--rounds", "1", "--quiet"),
            ("serve", "--db", url, "--port", str(free_port())),
        ):
            lines[argv[0]] = line = _refused(capsys, *argv)
            assert f"{shown}: its log is signed by key {signed_by}; set PAIGOW_SIGNING_KEY" in line
            assert _written(url) == written, argv
        # What the lines name, run: the key file asked for tells its id; --read-only serves.
        for line in lines.values():
            shown_key = _follow(capsys, monkeypatch, line, FILE="casino.pem")
            assert json.loads(shown_key[0][1])["key_id"] == signed_by
        assert f"`paigow serve --read-only --db {shown}`" in lines["serve"]
        assert _written(url) == written
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(tmp_path / "casino.pem"))
    status, _out, err = _run(capsys, *floor, "--key-file", "security.key")
    assert status == 0, err


def test_events_written_without_the_key_are_named_and_adopted(
    url: str, capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Events no append tag covers (what a command run without the key wrote, before such writes
    were refused): ``db verify`` fails naming them, the server refuses commands saying in plain
    words what the operator may have done and the command that lists them; ``db adopt``, as the
    key officer, vouches for them and the server takes commands again."""
    shown = _shown(url)
    assert _run(capsys, "keys", "signing", "create", "--out", "casino.pem")[0] == 0
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(tmp_path / "casino.pem"))
    assert _run(capsys, "db", "upgrade", "--db", url)[0] == 0
    for role in ("security", "floor"):
        key_file = ("--key-file", "security.key") if role == "floor" else ()
        made = _run(
            capsys, "keys", "create", "--role", role, "--out", f"{role}.key", "--db", url, *key_file
        )
        assert made[0] == 0, made[2]
    store = open_configured(load_settings(), url, create=False)  # with PAIGOW_SIGNING_KEY's key
    try:
        tagger, store.tagger = store.tagger, None  # as code older than the refusal wrote
        head = SystemStream(store).append([ServiceStopped(at=_now())], checkpoint=False)[-1]
        store.tagger = tagger
    finally:
        store.close()

    status, _out, err = _run(capsys, "db", "verify", "--db", url)
    assert status == 1 and f"unsealed: 1 events from position {head.position}: " in err
    listed = _follow(capsys, monkeypatch, err)
    assert listed[0][0] == f"paigow db adopt --db {shown}"
    with serving(url, tmp_path, dict(os.environ)) as served:
        refused = httpx.post(
            f"{served.base}/tables/PG-1/open",
            json={},
            headers={"Authorization": f"Bearer {_token('floor.key')}", "Idempotency-Key": "o-1"},
        )
    assert refused.status_code == 503, refused.text
    message = refused.json()["message"]
    assert "if they were written without this store's signing key" in message
    listed = _follow(capsys, monkeypatch, message)
    assert [json.loads(x)["position"] for x in listed[0][1].splitlines()] == [head.position]
    adopted = _run(
        capsys, "db", "adopt", "--db", url, "--through", str(head.position),
        "--reason", "a stop written before the tags; checked", "--key-file", "security.key",
    )  # fmt: skip
    assert adopted[0] == 0, adopted[2]
    status, _out, err = _run(capsys, "db", "verify", "--db", url)
    assert status == 0, err


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


def _token(path: str) -> str:
    return Path(path).read_text().strip()


def test_after_a_rotation_the_new_key_serves_and_the_old_one_is_refused(
    url: str, capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``paigow keys signing rotate`` says to set PAIGOW_SIGNING_KEY to the new key and restart:
    that start works; a command still run with the old key is refused naming the new one."""
    assert _run(capsys, "keys", "signing", "create", "--out", "old.pem")[0] == 0
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(tmp_path / "old.pem"))
    assert _run(capsys, "db", "upgrade", "--db", url)[0] == 0
    made = _run(capsys, "keys", "create", "--role", "security", "--out", "sec.key", "--db", url)
    assert made[0] == 0, made[2]
    status, out, err = _run(
        capsys,
        "keys",
        "signing",
        "rotate",
        "--db",
        url,
        "--out",
        "new.pem",
        "--key-file",
        "sec.key",
    )
    assert status == 0, err
    new_key = json.loads(out)["new_key_id"]
    floor = ("keys", "create", "--role", "floor", "--out", "floor.key", "--db", url)
    line = _refused(capsys, *floor, "--key-file", "sec.key")
    assert f"its log is signed by key {new_key}; set PAIGOW_SIGNING_KEY" in line
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(tmp_path / "new.pem"))
    with serving(url, tmp_path, dict(os.environ)) as served:
        ready = httpx.get(f"{served.base}/ready").json()
        assert ready["checks"]["signing_key"] is True, ready
    status, _out, err = _run(capsys, *floor, "--key-file", "sec.key")
    assert status == 0, err


def test_a_database_bricked_by_older_code_is_named_and_adopted_as_the_bootstrap(
    url: str, capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The database older releases left: ``keys create`` run with no signing key wrote the first
    key's creation unsealed and untagged. With the key set afterwards, ``db verify`` fails naming
    ``db adopt``; the server refuses, and the key's 401 says why and what to run; the adoption,
    as the bootstrap (the store has no API key the log vouches for yet), makes the key work."""
    from service_layer.operators.keys import KeyStore, key_store_for
    from table_core.ports import Actor

    shown = _shown(url)
    assert _run(capsys, "db", "upgrade", "--db", url)[0] == 0
    if url.startswith("sqlite"):  # its key went to a vault: the file has none beside it
        (tmp_path / "casino.db.signing-key").unlink()
        (tmp_path / "casino.db.signing-key.pub").unlink()
    with monkeypatch.context() as older:  # what code older than the refusal wrote
        sealed = SystemStream.append
        older.setattr(
            SystemStream, "append", lambda s, e, checkpoint=True: sealed(s, e, checkpoint=False)
        )
        older.setattr(KeyStore, "_need_signer", lambda self: None)
        store = open_store(url, create=False)
        store.need_key_to_append = lambda: None  # type: ignore[method-assign]
        try:
            _, token = key_store_for(store).create(
                "sec-1", "security", _now(), by=Actor("cli:ops", "bootstrap")
            )
        finally:
            store.close()
    (tmp_path / "security.key").write_text(token + "\n")
    (tmp_path / "security.key").chmod(0o600)
    assert _run(capsys, "keys", "signing", "create", "--out", "casino.pem")[0] == 0
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(tmp_path / "casino.pem"))

    status, _out, err = _run(capsys, "db", "verify", "--db", url)
    assert status == 1 and f"`paigow db adopt --db {shown}` lists them" in err, err
    with serving(url, tmp_path, dict(os.environ)) as served:
        refused = httpx.get(f"{served.base}/tables", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401, refused.text
    message = refused.json()["message"]
    assert message.startswith("this API key is not one the log vouches for: commands are ")
    listed = _follow(capsys, monkeypatch, message)
    assert [json.loads(x)["position"] for x in listed[0][1].splitlines()] == [1]
    status, _out, err = _run(
        capsys, "db", "adopt", "--db", url, "--through", "1", "--reason", "keys create ran "
        "before the signing key existed; checked with audit verify",
    )  # fmt: skip
    assert status == 0, err
    made = _run(
        capsys, "keys", "create", "--role", "floor", "--out", "floor.key", "--db", url,
        "--key-file", "security.key",
    )  # fmt: skip
    assert made[0] == 0, made[2]
    assert _run(capsys, "db", "verify", "--db", url)[0] == 0
