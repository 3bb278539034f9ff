"""A limit on every request's body, enforced while it is read (``PAIGOW_HTTP_MAX_BODY``, 64 KiB by
default): 413 ``body_too_large`` in the API's error shape (errors.py), nothing done.

Without it a 10 MB JSON body on a command route was read whole, then parsed on the event loop
(``adapters/strict_json.py``): 1.36 GB of memory and 2.9 s during which no other request was
answered. Now:

- a ``Content-Length`` over the limit is refused before a byte of the body is read;
- a body without one (chunked) is counted as it arrives and refused as soon as it passes the
  limit: at most the limit and one chunk are ever held;
- so whatever parses a body (FastAPI's reader, the command door's, ``strict_json``) parses at most
  the limit, a bounded few milliseconds on the loop.

One ASGI middleware outside the command door (``command_door.py``), FastAPI and the floor pages,
so every route has the same limit. The counting ``receive`` raises :class:`BodyTooLarge`, an
HTTP exception: the handler of errors.py answers it when an endpoint or the door was reading,
this middleware otherwise. A command's body is a few hundred bytes (a dealt deck is
about 600), the largest a rules profile of a few KiB: the default leaves room for both.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from entrypoints.http.errors import problem

#: The default limit of a request body, in bytes.
DEFAULT_MAX_BODY = 64 * 1024


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(
            413,
            detail=f"the request body is over {limit} bytes, this server's limit "
            "(PAIGOW_HTTP_MAX_BODY): nothing was done",
            # The rest of the body is not read: the connection ends with the answer.
            headers={"Connection": "close"},
        )


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int = DEFAULT_MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(BodyTooLarge(limit), scope, receive, send)  # the body is never read
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge as refused:
            if started:  # a route answered before it read its body: nothing more to say
                return
            await _refuse(refused, scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            text = value.strip()
            return int(text) if text.isdigit() else None  # the server refuses a bad one itself
    return None


async def _refuse(refused: BodyTooLarge, scope: Scope, receive: Receive, send: Send) -> None:
    response = problem(413, "body_too_large", str(refused.detail))
    response.headers.update(refused.headers or {})
    await response(scope, receive, send)
