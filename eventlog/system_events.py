"""Events of the ``system`` stream: what a regulator expects in the log besides the tables' events.

Frozen pydantic models with a stable ``type`` and a ``schema_version``, stored through the same
append-only store (stream id ``system``) so they are hashed, chained and signed like the rest.

Who caused one is the table events' ``Actor`` (``actor``); the stored payload keeps it as the two
fields ``actor_id`` and ``actor_role``, as the log has always held it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from table_core.events import Actor

SYSTEM_STREAM = "system"


class _SystemEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    at: datetime
    actor_id: str = "paigow"
    actor_role: str = "system"

    @property
    def actor(self) -> Actor:
        """Who caused it, as a table event names its actor."""
        return Actor(id=self.actor_id, role=self.actor_role)


class ServiceStarted(_SystemEvent):
    type: Literal["service_started"] = "service_started"
    software_version: str
    store: str


class ServiceStopped(_SystemEvent):
    type: Literal["service_stopped"] = "service_stopped"


class StoreOpened(_SystemEvent):
    type: Literal["store_opened"] = "store_opened"
    store: str
    schema_revision: str | None


class RulesProfileChanged(_SystemEvent):
    """Mirrors a table's ``rules_changed``, so the system log lists every change of rules."""

    type: Literal["rules_profile_changed"] = "rules_profile_changed"
    table_id: str
    profile_version: int
    reason: str


class RoundVoidedNoted(_SystemEvent):
    """Mirrors a table's ``round_voided`` (a misdeal is a significant event for a regulator)."""

    type: Literal["round_voided"] = "round_voided"
    table_id: str
    round: int
    reason: str


class VerificationFailed(_SystemEvent):
    type: Literal["verification_failed"] = "verification_failed"
    position: int
    stream_id: str | None
    problem: str
    detail: str


class CommandsRefused(_SystemEvent):
    """The service refuses table commands until the store verifies again."""

    type: Literal["commands_refused"] = "commands_refused"
    reason: str


class SigningKeyRotated(_SystemEvent):
    """The key that signs checkpoints changes: the OLD key signs the new public key
    (``canonical.key_rotation_message``), so a verifier holding the first key follows every
    rotation and trusts no key it cannot reach. The checkpoint sealing this event is still signed
    by the old key; every later one by the new."""

    type: Literal["signing_key_rotated"] = "signing_key_rotated"
    old_key_id: str
    new_key_id: str
    new_public_key: str  # raw Ed25519 public key, 64 hex digits
    signed_at: str  # the time in the signed message, as signed (UTC text)
    signature: str  # the old key's Ed25519 signature, hex


#: The service's own lifecycle events: after the last checkpoint of a log written before every
#: stop was sealed, a trailing run of these is what ``--allow-unsealed-tail`` also accepts.
LIFECYCLE_TYPES = frozenset({"service_started", "store_opened", "service_stopped"})


class ClockAdjusted(_SystemEvent):
    """R4: the service's clock stepped, recorded before any event stamped by the new time.

    ``old_time`` is what the clock would have shown without the step, ``new_time`` what it shows
    (``at`` is ``new_time``). ``detected``: ``earlier_than_last_reading`` (the clock read earlier
    than the reading before), ``wall_clock_left_monotonic_clock`` (the wall clock moved more than
    ``tolerance_ms`` away from the monotonic clock between two readings), or
    ``earlier_than_table_event`` (a command's time is earlier than table ``table_id``'s last
    event and no clock step was recorded after that event).
    """

    type: Literal["clock_adjusted"] = "clock_adjusted"
    old_time: datetime
    new_time: datetime
    detected: Literal[
        "earlier_than_last_reading", "wall_clock_left_monotonic_clock", "earlier_than_table_event"
    ]
    tolerance_ms: int
    table_id: str | None = None


class DisputeOpened(_SystemEvent):
    """R17: a floor supervisor or an auditor opened a dispute on rounds of table ``table_id``.

    ``rounds`` are the rounds held (named, or those started inside ``from_time``..``to_time``);
    while the dispute is open they are frozen from purge (R18). ``surveillance``: the casino's
    references to its camera footage, as given."""

    type: Literal["dispute_opened"] = "dispute_opened"
    dispute_id: str
    table_id: str
    reason: str
    player: str | None
    rounds: list[int]
    from_time: datetime | None
    to_time: datetime | None
    surveillance: list[str]
    # R20: each deck that dealt a disputed round, as the opening found it: ``{"deck_id", "hold":
    # held | already_held | destroyed, "note"}`` (adapters/dispute_decks.py); the ``deck_held``
    # events of ``held`` ones are in the table's stream, in this event's transaction.
    decks: list[dict[str, Any]] = Field(default_factory=list)


