"""Events of the ``system`` stream: what a regulator expects in the log besides the tables' events.

Frozen pydantic models with a stable ``type`` and a ``schema_version``, stored through the same
append-only store (stream id ``system``) so they are hashed, chained and signed like the rest.

Who caused one is the table events' ``Actor`` (``actor``); the stored payload keeps it as the two
fields ``actor_id`` and ``actor_role``, as the log has always held it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from table_core.events import Actor
from table_core.ports import Payload, Upcasters

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
    """The service started, and the code it runs (R5/R19).

    Schema 2: ``digest`` is the code's identity (``eventlog/code_identity.py``: every file of the
    packages and the lock file, 64 hex digits), ``recipe`` the recipe's name and ``parts`` each
    package's and the lock file's own SHA-256. ``rng`` names the deck-and-dice source the
    service deals from: its ``class``, what it ``draws_from`` and its module's ``file`` and
    ``sha256`` (``None``: a service that deals no electronic round). ``software_version`` is the
    installed distribution's version, a label: change control compares digests. Schema 1 (a
    start before the code's identity was recorded) reads through :func:`_service_started_v1`:
    no digest, no parts, no source named.
    """

    schema_version: int = 2
    type: Literal["service_started"] = "service_started"
    software_version: str
    store: str
    digest: str | None
    recipe: str | None
    parts: dict[str, str]
    rng: dict[str, Any] | None


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
    # held | already_held | destroyed, "note"}`` (service_layer/dispute_decks.py); the ``deck_held``
    # events of ``held`` ones are in the table's stream, in this event's transaction.
    decks: list[dict[str, Any]] = Field(default_factory=list)


class DisputeClosed(_SystemEvent):
    """R17: the dispute ``dispute_id`` closed with ``outcome``; its rounds are held no longer."""

    type: Literal["dispute_closed"] = "dispute_closed"
    dispute_id: str
    outcome: str


class ApiKeyCreated(_SystemEvent):
    """R5/R19: an API key was created for ``key_actor`` with ``role`` (never the token).

    ``key_hash``: the token's SHA-256, which binds the key to this event: a key authenticates only
    when the sealed log records its creation (``service_layer/operators/ledger.py``). ``None`` in
    logs written before, whose keys no longer authenticate. The actor is who created it: a key of
    the ``security`` role, or ``actor_role`` ``bootstrap`` for a store's first key."""

    type: Literal["api_key_created"] = "api_key_created"
    key_id: str
    key_actor: str
    role: str
    key_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


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
    (``entrypoints/http/auth_failures.py``): ``failures`` counts this one and those from the same
    client not recorded since its last event."""

    type: Literal["authentication_failed"] = "authentication_failed"
    route: str
    client: str | None
    key_id: str | None
    failures: int = Field(ge=1)


class SoftwareVersionChanged(_SystemEvent):
    """R5/R19: the service started with code ``new_digest`` where the last ``service_started``
    ran ``old_digest``; recorded before that start's other events. ``old_version`` and
    ``new_version`` are those starts' ``software_version`` labels. ``old_digest`` is ``None``
    after a start that recorded no digest; both are ``None`` in changes recorded before change
    control compared digests (they compared the labels)."""

    type: Literal["software_version_changed"] = "software_version_changed"
    old_version: str
    new_version: str
    # The waiting ``software_version_authorised`` this change used
    # (service_layer/software_versions.py): its global position and reason. ``None`` in logs written
    # before change control existed.
    authorisation: int | None = None
    reason: str | None = None
    old_digest: str | None = None
    new_digest: str | None = None


class SoftwareVersionAuthorised(_SystemEvent):
    """R5/R19: a floor supervisor (the actor) authorised the code of ``digest`` to run, for
    ``reason``, before it ran; the ``software_version_changed`` into it names this event.
    ``version`` repeats the digest (an authorisation recorded before change control compared
    digests named a version label there, and no digest: it authorises no code)."""

    type: Literal["software_version_authorised"] = "software_version_authorised"
    version: str = Field(min_length=1, max_length=100)
    reason: str = Field(min_length=1, max_length=2000)
    digest: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")


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
    retention_days: int  # the game events' period (the one setting before there were categories)
    reason: str
    # R18, written by every purge since retention is judged per category against the log's time
    # (``None`` in a purge recorded before): ``log_time``, the recorded time of the log's last
    # sealed event (at ``log_time_position``), against which the purge was judged; ``retention``,
    # the periods applied (category -> days, ``eventlog/retention.py``); ``newest``, each
    # category's newest event in the range (``{"position", "at"}``).
    log_time: datetime | None = None
    log_time_position: int | None = None
    retention: dict[str, int] | None = None
    newest: dict[str, dict[str, Any]] | None = None


class RetentionSet(_SystemEvent):
    """R18: the retention ``periods`` in force from here on (category -> days,
    ``eventlog/retention.py``); ``previous``: those it replaces (``None``: the first recorded).
    Recorded by ``paigow purge``, with its actor and reason, when the configured periods
    (``PAIGOW_RETENTION_*``) differ from the last recorded ones, in the transaction of the
    purge's ``range_purged``."""

    type: Literal["retention_set"] = "retention_set"
    periods: dict[str, int]
    previous: dict[str, int] | None
    reason: str = Field(min_length=1)


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
    | RetentionSet
    | UnsealedEventsAdopted,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[Any] = TypeAdapter(SystemEvent)
#: Every system event's stored ``type`` name.
SYSTEM_TYPES: frozenset[str] = frozenset(
    model.model_fields["type"].default for model in get_args(get_args(SystemEvent)[0])
)

#: The system stream's older schema versions, lifted to the newest on read (docs/events.md).
SYSTEM_UPCASTERS = Upcasters()


@SYSTEM_UPCASTERS.register("service_started", 1)
def _service_started_v1(payload: Payload) -> Payload:
    """A start recorded before the code's identity: nothing known of its code or source."""
    lifted = dict(payload)
    lifted.update(schema_version=2, digest=None, recipe=None, parts={}, rng=None)
    return lifted


def upcast_system(kind: str, schema_version: int, payload: Payload) -> Payload:
    """A stored system event's payload in its type's newest schema."""
    if SYSTEM_UPCASTERS.lifts(kind, schema_version):
        return SYSTEM_UPCASTERS.upcast(kind, schema_version, payload)[1]
    return payload


def parse_system_event(payload: dict[str, Any]) -> Any:
    """A stored system event's payload as its model, through the upcasters."""
    kind, schema = payload.get("type"), payload.get("schema_version", 1)
    if isinstance(kind, str) and type(schema) is int:
        payload = upcast_system(kind, schema, payload)
    return _ADAPTER.validate_python(payload)
