"""The application service: the only way commands reach the store.

load (fold the table's stream) -> ``table_core.table.decide`` -> append, in one transaction, at
the version that was loaded. Time, the deck order and the dice are resolved here, before the core
decides, and recorded in the events (docs/architecture.md). Every command and its outcome is
logged with structlog, bound with table, round, actor and command id; logs never replace events.

Recovery: a table is rebuilt from its committed events alone. A command retried with the same
command id returns the events it produced the first time and writes nothing (a dealer terminal
that timed out must not place a bet twice). An electronic deal whose deck or dice are already
recorded is never drawn again: the round's state says it is dealt, and only the recorded values
are played.

Several processes on one store (a second server, the workers of ``paigow serve --workers N``):
the store's version check refuses a writer whose table is stale. That table is then caught up,
not rebuilt: recorded events never change, so the state held plus the events after its version
is the table now (:meth:`TableService.refresh`). A refusal is confirmed against the table caught
up before it is answered, since a stale state may refuse what the table now allows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from adapters.clock import Clock, ClockStep, ClockWatch, Monotonic, system_clock
from adapters.code_identity import RunningCode
from adapters.logging import get_logger
from eventlog import provenance
from eventlog.envelope import wrote
from eventlog.mapper import to_new_event
from service_layer.batch_execution import BatchExecution
from service_layer.batches import (
    ElectronicDeal,
    ElectronicDice,
    draw_command,
)
from service_layer.command_outcome import ROUND_ENDS, CommandResult
from service_layer.disputes import release_refused
from service_layer.held_tables import HeldTables
from service_layer.service_start import ServiceStart
from service_layer.snapshots import Snapshots
from service_layer.system_stream import NOTED_TYPES, SystemStream, significant_notes
from table_core import commands as c
from table_core.dealing import DeckAndDiceSource
from table_core.errors import DomainError
from table_core.events import Actor, Event
from table_core.ports import (
    CommandIdConflict,
    ConcurrencyError,
    EventStore,
    RecordedEvent,
    StoreUnavailable,
    TamperDetected,
)
from table_core.table import TableState, decide, fold

_ENDED = frozenset({"closed", "voided"})


def _seals(state: TableState, events: Sequence[Event]) -> bool:
    """Whether a command's events (``state``: the table after them) get a signed checkpoint in
    their transaction: a round's end, and a table fact while no round is in progress (a seat, a
    buy-in, a rules change between rounds), which no round's end would seal (issue 17: every
    event sealed but the rounds in progress). A fact recorded during a round is sealed with it."""
    if any(e.type in ROUND_ENDS for e in events):
        return True
    # A settled round is still in progress until it is closed: its close seals it.
    return state.round is None or state.round.phase in _ENDED


class StoreUnverified(DomainError):
    """The store failed verification: no table command is accepted until it verifies again."""


class LogTampered(StoreUnverified):
    """Issue 17: the store met an event it did not append (no valid append tag: INSERTed behind
    its back), or a log that went backwards or was rewritten under it (``LogRewritten``), and
    refused to sign, fold or write after it; ``verification_failed`` is recorded and every command
    is refused until an operator restarts the service on a log that holds."""


class ServiceReadOnly(StoreUnverified):
    """The service was started read-only (``paigow serve --read-only``): it refuses every
    command and answers queries."""


class TableService(BatchExecution, ServiceStart):
    """Runs table commands through the core and the store; keeps each loaded table in memory.

    ``verify`` is called by :meth:`start` (and may be called again): it returns ``None`` when the
    store verifies, or a finding object with ``position``, ``stream_id``, ``problem`` and
    ``detail``. While a verification has failed, table commands are refused.

    ``shared``: other processes write this store too (``paigow serve --workers N``). Commands
    still decide on the state held in memory (the store's version check refuses a stale one, and
    the table is caught up and decided on again), but :meth:`load`, what readers call, catches the
    table up first (one read of the later events, usually none), so a read on one worker shows
    what another wrote.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Clock = system_clock,
        source: DeckAndDiceSource | None = None,
        verify: Callable[[], Any] | None = None,
        store_name: str = "store",
        schema_revision: str | None = None,
        shared: bool = False,
        clock_tolerance: timedelta = timedelta(seconds=2),
        monotonic: Monotonic | None = None,
        software_version: str | None = None,
        snapshots: Snapshots | None = None,
        code_digest: str | None = None,
    ) -> None:
        self.store = store
        #: The version label this service records at start (the installed distribution's).
        self.software_version = (
            provenance.software_version() if software_version is None else software_version
        )
        #: R5/R19: the digest of the code this service records at start and change control
        #: compares (``None``: the running code's, computed at the first use); tests name one to
        #: act an upgrade.
        self._code_digest = code_digest
        self._running: RunningCode | None = None
        #: Issue 22: the tables' signed snapshots, taken and used (``None``: neither).
        self.snapshots = snapshots
        self.shared = shared
        self.clock = clock
        # R4: every reading goes through the watch; a step is recorded before the time it read
        # is handed out (``monotonic``: the system clock's, to notice steps forwards too).
        self._watch = ClockWatch(clock, clock_tolerance, monotonic)
        #: The global position of the last ``clock_adjusted`` this service recorded (0: none).
        self._adjusted_at = 0
        self.source = source
        self._verify = verify
        self._store_name = store_name
        self._schema_revision = schema_revision
        self._held_tables = HeldTables(store)
        self._system = SystemStream(store, on_untagged=self._untagged)
        self.refusing: str | None = None
        #: Why commands are refused since the store met an untagged event or a log rewritten
        #: under it (issue 17): a later chain verification that holds does not lift it (the
        #: chain of a forgery by the published recipes, or of a cut log, holds).
        self._tampered: str | None = None
        #: The tamperings this service met, each counted once (``/metrics``: log_tampered).
        self._tamperings: set[str] = set()
        #: Why every command is refused, set by ``paigow serve --read-only`` (``None``: it is not).
        self.read_only: str | None = None
        self.log = get_logger(store=store_name)

    # --- the system stream (the start and the stop: ServiceStart) ----------------------------

    def authentication_failed(
        self, route: str, client: str | None, key_id: str | None, failures: int
    ) -> None:
        """R5/R19: record failed authentications on the system stream (a read-only server
        writes nothing, this neither)."""
        if self.read_only:
            return
        self._system.authentication_failed(self.now(), route, client, key_id, failures)

    def check_store(self) -> bool:
        """Verify the store; on a failure record it and refuse table commands until it holds."""
        if self._verify is None:
            return True
        finding = self._verify()
        if finding is None:
            self.refusing = self._tampered
            return self._tampered is None
        self.refusing = self._system.verification_failed(self.now(), finding)
        self.log.error("verification_failed", finding=str(finding))
        return False

    @property
    def tampered_count(self) -> int:
        """How many distinct tamperings this service met (each once, however often met)."""
        return len(self._tamperings)

    @property
    def tampered(self) -> str | None:
        """Why commands are refused since the service met a tampered log (``None``: it has not)."""
        return self._tampered

    def _untagged(self, error: TamperDetected) -> str:
        """The store met an event no holder of the key appended, or a log cut or rewritten under
        it (issue 17): record ``verification_failed`` naming it where the store still allows it
        (unsealed: its head is never signed), refuse every command from now on, one log line.
        Returns the reason."""
        self._tamperings.add(str(error.finding))
        if self._tampered is None:
            try:
                self._tampered = self._system.verification_failed(self.now(), error.finding)
            except TamperDetected as refused:  # the store lets nothing be written any more
                self._tampered = f"store failed verification at {error.finding}"
                self.log.error("verification_failed_not_recorded", reason=str(refused))
            self.log.error("verification_failed", finding=str(error.finding))
        self.refusing = self._tampered
        return self._tampered

    def note_untagged(self, error: TamperDetected) -> None:
        """Another reader of the store (the API keys' fold of the system stream) met an event
        no holder of the key appended: the same as a table meeting one."""
        self._untagged(error)

    def _log_tampered(self, error: TamperDetected, table_id: str) -> LogTampered:
        """What a command that met an untagged event raises (HTTP 503 ``log_tampered``)."""
        self._held_tables.mark_stale(table_id)
        reason = self._untagged(error)
        return LogTampered(f"commands are refused: {reason}{self._refusal_fix(reason)}")

    # --- tables ------------------------------------------------------------------------------

    def now(self) -> datetime:
        """The service's clock: the time to stamp a command with (R4: a step of the clock since
        the last reading is recorded, ``clock_adjusted``, before this time is handed out)."""
        return self._watch.read(self._clock_stepped)

    def _clock_stepped(self, step: ClockStep, table_id: str | None = None) -> None:
        tolerance_ms = self._watch.tolerance // timedelta(milliseconds=1)
        self._adjusted_at = self._system.clock_adjusted(step, tolerance_ms, table_id)
        self.log.warning(
            "clock_adjusted",
            old_time=step.old.isoformat(),
            new_time=step.new.isoformat(),
            detected=step.detected,
            table_id=table_id,
        )

    def _no_time_travel(self, table_id: str, at: datetime) -> None:
        """R4: a table's events never go back in recorded time without a ``clock_adjusted``
        between them. ``at`` is the time of the first event about to be appended: when it is
        earlier than the table's last event and no step was recorded after that event (a
        command stamped by another clock, or by this one before a step this service did not
        see), the step is recorded now, before the event."""
        last = self._held_tables.last_event(table_id)
        if last is None or at >= last[1] or self._adjusted_at > last[0]:
            return
        self._clock_stepped(ClockStep(last[1], at, "earlier_than_table_event"), table_id)

    def _recorded(self, table_id: str, command_id: str) -> list[RecordedEvent] | None:
        """The events ``command_id`` already produced on this table; an id that another table
        recorded is a conflict, never a replay of that table's events."""
        earlier = self.store.events_of_command(command_id)
        if earlier and earlier[0].stream_id != table_id:
            raise CommandIdConflict(command_id, earlier[0].stream_id, table_id)
        return earlier

    def load(self, table_id: str) -> TableState:
        """The table's state: the fold of its committed events, kept in memory once loaded; caught
        up with the store first when it was found stale, or on every call when ``shared``."""
        if self.shared:
            return self.refresh(table_id)
        try:
            return self._held_tables.current(table_id)
        except TamperDetected as error:
            raise self._log_tampered(error, table_id) from None

    def refresh(self, table_id: str) -> TableState:
        """The table as the store holds it now (:meth:`HeldTables.refresh`); ``LogTampered`` when
        it would fold an event no holder of the key appended."""
        try:
            return self._held_tables.refresh(table_id)
        except TamperDetected as error:
            raise self._log_tampered(error, table_id) from None

    def forget(self, table_id: str) -> None:
        """Hold nothing for this table (an id nobody opened: keep no empty state in memory)."""
        self._held_tables.forget(table_id)

    def _replay_state(self, table_id: str, earlier: list[RecordedEvent]) -> TableState:
        """The state to answer a replayed command with: at least as new as its events."""
        state = self._held_tables.current(table_id)
        if earlier and state.version < earlier[-1].version:
            state = self.refresh(table_id)
        return state

    def execute(self, table_id: str, command: c.Command, command_id: str) -> CommandResult:
        """Decide ``command`` against the table and append its events, all or none."""
        log = self.log.bind(
            table_id=table_id,
            command=type(command).__name__,
            command_id=command_id,
            actor=command.actor.id,
            role=command.actor.role,
        )
        self._refuse_while_unverified(log)
        try:
            return self._execute(table_id, command, command_id, log)
        except TamperDetected as error:
            # Issue 17: the store would have signed, or this table folded, an event no holder
            # of the key appended, or written after a cut: nothing was written.
            raise self._log_tampered(error, table_id) from None

    def _execute(
        self, table_id: str, command: c.Command, command_id: str, log: Any
    ) -> CommandResult:
        state = self._held_tables.current(table_id)
        if isinstance(command, c.ReleaseDeck):  # R17: a deck held for an open dispute stays held
            held = release_refused(self.store, state, command)
            if held is not None:
                return self._refused(table_id, command_id, state, held, log)
        try:
            events = decide(state, command)
        except DomainError as first:
            state, events, refusal = self._decide_again(table_id, state, command, first)
            if refusal is not None:
                return self._refused(table_id, command_id, state, refusal, log)
        return self._append(table_id, command_id, state, events, log)

    def _refuse_while_unverified(self, log: Any) -> None:
        if self.read_only:
            log.warning("command_refused", reason=self.read_only)
            raise ServiceReadOnly(f"this server is read-only: {self.read_only}")
        if self.refusing:
            log.warning("command_refused", reason=self.refusing)
            raise StoreUnverified(
                f"commands are refused: {self.refusing}{self._refusal_fix(self.refusing)}"
            )

    def refusal(self) -> str | None:
        """Why commands are refused now, with the operator's fix when there is one (``None``:
        they are not)."""
        if not self.refusing:
            return None
        return f"commands are refused: {self.refusing}{self._refusal_fix(self.refusing)}"

    def _refusal_fix(self, reason: str) -> str:
        """What the operator runs when the refusal may be of their own making: events no append
        tag covers are also what a command run without the store's key (or with another) wrote,
        before such writes were refused; the log's own check and adoption are the way back."""
        if ": untagged:" not in reason:
            return ""
        where = f" --db {self._store_name}" if "://" in self._store_name else ""
        return (
            f"; if they were written without this store's signing key (or with another), check "
            f"them: `paigow db adopt{where}` lists them and, with --through POSITION --reason "
            "TEXT, vouches for them (recorded); otherwise someone wrote into the database"
        )

    def _refused(
        self, table_id: str, command_id: str, state: TableState, refusal: DomainError, log: Any
    ) -> CommandResult:
        """A refusal that stands: raised, unless the command is a retry of one already recorded
        that meets a table that has moved on, answered with its first outcome. Looked up only on
        a refusal, so a first try costs no query."""
        earlier = self._recorded(table_id, command_id)
        if earlier is not None:
            log.info("command_replayed", events=len(earlier))
            return CommandResult(earlier, self._replay_state(table_id, earlier), replayed=True)
        log.info(
            "command_rejected",
            round=state.round.number if state.round else None,
            rule=refusal.rule,
            error=refusal.message,
        )
        raise refusal from None

    def _append(
        self, table_id: str, command_id: str, state: TableState, events: list[Event], log: Any
    ) -> CommandResult:
        """Append the events ``state`` decided, at its version; hold the state they lead to."""
        round_number = state.round.number if state.round else None
        new = [to_new_event(e) for e in events]
        if events:
            self._no_time_travel(table_id, events[0].at)
        after = fold(events, state)
        try:
            recorded = self.store.append(
                table_id,
                state.version,
                new,
                command_id,
                checkpoint=_seals(after, events),
            )
        except ConcurrencyError as conflict:
            self._held_tables.went_back(conflict, state)  # a cut stream is no conflict
            self._held_tables.mark_stale(table_id)  # another writer moved it on
            log.warning("command_conflict", round=round_number, expected_version=state.version)
            raise
        except StoreUnavailable:
            self._outcome_unknown(table_id, log)
            raise
        if not wrote(recorded, new, state.version):
            # The store already held this command id: it answered the first outcome and wrote
            # nothing. Our view of the table was stale: catch it up.
            log.info("command_replayed", events=len(recorded))
            return CommandResult(recorded, self.refresh(table_id), replayed=True)
        state = after
        self._held_tables.keep(table_id, state, recorded[-1])
        log.info(
            "command_done",
            round=state.round.number if state.round else round_number,
            events=len(events),
            version=state.version,
        )
        self._note_significant(events)
        return CommandResult(recorded, state)

    def _outcome_unknown(self, table_id: str, log: Any) -> None:
        """No primary answered (a failover outlasting the store's retries): the append may have
        committed or not. Hold nothing certain for the table: the next command catches it up
        from the store, and the caller's retry with the same command id gets the recorded
        events or writes them once (docs/store.md, "Failover")."""
        self._held_tables.mark_stale(table_id)
        log.warning("command_outcome_unknown")

    def _note_significant(self, events: Sequence[Event]) -> None:
        if self.snapshots is not None:
            ended = sum(1 for e in events if e.type in ROUND_ENDS)
            if ended and self.snapshots.due(ended):
                self.snapshots.take(self._held_tables, self.now())
        if any(e.type in NOTED_TYPES for e in events):
            notes = significant_notes(events)
            self._system.append(notes, checkpoint=True)  # sealed at once (issue 17)

    def _decide_again(
        self, table_id: str, state: TableState, command: c.Command, refusal: DomainError
    ) -> tuple[TableState, list[Event], DomainError | None]:
        """A refusal stands only against the table as the store holds it now: another process
        (a second worker) may have moved it on since it was read. Catch up (one read of the later
        events, usually none) and, if it moved, decide once more. Returns the state decided on,
        the events, and the refusal that stands (``None``: the command goes through)."""
        fresh = self.refresh(table_id)
        if fresh.version == state.version:
            return state, [], refusal
        try:
            return fresh, decide(fresh, command), None
        except DomainError as again:
            return fresh, [], again

    # --- electronic dealing --------------------------------------------------------------------

    def deal_electronic(self, table_id: str, actor: Actor, command_id: str) -> CommandResult:
        """Draw a deck from the table's source and deal it, unless this round is already dealt."""
        return self._draw(table_id, ElectronicDeal(actor), "bets_closed", command_id)

    def roll_dice_electronic(self, table_id: str, actor: Actor, command_id: str) -> CommandResult:
        """Roll the source's dice for the dealt round, unless they are already recorded."""
        return self._draw(table_id, ElectronicDice(actor), "dealt", command_id)

    def _draw(
        self, table_id: str, draw: ElectronicDeal | ElectronicDice, phase: str, command_id: str
    ) -> CommandResult:
        earlier = self._recorded(table_id, command_id)
        if earlier is not None:
            return CommandResult(earlier, self._replay_state(table_id, earlier), replayed=True)
        if self.source is None:
            raise DomainError("this table has no deck-and-dice source: report the deal instead")
        state = self._held_tables.current(table_id)
        if state.phase != phase:
            state = self.refresh(table_id)  # another process may have moved the round on
        return self.execute(table_id, draw_command(draw, state, self.source, self.now), command_id)
