"""``POST /house-ways`` (issue 32): the floor installs a House Way file on a table over HTTP.

The certification itself (every hand, by suit class) is proved elsewhere
(tests/unit/house_ways/test_certify.py, tests/e2e/test_cli_house_way_install.py runs it whole);
here it is replaced by its verdict, so the route's own behaviour is fast to check: a certified
file is installed with its certificate's digest, one that does not certify is 422 ``R-HW-5`` with
its failures, a file that cannot be read 422 with its line, and nothing is written when refused.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from adapters.house_way_files import built_in_text
from service_layer import house_way_install
from service_layer.house_way_certificates import Certificate
from table_core.house_ways.spec import house_way_from_text
from table_core.table.house_way_install import text_digest
from tests.integration.http.conftest import TABLE, Api, open_table
from tests.integration.http.test_floor_pages import play, sign_in


def riverside() -> str:
    text = built_in_text("es").replace('name = "es"', 'name = "riverside"')
    return text.replace('id = "es.', 'id = "riverside.')


def verdict(certified: bool) -> Certificate:
    failures = {} if certified else {"split_fouls": 1_234}
    examples = {} if certified else {"split_fouls": ["As Ad 7c 7h Kd 9s 2c: riverside.x fouls"]}
    return Certificate(
        {
            "format": "paigow-house-way-certificate/1",
            "house_way": "riverside",
            "certified": certified,
            "failures": failures,
            "failure_examples": examples,
        }
    )


@pytest.fixture
def certified(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The certification's verdict, as the test sets it (``certified[0]``)."""
    answer = [True]

    def certify(source: Any, jobs: int = 1, report: Any = None) -> Certificate:
        return verdict(answer[0])

    monkeypatch.setattr(house_way_install, "certify", certify)
    monkeypatch.setattr(house_way_install, "_CERTIFIED", {})
    return answer


def install(api: Api, role: str, text: str, reason: str = "new sign posted") -> Any:
    body = {"table_id": TABLE, "text": text, "reason": reason}
    return api.client.post("/house-ways", json=body, headers=api.headers(role))


def test_the_floor_installs_a_certified_file(api: Api, certified: list[bool]) -> None:
    open_table(api, (2, "ana", 100_000))
    text = riverside()
    response = install(api, "floor", text)
    assert response.status_code == 200, response.text
    events = response.json()["events"]
    assert [e["type"] for e in events] == ["house_way_installed", "rules_changed"]
    state = api.get("floor", f"/tables/{TABLE}").json()
    assert state["rules"]["hand"]["house_way"] == "riverside"
    assert state["rules"]["hand"]["house_way_digest"] == text_digest(text)


def test_a_file_that_does_not_certify_or_cannot_be_read_is_refused(
    api: Api, certified: list[bool]
) -> None:
    open_table(api)
    version = api.version()
    certified[0] = False
    refused = install(api, "floor", riverside())
    assert refused.status_code == 422
    assert refused.json()["rule"] == "R-HW-5"
    assert refused.json()["message"].startswith(
        "House Way riverside does not certify (split_fouls 1,234 hands), e.g. As Ad 7c 7h"
    )
    bad = install(api, "floor", 'name = "riverside"\n[[no_such_family]]\n')
    assert bad.status_code == 422 and "line 2" in bad.json()["message"]
    assert install(api, "dealer", riverside()).status_code == 403
    assert api.version() == version


def test_the_floor_sees_the_file_and_the_recall_its_clauses(
    sql_api: Api, certified: list[bool]
) -> None:
    api = sql_api
    open_table(api, (1, "ana", 50_000), (4, "bo", 50_000))
    text = riverside()
    assert install(api, "floor", text).status_code == 200
    play(api, 2)
    assert sign_in(api, api.tokens["floor"]).status_code == 303
    pit = api.client.get("/floor/pit").text
    row = re.search(rf'<tr data-table="{TABLE}">(.*?)</tr>', pit, re.S)
    assert row is not None
    cell = re.search(r'data-k="house_way_file">(.*?)</td>', row.group(1), re.S)
    assert cell is not None and f"{text_digest(text)[:12]}…</code> certified" in cell.group(1)
    recall = api.client.get(f"/floor/tables/{TABLE}/rounds/1").text
    rule = re.search(r"<code>(riverside\.[a-z_]+\.[a-z_0-9]+)</code>", recall)
    assert rule is not None  # the banker's hand, set by the installed file
    words = house_way_from_text(text).clauses[rule.group(1)]
    assert f'<span class="clause">{html.escape(words)}</span>' in recall
