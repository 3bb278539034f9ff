"""A command's answer is written as JSON directly (``route_spec.command_body``), not through the
``CommandResponse`` model: the two must say exactly the same thing on real answers."""

from __future__ import annotations

import orjson

from entrypoints.http.route_spec import command_body
from entrypoints.http.views import command_response
from tests.integration.http.conftest import TABLE, Api


def test_the_direct_answer_equals_the_documented_model_for_a_whole_round(api: Api) -> None:
    api.ok("floor", "/open", {"rules": {"side_bets": {"offered": ["fortune"]}}})
    api.ok("dealer", "/seat", {"seat": 2, "player_id": "ana"})
    api.ok("cage", "/buy-in", {"player_id": "ana", "amount": 100_000})
    for path, body in (
        ("/round/start", None),
        ("/round/bet", {"player_id": "ana", "amount": 2_500}),
        ("/round/side-bet", {"player_id": "ana", "bet": "fortune", "amount": 500}),
        ("/round/close-bets", None),
        ("/round/deal", None),
        ("/round/dice", None),
        ("/round/hand", {"player_id": "ana"}),
        ("/round/banker-hand", None),
        ("/round/settle", None),
        ("/round/close", None),
    ):
        api.ok("dealer", path, body)
    records = api.service.store.read_stream(TABLE)
    # Every event of the round, one answer per event and one for the whole stream.
    for chunk in [records, *([r] for r in records)]:
        direct = orjson.loads(command_body(TABLE, "k-1", chunk))
        documented = command_response(TABLE, "k-1", chunk).model_dump(mode="json")
        assert direct == documented
        assert list(direct) == list(documented)  # the same key order, as the model's
    assert orjson.loads(command_body(TABLE, "k-2", [])) == {
        "table_id": TABLE,
        "command_id": "k-2",
        "version": 0,
        "events": [],
    }
