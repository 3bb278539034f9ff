"""The event feed: every stream's events in the log's global order, from any position, for the
casino's other systems (docs/feed.md).

``Feed.page(after, limit, scope)`` reads one page of events after a global position, as stored
(never lifted by upcasters, so each hash can be recomputed), each with its stream link, its global
link and the position of the checkpoint that seals it once one does. ``next_after`` is where the
next page starts: the last event's position, or, when the page holds every event of the scope
that the log had when it was read, the log's head then (a filtered page does not make its reader
scan the same positions again). The HTTP routes (entrypoints/http/feed_routes.py) serve it as a
JSON page and as Server-Sent Events; ``paigow events follow`` as JSON lines.

Who sees what (``scope_for``): the floor and the auditor every stream; a dealer the tables'
streams only, never the ``system`` stream (an API key names an actor and a role, no table, so
"its tables" are the tables it names with ``table_id``, or every table). Nobody, whatever the
role, gets a card of an open round that the live table's view does not show
(entrypoints/http/views.py): ``stacks_dealt``'s deck order, stacks and unused cards, and the
cards of ``stacks_assigned``'s dead stacks, are withheld (``null``, listed in ``redacted``) until
the round is over (``round_closed`` or ``round_voided``, or a later round started); a page read
after that shows them.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from eventlog.canonical import FAST_DUMPS, canonical_json, loads_json
from eventlog.system_events import SYSTEM_STREAM, SYSTEM_TYPES
from table_core.events import EVENT_TYPE_NAMES

#: The most events one page holds.
MAX_PAGE = 1000
#: Events that carry cards of a round before it is over, and the marks that say it is over.
SECRET_TYPES = frozenset({"stacks_dealt", "stacks_assigned"})
ROUND_MARKS = ("round_closed", "round_voided", "round_started")
#: Roles that read every stream; a dealer reads the tables' streams only.
EVERY_STREAM_ROLES = frozenset({"floor", "auditor"})


def _dumps(value: Any) -> str:
    if FAST_DUMPS is not None:
        return FAST_DUMPS(value).decode()
    return json.dumps(value, separators=(",", ":"))


class FeedRefused(Exception):
    """A scope the caller's role may not read (HTTP 403)."""


class UnknownEventTypes(ValueError):
    """A filter naming types no event has (HTTP 422): it would match nothing, for ever."""


#: Every event type the log can hold: the tables' and the system stream's.
KNOWN_TYPES = EVENT_TYPE_NAMES | SYSTEM_TYPES


def check_types(types: Sequence[str] | None) -> None:
    """Refuse (``UnknownEventTypes``) a filter with a type no event has: a typo in a table
    system's filter is said at once rather than answered by a feed that stays empty."""
    unknown = [t for t in types or () if t not in KNOWN_TYPES]
    if unknown:
        raise UnknownEventTypes(
            f"unknown event type{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}: docs/events.md lists every type"
        )


@dataclass(frozen=True, slots=True)
class FeedScope:
    """Which events a reader gets: ``streams`` (``None``: every stream but ``excluded``) and
    ``types`` (``None``: every type)."""

    streams: tuple[str, ...] | None = None
    types: tuple[str, ...] | None = None
    excluded: tuple[str, ...] = ()

    def admits(self, stream_id: str, event_type: str) -> bool:
        if self.streams is not None and stream_id not in self.streams:
            return False
        if self.types is not None and event_type not in self.types:
            return False
        return stream_id not in self.excluded


def split_list(values: Iterable[str] | None) -> tuple[str, ...] | None:
    """``a,b`` and repeated parameters alike, in order, each once; ``None`` when none given."""
    if values is None:
        return None
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return tuple(out) or None


def scope_for(
    role: str, table_ids: Sequence[str] | None = None, types: Sequence[str] | None = None
) -> FeedScope:
    """The scope of a reader of ``role`` asking for ``table_ids`` and ``types`` (``None``:
    all). A dealer asking for the ``system`` stream is refused (``FeedRefused``), a type no
    event has too (``UnknownEventTypes``)."""
    check_types(types)
    streams = None if table_ids is None else tuple(table_ids)
    chosen = None if types is None else tuple(types)
    if role in EVERY_STREAM_ROLES:
        return FeedScope(streams, chosen)
    if streams is not None and SYSTEM_STREAM in streams:
        raise FeedRefused(f"the {role} role reads the tables' events, not the system stream")
    return FeedScope(streams, chosen, () if streams is not None else (SYSTEM_STREAM,))


@dataclass(frozen=True, slots=True)
class FeedPage:
    """One page: its events (JSON-ready dicts but their payloads, which ``payloads`` holds as
    the stored JSON text: ``event_line`` joins them) and where the next page starts. ``full``: the
    page holds ``limit`` events, so more may follow at once."""

    events: list[dict[str, Any]]
    next_after: int
    head: int
    full: bool
    payloads: list[str] = field(default_factory=list)  # each event's payload JSON text
    lines: list[str] | None = None  # each event's ``event_line``, when already written


