"""A small client of the event feed (docs/feed.md): follows ``GET /events`` as Server-Sent Events,
resumes after the last position it handled when the connection drops, and verifies each event.

Standard library and ``cryptography`` only, no import of this project: a casino system may copy
this one file. The recipes are the log's own (eventlog/canonical.py), written out again here:

- event hash: SHA-256 of ``["paigow-event-v1",prev,stream,version,type,schema,at,actor_id,
  actor_role,command_id]`` + ``"\\n"`` + the payload's canonical JSON (sorted keys, no spaces,
  ASCII);
- global hash: SHA-256 of ``["paigow-global-v1",global_prev,position,hash]``;
- a checkpoint signs ``["paigow-checkpoint-v1",position,global_hash,signed_at]`` (Ed25519).

Usage::

    client = FeedClient("http://casino:8000", token, public_key=raw_32_bytes)
    for event in client.follow(after=0):   # blocks; yields each event once, in order
        handle(event)
        save(event["position"])

``follow`` checks each event's own hash (unless a withheld field makes it unknowable yet:
``redacted``), its global link, and, following the whole log, that each ``global_prev`` is the
previous event's ``global_hash`` (``VerificationError`` otherwise). With ``public_key``, the
checkpoint that seals an event is fetched once (``GET /checkpoints``) and its signature checked,
with its hash equal to the global hash of the event at its position when the client saw it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Any

EVENT_DOMAIN = "paigow-event-v1"
GLOBAL_DOMAIN = "paigow-global-v1"
CHECKPOINT_DOMAIN = "paigow-checkpoint-v1"


class VerificationError(Exception):
    """An event or a checkpoint that does not hold."""


class RefusedError(Exception):
    """The server refused the request (401, 403, 404, 422): retrying would not help."""


def _shut(connection: http.client.HTTPConnection) -> None:
    """Close ``connection``, waking a thread blocked reading it (a plain close does not)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        connection.close()


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def event_hash(event: dict[str, Any]) -> str:
    """The hash of an event of the feed, recomputed from its fields."""
    actor = event["actor"]
    head = ",".join(
        [
            _quote(EVENT_DOMAIN),
            _quote(event["prev_hash"]),
            _quote(event["stream_id"]),
            str(int(event["version"])),
            _quote(event["type"]),
            str(int(event["schema_version"])),
            _quote(event["at"]),
            _quote(actor["id"]),
            _quote(actor["role"]),
            _quote(event["command_id"]),
        ]
    )
    text = f"[{head}]\n{canonical(event['payload'])}"
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def global_hash(event: dict[str, Any]) -> str:
    """The global chain's link of an event: its previous global hash, position and hash."""
    text = (
        f"[{_quote(GLOBAL_DOMAIN)},{_quote(event['global_prev'])},{int(event['position'])},"
        f"{_quote(event['hash'])}]"
    )
    return sha256(text.encode()).hexdigest()


def checkpoint_message(checkpoint: dict[str, Any]) -> bytes:
    text = (
        f"[{_quote(CHECKPOINT_DOMAIN)},{int(checkpoint['position'])},"
        f"{_quote(checkpoint['hash'])},{_quote(checkpoint['signed_at'])}]"
    )
    return text.encode()


