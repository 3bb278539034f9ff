"""R5/R19: failed authentications on the system stream, rate-limited per client address.

A request with no API key, or one the server does not know (or revoked), answers 401 and is logged
(``unknown_api_key``) as always; it is also recorded as an ``authentication_failed`` system event,
at most one per client address per ``window`` (a minute): the first failure from an address is
recorded at once; later ones within the window of that address's last event are only counted, and
the count rides on the address's next recorded event (``failures``: that one plus the uncounted).
The limit is per server process (each worker of ``paigow serve --workers N`` keeps its own).

The event names the route's template (``/tables/{table_id}/deal``, not the path), the client's
address, and the presented token's would-be key id (the first 12 hex digits of its SHA-256, as a
key id is made) when the token has the form of a key (``pgw_…``): never the token itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

#: Addresses remembered at most; past it, those whose window has ended are forgotten first.
_MAX_CLIENTS = 10_000


@dataclass(slots=True)
class _Seen:
    recorded_at: float  # the monotonic time of the address's last recorded event
    uncounted: int = 0  # failures since then, not yet on an event


class FailureLimiter:
    """Decides which failed authentications are recorded: ``failed`` returns the ``failures``
    count of the event to record now, or ``None`` when this one is only counted."""

    def __init__(
        self, window: float = 60.0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self._monotonic = monotonic
        self._seen: dict[str | None, _Seen] = {}
        self._lock = threading.Lock()

    def failed(self, client: str | None) -> int | None:
        now = self._monotonic()
        with self._lock:
            seen = self._seen.get(client)
            if seen is not None and now - seen.recorded_at < self.window:
                seen.uncounted += 1
                return None
            failures = 1 + (seen.uncounted if seen is not None else 0)
            if seen is None and len(self._seen) >= _MAX_CLIENTS:
                self._forget(now)
            self._seen[client] = _Seen(now)
            return failures

    def _forget(self, now: float) -> None:
        """Forget the addresses whose window ended (their uncounted failures are lost: a flood
        from that many addresses is already on record once per address)."""
        for client in [c for c, s in self._seen.items() if now - s.recorded_at >= self.window]:
            del self._seen[client]
