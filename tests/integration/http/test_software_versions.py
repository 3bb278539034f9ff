"""R5/R19 over HTTP: the floor authorises a software version with a reason (201, recorded on the
system stream); another role is 403, an empty reason 422; a refusal writes nothing (the running
version's 409: tests/integration/service/test_software_version.py)."""

from __future__ import annotations

from typing import Any

from eventlog.system_events import SYSTEM_STREAM
from tests.integration.http.conftest import Api

PATH = "/service/software-versions"


def _as(api: Api, role: str, body: Any) -> Any:
    headers = {"Authorization": f"Bearer {api.tokens[role]}"}
    return api.client.post(PATH, json=body, headers=headers)


def test_the_floor_authorises_a_version_and_nobody_else_does(api: Api) -> None:
    store = api.service.store
    before = store.stream_version(SYSTEM_STREAM)
    for role in ("dealer", "cage", "auditor", "count"):
        assert _as(api, role, {"version": "9.0", "reason": "x"}).status_code == 403
    empty = _as(api, "floor", {"version": "9.0", "reason": "  "})
    assert (empty.status_code, empty.json()["error"]) == (422, "invalid_request")
    assert empty.json()["message"] == "a software version's authorisation needs a reason"
    assert store.stream_version(SYSTEM_STREAM) == before
    granted = _as(api, "floor", {"version": "9.0", "reason": "CHG-7: new pay table screen"})
    assert granted.status_code == 201, granted.text
    record = granted.json()
    assert (record["version"], record["reason"]) == ("9.0", "CHG-7: new pay table screen")
    assert record["authorised_by"] == {"id": "floor-1", "role": "floor"}
    (event,) = store.read_stream(SYSTEM_STREAM, before)
    assert (event.type, event.position) == ("software_version_authorised", record["position"])
