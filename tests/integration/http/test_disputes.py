"""Disputes over HTTP (R17): the floor and the auditor only; a refusal writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audit.bundle import open_bundle
from audit.verify import verify_log
from eventlog.keys import key_id
from eventlog.system_events import SYSTEM_STREAM
from tests.integration.http.conftest import TABLE, Api
from tests.integration.http.test_queries import play_the_live_round


def _as(api: Api, role: str, method: str, path: str, body: Any = None) -> Any:
    headers = {"Authorization": f"Bearer {api.tokens[role]}"}
    return api.client.request(method, path, json=body, headers=headers)


def test_the_floor_opens_and_the_auditor_closes_a_dispute(api: Api) -> None:
    play_the_live_round(api)
    body = {"table_id": TABLE, "rounds": [1], "reason": "ana says the dice read 9",
            "player": "ana", "surveillance": ["CAM-12 21:04"]}  # fmt: skip
    opened = _as(api, "floor", "POST", "/disputes", body)
    assert opened.status_code == 201, opened.text
    record = opened.json()
    assert (record["status"], record["rounds"], record["player"]) == ("open", [1], "ana")
    assert record["opened_by"] == {"id": "floor-1", "role": "floor"}
    dispute = record["dispute_id"]
    assert _as(api, "auditor", "GET", "/disputes").json() == [record]
    closed = _as(api, "auditor", "POST", f"/disputes/{dispute}/close", {"outcome": "dice upheld"})
    assert closed.status_code == 200, closed.text
    assert (closed.json()["status"], closed.json()["outcome"]) == ("closed", "dice upheld")
    assert closed.json()["closed_by"] == {"id": "auditor-1", "role": "auditor"}
    again = _as(api, "floor", "POST", f"/disputes/{dispute}/close", {"outcome": "again"})
    assert (again.status_code, again.json()["error"]) == (409, "conflict")
    types = [e.type for e in api.service.store.read_stream(SYSTEM_STREAM)]
    assert types.count("dispute_opened") == 1 and types.count("dispute_closed") == 1


def test_only_the_floor_and_the_auditor_handle_disputes(api: Api) -> None:
    play_the_live_round(api)
    body = {"table_id": TABLE, "rounds": [1], "reason": "r"}
    for role in ("dealer", "cage"):
        assert _as(api, role, "POST", "/disputes", body).status_code == 403
        assert _as(api, role, "GET", "/disputes").status_code == 403


def test_bad_disputes_are_refused_and_nothing_is_written(api: Api) -> None:
    play_the_live_round(api)
    before = api.service.store.stream_version(SYSTEM_STREAM)
    cases = [
        ({"table_id": TABLE, "rounds": [2], "reason": "r"}, "has no round 2: it played round 1"),
        ({"table_id": TABLE, "rounds": [1], "reason": "  "}, "needs a reason"),
        ({"table_id": "PG-9", "rounds": [1], "reason": "r"}, "no table PG-9"),
        ({"table_id": TABLE, "reason": "r"}, "names its rounds or a time range"),
    ]
    for body, words in cases:
        answer = _as(api, "floor", "POST", "/disputes", body)
        assert answer.status_code == 422, answer.text
        assert words in answer.json()["message"]
    assert _as(api, "floor", "GET", "/disputes/D-00000000").status_code == 404
    assert api.service.store.stream_version(SYSTEM_STREAM) == before


def test_the_bundle_over_http_is_sealed_and_verifies(
    sql_api: Api, db_url: str, tmp_path: Path
) -> None:
    """``GET /disputes/{id}/bundle`` on SQLite and PostgreSQL: sealed by the server's key, its
    dispute's events in it; verified with that key, and its reason edited is named (R17)."""
    api = sql_api
    api.client.app.state.audit_url = db_url  # type: ignore[attr-defined]  # as `paigow serve`
    play_the_live_round(api)
    body = {"table_id": TABLE, "rounds": [1], "reason": "ana says the dice read 9"}
    dispute = _as(api, "floor", "POST", "/disputes", body).json()["dispute_id"]
    _as(api, "auditor", "POST", f"/disputes/{dispute}/close", {"outcome": "dice upheld"})
    answer = _as(api, "auditor", "GET", f"/disputes/{dispute}/bundle")
    assert answer.status_code == 200, answer.text
    path = tmp_path / "dispute.jsonl"
    path.write_text(answer.text)
    manifest = json.loads(answer.text.splitlines()[0])["manifest"]
    key = api.service.store.public_key
    assert manifest["seal"]["key_id"] == key_id(key)
    assert (manifest["dispute"]["status"], manifest["dispute"]["outcome"]) == (
        "closed",
        "dice upheld",
    )
    kinds = [json.loads(line).get("event", {}).get("type") for line in answer.text.splitlines()]
    assert kinds.count("dispute_opened") == kinds.count("dispute_closed") == 1
    assert _verified(path, key).ok
    manifest["dispute"]["reason"] = "ana was paid"
    lines = answer.text.splitlines(keepends=True)
    path.write_text(json.dumps({"manifest": manifest}) + "\n" + "".join(lines[1:]))
    assert {f.clause for f in _verified(path, key).findings} == {"bundle.dispute", "bundle.seal"}


def _verified(path: Path, key: bytes) -> Any:
    source = open_bundle(path)
    source.public_key = key
    try:
        return verify_log(source)
    finally:
        source.close()
