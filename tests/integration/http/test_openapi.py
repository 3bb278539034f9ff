"""The OpenAPI document: served at /openapi.json and kept in docs/openapi.json (regenerate with
``paigow serve --write-openapi docs/openapi.json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from entrypoints.http.app import openapi_text, write_openapi
from table_core.ports import StoreError
from tests.integration.http.conftest import Api

DOC = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"


def test_docs_openapi_json_is_the_served_document(api: Api) -> None:
    app = api.client.app
    assert DOC.read_text(encoding="utf-8") == openapi_text(app), (  # type: ignore[arg-type]
        "docs/openapi.json is stale: run `paigow serve --write-openapi docs/openapi.json`"
    )


def test_the_document_replaces_only_an_earlier_document(api: Api, tmp_path: Path) -> None:
    app = api.client.app
    database = tmp_path / "casino.db"
    database.write_bytes(b"SQLite format 3\x00")  # a typo naming the database
    with pytest.raises(StoreError, match=r"casino\.db exists and is no OpenAPI document"):
        write_openapi(app, database)  # type: ignore[arg-type]
    assert database.read_bytes() == b"SQLite format 3\x00"
    earlier = tmp_path / "openapi.json"
    earlier.write_text('{"openapi": "3.1.0"}')
    write_openapi(app, earlier)  # type: ignore[arg-type]
    assert earlier.read_text(encoding="utf-8") == openapi_text(app)  # type: ignore[arg-type]


def test_every_command_documents_its_key_header_and_errors(api: Api) -> None:
    document = json.loads(DOC.read_text(encoding="utf-8"))
    commands = [
        op
        for path, item in document["paths"].items()
        for m, op in item.items()
        if m == "post" and path.startswith("/tables/")
    ]
    assert len(commands) == 34  # 21 + six books commands (issue 18) + seven deck custody (R20)
    for operation in commands:
        headers = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
        assert headers == ["Idempotency-Key"], operation["operationId"]
        assert {"200", "401", "403", "409", "422"} <= set(operation["responses"])
        assert operation["security"] == [{"ApiKey": []}]


def test_the_description_names_every_role_and_no_issue_number() -> None:
    """``/docs`` shows the document's description: each role of the rights matrix is named in
    it, and nothing in the document cites the project's issue tracker."""
    from service_layer.operators.rights import ROLES

    text = DOC.read_text(encoding="utf-8")
    description = json.loads(text)["info"]["description"]
    for role in ROLES:
        assert f"`{role}`" in description, role
    assert not re.search(r"\bissue \d", text)
    assert "integer cents" in description
