"""Two dealers racing on one table (issue 10): one wins, the other gets 409 with the current
version, and nothing is lost: the loser decides again on the new version and both bets stand.
Over real HTTP (a uvicorn server on loopback), on SQLite and PostgreSQL; then two servers on one
database, where the store's version check decides the race."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from tests.integration.http.conftest import START, TABLE, Api, build_api, open_table, served

PLAYERS = ((1, "ana", 100_000), (2, "bo", 100_000), (3, "cy", 100_000), (4, "di", 100_000))


def race(calls: list[tuple[str, str, dict[str, Any], dict[str, str]]]) -> list[httpx.Response]:
    """Send every call at once (a barrier releases the threads together)."""
    barrier = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def send(i: int) -> None:
        base, path, body, headers = calls[i]
        with httpx.Client(base_url=base, timeout=30) as client:
            barrier.wait()
            answers[i] = client.post(path, json=body, headers=headers)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def _bets(api: Api) -> dict[str, int]:
    state = api.get("auditor", f"/tables/{TABLE}").json()
    return {w["player_id"]: w["amount"] for w in state["round"]["wagers"]}


def _second_dealer(api: Api) -> str:
    return api.keys.create("dealer-2", "dealer", START)[1]


def test_two_dealers_racing_one_wins_one_gets_409_and_nothing_is_lost(sql_api: Api) -> None:
    api = sql_api
    open_table(api, *PLAYERS)
    other = _second_dealer(api)
    with served(api.client.app) as base:
        for n, (one, two) in enumerate([("ana", "bo"), ("cy", "di")], start=1):
            if n == 1:
                api.ok("dealer", "/round/start")
            version = api.version()
            path = f"/tables/{TABLE}/round/bet"
            answers = race(
                [
                    (
                        base,
                        path,
                        {"player_id": one, "amount": 1_000, "expected_version": version},
                        {
                            "Authorization": f"Bearer {api.tokens['dealer']}",
                            "Idempotency-Key": f"d1-{n}",
                        },
                    ),
                    (
                        base,
                        path,
                        {"player_id": two, "amount": 2_000, "expected_version": version},
                        {"Authorization": f"Bearer {other}", "Idempotency-Key": f"d2-{n}"},
                    ),
                ]
            )
            assert sorted(a.status_code for a in answers) == [200, 409]
            lost = next(a for a in answers if a.status_code == 409).json()
            assert (lost["current_version"], lost["expected_version"]) == (version + 1, version)
            assert api.version() == version + 1  # only the winner wrote
            loser = 0 if answers[0].status_code == 409 else 1
            player = (one, two)[loser]
            retry = api.post(
                "dealer",
                "/round/bet",
                {
                    "player_id": player,
                    "amount": (1_000, 2_000)[loser],
                    "expected_version": version + 1,
                },
            )
            assert retry.status_code == 200
    assert _bets(api) == {"ana": 1_000, "bo": 2_000, "cy": 1_000, "di": 2_000}
    types = [e.type for e in api.service.store.read_stream(TABLE)]
    assert types.count("bet_placed") == 4


def test_two_servers_on_one_database_the_store_decides_the_race(db_url: str) -> None:
    from adapters.store import open_store
    from adapters.store.signing import Signer
    from service_layer.operators.keys import key_store_for

    key = Signer.generate()
    first_store = open_store(db_url, signing_key=key)
    second_store = open_store(db_url, signing_key=key)
    try:
        one = build_api(first_store, key_store_for(first_store))
        two = build_api(second_store, key_store_for(second_store), prefix="two")
        open_table(one, *PLAYERS)
        one.ok("dealer", "/round/start")
        version = one.version()
        assert two.get("dealer", f"/tables/{TABLE}").json()["version"] == version  # both loaded
        one.ok(
            "dealer",
            "/round/bet",
            {"player_id": "ana", "amount": 1_000, "expected_version": version},
        )
        stale = two.post(
            "dealer",
            "/round/bet",
            {"player_id": "bo", "amount": 1_000, "expected_version": version},
        )
        assert stale.status_code == 409 and stale.json()["current_version"] == version + 1
        # Without a pinned version the second server reloads the table and the bet goes on.
        two.ok("dealer", "/round/bet", {"player_id": "cy", "amount": 1_000})
        with served(one.client.app) as base_one, served(two.client.app) as base_two:
            version = one.version()
            path = f"/tables/{TABLE}/round/bet"
            answers = race(
                [
                    (
                        base_one,
                        path,
                        {"player_id": "bo", "amount": 1_000, "expected_version": version},
                        {
                            "Authorization": f"Bearer {one.tokens['dealer']}",
                            "Idempotency-Key": "s1",
                        },
                    ),
                    (
                        base_two,
                        path,
                        {"player_id": "di", "amount": 1_000, "expected_version": version},
                        {
                            "Authorization": f"Bearer {two.tokens['dealer']}",
                            "Idempotency-Key": "s2",
                        },
                    ),
                ]
            )
        codes = sorted(a.status_code for a in answers)
        assert codes == [200, 409], [a.text for a in answers]
        assert one.version() == version + 1
        bets = [
            e.payload["player_id"] for e in first_store.read_stream(TABLE) if e.type == "bet_placed"
        ]
        assert len(bets) == 3 and bets[:2] == ["ana", "cy"]
    finally:
        first_store.close()
        second_store.close()
