"""The floor's screens in a browser (issue 21, docs/floor.md): pit, live table, game recall, the
day's books with charts and the audit's state, served by ``paigow serve`` under ``/floor/``.

``install(app, settings)`` adds the pages, their static files (floor.css, live.js: written for
this project, nothing vendored, nothing loaded from elsewhere) and the handlers that turn a
missing page into the floor's 404 and an expired session into the sign-in page.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from adapters.settings import Settings
from entrypoints.http.floor import data, pages
from entrypoints.http.floor.session import Sessions
from entrypoints.http.floor.session_store import session_store_for

STATIC = Path(__file__).parent / "static"


def install(app: FastAPI, settings: Settings) -> None:
    app.state.floor_sessions = Sessions(
        settings.floor_session_secret or _derived_secret(app), settings.floor_session_minutes
    )
    app.state.floor_session_store = session_store_for(app.state.keys)
    app.include_router(pages.router)
    app.mount("/floor/static", StaticFiles(directory=STATIC), name="floor-static")

    def problem(request: Request, error: Exception) -> Response:  # a thread: it reads the session
        status = error.status if isinstance(error, pages.Problem) else 404
        message = error.message if isinstance(error, pages.Problem) else str(error)
        return pages.page(
            request, "error.html", {"status": status, "message": message}, status=status
        )

    async def signin(request: Request, error: Exception) -> Response:
        if request.url.path.endswith("/live"):  # live.js: the page reloads into sign-in
            return pages.secure(Response(status_code=401))
        return pages.secure(RedirectResponse("/floor/signin", 303))

    app.state.floor_not_found = lambda request: problem(request, pages.Problem(404, "no such page"))
    app.add_exception_handler(pages.Problem, problem)
    app.add_exception_handler(data.NotFound, problem)
    app.add_exception_handler(pages.SignIn, signin)


def _derived_secret(app: FastAPI) -> bytes | None:
    """The cookies' secret when none is set: derived from the store's signing key, which every
    worker process of ``paigow serve --workers N`` holds; ``None`` (random at each start) for a
    server without one."""
    signer = getattr(app.state.service.store, "signer", None)
    return None if signer is None else signer.secret_for("paigow-floor-session-v1")
