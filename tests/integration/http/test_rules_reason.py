"""R5/R19: a change of the rules profile (config, pay tables, House Way: ``ChangeRules``) needs the
floor role and a reason, recorded on the table's ``rules_changed`` and on the system stream's
``rules_profile_changed``; an empty reason is 422 and writes nothing, another role 403."""

from __future__ import annotations

import pytest

from eventlog.system_events import SYSTEM_STREAM
from tests.integration.http.conftest import TABLE, Api

NEW_SIGN = {"version": 2, "hand": {"foul_policy": "forfeit"}}


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_empty_reason_is_422_and_nothing_is_written(sql_api: Api, reason: str) -> None:
    sql_api.ok("floor", "/open", {})
    before = sql_api.version()
    answer = sql_api.post("floor", "/rules", {"rules": NEW_SIGN, "reason": reason})
    assert (answer.status_code, answer.json()["error"]) == (422, "invalid_request")
    assert sql_api.version() == before
    kinds = [e.type for e in sql_api.service.store.read_stream(SYSTEM_STREAM)]
    assert "rules_profile_changed" not in kinds


def test_the_reason_and_the_floor_are_on_both_streams(sql_api: Api) -> None:
    sql_api.ok("floor", "/open", {})
    denied = sql_api.post("dealer", "/rules", {"rules": NEW_SIGN, "reason": "new sign"})
    assert denied.status_code == 403
    sql_api.ok("floor", "/rules", {"rules": NEW_SIGN, "reason": "new sign posted"})
    store = sql_api.service.store
    (changed,) = [e for e in store.read_stream(TABLE) if e.type == "rules_changed"]
    (noted,) = [e for e in store.read_stream(SYSTEM_STREAM) if e.type == "rules_profile_changed"]
    assert changed.payload["reason"] == noted.payload["reason"] == "new sign posted"
    assert (noted.payload["actor_id"], noted.payload["actor_role"]) == ("floor-1", "floor")
    assert noted.payload["profile_version"] == 2
    assert store.verify().ok
