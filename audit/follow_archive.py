"""``paigow audit follow --archive URL --properties FILE``: every property of a regulator's central
archive followed at once (deploy/archive/README.md).

The archive is one PostgreSQL database fed by logical replication from each property's own
cluster, a schema per property holding that property's signed log as the property wrote it
(``events``, ``event_log``, ``commands``, ``checkpoints``, ``append_tag_anchors``). This runs one
``audit.follow.Follower`` per property: its own read-only connection whose ``search_path`` is the
property's schema, the checkers of ``paigow audit verify``, and the property's own public key,
pinned in the properties file. Nothing the archive or the replication link says is taken on
trust: a row changed on the way or in the archive breaks that property's chain or a signature
exactly as it would at the property, and the finding names the property and the position.

Two facts only the archive knows, read from PostgreSQL's catalog when the properties file names
the property's subscription (any role may read them):

- the first copy: while a table of the subscription is still being copied
  (``pg_subscription_rel.srsubstate`` other than ``r``), the tables are copied one by one and do
  not agree with each other yet (a checkpoint may arrive before its events): the property is not
  judged until every table is ready (a ``syncing`` line). Afterwards each transaction of the
  property is applied whole, in commit order, so a checkpoint is never visible before its rows;
- the link (``--stale-after SECONDS``): a property is ``stale`` when, for SECONDS, nothing shows
  its replication alive: no new checkpoint of it reached the archive, and its subscription's apply
  worker received no message from the publisher (``pg_stat_subscription.last_msg_receipt_time``,
  aged on the archive's own clock; an idle link still carries the publisher's keepalives, at least
  every half ``wal_receiver_timeout``; a message counts once no new error of the subscription
  followed it: ``Liveness``). A disabled subscription, a worker that cannot connect or keeps
  failing, a publisher gone: one ``archive.stale`` finding for the property, once, then a
  ``resumed`` line when it lives again. Without a subscription the follower can read, only new
  checkpoints count: set SECONDS above the property's longest quiet time. The follower's start
  counts as alive (it knows no history), so a ``--once`` pass never calls a property stale.
"""

from __future__ import annotations

import contextlib
import re
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL

from audit.findings import Finding
from audit.follow import Checkers, Follower, Outcome, passes_until_stopped
from audit.follow_journal import FollowState
from audit.follow_log import CHANNEL, open_live
from audit.follow_tail import TailWatch
from audit.sources import AuditUsageError, log_url, postgres_session, resolve_key
from audit.witness import load as load_witness

#: A schema name used unquoted in a connection's ``search_path`` and in SQL.
SCHEMA = re.compile(r"[a-z_][a-z0-9_]{0,62}")
#: A property's name: also its state file's name (``--state-dir``).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
FIELDS = {"name", "schema", "public_key", "subscription", "witness"}

LINK_QUERY = """
SELECT s.subname, s.subenabled,
  (SELECT count(*) FROM pg_stat_subscription w
   WHERE w.subid = s.oid AND w.relid IS NULL AND w.pid IS NOT NULL),
  (SELECT extract(epoch FROM now() - max(w.last_msg_receipt_time))::float8
   FROM pg_stat_subscription w WHERE w.subid = s.oid AND w.relid IS NULL AND w.pid IS NOT NULL),
  (SELECT count(*) FROM pg_subscription_rel r WHERE r.srsubid = s.oid AND r.srsubstate <> 'r'),
  (SELECT st.apply_error_count + st.sync_error_count FROM pg_stat_subscription_stats st
   WHERE st.subid = s.oid)
FROM pg_subscription s
WHERE s.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND s.subname = ANY(%s)
"""


@dataclass(frozen=True)
class ArchivedProperty:
    """One ``[[property]]`` of the properties file."""

    name: str
    schema: str
    public_key: bytes
    key_file: str
    subscription: str | None
    witness: tuple[tuple[Any, ...], ...] = ()


