"""R5/R19: an API key authenticates only as the sealed log records it. An insider with write
access to the database and no signing key makes a key row of their choosing, edits a role, revives
a revoked key, or INSERTs an ``api_key_created`` event by the published recipe: every one is
refused over HTTP and on the command line, the failure is recorded (``authentication_failed``;
``verification_failed`` for the event, with commands refused), and the audit names the forged
event's position. On SQLite and PostgreSQL, over a recorded casino session."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import structlog
from fastapi.testclient import TestClient

from adapters.settings import load_settings
from entrypoints.cli.main import main
from entrypoints.http.app import create_app
from eventlog.system_events import SYSTEM_STREAM
from service_layer.operators.keys import SqlKeyStore, key_store_for
from service_layer.service import TableService
from table_core.ports import Actor

from .conftest import Casino, _casino

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
#: The insider's own token: its hash is what they write into ``api_keys``.
FORGED = "pgw_" + "m" * 43


@pytest.fixture(autouse=True)
def _logging_kept() -> Iterator[None]:
    """Commands run in process may configure logging onto the captured stderr: put it back."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture
def keyed(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Casino]:
    """The casino's session with a security key, a floor key and a dealer key, made properly."""
    for casino in _casino(backend, 1, tmp_path, request):
        keys = SqlKeyStore(casino.store)
        security, _ = keys.create("sec-1", "security", NOW, by=Actor("cli:ops", "bootstrap"))
        by = Actor(security.actor_id, security.role)
        casino.tokens = {  # type: ignore[attr-defined]
            role: keys.create(f"{role}-1", role, NOW, by=by)[1] for role in ("floor", "dealer")
        }
        yield casino


def _insert_row(casino: Casino, token: str, actor: str, role: str) -> None:
    digest = hashlib.sha256(token.encode()).hexdigest()
    casino.forger._insert_only(
        [
            (
                "INSERT INTO api_keys (key_hash, key_id, actor_id, role, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (digest, digest[:12], actor, role, NOW.isoformat()),
            )
        ]
    )


def _update(casino: Casino, sql: str, *params: Any) -> None:
    casino.forger._insert_only([(sql, params)])  # api_keys has no append-only trigger


def _failures(casino: Casino) -> list[dict[str, Any]]:
    return [
        dict(e.payload)
        for e in casino.store.read_stream(SYSTEM_STREAM)
        if e.type == "authentication_failed"
    ]


def _http(casino: Casino) -> tuple[TestClient, TableService]:
    service = TableService(casino.store)
    keys = key_store_for(casino.store, service.note_untagged)
    return TestClient(create_app(service, keys, load_settings())), service


def _cli(
    casino: Casino, capsys: Any, key: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str]:
    """``paigow service authorise-version`` as the key in ``key``, run by the casino (its signing
    key in ``PAIGOW_SIGNING_KEY``: without it no key can be checked, nor a failure recorded)."""
    signing = key.with_name("signing.pem")
    if not signing.exists():
        signing.write_bytes(casino.store.signer.private_pem())
        signing.chmod(0o600)
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(signing))
    capsys.readouterr()
    status = main(
        [
            "service",
            "authorise-version",
            "6" * 64,
            "--reason",
            "x",
            "--db",
            casino.url,
            "--key-file",
            str(key),
        ]
    )
    return status, capsys.readouterr().err


def _key_file(tmp_path: Path, token: str) -> Path:
    path = tmp_path / "insider.key"
    path.write_text(token)
    path.chmod(0o600)
    return path


