"""Every setting the code reads from the environment, in ONE place (pydantic-settings).

Each field is the environment variable ``PAIGOW_`` + its name in capitals (``db`` is
``PAIGOW_DB``); an empty variable counts as unset. docs/operations.md ("Every setting") lists each.
A value that does not parse is refused with one line naming the variable (:class:`SettingsError`;
the CLI prints it and exits 2), never a traceback. Command-line options win over these: the
callers pass ``args.db or settings.db`` and the like.

The settings are read when :func:`load_settings` is called, not once at import: the parent of
``paigow serve --workers N`` sets the workers' variables before they start, and tests set
variables per test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from eventlog.retention import ACCESS, DISPUTES, GAME, MINIMUM_DAYS, SYSTEM
from table_core.errors import DomainError

if TYPE_CHECKING:
    from adapters.projections.gaming_day import GamingDay

ENV_PREFIX = "PAIGOW_"

LogLevel = Literal["debug", "info", "warning", "error"]
LogFormat = Literal["json", "console"]
#: R18: each retention setting and the category of the log it keeps.
_RETENTION_FIELDS = {
    "retention_days": GAME,
    "retention_system_days": SYSTEM,
    "retention_dispute_days": DISPUTES,
    "retention_access_days": ACCESS,
}


class SettingsError(DomainError):
    """A setting whose value does not parse. A ``DomainError``, so that the CLI answers it as any
    refused input (one line, exit 2) without importing pydantic-settings for the commands that
    read no setting (``paigow evaluate`` runs once per hand in scripts: its start-up counts)."""


class Settings(BaseSettings):
    """The ``PAIGOW_*`` environment variables, with the defaults the code has always used."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_ignore_empty=True, frozen=True)

    #: The database URL when no ``--db`` is given (store: docs/store.md).
    db: str = "sqlite:///paigow.db"
    #: A PKCS#8 PEM file with the Ed25519 key that signs checkpoints (and checks them in audits).
    signing_key: str | None = None
    #: The casino's published Ed25519 public key (PEM or hex file) the audit checks signatures
    #: with when no ``--public-key`` is given: a key the verifier chose (docs/audit.md).
    public_key: str | None = None
    log_level: LogLevel = "info"
    #: ``None``: console lines on a terminal, JSON lines otherwise.
    log_format: LogFormat | None = None
    #: The casino's IANA time zone, for the gaming day (adapters/projections/gaming_day.py).
    tz: str = "UTC"
    #: The gaming day's cut-off, HH:MM on a quarter hour.
    gaming_day_cutoff: str = "06:00"
    #: The casino's pits for the report's roll-up (issue 18): ``main=PG-1,PG-2;high-limit=PG-9``.
    pits: str = ""
    #: PostgreSQL: how many seconds an operation whose connection was lost (a failover) is
    #: retried, reconnecting, before the store answers unavailable (adapters/store/failover.py,
    #: whose ``DEFAULT_RETRY_S`` is this default).
    db_retry_s: float = Field(default=2.0, ge=0, le=600)
    #: R4: seconds the system clock may drift from the monotonic clock between two readings of
    #: the service before it records a ``clock_adjusted`` (a step back is always recorded).
    clock_step_tolerance: float = 2.0
    #: R18: days each category of the log is kept before ``paigow purge`` may remove it,
    #: counted to the log's own time (``eventlog/retention.py``). The defaults are the
    #: jurisdiction's minimums, and a period below its minimum is refused: game events (the
    #: tables' streams) five years, system events five years, the dispute history a year, the
    #: access and authentication logs 90 days.
    retention_days: int = Field(default=MINIMUM_DAYS[GAME], le=36_500)
    retention_system_days: int = Field(default=MINIMUM_DAYS[SYSTEM], le=36_500)
    retention_dispute_days: int = Field(default=MINIMUM_DAYS[DISPUTES], le=36_500)
    retention_access_days: int = Field(default=MINIMUM_DAYS[ACCESS], le=36_500)
    #: Issue 22: the service signs a snapshot of its tables every this many rounds closed (and
    #: at its stop); a restart folds only the events after the newest one. 0: snapshots are
    #: neither taken nor used (every start verifies the whole log and folds from zero).
    snapshot_rounds: int = Field(default=1000, ge=0, le=10_000_000)
    #: Internal: set by ``paigow serve --workers N`` for its worker processes (the ``--db`` given,
    #: unset: ``db``) and whether they verify the store at start.
    serve_worker_db: str | None = None
    serve_worker_verify: bool = True
    #: Internal: set by ``paigow serve --workers N --read-only``.
    serve_worker_read_only: bool = False
    #: Accepted and without effect: it once chose between two request paths for commands; every
    #: command now goes through the one door (entrypoints/http/command_door.py).
    http_fast_path: bool = True
    #: The largest request body the HTTP server reads, in bytes: over it, 413 before the rest is
    #: read (entrypoints/http/command_door.py, BodyLimit).
    http_max_body: int = Field(default=64 * 1024, ge=1024, le=64 * 1024 * 1024)
    #: The event feed's Server-Sent Events (docs/feed.md): a comment line this often, in seconds,
    #: when no event went out, so proxies keep the connection and clients know it lives.
    feed_heartbeat_s: float = Field(default=15.0, ge=0.05, le=300.0)
    #: How often a server on SQLite (no LISTEN/NOTIFY) reads the log's head for its followers,
    #: in milliseconds; PostgreSQL is woken at each commit and reads it every second besides.
    feed_poll_ms: int = Field(default=50, ge=5, le=10_000)
    #: The floor pages' session cookie secret (entrypoints/http/floor/session.py); unset: a random
    #: one made at each start (every session ends when the server restarts).
    floor_session_secret: str | None = Field(default=None, min_length=32)
    #: How long a floor page session lasts after sign-in, in minutes.
    floor_session_minutes: int = Field(default=480, ge=1, le=1440)
    #: PostgreSQL: the role that owns the schema, and the role the service logs in as (read and
    #: append only); ``paigow db upgrade`` creates both (migration 0008, docs/operations.md).
    pg_owner_role: str = Field(default="paigow_owner", pattern=r"^[a-z_][a-z0-9_]{0,62}$")
    pg_service_role: str = Field(default="paigow_service", pattern=r"^[a-z_][a-z0-9_]{0,62}$")

    def pit_of(self) -> dict[str, str]:
        """The ``pits`` setting as table -> pit (adapters/projections/rollup.py)."""
        from adapters.projections.rollup import parse_pits

        return parse_pits(self.pits)

    def pg_roles(self) -> tuple[str, str]:
        """PostgreSQL's (owner, service) roles, as migration 0008 creates them."""
        return self.pg_owner_role, self.pg_service_role

    def gaming_day(self, zone: str | None = None, cutoff: str | None = None) -> GamingDay:
        """The gaming day of the options given, each one not given from these settings."""
        from adapters.projections.gaming_day import GamingDay

        return GamingDay.of(zone or self.tz, cutoff or self.gaming_day_cutoff)

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @field_validator("pits")
    @classmethod
    def _pits_parse(cls, value: str) -> str:
        from adapters.projections.rollup import parse_pits

        parse_pits(value)  # a ValueError names what does not parse
        return value

    @field_validator("clock_step_tolerance")
    @classmethod
    def _not_negative(cls, value: float) -> float:
        if not value >= 0 or value == float("inf"):  # NaN and infinity too
            raise ValueError("a number of seconds, 0 or more")
        return value

    @field_validator(*_RETENTION_FIELDS)
    @classmethod
    def _not_below_the_minimum(cls, value: int, info: ValidationInfo) -> int:
        least = MINIMUM_DAYS[_RETENTION_FIELDS[str(info.field_name)]]
        if value < least:
            raise ValueError(f"below the jurisdiction's minimum of {least} days (R18)")
        return value

    def retention(self) -> dict[str, int]:
        """The configured retention periods, category -> days (``eventlog/retention.py``)."""
        return {category: getattr(self, name) for name, category in _RETENTION_FIELDS.items()}

    @field_validator("tz")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from adapters.projections.gaming_day import parse_zone

        return _checked(parse_zone, value)

    @field_validator("gaming_day_cutoff")
    @classmethod
    def _quarter_hour(cls, value: str) -> str:
        from adapters.projections.gaming_day import parse_cutoff

        return _checked(parse_cutoff, value)


def _checked(parse: Any, value: str) -> str:
    """``value`` when ``parse`` accepts it; its refusal as pydantic's ``ValueError`` otherwise."""
    try:
        parse(value)
    except DomainError as error:
        raise ValueError(error.message) from None
    return value


#: Settings whose values are secrets: an error names the variable, never the value.
SECRET_SETTINGS = frozenset({"floor_session_secret"})


def env_name(field: str) -> str:
    """The environment variable of a setting: ``env_name("db") == "PAIGOW_DB"``."""
    return ENV_PREFIX + field.upper()


def load_settings() -> Settings:
    """The settings as the environment holds them now; a bad value raises :class:`SettingsError`
    naming its variable."""
    try:
        return Settings()
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        name = env_name(field) if field else ENV_PREFIX + "*"
        message = str(first["msg"]).removeprefix("Value error, ")
        if field in SECRET_SETTINGS:  # a secret never reaches a terminal or a log
            raise SettingsError(f"{name} (its value not shown): {message}") from None
        raise SettingsError(f"{name}={first['input']!r}: {message}") from None