def load_properties(path: str | Path) -> list[ArchivedProperty]:
    """The properties file (TOML): one ``[[property]]`` table each, with ``name``, ``schema``
    (the property's schema in the archive), ``public_key`` (the property's public key file,
    required: no property is followed unsigned), optionally ``subscription`` (default: the
    schema's name; ``""``: none) and ``witness`` (a witness file). Relative paths are the file's
    folder's. ``AuditUsageError`` for anything else."""
    target = Path(path)
    try:
        data = tomllib.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise AuditUsageError(f"cannot read the properties file {target}: {error}") from None
    entries = data.get("property")
    if not isinstance(entries, list) or not entries or set(data) != {"property"}:
        raise AuditUsageError(f"{target}: one [[property]] table per property, nothing else")
    found = [_property(entry, target, number) for number, entry in enumerate(entries, 1)]
    for attribute in ("name", "schema"):
        seen = [getattr(p, attribute) for p in found]
        twice = sorted({x for x in seen if seen.count(x) > 1})
        if twice:
            raise AuditUsageError(f"{target}: the {attribute} {twice[0]} is given twice")
    return found


def _property(entry: Any, target: Path, number: int) -> ArchivedProperty:
    where = f"{target}, property {number}"
    if not isinstance(entry, dict):
        raise AuditUsageError(f"{where}: not a table")
    unknown = sorted(set(entry) - FIELDS)
    if unknown:
        raise AuditUsageError(f"{where}: unknown key {unknown[0]} (keys: {', '.join(FIELDS)})")
    name, schema, key_file = entry.get("name"), entry.get("schema"), entry.get("public_key")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AuditUsageError(f"{where}: name must be letters, digits, '.', '_' or '-'")
    if not isinstance(schema, str) or not SCHEMA.fullmatch(schema):
        raise AuditUsageError(f"{where} ({name}): schema must be a lower-case identifier")
    if not isinstance(key_file, str) or not key_file:
        raise AuditUsageError(f"{where} ({name}): public_key (a file) is required")
    subscription = entry.get("subscription", schema)
    if not isinstance(subscription, str):
        raise AuditUsageError(f"{where} ({name}): subscription must be a name")
    key_path = target.parent / key_file
    try:
        key, _source = resolve_key(None, key_path)
    except AuditUsageError as error:
        raise AuditUsageError(f"property {name}: {error}") from None
    assert key is not None
    witness: tuple[tuple[Any, ...], ...] = ()
    if entry.get("witness"):
        witness = tuple(load_witness(target.parent / str(entry["witness"])))
    return ArchivedProperty(name, schema, key, str(key_path), subscription or None, witness)


def property_url(archive: str | URL, schema: str) -> URL:
    """The archive's URL with ``schema`` first on the connection's search path (libpq's
    ``options``, after any the URL gives)."""
    url = log_url(archive)
    given = url.query.get("options", "")
    given = given if isinstance(given, str) else " ".join(given)
    return url.update_query_dict({"options": f"{given} -csearch_path={schema}".strip()})


@dataclass(frozen=True)
class Link:
    """A subscription as the archive's catalog shows it."""

    subscription: str
    enabled: bool
    workers: int
    age: float | None  # seconds since its apply worker last heard from the publisher
    copying: int  # tables still in their first copy
    errors: int | None

    def reason(self, quiet: float, failing: bool) -> str:
        if not self.enabled:
            errors = f" after {self.errors} error(s)" if self.errors else ""
            return f"its subscription {self.subscription} is disabled{errors}"
        if failing:
            return (
                f"its subscription {self.subscription} keeps failing ({self.errors} error(s) so "
                "far; the archive's server log says why: a row it refuses, a publisher it "
                "cannot follow)"
            )
        if not self.workers:
            return (
                f"its subscription {self.subscription} has no running worker (the publisher "
                "unreachable, or its slot gone)"
            )
        return f"the publisher has sent nothing for {quiet:.1f} s"