def signature_holds(checkpoint: dict[str, Any], public_key: bytes) -> bool:
    """Whether ``checkpoint``'s signature is the casino's (``public_key``: 32 raw bytes)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            bytes.fromhex(checkpoint["signature"]), checkpoint_message(checkpoint)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def check_event(event: dict[str, Any]) -> None:
    """``VerificationError`` unless the event's own hash (when nothing is withheld) and its
    global link hold."""
    if not event.get("redacted") and event_hash(event) != event["hash"]:
        raise VerificationError(f"event at position {event['position']}: its hash does not hold")
    if global_hash(event) != event["global_hash"]:
        raise VerificationError(
            f"event at position {event['position']}: its global link does not hold"
        )


@dataclass
class FeedClient:
    """A follower of ``base_url``'s feed with the API key ``token``. ``types`` and
    ``table_ids`` filter (a filtered feed is not one chain: each event is checked alone);
    ``public_key`` (raw Ed25519) checks the sealing checkpoints' signatures."""

    base_url: str
    token: str
    public_key: bytes | None = None
    types: tuple[str, ...] | None = None
    table_ids: tuple[str, ...] | None = None
    #: A named subscription (``POST /subscriptions``): its filter is the server's, and a client
    #: that starts with no ``after`` resumes after the subscription's acknowledged position.
    subscription: str | None = None
    timeout_s: float = 30.0
    retry_s: float = 0.5
    #: Position of the last event handed out (where a reconnection resumes).
    last_id: int = 0
    #: Connections made (the first and each resumption).
    connections: int = 0
    _last_global: tuple[int, str] | None = None
    _hashes: dict[int, str] = field(default_factory=dict)
    _checkpoints: dict[int, dict[str, Any]] = field(default_factory=dict)
    _current: http.client.HTTPConnection | None = None

    # -- reading -------------------------------------------------------------------------------

    def _query(self, **extra: Any) -> str:
        params: list[tuple[str, str]] = []
        if self.types:
            params.append(("types", ",".join(self.types)))
        if self.table_ids:
            params.append(("table_id", ",".join(self.table_ids)))
        if self.subscription:
            params.append(("subscription", self.subscription))
        params += [(k, str(v)) for k, v in extra.items() if v is not None]
        return urllib.parse.urlencode(params)

    def _connection(self) -> http.client.HTTPConnection:
        url = urllib.parse.urlsplit(self.base_url)
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        return kind(url.hostname or "localhost", url.port, timeout=self.timeout_s)

    def get_json(self, path: str) -> Any:
        return self._json("GET", path)

    def _json(self, method: str, path: str, body: Any = None) -> Any:
        connection = self._connection()
        headers = {"Authorization": f"Bearer {self.token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            body = response.read()
            if response.status not in (200, 201):
                kind = RefusedError if response.status < 500 else ConnectionError
                raise kind(f"{method} {path}: {response.status} {body[:200]!r}")
            return json.loads(body)
        finally:
            connection.close()

    def ack(self, position: int) -> dict[str, Any]:
        """Acknowledge the subscription's events up to ``position``: a restarted consumer of
        the subscription (a new client, no ``after``) resumes after it."""
        if not self.subscription:
            raise ValueError("only a subscription's consumer acknowledges")
        name = urllib.parse.quote(self.subscription)
        found = self._json("POST", f"/subscriptions/{name}/ack", {"position": position})
        return found  # type: ignore[no-any-return]

    def page(self, after: int, limit: int = 100) -> dict[str, Any]:
        """One JSON page after ``after`` (``GET /events``)."""
        query = self._query(after=after or None, limit=limit)
        return self.get_json(f"/events?{query}")  # type: ignore[no-any-return]

    def _open_stream(self, after: int) -> tuple[http.client.HTTPConnection, Any]:
        connection = self._connection()
        self._current = connection
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
        if after:
            headers["Last-Event-ID"] = str(after)
        connection.request("GET", f"/events?{self._query()}", headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            body = response.read()
            connection.close()
            raise RefusedError(f"GET /events: {response.status} {body[:200]!r}")
        self.connections += 1
        return connection, response

    def close(self) -> None:
        """Drop the stream's connection, from any thread: a ``follow`` blocked reading it ends
        (when its ``stop()`` says so) or resumes on a new connection."""
        connection, self._current = self._current, None
        if connection is not None:
            _shut(connection)

    def _messages(self, response: Any) -> Iterator[tuple[str | None, str | None]]:
        """(id, data) of each SSE message; comments are skipped."""
        event_id: str | None = None
        data: list[str] = []
        while True:
            raw = response.readline()
            if not raw:
                return
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if event_id is not None or data:
                    yield event_id, "\n".join(data) if data else None
                event_id, data = None, []
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "id":
                event_id = value
            elif name == "data":
                data.append(value)

    def follow(self, after: int | None = None, stop: Any = None) -> Iterator[dict[str, Any]]:
        """Every event after ``after`` (default: where this client stopped), verified, each once
        and in order, across reconnections; until ``stop()`` is true (checked between messages)
        or the generator is closed."""
        if after is not None:
            self.last_id = after
        while stop is None or not stop():
            connection = None
            try:
                connection, response = self._open_stream(self.last_id)
                for event_id, data in self._messages(response):
                    if data is None:  # an id alone: positions the filter skipped
                        if event_id is not None and event_id.isdigit():
                            self.last_id = max(self.last_id, int(event_id))
                        continue
                    event = json.loads(data)
                    if event["position"] <= self.last_id:
                        raise VerificationError(
                            f"position {event['position']} again after {self.last_id}"
                        )
                    self.verify(event)
                    self.last_id = event["position"]
                    yield event
                    if stop is not None and stop():
                        return
            except (OSError, http.client.HTTPException, AttributeError) as error:
                # AttributeError: ``close()`` from another thread closed the response under us.
                if isinstance(error, AttributeError) and self._current is connection:
                    raise
                if stop is not None and stop():
                    return
                time.sleep(self.retry_s)  # the connection dropped: resume after last_id
            finally:
                if connection is not None:
                    if self._current is connection:
                        self._current = None
                    _shut(connection)

    # -- verifying -----------------------------------------------------------------------------

    @property
    def verified_checkpoints(self) -> list[int]:
        """The positions of the checkpoints whose signatures this client checked."""
        return sorted(self._checkpoints)

    def verify(self, event: dict[str, Any]) -> None:
        """``check_event``; the whole log's chain (unfiltered); the sealing checkpoint."""
        check_event(event)
        position = event["position"]
        whole = not self.types and not self.table_ids and not self.subscription
        last = self._last_global
        linked = whole and last is not None and last[0] == position - 1
        if linked and last is not None and event["global_prev"] != last[1]:
            raise VerificationError(f"event at position {position}: the chain is broken")
        self._last_global = (position, event["global_hash"])
        self._hashes[position] = event["global_hash"]
        if self.public_key is not None and event.get("sealed_by") is not None:
            self.check_seal(event)

    def check_seal(self, event: dict[str, Any]) -> dict[str, Any]:
        """The checkpoint that seals ``event``, its signature checked (``VerificationError``)."""
        assert self.public_key is not None
        at = int(event["sealed_by"])
        checkpoint = self._checkpoints.get(at)
        if checkpoint is None:
            found = self.get_json(f"/checkpoints?after={at - 1}&limit=1")
            if not found or found[0]["position"] != at:
                raise VerificationError(f"no checkpoint at position {at}")
            checkpoint = found[0]
            if not signature_holds(checkpoint, self.public_key):
                raise VerificationError(f"checkpoint at position {at}: signature does not hold")
            self._checkpoints[at] = checkpoint
        seen = self._hashes.get(at)
        if seen is not None and seen != checkpoint["hash"]:
            raise VerificationError(f"checkpoint at position {at} signs another chain")
        return checkpoint
