"""A store that cannot sign is not ready (issue 19), end to end with ``paigow`` as installed.

The PostgreSQL key trap: after ``paigow db upgrade`` and the API keys, ``paigow serve`` and
``paigow simulate`` with no signing key refuse to start with one line naming the key the log is
signed by and how to give it (exit 2);
``paigow serve --read-only`` starts, refuses every command (503 ``read_only``) and answers
queries; with the key, a round plays through to ``/round/close`` (200), ``/ready`` is 200,
``/metrics`` names every metric, and the access log holds a line per request and no token."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.store import open_store
from adapters.store.signing import Signer
from service_layer.operators.keys import key_store_for
from tests.e2e.conftest import PAIGOW, Run
from tests.e2e.serving import free_port, serving
from tests.integration.conftest import pg_database, pg_url_empty  # noqa: F401 (fixtures)

TABLE = "PG-3"
METRICS = (
    "paigow_http_requests_total",
    "paigow_http_request_duration_seconds_bucket",
    "paigow_commands_refused_total",
    "paigow_rounds_settled_total",
    "paigow_store_append_seconds_bucket",
    "paigow_checkpoint_age_seconds",
    "paigow_verification_ok",
    "paigow_read_only",
    "paigow_ready",
)


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PAIGOW_SIGNING_KEY"}
    return {**env, "PAIGOW_LOG_FORMAT": "json", **extra}


def one_line_refusal(result: subprocess.CompletedProcess[str], url: str, signed_by: str) -> str:
    """The refusal of a store whose log ``signed_by`` signs: one line naming that key and how to
    give it (a new key would not be the store's)."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f" {url}: its log is signed by key {signed_by}; set PAIGOW_SIGNING_KEY" in lines[0]
    assert "`paigow keys signing show --key FILE` prints a file's key id" in lines[0]
    assert "Traceback" not in result.stderr
    return lines[0]


def play_a_round(base: str, tokens: dict[str, str]) -> dict[str, Any]:
    keys = iter(range(1, 100))

    def post(role: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": f"k-{next(keys)}"}
        response = httpx.post(f"{base}/tables/{TABLE}{path}", json=body, headers=headers)
        assert response.status_code == 200, (path, response.text)
        answer: dict[str, Any] = response.json()
        return answer

    post("floor", "/open", {})
    post("dealer", "/seat", {"seat": 1, "player_id": "ana"})
    post("cage", "/buy-in", {"player_id": "ana", "amount": 20_000})
    post("dealer", "/round/start")
    post("dealer", "/round/bet", {"player_id": "ana", "amount": 2_000})
    post("dealer", "/round/close-bets")
    post("dealer", "/round/deal")
    post("dealer", "/round/dice")
    post("dealer", "/round/hand", {"player_id": "ana"})
    post("dealer", "/round/banker-hand")
    post("dealer", "/round/settle")
    return post("dealer", "/round/close")


def test_the_postgresql_key_trap(
    pg_url_empty: str,  # noqa: F811
    tmp_path: Path,
    paigow: Run,
) -> None:
    pg_url = pg_url_empty  # an empty schema: `paigow db upgrade` migrates it for real
    upgraded = paigow("db", "upgrade", "--db", pg_url)
    assert upgraded.returncode == 0, upgraded.stderr
    # The casino's key: it seals the API keys' creations, then the server signs with it.
    signer = Signer.generate()
    key_file = tmp_path / "signing.pem"
    key_file.write_bytes(signer.private_pem())
    key_file.chmod(0o600)
    public_file = tmp_path / "signing.pub"
    public_file.write_bytes(signer.public_pem())
    store = open_store(pg_url, signing_key=signer)  # only to make the API keys
    try:
        keys = key_store_for(store)
        tokens = {
            role: keys.create(f"{role}-k", role, datetime.now(UTC))[1]
            for role in ("dealer", "floor", "cage", "auditor")
        }
        shown = store.engine.url.render_as_string(hide_password=True)
    finally:
        store.close()
    env = environment()

    # No key: neither the server nor the simulation starts; one line says what to do.
    started = subprocess.run(
        [str(PAIGOW), "serve", "--db", pg_url, "--port", str(free_port())],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    line = one_line_refusal(started, shown, signer.key_id)
    assert line.startswith("paigow: no signing key for ")
    assert line.endswith(f"; `paigow serve --read-only --db {shown}` answers queries without it")
    # The command it names, run: the key file given tells its id, the one the log needs.
    shown_key = subprocess.run(
        [str(PAIGOW), "keys", "signing", "show", "--key", str(key_file)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(shown_key.stdout)["key_id"] == signer.key_id
    simulated = subprocess.run(
        [str(PAIGOW), "simulate", "--db", pg_url, "--rounds", "1", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    one_line_refusal(simulated, shown, signer.key_id)

    # --read-only: queries are answered, every command is refused, nothing is written. Without
    # the signing key, the server checks the keys' sealed creations with the public key.
    read_only = {**env, "PAIGOW_PUBLIC_KEY": str(public_file)}
    with serving(pg_url, tmp_path, read_only, "--read-only") as served:
        base = served.base
        auth = {"Authorization": f"Bearer {tokens['floor']}", "Idempotency-Key": "ro-1"}
        refused = httpx.post(f"{base}/tables/{TABLE}/open", json={}, headers=auth)
        assert refused.status_code == 503
        assert refused.json()["error"] == "read_only"
        assert "no signing key" in refused.json()["message"]
        assert httpx.get(f"{base}/tables/{TABLE}", headers=auth).status_code == 404
        ready = httpx.get(f"{base}/ready")
        assert ready.status_code == 503 and ready.json()["checks"]["signing_key"] == (
            "no signing key"
        )
        assert "paigow_read_only 1.0" in httpx.get(f"{base}/metrics").text
    check = open_store(pg_url, signing_key=signer)
    try:  # the read-only server wrote nothing, not even its start: the keys' creations only
        assert [e.type for e in check.read_all()] == ["api_key_created"] * 4
    finally:
        check.close()

    # With the key: the round closes, the server is ready, every metric is named.
    with serving(pg_url, tmp_path, environment(PAIGOW_SIGNING_KEY=str(key_file))) as served:
        base = served.base
        closed = play_a_round(base, tokens)
        assert [e["type"] for e in closed["events"]] == ["round_closed"]
        ready = httpx.get(f"{base}/ready")
        assert ready.status_code == 200, ready.text
        late = httpx.post(
            f"{base}/tables/{TABLE}/round/bet",
            json={"player_id": "ana", "amount": 500},
            headers={"Authorization": f"Bearer {tokens['dealer']}", "Idempotency-Key": "late"},
        )
        assert late.json()["error"] == "rule_violation"  # the round is closed
        text = httpx.get(f"{base}/metrics").text
        assert 'paigow_commands_refused_total{reason="rule_violation"} 1.0' in text
        for name in METRICS:
            assert f"\n{name}" in text, name
        assert "paigow_rounds_settled_total 1.0" in text
        assert httpx.get(f"{base}/docs").status_code == 200
    log = (tmp_path / "serve.log").read_text()
    lines = [json.loads(x) for x in log.splitlines() if x.startswith("{")]
    access = [x for x in lines if x["event"] == "http_request"]
    bets = [x for x in access if x["route"] == "/tables/{table_id}/round/bet"]
    assert [(x["method"], x["status"], x["actor"], x["table_id"]) for x in bets] == [
        ("POST", 200, "dealer-k", TABLE),
        ("POST", 422, "dealer-k", TABLE),
    ]
    assert bets[1]["error"] == "rule_violation"
    for token in tokens.values():
        assert token not in log
    assert "Bearer" not in log and "authorization" not in log.lower()


def test_simulate_and_serve_refuse_a_sqlite_file_whose_key_is_gone(
    tmp_path: Path, paigow: Run
) -> None:
    first = paigow("simulate", "--db", "sqlite:///casino.db", "--rounds", "2", "--seed", "4")
    assert first.returncode == 0, first.stderr  # a new file: its key made beside it
    key_id = Signer.from_file(tmp_path / "casino.db.signing-key").key_id
    (tmp_path / "casino.db.signing-key").unlink()
    again = paigow("simulate", "--db", "sqlite:///casino.db", "--rounds", "2", "--quiet")
    one_line_refusal(again, "sqlite:///casino.db", key_id)
    served = paigow("serve", "--db", "sqlite:///casino.db", "--port", str(free_port()))
    one_line_refusal(served, "sqlite:///casino.db", key_id)


@pytest.mark.parametrize("flag", [[], ["--workers", "2"]])
def test_serve_refuses_a_key_that_did_not_sign_the_log(
    tmp_path: Path, paigow: Run, flag: list[str]
) -> None:
    first = paigow("simulate", "--db", "sqlite:///casino.db", "--rounds", "1", "--seed", "4")
    assert first.returncode == 0, first.stderr
    other = tmp_path / "other.pem"
    other.write_bytes(Signer.generate().private_pem())
    other.chmod(0o600)  # a key its group or others can read is refused before (issue 17)
    refused = subprocess.run(
        [str(PAIGOW), "serve", "--db", "sqlite:///casino.db", "--port", str(free_port()), *flag],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
        env=environment(PAIGOW_SIGNING_KEY=str(other)),
    )  # fmt: skip
    signed_by = Signer.from_file(tmp_path / "casino.db.signing-key").key_id
    line = one_line_refusal(refused, "sqlite:///casino.db", signed_by)
    assert line.startswith(f"paigow: the signing key {Signer.from_file(other).key_id} is not ")