def test_an_inserted_key_row_authenticates_nothing(
    keyed: Casino, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _insert_row(keyed, FORGED, "mallory", "floor")
    keys = SqlKeyStore(keyed.store)
    assert keys.lookup(FORGED) is None
    assert [(k.key_id, k.actor_id) for k in keys.unbacked()] == [
        (hashlib.sha256(FORGED.encode()).hexdigest()[:12], "mallory")
    ]
    client, _ = _http(keyed)
    headers = {"Authorization": f"Bearer {FORGED}", "Idempotency-Key": "forged-1"}
    answer = client.post("/tables/PG-9/open", json={}, headers=headers)
    assert (answer.status_code, answer.json()["error"]) == (401, "unauthorized")
    status, err = _cli(keyed, capsys, _key_file(tmp_path, FORGED), monkeypatch)
    assert status == 2
    assert err == (
        "paigow: this API key is not one the log records (its api_keys row was written behind "
        "the store's back): refused, and recorded\n"
    )
    assert FORGED not in err
    key_id = hashlib.sha256(FORGED.encode()).hexdigest()[:12]
    assert [(f["route"], f["key_id"]) for f in _failures(keyed)] == [
        ("/tables/{table_id}/open", key_id),
        ("paigow service authorise-version", key_id),
    ]
    assert not [
        e for e in keyed.store.read_stream(SYSTEM_STREAM) if e.type == "software_version_authorised"
    ]


def test_a_role_or_a_revocation_edited_in_the_row_changes_nothing(keyed: Casino) -> None:
    tokens: dict[str, str] = keyed.tokens  # type: ignore[attr-defined]
    keys = SqlKeyStore(keyed.store)
    dealer = keys.lookup(tokens["dealer"])
    assert dealer is not None
    _update(keyed, "UPDATE api_keys SET role = ? WHERE key_id = ?", "floor", dealer.key_id)
    assert SqlKeyStore(keyed.store).lookup(tokens["dealer"]) == dealer  # the log's role
    client, _ = _http(keyed)
    headers = {"Authorization": f"Bearer {tokens['dealer']}", "Idempotency-Key": "edited-1"}
    refused = client.post("/tables/PG-9/open", json={}, headers=headers)
    assert (refused.status_code, refused.json()["error"]) == (403, "forbidden")
    floor = keys.lookup(tokens["floor"])
    assert floor is not None and keys.revoke(floor.key_id, NOW)
    _update(keyed, "UPDATE api_keys SET revoked_at = NULL WHERE key_id = ?", floor.key_id)
    revived = SqlKeyStore(keyed.store)
    assert revived.lookup(tokens["floor"]) is None
    assert revived.unbacked_row(tokens["floor"])


def test_an_inserted_key_creation_event_is_refused_and_named(
    keyed: Casino, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The insider writes ``api_key_created`` for their own token by the published recipe (no
    key, so no append tag and no seal) and its row: the key authenticates nothing, the service
    records ``verification_failed`` and refuses commands, and the audit names the position."""
    digest = hashlib.sha256(FORGED.encode()).hexdigest()
    payload = {
        "type": "api_key_created",
        "schema_version": 1,
        "at": "2026-11-28T09:30:00.000000Z",
        "actor_id": "sec-1",
        "actor_role": "security",
        "key_id": digest[:12],
        "key_actor": "mallory",
        "role": "floor",
        "key_hash": digest,
    }
    position = keyed.forger.append_forged(SYSTEM_STREAM, "api_key_created", payload)
    _insert_row(keyed, FORGED, "mallory", "floor")
    client, _ = _http(keyed)
    headers = {"Authorization": f"Bearer {FORGED}", "Idempotency-Key": "forged-2"}
    answer = client.post("/tables/PG-9/open", json={}, headers=headers)
    assert answer.status_code == 401
    tokens: dict[str, str] = keyed.tokens  # type: ignore[attr-defined]
    honest = {"Authorization": f"Bearer {tokens['floor']}", "Idempotency-Key": "honest-1"}
    refused = client.post("/tables/PG-9/open", json={}, headers=honest)  # a key made before
    assert (refused.status_code, refused.json()["error"]) == (503, "commands_refused")
    assert f"store failed verification at position {position} " in refused.json()["message"]
    failed = [
        e.payload for e in keyed.store.read_stream(SYSTEM_STREAM) if e.type == "verification_failed"
    ]
    assert [(f["position"], f["problem"]) for f in failed] == [(position, "untagged")]
    status, err = _cli(keyed, capsys, _key_file(tmp_path, FORGED), monkeypatch)
    assert status == 2 and "refused, and recorded" in err
    capsys.readouterr()
    audited = main(["audit", "verify", "--db", keyed.url, "--format", "json"])
    findings = [json.loads(line) for line in capsys.readouterr().out.splitlines()[:-1]]
    assert audited == 1
    assert position in {f["position"] for f in findings}
