"""R5/R19: a failed authentication is a system event (route template, client, the presented
key's would-be id, never the token), at most one per client address per minute, the failures in
between counted on the address's next event; the 401 answer and its log line are unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from entrypoints.http.auth_failures import FailureLimiter
from eventlog.system_events import SYSTEM_STREAM
from service_layer.operators.keys import presented_key_id, token_hash
from tests.integration.http.conftest import Api


class Ticks:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def failures(api: Api) -> list[dict[str, Any]]:
    store = api.service.store
    events = store.read_stream(SYSTEM_STREAM)
    return [dict(e.payload) for e in events if e.type == "authentication_failed"]


def limited(api: Api) -> Ticks:
    ticks = Ticks()
    api.client.app.state.auth_failures = FailureLimiter(60.0, ticks)  # type: ignore[attr-defined]
    return ticks


def test_failures_are_recorded_once_a_minute_per_client_with_the_count(sql_api: Api) -> None:
    ticks = limited(sql_api)
    forged = "pgw_" + "x" * 43
    for _ in range(3):
        answer = sql_api.client.post(
            "/tables/PG-1/round/deal",
            headers={"Authorization": f"Bearer {forged}", "Idempotency-Key": "k"},
        )
        assert answer.status_code == 401
    assert sql_api.client.get("/tables/PG-1").status_code == 401  # no key at all
    ticks.now += 59.9
    assert sql_api.client.get("/tables/PG-1").status_code == 401  # still within the minute
    (first,) = failures(sql_api)
    assert {k: first[k] for k in ("route", "client", "key_id", "failures")} == {
        "route": "/tables/{table_id}/round/deal",
        "client": "testclient",
        "key_id": token_hash(forged)[:12],
        "failures": 1,
    }
    ticks.now += 0.1  # a minute after the event: the next failure is recorded with the 4 before
    sql_api.client.get("/tables/PG-2", headers={"Authorization": "Bearer not-a-key"})
    second = failures(sql_api)[1]
    assert {k: second[k] for k in ("route", "key_id", "failures")} == {
        "route": "/tables/{table_id}",
        "key_id": None,  # not in a key's form: nothing of it is kept
        "failures": 5,
    }
    stored = str(sql_api.service.store.read_stream(SYSTEM_STREAM))
    assert forged not in stored and "not-a-key" not in stored
    assert sql_api.service.store.verify().ok


def test_a_known_key_is_no_failure_and_a_read_only_server_writes_nothing(api: Api) -> None:
    limited(api)
    assert api.get("auditor", "/tables/PG-1").status_code == 404  # authenticated: no table yet
    assert failures(api) == []
    api.service.read_only = "a replica"
    assert api.client.get("/tables/PG-1").status_code == 401
    assert failures(api) == []


def test_a_store_that_cannot_record_the_failure_leaves_the_401(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*_: Any) -> None:
        raise RuntimeError("store down")

    monkeypatch.setattr(api.service, "authentication_failed", down)
    answer = api.client.get("/tables/PG-1")
    assert (answer.status_code, answer.json()["error"]) == (401, "unauthorized")


def test_the_limiter_counts_per_address_and_forgets_nothing_within_the_window() -> None:
    ticks = Ticks()
    limiter = FailureLimiter(60.0, ticks)
    assert [limiter.failed("10.0.0.1"), limiter.failed("10.0.0.1")] == [1, None]
    assert limiter.failed("10.0.0.2") == 1  # another address: its own minute
    ticks.now += 60
    assert [limiter.failed("10.0.0.1"), limiter.failed("10.0.0.1")] == [2, None]
    assert presented_key_id("pgw_abc") == token_hash("pgw_abc")[:12]
    assert presented_key_id("Basic xyz") is None and presented_key_id(None) is None


def test_a_floor_sign_in_with_an_unknown_key_is_a_failure_a_known_roles_is_not(api: Api) -> None:
    from tests.integration.http.test_floor_pages import sign_in

    limited(api)
    assert sign_in(api, api.tokens["cage"]).status_code == 401  # known key, no floor pages
    assert failures(api) == []
    assert sign_in(api, "pgw_forged").status_code == 401
    (failed,) = failures(api)
    assert {k: failed[k] for k in ("route", "key_id", "failures")} == {
        "route": "/floor/signin",
        "key_id": token_hash("pgw_forged")[:12],
        "failures": 1,
    }
