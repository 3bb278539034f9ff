"""Least privilege on PostgreSQL (issue 17, migration 0008): ``paigow serve``, ``simulate``,
``report`` and ``audit verify`` run as the service role (log in as it: SELECT and INSERT on the
audit trail), a full round goes through over HTTP, and every statement an insider with that login
would use to change history is refused by the server itself."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from service_layer.operators.keys import key_store_for
from tests.e2e.conftest import PAIGOW
from tests.e2e.serving import serving
from tests.integration.conftest import pg_database, pg_url_empty  # noqa: F401 (fixtures)

TABLE = "PG-R"

#: What an insider with the service's login tries, and the server's refusal of each.
FORBIDDEN = [
    ("UPDATE events SET payload = payload", "permission denied for table events"),
    ("DELETE FROM events", "permission denied for table events"),
    ("TRUNCATE events", "permission denied for table events"),
    ("UPDATE event_log SET hash = hash", "permission denied for table event_log"),
    ("DELETE FROM event_log", "permission denied for table event_log"),
    ("DELETE FROM checkpoints", "permission denied for table checkpoints"),
    ("UPDATE checkpoints SET signature = signature", "permission denied for table checkpoints"),
    ("TRUNCATE checkpoints", "permission denied for table checkpoints"),
    ("DELETE FROM commands", "permission denied for table commands"),
    ("DELETE FROM sequencer_queue", "permission denied for table sequencer_queue"),
    ("DROP TRIGGER checkpoints_append_only ON checkpoints", "must be owner of relation"),
    ("ALTER TABLE events DISABLE TRIGGER ALL", "must be owner of table events"),
    ("ALTER TABLE checkpoints DISABLE TRIGGER checkpoints_append_only", "must be owner of table"),
    ("DROP TABLE checkpoints", "must be owner of table checkpoints"),
    (
        "CREATE OR REPLACE FUNCTION paigow_append_only() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN NEW; END $$",
        "permission denied for schema",  # no CREATE in the schema: not even a replacement
    ),
    ("SET session_replication_role = replica", "permission denied to set parameter"),
    (
        "INSERT INTO api_keys (key_hash, key_id, actor_id, role, created_at) "
        "VALUES ('x', 'x', 'me', 'floor', 'now')",
        "permission denied for table api_keys",
    ),
    ("UPDATE api_keys SET revoked_at = NULL", "permission denied for table api_keys"),
    ("UPDATE alembic_version SET version_num = '0001_event_store'", "permission denied"),
]


def _as_service(url: str) -> str:
    return (
        make_url(url)
        .set(username=os.environ["PAIGOW_PG_SERVICE_ROLE"])
        .render_as_string(hide_password=False)
    )


def _play_a_round(base: str, tokens: dict[str, str]) -> None:
    numbers = iter(range(1, 100))

    def post(role: str, path: str, body: dict | None = None) -> None:
        key = f"roles-{next(numbers)}"
        headers = {"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": key}
        response = httpx.post(f"{base}/tables/{TABLE}{path}", json=body, headers=headers)
        assert response.status_code == 200, response.text

    post("floor", "/open", {})
    post("dealer", "/seat", {"seat": 1, "player_id": "ana"})
    post("cage", "/buy-in", {"player_id": "ana", "amount": 20_000})
    post("dealer", "/round/start")
    post("dealer", "/round/bet", {"player_id": "ana", "amount": 2_000})
    for path in ("/round/close-bets", "/round/deal", "/round/dice"):
        post("dealer", path)
    post("dealer", "/round/hand", {"player_id": "ana"})
    for path in ("/round/banker-hand", "/round/settle", "/round/close"):
        post("dealer", path)


def test_the_service_role_plays_and_cannot_change_history(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    database = request.getfixturevalue("pg_url_empty")
    # As the migrating superuser: creates the roles, hands over the schema.
    migrate.upgrade(database, load_settings().pg_roles())
    key_file = tmp_path / "signing.pem"
    key_file.write_bytes(Signer.generate().private_pem())
    key_file.chmod(0o600)  # a key its group or others can read is refused (issue 17)
    env = {**os.environ, "PAIGOW_LOG_FORMAT": "json", "PAIGOW_SIGNING_KEY": str(key_file)}
    service_url = _as_service(database)
    # A simulation first, as the service role: it plays only into a store with no operator key.
    simulated = subprocess.run(
        [str(PAIGOW), "simulate", "--rounds", "3", "--seed", "5", "--quiet", "--db", service_url],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert simulated.returncode == 0, simulated.stderr
    admin = open_store(database, signing_key=str(key_file))
    try:  # keys are the owner's business (the service may only read them)
        keys = key_store_for(admin)
        now = datetime.now(UTC)
        tokens = {r: keys.create(f"{r}-1", r, now)[1] for r in ("dealer", "floor", "cage")}
    finally:
        admin.close()
    with serving(service_url, tmp_path, env, timeout=60) as served:
        _play_a_round(served.base, tokens)
    log = served.log
    assert '"event": "service_stopped"' in log.read_text()  # written as the service role too
    for args in (
        ("report", "--format", "json"),
        ("audit", "verify"),
    ):
        done = subprocess.run(
            [str(PAIGOW), *args, "--db", service_url],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, (args, done.stderr)

    url = make_url(service_url)
    options = url.query["options"]
    assert isinstance(options, str)
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname=url.database, options=options
    ) as insider:
        insider.autocommit = True
        assert insider.execute("SELECT count(*) FROM events").fetchone()[0] > 20  # type: ignore[index]
        assert insider.execute("SELECT current_user").fetchone()[0] == url.username  # type: ignore[index]
        for statement, refusal in FORBIDDEN:
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match=refusal):
                insider.execute(statement)
        superuser = insider.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        assert superuser.fetchone() == (False,)
