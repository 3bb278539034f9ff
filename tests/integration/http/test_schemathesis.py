"""schemathesis against the served OpenAPI document: no generated input gets a 5xx (issue 10).

Cases are generated for every operation from its schema (bodies, paths, queries, headers), sent
in-process to an app over the in-memory store with a table open and a round started, with the key
of a role the operation admits (so cases get past 403 and reach the core). The example count is
kept modest so CI stays fast; a 5xx here is a bug to fix, never a case to skip.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error

from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from service_layer.operators.keys import MemoryKeyStore
from service_layer.operators.rights import RIGHTS
from tests.integration.http.conftest import build_api, open_table

_STORE = InMemoryEventStore(Signer.generate())
API = build_api(_STORE, MemoryKeyStore(_STORE))
open_table(API, (2, "ana", 100_000), (3, "bo", 50_000))
API.ok("dealer", "/round/start")

schema = schemathesis.openapi.from_asgi("/openapi.json", API.client.app)


def _token_for(operation_id: str | None) -> str:
    roles = RIGHTS.get(operation_id or "", frozenset({"auditor"}))
    return API.tokens[sorted(roles)[0]]


@pytest.mark.slow  # ~20 s on two shared cores, most of it schemathesis' coverage phase
@schema.parametrize()
@settings(
    max_examples=10,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_no_generated_request_gets_a_server_error(case: Any) -> None:
    headers = {
        "Authorization": f"Bearer {_token_for(case.operation.definition.raw.get('operationId'))}"
    }
    response = case.call(headers={**(case.headers or {}), **headers})
    case.validate_response(response, checks=[not_a_server_error])
    assert response.status_code < 500, response.text
