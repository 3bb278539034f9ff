"""Trailing-slash redirects never echo the ``Host`` header (entrypoints/http/slashes.py): with a
forged host, a path that is a route's but for its slash is a 307 to a relative ``Location`` (the
path and the query alone), on a real server as in-process; ``//host`` is never a redirect."""

from __future__ import annotations

import httpx

from tests.integration.http.conftest import Api, served

FORGED = {"Host": "evil.example"}


def test_a_forged_host_is_never_where_a_redirect_sends(api: Api) -> None:
    cases = {
        "/floor": "/floor/",
        "/health/": "/health",
        "/tables/PG-1/": "/tables/PG-1",
        "/floor/pit/?day=2026-11-29&x=%2F": "/floor/pit?day=2026-11-29&x=%2F",
        "/floor/static": "/floor/static/",
    }
    for path, location in cases.items():
        answer = api.client.get(path, headers=FORGED, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (307, location), path
    posted = api.client.post("/tables/PG-1/open/", headers=FORGED, follow_redirects=False)
    assert (posted.status_code, posted.headers["location"]) == (307, "/tables/PG-1/open")
    for path in ("//evil.example/", "/nope/", "/floor/nope"):
        answer = api.client.get(path, headers=FORGED, follow_redirects=False)
        assert answer.status_code == 404 and "location" not in answer.headers, path
        if path.startswith("/floor/"):  # the floor's own 404 page, for a person's browser
            assert '<h1 id="status">404</h1>' in answer.text
        else:
            assert answer.json()["error"] == "not_found"


def test_a_real_server_redirects_relatively(api: Api) -> None:
    with served(api.client.app) as base:
        answer = httpx.get(f"{base}/floor", headers=FORGED, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (307, "/floor/")
        followed = httpx.get(f"{base}/health/", follow_redirects=True)
        assert followed.status_code == 200 and str(followed.url) == f"{base}/health"
