"""The floor pages' routes (docs/floor.md): sign-in, pit, live table, game recall, the day's
books, the audit. Server-rendered HTML (Jinja2); every response carries the floor's
Content-Security-Policy (no inline script or style: floor.css and live.js only).

Who sees what (docs/floor.md, "Roles"): the floor and the auditor every page; a dealer only the
live table and recall of its own table (:attr:`Session.dealer_table`); the cage no page. Only two
forms act, and neither on a table: starting a verification and exporting a bundle (auditor and
floor, ``RIGHTS["audit_verify"]``), beside signing in and out. No page sends a table command.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
import time
from dataclasses import replace
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from adapters.logging import get_logger
from entrypoints.http.auth import record_failure
from entrypoints.http.floor import charts, data
from entrypoints.http.floor.formats import money, rating_rows, when
from entrypoints.http.floor.session import COOKIE, COOKIE_PATH, FLOOR_ROLES, Session, Sessions
from entrypoints.http.models import ID_PATTERN, TABLE_ID_PATTERN
from service_layer.operators.rights import RIGHTS
from table_core.table.house_way_install import clause_words

log = get_logger(component="floor")
router = APIRouter(prefix="/floor", include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_TABLE = re.compile(TABLE_ID_PATTERN)
_PLAYER = re.compile(ID_PATTERN)
READERS = frozenset({"floor", "auditor"})
#: Who reads a player's ratings: the floor's readers that ``GET /players/{id}/ratings`` lets in.
RATING_READERS = READERS & RIGHTS["player_ratings"]


class Problem(Exception):
    """A page that cannot be shown: its status and one line, in the floor's look."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class SignIn(Exception):
    """No session, or an expired one: back to sign-in."""


SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


@functools.cache
def card_html(text: str) -> str:
    """One card drawn as the pages draw it (``data-card`` holds its text: ``As``, ``JK``)."""
    if text == "JK":
        return '<span class="card joker" data-card="JK" title="Joker"><b>JK</b><i>★</i></span>'
    rank, suit = text[:-1], text[-1]
    colour = "red" if suit in "hd" else "black"
    return (
        f'<span class="card {colour}" data-card="{escape(text)}" title="{escape(text)}">'
        f"<b>{escape('T' if rank == '10' else rank)}</b>"
        f"<i>{SUITS.get(suit, escape(suit))}</i></span>"
    )


def cards(texts: list[str] | None) -> Markup:
    """A hand or a stack: one function call per list (a Jinja macro per card cost a recall page
    of ten rounds most of its time)."""
    return Markup('<span class="cards">' + "".join(card_html(t) for t in texts or ()) + "</span>")


templates.env.filters["money"] = money
templates.env.filters["cards"] = cards
templates.env.filters["rating_rows"] = rating_rows
templates.env.filters["when"] = when


