"""R5/R19: the floor authorises a release's code by its digest, with a reason, before it runs
(``software_version_authorised`` on the system stream). The rule a start is checked by is
``software_versions.py``'s; this is the act that records an authorisation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from eventlog.system_events import SoftwareVersionAuthorised
from service_layer.software_versions import (
    AUTHORISING_ROLES,
    VersionAuthorisationError,
    _reason,
    checked_digest,
    last_started,
    record,
    system_events,
)
from service_layer.system_stream import SystemStream
from table_core.ports import EventStore


def authorise(
    store: EventStore, digest: str, reason: str, actor: Any, now: datetime
) -> dict[str, Any]:
    """Record ``software_version_authorised`` for the code of ``digest`` by ``actor`` (a floor
    supervisor); its record. Refused, nothing written: not a digest (a version label), an empty
    reason, another role, or the digest the log already runs."""
    if actor.role not in AUTHORISING_ROLES:
        raise VersionAuthorisationError(
            f"the {actor.role} role may not authorise a software version: it is the floor's", 403
        )
    digest = checked_digest(digest)
    reason = _reason(reason)
    last = last_started(system_events(store))
    if last is not None and last.digest == digest:
        raise VersionAuthorisationError(
            f"the code of digest {digest} is the one the log runs (its last start): "
            "nothing to authorise",
            409,
        )
    event = SoftwareVersionAuthorised(
        at=now, actor_id=actor.id, actor_role=actor.role, version=digest, digest=digest,
        reason=reason,
    )  # fmt: skip
    (recorded,) = SystemStream(store).append([event])
    return record(recorded.position, recorded.payload)
