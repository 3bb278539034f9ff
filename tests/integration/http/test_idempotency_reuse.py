"""An ``Idempotency-Key`` stands for ONE request (issue 17; the IETF Idempotency-Key draft, 2.7):
reused for another route, body or role it answers 422 ``idempotency_key_reused`` and writes
nothing, while the same request again still answers its first events. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
import time

from service_layer.command_runner import CommandRunner
from tests.integration.http.conftest import Api, open_table


def _refused_and_nothing_written(api: Api, response: object, before: int) -> None:
    assert response.status_code == 422, response.text  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["error"] == "idempotency_key_reused"
    assert "was used for another request" in body["message"]
    assert api.version() == before


def test_a_key_reused_for_another_route_body_or_role_is_422(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (1, "ana", 100_000), (2, "bo", 100_000))
    api.ok("dealer", "/seat", {"seat": 3, "player_id": "cy"}, key="seat-3")
    api.ok("dealer", "/round/start", key="start-1")
    first_bet = api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500}, key="bet-1")
    api.ok("dealer", "/round/close-bets", key="close-1")
    version = api.version()
    # Another route: the floor's void with the close-bets key "succeeded" and voided nothing.
    voided = api.post("floor", "/round/void", {"reason": "card exposed"}, key="close-1")
    _refused_and_nothing_written(api, voided, version)
    # The same route, another body: another amount, another player.
    other = api.post("dealer", "/round/bet", {"player_id": "ana", "amount": 5_000}, key="bet-1")
    _refused_and_nothing_written(api, other, version)
    other = api.post("dealer", "/round/bet", {"player_id": "bo", "amount": 2_500}, key="bet-1")
    _refused_and_nothing_written(api, other, version)
    # The same route and body, another role (and actor): the floor may seat players too.
    seat = api.post("floor", "/seat", {"seat": 3, "player_id": "cy"}, key="seat-3")
    _refused_and_nothing_written(api, seat, version)
    # The same body with another expected version.
    pinned = {"player_id": "ana", "amount": 2_500, "expected_version": 2}
    _refused_and_nothing_written(
        api, api.post("dealer", "/round/bet", pinned, key="bet-1"), version
    )
    # An electronic deal's key reused for the dice.
    api.ok("dealer", "/round/deal", key="deal-1")
    version = api.version()
    _refused_and_nothing_written(api, api.post("dealer", "/round/dice", key="deal-1"), version)
    # The first requests again: their first events, replayed; the round was never voided.
    again = api.post("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500}, key="bet-1")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first_bet
    pinned["expected_version"] = first_bet["events"][0]["version"] - 1
    assert api.post("dealer", "/round/bet", pinned, key="bet-1").json() == first_bet
    assert api.post("dealer", "/round/deal", key="deal-1").status_code == 200
    assert [e.type for e in api.service.store.read_stream("PG-1")].count("round_voided") == 0
    assert api.version() == version


def test_table_locks_are_held_only_while_used(api: Api) -> None:
    """A lock per table only while a command holds or waits for it: commands naming a thousand
    unknown table ids leave no lock behind (issue 17: the map grew by one per id)."""
    runner: CommandRunner = api.client.app.state.runner  # type: ignore[attr-defined]
    for number in range(1_000):
        response = api.post("dealer", "/round/start", table=f"NOPE-{number}")
        assert response.status_code == 422
    assert len(runner._locks) == 0
    # Still one command at a time per table: a second holder waits for the first.
    order: list[str] = []
    with runner.lock("PG-1"):
        holder_done = threading.Event()

        def second() -> None:
            with runner.lock("PG-1"):
                order.append("second")
            holder_done.set()

        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.05)
        assert len(runner._locks) == 1
        order.append("first")
    assert holder_done.wait(5)
    waiter.join()
    assert order == ["first", "second"] and len(runner._locks) == 0