class Liveness:
    """When a property last showed its replication alive; ``see`` says when that turns stale
    (``after`` seconds without) and when it lives again.

    Signs of life: a new checkpoint in the archive, or a message the subscription's worker
    received from the publisher, counted only once a later look finds no new error of the
    subscription (``errors``: its apply and first-copy error counts): a worker that reconnects
    after each failure (a row the archive refuses, retried for ever) hears the publisher each
    time just before it fails again, which is no sign of life; a link that failed once and runs
    again is one."""

    def __init__(self, after: float, now: float) -> None:
        self.after = after
        self.alive_at = now  # the follower's start: it knows no history
        self.stale = False
        self.errors: int | None = None
        self.erred_at: float | None = None  # when a new error was first seen
        self.heard: float | None = None  # a message's time, not yet confirmed

    def see(
        self, now: float, moved: bool, link_age: float | None, errors: int | None = None
    ) -> str | None:
        """``moved``: a new checkpoint arrived; ``link_age``: the age of the worker's last
        message (None: no worker); ``errors``: the subscription's error count (None: unknown).
        "stale", "resumed" or None."""
        if moved:
            self.alive_at = now
        if errors is not None and self.errors is not None and errors != self.errors:
            self.erred_at, self.heard = now, None  # what was heard before it proves nothing
        elif self.heard is not None:
            self.alive_at = max(self.alive_at, self.heard)
            self.heard = None
        if errors is not None:
            self.errors = errors
        if link_age is not None:
            heard = now - max(link_age, 0.0)
            if self.erred_at is None or heard > self.erred_at:
                self.heard = heard  # confirmed by the next look if no error came meanwhile
        quiet = now - self.alive_at
        if quiet >= self.after and not self.stale:
            self.stale = True
            return "stale"
        if quiet < self.after and self.stale:
            self.stale = False
            return "resumed"
        return None

    def quiet(self, now: float) -> float:
        return now - self.alive_at

    def failing(self, now: float) -> bool:
        """A new error of the subscription within the last ``after`` seconds."""
        return self.erred_at is not None and now - self.erred_at < self.after


@dataclass
class PropertyPass:
    """One property's share of a pass: its outcome, a note (``syncing``, ``synced``,
    ``resumed``), and what made it stale."""

    prop: ArchivedProperty
    outcome: Outcome
    note: str | None = None
    stale: dict[str, Any] | None = None


@dataclass
class _Followed:
    prop: ArchivedProperty
    follower: Follower
    liveness: Liveness | None
    copying: bool = False


@dataclass
class ArchiveFollower:
    """The archive's properties, each with its follower; one connection waits for them all
    (LISTEN), another reads the catalog."""

    name: str
    watch: Any
    catalog: Any
    followed: list[_Followed]
    poll: float
    clock: Callable[[], float] = time.monotonic
    links_readable: bool = True

    @property
    def schemas(self) -> set[str]:
        return {f.prop.schema for f in self.followed}

    @property
    def states(self) -> dict[str, FollowState]:
        return {f.prop.name: f.follower.state for f in self.followed}

    def resume(self) -> list[PropertyPass]:
        """Each follower rebuilt up to its saved position (``Follower.resume``)."""
        return [PropertyPass(f.prop, f.follower.resume()) for f in self.followed]

    def step(self) -> list[PropertyPass]:
        """One pass over every property: its new checkpoints verified (unless its first copy is
        still running), its liveness judged."""
        links = self.links()
        passes = []
        for followed in self.followed:
            link = links.get(followed.prop.name)
            done = PropertyPass(followed.prop, Outcome())
            if link is not None and link.copying:
                if not followed.copying:
                    done.note = "syncing"
                followed.copying = True
            else:
                if followed.copying:
                    done.note = "synced"
                followed.copying = False
                done.outcome = followed.follower.step()
            if followed.liveness is not None:
                self._judge(followed, link, done)
            passes.append(done)
        return passes

    def _judge(self, followed: _Followed, link: Link | None, done: PropertyPass) -> None:
        liveness = followed.liveness
        assert liveness is not None
        now = self.clock()
        heard = link.age if link is not None and link.enabled and link.workers else None
        errors = link.errors if link is not None else None
        verdict = liveness.see(now, done.outcome.checkpoints > 0, heard, errors)
        if verdict == "resumed":
            done.note = "resumed"
        if verdict != "stale":
            return
        quiet = liveness.quiet(now)
        state = followed.follower.state
        reason = (
            link.reason(quiet, liveness.failing(now))
            if link is not None
            else f"no new checkpoint for {quiet:.1f} s (no subscription to read)"
        )
        finding = Finding(
            kind="integrity",
            clause="archive.stale",
            message=(
                f"property {followed.prop.name}: its replication into the archive has shown no "
                f"sign of life for {quiet:.1f} s (--stale-after {liveness.after:g}): {reason}; "
                f"the archive's copy is verified up to position {state.position}"
            ),
            position=state.position or None,
        )
        done.outcome.findings.append(finding)
        state.findings += 1
        done.stale = {
            "seconds": round(quiet, 3),
            "subscription": link.subscription if link is not None else None,
            "enabled": link.enabled if link is not None else None,
            "worker": bool(link.workers) if link is not None else None,
            "last_message_age": None if heard is None else round(heard, 3),
            "errors": link.errors if link is not None else None,
        }

    def links(self) -> dict[str, Link]:
        """Each property's subscription as the catalog shows it (none: unnamed, not found, or
        the catalog unreadable)."""
        names = {f.prop.subscription: f.prop.name for f in self.followed if f.prop.subscription}
        if not names or not self.links_readable:
            return {}
        try:
            rows = self.catalog.execute(LINK_QUERY, (sorted(names),)).fetchall()
        except Exception:  # an older server, or no right to read: checkpoints only
            self.links_readable = False
            return {}
        found = {}
        for subscription, enabled, workers, age, copying, errors in rows:
            found[names[subscription]] = Link(
                subscription,
                bool(enabled),
                int(workers),
                None if age is None else float(age),
                int(copying),
                None if errors is None else int(errors),
            )
        return found

    def wait(self, stop: Callable[[], bool]) -> None:
        """Until a checkpoint of a followed schema is signed into the archive (a notification),
        ``poll`` seconds at most, or ``stop()``."""
        deadline = time.monotonic() + self.poll
        schemas = self.schemas
        while not stop():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            for note in self.watch.notifies(timeout=min(left, 0.05), stop_after=1):
                if note.payload in schemas or note.payload == "":
                    return

    def close(self) -> None:
        for followed in self.followed:
            followed.follower.log.close()
        for connection in (self.watch, self.catalog):
            with contextlib.suppress(Exception):
                connection.close()