def sessions_of(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.floor_sessions
    return sessions


def cookie_of(request: Request) -> Session | None:
    """The session as the cookie signs it (its nonce for CSRF), the key not looked up."""
    return sessions_of(request).decode(request.cookies.get(COOKIE))


def session_of(request: Request) -> Session | None:
    """The request's session: the cookie's, with the actor and role of its key as the session's
    row gives them now; ``None`` once it is signed out, expired or its key revoked (or its key
    no longer has a floor role). Reads the database: called off the event loop."""
    if hasattr(request.state, "floor_session"):
        found: Session | None = request.state.floor_session
        return found
    session = cookie_of(request)
    if session is not None and session.session_id is not None:
        store = request.app.state.floor_session_store
        key = store.key_of(session.session_id, int(time.time()))
        if key is None or key.role not in FLOOR_ROLES:
            session = None
        else:
            session = replace(session, key_id=key.key_id, actor=key.actor_id, role=key.role)
    request.state.floor_session = session
    return session


def need(request: Request, roles: frozenset[str], table_id: str | None = None) -> Session:
    """The signed-in session if its role may see this page (a dealer: its own table only)."""
    session = session_of(request)
    if session is None or not session.signed_in:
        raise SignIn()
    if session.role in roles:
        return session
    if session.role == "dealer" and table_id is not None and session.dealer_table == table_id:
        return session
    log.warning("floor_denied", actor=session.actor, role=session.role, path=request.url.path)
    raise Problem(403, f"the {session.role} role may not see this page")


def page(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    session: Session | None = None,
) -> Response:
    """A rendered page with the floor's headers; a new anonymous session when there is none."""
    sessions = sessions_of(request)
    fresh = session is None and (session := session_of(request)) is None
    if session is None:
        session = sessions.anonymous()
    context = {"session": session, "csrf": sessions.csrf(session), **context}
    response = templates.TemplateResponse(request, name, context, status_code=status)
    secure(response)
    if fresh:
        set_cookie(request, response, sessions.encode(session))
    return response


def secure(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def set_cookie(request: Request, response: Response, value: str) -> None:
    response.set_cookie(
        COOKIE,
        value,
        httponly=True,
        samesite="strict",
        path=COOKIE_PATH,
        secure=request.url.scheme == "https",
        max_age=sessions_of(request).seconds,
    )


async def form_of(request: Request, session: Session | None) -> dict[str, str]:
    """The posted form (URL-encoded), after its CSRF token is checked: 403 and nothing done."""
    body = (await request.body()).decode("utf-8", "replace")
    fields = {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}
    if session is None or not sessions_of(request).csrf_ok(session, fields.get("csrf")):
        log.warning("floor_csrf_refused", path=request.url.path)
        raise Problem(403, "this form's CSRF token is missing or wrong: nothing was done")
    return fields


def _table(table_id: str) -> str:
    if not _TABLE.fullmatch(table_id):
        raise Problem(404, f"no table {table_id!r}")
    return table_id


def _round(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 2**62:
        raise Problem(404, f"no round {text!r}")
    return int(text)


# --- sign-in -------------------------------------------------------------------------------------


@router.get("/")
def home(request: Request) -> Response:
    session = session_of(request)
    if session is None or not session.signed_in:
        return RedirectResponse("/floor/signin", 303)
    if session.role == "dealer" and session.dealer_table:
        return RedirectResponse(f"/floor/tables/{session.dealer_table}", 303)
    return RedirectResponse("/floor/pit", 303)


@router.get("/signin")
def signin_form(request: Request) -> Response:
    return page(request, "signin.html", {"error": None})


@router.post("/signin")
async def signin(request: Request) -> Response:
    session = await run_in_threadpool(session_of, request)
    fields = await form_of(request, cookie_of(request))
    token = fields.get("key", "").strip()
    key = await run_in_threadpool(request.app.state.keys.lookup, token) if token else None
    if key is None or key.role not in FLOOR_ROLES:
        error = (
            "this key is unknown or revoked"
            if key is None
            else (f"the {key.role} role has no floor pages")
        )
        log.warning("floor_signin_refused", role=None if key is None else key.role)
        if key is None:  # R5/R19: a failed authentication (a known key's role is no failure)
            await record_failure(request, token or None)
        return page(request, "signin.html", {"error": error}, status=401, session=session)
    sessions, store = sessions_of(request), request.app.state.floor_session_store
    if session is not None and session.session_id is not None:  # signing in again ends it
        await run_in_threadpool(store.end, session.session_id, datetime.now(UTC))
    expires = sessions.expiry()
    opened = await run_in_threadpool(store.open, key.key_id, expires, datetime.now(UTC))
    log.info("floor_signed_in", actor=key.actor_id, role=key.role, key_id=key.key_id)
    response = RedirectResponse("/floor/", 303)
    set_cookie(request, response, sessions.encode(sessions.signed_in(opened, expires)))
    return secure(response)


@router.post("/signout")
async def signout(request: Request) -> Response:
    """The session ends on the server (its row is marked ended): the cookie, kept or copied,
    signs in no more, in any worker process."""
    cookie = cookie_of(request)
    await form_of(request, cookie)
    if cookie is not None and cookie.session_id is not None:
        store = request.app.state.floor_session_store
        await run_in_threadpool(store.end, cookie.session_id, datetime.now(UTC))
        log.info("floor_signed_out")
    response = RedirectResponse("/floor/signin", 303)
    set_cookie(request, response, sessions_of(request).encode(sessions_of(request).anonymous()))
    return secure(response)


# --- pit, live table, recall ---------------------------------------------------------------------


@router.get("/pit")
def pit(request: Request) -> Response:
    session = need(request, READERS)
    return page(request, "pit.html", data.pit(request), session=session)


@router.get("/pit/live")
def pit_fragment(request: Request) -> Response:
    """The pit's table alone, for live.js's refresh every 10 seconds (the page keeps its
    scroll position: only this part is replaced)."""
    session = need(request, READERS)
    return page(request, "_pit.html", data.pit(request), session=session)


@router.get("/tables/{table_id}")
def live_table(request: Request, table_id: str) -> Response:
    session = need(request, READERS, _table(table_id))
    return page(request, "live.html", data.live(request, table_id), session=session)


@router.get("/tables/{table_id}/live")
def live_fragment(request: Request, table_id: str, v: int = -1) -> Response:
    """The live part alone, for live.js's polling: 204 while the table's version is ``v``."""
    session = need(request, READERS, _table(table_id))
    if data.table_state(request, table_id).version == v:
        return secure(Response(status_code=204))
    return page(request, "_live.html", data.live(request, table_id), session=session)


@router.get("/tables/{table_id}/rounds")
def recall(request: Request, table_id: str, last: str = "10") -> Response:
    session = need(request, READERS, _table(table_id))
    state = data.table_state(request, table_id)
    count = min(max(int(last), 1), 200) if last.isdigit() else 10
    found = data.rounds(request, table_id, last=count)
    context = {"table_id": table_id, "rounds": found, "last": count, "one": False}
    context["clause"] = partial(clause_words, state)
    return page(request, "recall.html", context, session=session)


@router.get("/tables/{table_id}/rounds/{number}")
def recall_one(request: Request, table_id: str, number: str) -> Response:
    session = need(request, READERS, _table(table_id))
    found = data.rounds(request, table_id, round_number=_round(number))
    if not found:
        raise Problem(404, f"table {table_id!r} has no round {number}")
    context = {"table_id": table_id, "rounds": found, "last": 1, "one": True}
    context["clause"] = partial(clause_words, data.table_state(request, table_id))
    return page(request, "recall.html", context, session=session)


# --- the day's books -----------------------------------------------------------------------------


@router.get("/books")
def books(request: Request, day: str = "", table: str = "") -> Response:
    session = need(request, READERS)
    try:
        on = date.fromisoformat(day) if day else data.today(request)
    except ValueError:
        raise Problem(404, f"no gaming day {day!r} (YYYY-MM-DD)") from None
    table_id = _table(table) if table else None
    if table_id is not None:
        data.table_state(request, table_id)
    report = data.books(request, on, table_id)
    hours = report["hours"]
    context = {
        "day": on,
        "table": table_id,
        "report": report,
        "hourly_win": charts.line_chart(
            "Main win by hour", [(h["hour"], h["win"], money(h["win"])) for h in hours], scale=100
        ),
        "hourly_hold": charts.line_chart(
            "Main hold % by hour",
            [
                (h["hour"], float(h["hold_pct"]), h["hold_pct"] + " %")
                for h in hours
                if h["hold_pct"] is not None
            ],
            unit=" %",
        ),
        "daily_win": charts.line_chart(
            "Main win by gaming day",
            [(d["gaming_day"], d["win"], money(d["win"])) for d in report["days"]],
            scale=100,
        ),
        "daily_hold": charts.line_chart(
            "Main hold % by gaming day",
            [
                (d["gaming_day"], float(d["hold_pct"]), d["hold_pct"] + " %")
                for d in report["days"]
                if d["hold_pct"] is not None
            ],
            unit=" %",
        ),
        "drop_handle": charts.pair_bars(
            "Drop against handle",
            [(r["table_id"], r["drop"], r["handle"]) for r in report["accounting"]],
            ("drop", "handle"),
        ),
    }
    return page(request, "books.html", context, session=session)


@router.get("/players/{player_id}")
def player(request: Request, player_id: str) -> Response:
    """A player's ratings, every gaming day, as ``GET /players/{id}/ratings`` gives them."""
    session = need(request, RATING_READERS)
    if not _PLAYER.fullmatch(player_id):
        raise Problem(404, f"no player {player_id!r}")
    return page(request, "player.html", data.player(request, player_id), session=session)


# --- audit ---------------------------------------------------------------------------------------


@router.get("/audit")
def audit(request: Request) -> Response:
    session = need(request, READERS)
    context = {
        "verification": getattr(request.app.state, "floor_verification", None),
        "checkpoint": data.last_checkpoint(request),
        "refusing": request.app.state.service.refusing,
        "can_verify": session.role in RIGHTS["audit_verify"],
        "can_export": getattr(request.app.state, "audit_url", None) is not None,
    }
    return page(request, "audit.html", context, session=session)


@router.post("/audit/verify")
async def start_verification(request: Request) -> Response:
    session = await run_in_threadpool(need, request, frozenset(RIGHTS["audit_verify"]))
    await form_of(request, session)
    result = await run_in_threadpool(_verify, request)
    request.app.state.floor_verification = {
        **result,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "by": session.actor,
    }
    log.info("floor_verification", actor=session.actor, ok=result["ok"])
    return secure(RedirectResponse("/floor/audit", 303))


def _verify(request: Request) -> dict[str, Any]:
    """The verification ``GET /audit/verify`` runs (``queries.verify_live``): the same rule for
    the events after the last checkpoint, so the two never disagree about a live log."""
    from entrypoints.http.queries import verify_live

    report = verify_live(request)
    findings = [{**f.to_dict(), "text": str(f)} for f in report.findings]
    return {"ok": report.ok, "summary": report.summary(), "findings": findings}


@router.post("/audit/bundle")
async def bundle(request: Request) -> Response:
    """The whole log as an audit bundle (``paigow audit export``), downloaded."""
    session = await run_in_threadpool(need, request, frozenset(RIGHTS["audit_verify"]))
    fields = await form_of(request, session)
    url = getattr(request.app.state, "audit_url", None)
    if url is None:
        raise Problem(409, "a bundle is exported from a database; this server runs in memory")
    table = fields.get("table") or None
    if table is not None:
        _table(table)
    handle, path = tempfile.mkstemp(suffix=".jsonl", prefix="paigow-bundle-")
    os.close(handle)
    try:
        sealer = getattr(request.app.state.service.store, "signer", None)
        signing_key = request.app.state.settings.signing_key
        await run_in_threadpool(_export, url, path, table, signing_key, sealer)
    except Exception as error:
        os.unlink(path)
        raise Problem(404, str(error).splitlines()[0]) from None
    log.info("floor_bundle", actor=session.actor, table=table)
    name = f"paigow-bundle-{table or 'all'}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.jsonl"
    return secure(FileResponse(path, filename=name, background=BackgroundTask(os.unlink, path)))


def _export(url: str, path: str, table: str | None, signing_key: str | None, sealer: Any) -> None:
    from audit.bundle import export

    export(url, path, table=table, signing_key=signing_key, sealer=sealer)
