"""Named subscriptions to the event feed: a consumer's filter and the last position it
acknowledged, kept by the server, so that a consumer restarts where it stopped (docs/feed.md,
"Durable subscriptions").

Delivery is at least once: a consumer that stops after handling an event but before
acknowledging it gets it again, and tells it by its position (positions are unique and ordered:
a consumer that keeps the last position it handled is idempotent). An acknowledgement only moves
forward; one past the log's head is refused. ``lag`` is the log's head minus the acknowledged
position: positions, not events of the subscription's filter (counting those would read them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.store.subscriptions import Subscription, Subscriptions
from service_layer.feed import FeedScope, UnknownEventTypes, check_types, scope_for

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
_NAME = re.compile(NAME_PATTERN)


class SubscriptionError(Exception):
    """A refused request: ``status`` is the HTTP status (404, 409, 422)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create(
    subscriptions: Subscriptions,
    name: str,
    types: Sequence[str] | None,
    table_ids: Sequence[str] | None,
    after: int,
    head: int,
    actor_id: str,
    at: datetime,
) -> Subscription:
    """A new subscription whose consumer starts after position ``after`` (0: the log's start;
    at most the head)."""
    if _NAME.fullmatch(name) is None:
        raise SubscriptionError(422, f"a subscription's name matches {NAME_PATTERN}")
    if after > head:
        raise SubscriptionError(422, f"position {after} is past the log's head ({head})")
    try:
        check_types(types)
    except UnknownEventTypes as error:
        raise SubscriptionError(422, str(error)) from None
    subscription = Subscription(
        name,
        None if types is None else tuple(types),
        None if table_ids is None else tuple(table_ids),
        after,
        at.isoformat(),
        actor_id,
    )
    if not subscriptions.create(subscription):
        raise SubscriptionError(409, f"a subscription named {name!r} exists already")
    return subscription


def find(subscriptions: Subscriptions, name: str) -> Subscription:
    found = subscriptions.get(name)
    if found is None:
        raise SubscriptionError(404, f"no subscription named {name!r}")
    return found


def ack(
    subscriptions: Subscriptions, name: str, position: int, head: int, at: datetime
) -> Subscription:
    """Record that the consumer handled every event of its subscription up to ``position``."""
    find(subscriptions, name)
    if position > head:
        raise SubscriptionError(422, f"position {position} is past the log's head ({head})")
    found = subscriptions.ack(name, position, at.isoformat())
    if found is None:  # deleted meanwhile
        raise SubscriptionError(404, f"no subscription named {name!r}")
    return found


def delete(subscriptions: Subscriptions, name: str) -> None:
    if not subscriptions.delete(name):
        raise SubscriptionError(404, f"no subscription named {name!r}")


def scope_of(subscription: Subscription, role: str) -> FeedScope:
    """The subscription's filter, within what ``role`` may read."""
    return scope_for(role, subscription.table_ids, subscription.types)


def described(subscription: Subscription, head: int) -> dict[str, Any]:
    """A subscription as the API shows it, with its lag behind the log's head."""
    s = subscription
    return {
        "name": s.name,
        "types": None if s.types is None else list(s.types),
        "table_ids": None if s.table_ids is None else list(s.table_ids),
        "position": s.position,
        "lag": max(0, head - s.position),
        "created_at": s.created_at,
        "created_by": s.created_by,
        "acked_at": s.acked_at,
    }
