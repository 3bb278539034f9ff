"""Trailing-slash redirects that never name a host.

Starlette answers a path that differs from a route's by its trailing slash (``/floor``,
``/tables/``) with a 307 to an absolute URL built from the request's ``Host`` header: whoever
forges that header (a proxy, a cache, a crafted link) chooses where the answer sends the client.
Its own redirect is off (``install``); a path no route takes is answered here instead (errors.py,
on its 404): when the same path with the slash added or removed is a route's, a 307 whose
``Location`` is that path and the query alone (relative: the client stays on the host it asked),
else the 404 as before. A path that would start with ``//`` (a protocol-relative URL to another
host) is never a redirect.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from starlette.routing import Match

#: What a path segment keeps unescaped (RFC 3986 pchar), so ``Location`` is the path as asked.
_SAFE = "/-._~!$&'()*+,;=:@"


def install(app: FastAPI) -> None:
    app.router.redirect_slashes = False


def slash_redirect(request: Request) -> RedirectResponse | None:
    """The relative redirect to the same path with its trailing slash added or removed, when a
    route takes that path; ``None`` otherwise."""
    path: str = request.scope["path"]
    if path == "/":
        return None
    other = path.rstrip("/") if path.endswith("/") else path + "/"
    if not other or other.startswith("//") or "\\" in other:
        return None
    scope = {**request.scope, "path": other}
    if not any(route.matches(scope)[0] != Match.NONE for route in request.app.router.routes):
        return None
    query = request.scope.get("query_string", b"").decode("latin-1")
    location = quote(other, safe=_SAFE) + (f"?{query}" if query else "")
    return RedirectResponse(location, status_code=307)