def open_archive(
    archive: str | URL,
    properties: Sequence[ArchivedProperty],
    states: dict[str, FollowState],
    *,
    poll: float,
    unsealed_after: float | None = None,
    stale_after: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ArchiveFollower:
    """Connect to the archive for every property (each schema checked first); ``states``: the
    saved states by property name (a missing one starts from the first event)."""
    url = log_url(archive)
    if url.get_backend_name() != "postgresql":
        shown = url.render_as_string(hide_password=True)
        raise AuditUsageError(f"the archive is a PostgreSQL database, not {shown}")
    watch, name = postgres_session(url)
    logs: list[Any] = [watch]
    try:
        catalog = postgres_session(url)[0]
        logs.append(catalog)
        for connection in (watch, catalog):
            connection.rollback()
            connection.autocommit = True
        _check_schemas(catalog, properties, name)
        followed = []
        for prop in properties:
            log = open_live(property_url(url, prop.schema), poll, listen=False)
            logs.append(log)
            state = states.get(prop.name) or FollowState(source=log.name)
            if state.source != log.name:
                raise AuditUsageError(
                    f"the state of property {prop.name} follows {state.source}, not {log.name}"
                )
            tail = TailWatch(unsealed_after) if unsealed_after is not None else None
            followed.append(
                _Followed(
                    prop,
                    Follower(log, Checkers(prop.public_key, prop.witness), state, tail),
                    Liveness(stale_after, clock()) if stale_after is not None else None,
                )
            )
        watch.execute(f"LISTEN {CHANNEL}")
    except BaseException:
        for opened in logs:
            with contextlib.suppress(Exception):
                opened.close()
        raise
    return ArchiveFollower(name, watch, catalog, followed, poll, clock)


def _check_schemas(watch: Any, properties: Iterable[ArchivedProperty], name: str) -> None:
    for prop in properties:
        found = watch.execute(
            "SELECT to_regclass(%s), to_regclass(%s)",
            (f"{prop.schema}.event_log", f"{prop.schema}.checkpoints"),
        ).fetchone()
        if found is None or None in found:
            raise AuditUsageError(
                f"property {prop.name}: the archive {name} has no schema {prop.schema} with the "
                "archived tables (deploy/archive/archive_property.sql)"
            )


Report = Callable[[PropertyPass], None]


def follow_archive(
    archive: ArchiveFollower,
    report: Report,
    save: Callable[[], None],
    stop: Callable[[], bool],
    *,
    once: bool = False,
    exit_on_finding: bool = False,
    saved: Report | None = None,
) -> int:
    """``audit.follow.follow`` over every property: resume, then a pass at every wake-up until
    ``stop()``; 0, or 1 for a finding under ``exit_on_finding`` (at once) or ``once`` (after its
    one pass)."""

    def judge(done: list[PropertyPass]) -> bool:
        for one in done:
            report(one)
        save()
        if saved is not None:
            for one in done:
                saved(one)
        return any(one.outcome.findings for one in done)

    return passes_until_stopped(
        archive.resume,
        archive.step,
        archive.wait,
        judge,
        stop,
        once=once,
        exit_on_finding=exit_on_finding,
    )