class DisputeClosed(_SystemEvent):
    """R17: the dispute ``dispute_id`` closed with ``outcome``; its rounds are held no longer."""

    type: Literal["dispute_closed"] = "dispute_closed"
    dispute_id: str
    outcome: str


class ApiKeyCreated(_SystemEvent):
    """R5/R19: an API key was created for ``key_actor`` with ``role`` (never the token)."""

    type: Literal["api_key_created"] = "api_key_created"
    key_id: str
    key_actor: str
    role: str


class ApiKeyRevoked(_SystemEvent):
    """R5/R19: the API key ``key_id`` was revoked."""

    type: Literal["api_key_revoked"] = "api_key_revoked"
    key_id: str


class ApiKeyRoleChanged(_SystemEvent):
    """R5/R19: the API key ``key_id`` went from ``old_role`` to ``new_role`` for ``reason``
    (never the token)."""

    type: Literal["api_key_role_changed"] = "api_key_role_changed"
    key_id: str
    old_role: str
    new_role: str
    reason: str = Field(min_length=1)


class AuthenticationFailed(_SystemEvent):
    """R5/R19: a request to ``route`` (the route's template) from ``client`` carried no API key,
    or one the server does not know. ``key_id``: the presented token's would-be key id (the first
    12 hex digits of its SHA-256) when it has the form of a key, never the token. Rate-limited
    (``adapters/http/auth_failures.py``): ``failures`` counts this one and those from the same
    client not recorded since its last event."""

    type: Literal["authentication_failed"] = "authentication_failed"
    route: str
    client: str | None
    key_id: str | None
    failures: int = Field(ge=1)


class SoftwareVersionChanged(_SystemEvent):
    """R5/R19: the service started with ``new_version`` where the last ``service_started`` named
    ``old_version``; recorded before that start's other events."""

    type: Literal["software_version_changed"] = "software_version_changed"
    old_version: str
    new_version: str
    # The waiting ``software_version_authorised`` this change used (adapters/software_versions.py):
    # its global position and reason. ``None`` in logs written before change control existed.
    authorisation: int | None = None
    reason: str | None = None


class SoftwareVersionAuthorised(_SystemEvent):
    """R5/R19: a floor supervisor (the actor) authorised software ``version`` to run, for
    ``reason``, before it ran; the ``software_version_changed`` into it names this event."""

    type: Literal["software_version_authorised"] = "software_version_authorised"
    version: str = Field(min_length=1, max_length=100)
    reason: str = Field(min_length=1, max_length=2000)


class RangePurged(_SystemEvent):
    """R18: the log's head, positions ``first_position``..``last_position``, was purged after
    its signed archive was written (``archive``: file name, SHA-256, events).

    ``last_global_hash`` is the global hash at ``last_position`` (the next event's
    ``global_prev``) and ``stream_heads`` each stream's version and hash there, for the streams
    that go on: the verifier (``eventlog/verifier.py``) accepts a log that starts right after a
    purge so recorded, and nothing else. ``tables``: the tables whose whole stream was purged."""

    type: Literal["range_purged"] = "range_purged"
    first_position: int
    last_position: int
    first_hash: str
    last_hash: str
    last_global_hash: str
    stream_heads: dict[str, dict[str, Any]]
    tables: list[str]
    archive: dict[str, Any]
    retention_days: int
    reason: str


class UnsealedEventsAdopted(_SystemEvent):
    """An operator holding the signing key vouched for events no append tag of the key covers
    (``paigow db adopt``): the unsealed head of a log written before the append tags, or events
    appended without the key. ``first_position``..``through_position`` (``events`` of them not
    tagged, ``global_hash`` the log's hash at ``through_position``); the actor and ``reason`` say
    who and why. The checkpoint right after this event seals them; from then on they are vouched
    for as the store's own appends are."""

    type: Literal["unsealed_events_adopted"] = "unsealed_events_adopted"
    first_position: int
    through_position: int
    events: int
    global_hash: str
    reason: str = Field(min_length=1, max_length=2000)


SystemEvent = Annotated[
    ServiceStarted
    | ServiceStopped
    | StoreOpened
    | RulesProfileChanged
    | RoundVoidedNoted
    | VerificationFailed
    | CommandsRefused
    | SigningKeyRotated
    | ClockAdjusted
    | DisputeOpened
    | DisputeClosed
    | ApiKeyCreated
    | ApiKeyRevoked
    | ApiKeyRoleChanged
    | AuthenticationFailed
    | SoftwareVersionChanged
    | SoftwareVersionAuthorised
    | RangePurged
    | UnsealedEventsAdopted,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[Any] = TypeAdapter(SystemEvent)


def parse_system_event(payload: dict[str, Any]) -> Any:
    return _ADAPTER.validate_python(payload)