class Feed:
    """The feed over ``store`` (its ``feed_rows``, ``feed_head``, ``sealing_checkpoints``,
    ``checkpoints_after`` and ``first_of_types``: adapters/store/feed_reads.py)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def head(self) -> int:
        return int(self.store.feed_head())

    def page(self, after: int, limit: int, scope: FeedScope) -> FeedPage:
        limit = max(1, min(limit, MAX_PAGE))
        head = self.head()  # read BEFORE the rows: every event up to it is in what they see
        rows = self.store.feed_rows(after, limit, scope.streams, scope.types, scope.excluded)
        full = len(rows) >= limit
        last = rows[-1][0] if rows else after
        next_after = last if full else max(last, head, after)
        if not rows:
            return FeedPage([], next_after, max(head, last), full)
        sealing = self.store.sealing_checkpoints(rows[0][0], last)
        seals = [c[0] for c in sealing]
        ended: dict[tuple[str, int], bool] = {}

        def round_over(row: Sequence[Any], number: int) -> bool:
            """The first round mark after the event closes or voids its round, or starts a
            later one."""
            known = ended.get((row[1], number))
            if known is None:
                mark = self.store.first_of_types(row[1], row[2], ROUND_MARKS)
                known = ended[(row[1], number)] = mark is not None
            return known

        events, payloads = render(rows, seals, round_over)
        return FeedPage(events, next_after, max(head, last), full, payloads)

    def checkpoints(self, after: int, limit: int) -> list[dict[str, Any]]:
        """The checkpoints signed at positions after ``after``, in position order."""
        rows = self.store.checkpoints_after(after, max(1, min(limit, MAX_PAGE)))
        return [checkpoint_json(row) for row in rows]


def render(
    rows: Sequence[Sequence[Any]],
    seals: Sequence[int],
    round_over: Callable[[Sequence[Any], int], bool],
) -> tuple[list[dict[str, Any]], list[str]]:
    """The events of ``rows`` (log rows), each sealed by the first of ``seals`` (checkpoint
    positions, sorted) at or after it; ``round_over(row, round)`` says whether a card may show."""
    events, payloads = [], []
    for row in rows:
        at = bisect.bisect_left(seals, row[0])
        event, payload = _event(row, seals[at] if at < len(seals) else None, round_over)
        events.append(event)
        payloads.append(payload)
    return events, payloads


def _event(
    row: Sequence[Any], sealed_by: int | None, round_over: Callable[[Sequence[Any], int], bool]
) -> tuple[dict[str, Any], str]:
    (position, stream, version, kind, schema, text, at, actor_id, role, command, prev,
     digest, global_prev, global_hash) = row[:14]  # fmt: skip
    redacted: list[str] = []
    if kind in SECRET_TYPES:
        payload = loads_json(text)
        number = payload.get("round")
        if isinstance(number, int) and not round_over(row, number):
            redacted = withhold_cards(kind, payload)
            if redacted:
                text = canonical_json(payload)
    event = {
        "position": position,
        "stream_id": stream,
        "version": version,
        "type": kind,
        "schema_version": schema,
        "at": at,
        "actor": {"id": actor_id, "role": role},
        "command_id": command,
        "prev_hash": prev,
        "hash": digest,
        "global_prev": global_prev,
        "global_hash": global_hash,
        "sealed_by": sealed_by,
        "redacted": redacted,
    }
    return event, text


def event_line(event: dict[str, Any], payload: str) -> str:
    """One event as a JSON object on one line, its payload the stored text itself (the exact
    bytes its hash covers; a withheld card makes it the canonical text of what is shown)."""
    head = _dumps(event)
    return f'{head[:-1]},"payload":{payload}}}'


def event_lines(page: FeedPage) -> list[str]:
    """The page's events, each as ``event_line`` writes it."""
    if page.lines is not None:
        return page.lines
    return [event_line(e, p) for e, p in zip(page.events, page.payloads, strict=True)]


def page_json(page: FeedPage) -> str:
    """A page as ``GET /events`` answers it: ``{"events": [...], "next_after": P, "head": H}``."""
    events = ",".join(event_lines(page))
    return f'{{"events":[{events}],"next_after":{page.next_after},"head":{page.head}}}'


def checkpoint_json(row: Sequence[Any]) -> dict[str, Any]:
    position, digest, signed_at, key_id, signature = row[:5]
    return {
        "position": position,
        "hash": digest,
        "signed_at": signed_at,
        "key_id": key_id,
        "signature": signature,
    }


def withhold_cards(kind: str, payload: dict[str, Any]) -> list[str]:
    """Blank, in ``payload``, the cards the live table's view does not show yet (the deck order
    and the stacks of an open round); their paths. ``GET /tables/{id}/events`` withholds them
    too."""
    withheld: list[str] = []
    if kind == "stacks_dealt":
        for name in ("deck", "stacks", "unused"):
            if payload.get(name) is not None:
                payload[name] = None
                withheld.append(name)
    elif kind == "stacks_assigned":
        for index, assignment in enumerate(payload.get("assignments") or ()):
            dead = isinstance(assignment, dict) and assignment.get("holder") == "dead"
            if dead and assignment.get("cards") is not None:
                assignment["cards"] = None
                withheld.append(f"assignments.{index}.cards")
    return withheld
