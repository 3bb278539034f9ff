"""R5/R19 over HTTP: the floor authorises a release's code by its digest, with a reason (201,
recorded on the system stream); another role is 403, an empty reason or a version label 422; a
refusal writes nothing (the running code's 409: tests/integration/service/test_software_version.py).
"""

from __future__ import annotations

from typing import Any

from eventlog.system_events import SYSTEM_STREAM
from tests.integration.http.conftest import Api

PATH = "/service/software-versions"
DIGEST = "9c" * 32


def _as(api: Api, role: str, body: Any) -> Any:
    headers = {"Authorization": f"Bearer {api.tokens[role]}"}
    return api.client.post(PATH, json=body, headers=headers)


def test_the_floor_authorises_a_digest_and_nobody_else_does(api: Api) -> None:
    store = api.service.store
    before = store.stream_version(SYSTEM_STREAM)
    for role in ("dealer", "cage", "auditor", "count"):
        assert _as(api, role, {"digest": DIGEST, "reason": "x"}).status_code == 403
    empty = _as(api, "floor", {"digest": DIGEST, "reason": "  "})
    assert (empty.status_code, empty.json()["error"]) == (422, "invalid_request")
    assert empty.json()["message"] == "a software version's authorisation needs a reason"
    label = _as(api, "floor", {"version": "9.0", "reason": "CHG-7"})
    assert (label.status_code, label.json()["error"]) == (422, "invalid_request")
    assert label.json()["message"].startswith(
        "a software version is authorised by its code's digest (64 hex digits), not '9.0': "
        "`paigow service identity --from DIR`"
    )
    two = _as(api, "floor", {"version": "ab" * 32, "digest": DIGEST, "reason": "CHG-7"})
    assert (two.status_code, two.json()["message"]) == (
        422,
        "`digest` and `version` name different code: give the digest once",
    )
    assert store.stream_version(SYSTEM_STREAM) == before
    granted = _as(api, "floor", {"digest": DIGEST, "reason": "CHG-7: new pay table screen"})
    assert granted.status_code == 201, granted.text
    record = granted.json()
    assert (record["digest"], record["version"], record["reason"]) == (
        DIGEST,
        DIGEST,
        "CHG-7: new pay table screen",
    )
    assert record["authorised_by"] == {"id": "floor-1", "role": "floor"}
    (event,) = store.read_stream(SYSTEM_STREAM, before)
    assert (event.type, event.position) == ("software_version_authorised", record["position"])
    assert event.payload["digest"] == DIGEST


def test_a_digest_given_as_the_version_key_is_read_as_the_digest(api: Api) -> None:
    """The body's ``version`` key, as clients sent it before digests, still names the code."""
    granted = _as(api, "floor", {"version": DIGEST.upper(), "reason": "CHG-8"})
    assert granted.status_code == 201, granted.text
    assert granted.json()["digest"] == DIGEST
