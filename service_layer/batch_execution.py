"""Batches: several commands of one table decided in turn and appended in ONE transaction (group
commit: ``paigow simulate`` plays K rounds a transaction), each command idempotent on its own.
A part of :class:`service_layer.service.TableService` (it inherits :class:`BatchExecution`), kept
apart because batches change for their own reasons (group commit, deferred items, R4 within a
transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from eventlog.envelope import wrote
from eventlog.mapper import to_new_event
from service_layer.batches import BatchDecision, BatchItem, resolve
from service_layer.command_outcome import (
    ROUND_ENDS,
    CommandResult,
    with_skipped,
)
from table_core.errors import DomainError
from table_core.ports import (
    CommandsPartlyRecorded,
    ConcurrencyError,
    StoreUnavailable,
    TamperDetected,
)
from table_core.table import TableState, decide, fold

if TYPE_CHECKING:
    from service_layer.held_tables import HeldTables
    from table_core.dealing import DeckAndDiceSource
    from table_core.ports import EventStore, RecordedEvent


class BatchExecution:
    """``execute_batch`` and its steps, over the service's store, tables and clock."""

    if TYPE_CHECKING:
        store: EventStore
        source: DeckAndDiceSource | None
        log: Any
        _held_tables: HeldTables
        _adjusted_at: Any

        def now(self) -> datetime: ...
        def refresh(self, table_id: str) -> TableState: ...
        def _refuse_while_unverified(self, log: Any) -> None: ...
        def _recorded(self, table_id: str, command_id: str) -> list[RecordedEvent] | None: ...
        def _no_time_travel(self, table_id: str, at: datetime) -> None: ...
        def _outcome_unknown(self, table_id: str, log: Any) -> None: ...
        def _note_significant(self, events: Sequence[Any]) -> None: ...
        def _log_tampered(self, error: TamperDetected, table_id: str) -> Exception: ...

    def execute_batch(self, table_id: str, items: Sequence[BatchItem]) -> list[CommandResult]:
        """Decide each command against the state the previous ones left and append them all in
        ONE transaction (``EventStore.append_batch``), all or none; each event keeps its own
        command's id, so each command stays idempotent on its own. Every command that ends a
        round gets its signed checkpoint in that transaction, so a batch of K whole rounds writes
        K checkpoints, one at each round's end. One result per command, in order, each with the
        state after it. A refused command refuses the whole batch: nothing is written.
        Electronic draws (:class:`ElectronicDeal`, :class:`ElectronicDice`) are drawn when their
        turn comes, so a batch that fails has drawn nothing that counts.

        Retries: a batch whose commands are all recorded answers their first events; one that
        mixes recorded and new commands answers the recorded ones and appends the new ones,
        decided against the reloaded table, as one batch."""
        if not items:
            return []
        log = self.log.bind(table_id=table_id, batch=len(items), first_command_id=items[0][1])
        self._refuse_while_unverified(log)
        try:
            return self._execute_batch(table_id, items, log)
        except TamperDetected as error:  # issue 17: nothing was written, nothing signed
            raise self._log_tampered(error, table_id) from None

    def _execute_batch(
        self, table_id: str, items: Sequence[BatchItem], log: Any
    ) -> list[CommandResult]:
        initial = self._held_tables.current(table_id)
        decision = self._decide_in_time(items, initial, log)
        if decision.refused is not None:
            # As for one command: the refusal stands only against the table as the store holds
            # it now (another process may have moved it on): if it moved, decide once more.
            fresh = self.refresh(table_id)
            if fresh.version != initial.version:
                initial = fresh
                decision = self._decide_in_time(items, initial, log)
        if decision.refused is not None:
            item, command_id, error, state = decision.refused
            if self._recorded(table_id, command_id) is not None:
                return self._retried_batch(table_id, items, log)
            log.info(
                "command_rejected",
                command=type(item).__name__,
                command_id=command_id,
                round=state.round.number if state.round else None,
                rule=error.rule,
                error=error.message,
            )
            raise error
        if not decision.decided:  # every item was a deferred one with nothing to do
            return [CommandResult([], initial) for _ in items]
        return self._append_batch(table_id, items, initial, decision, log)

    def _append_batch(
        self,
        table_id: str,
        items: Sequence[BatchItem],
        initial: TableState,
        decision: BatchDecision,
        log: Any,
    ) -> list[CommandResult]:
        """Append a batch decided from ``initial`` in one transaction; hold the state it leads
        to. One result per item."""
        decided, skipped = decision.decided, decision.skipped
        start_version = initial.version
        back = time_goes_back(decision)
        if back is not None:
            log.info("command_rejected", rule="R4", error="the batch's times go back")
            raise DomainError(
                f"the times of this batch go back ({back[0].isoformat()}, then "
                f"{back[1].isoformat()}): a step of the clock cannot be recorded between the "
                "events of one transaction; nothing was written",
                rule="R4",
            )
        self._no_time_travel(table_id, decided[0][1][0].at)
        batch = [
            (command_id, [to_new_event(e) for e in events]) for command_id, events, _ in decided
        ]
        try:
            recorded = self.store.append_batch(
                table_id, start_version, batch, checkpoint_after=decision.round_ends
            )
        except ConcurrencyError as conflict:
            self._held_tables.went_back(conflict, initial)  # a cut stream is no conflict
            self._held_tables.mark_stale(table_id)  # another writer moved it on
            log.warning("command_conflict", expected_version=start_version)
            raise
        except CommandsPartlyRecorded:
            return self._retried_batch(table_id, items, log)
        except StoreUnavailable:
            self._outcome_unknown(table_id, log)
            raise
        if not wrote(
            [e for events in recorded for e in events],
            [e for _, events in batch for e in events],
            start_version,
        ):
            # Every command was already recorded: the store answered the first outcomes and
            # wrote nothing. Our view of the table was stale: catch it up.
            log.info("batch_replayed", events=sum(len(r) for r in recorded))
            state = self.refresh(table_id)
            done = [CommandResult(events, state, replayed=True) for events in recorded]
            return with_skipped(len(items), skipped, done, initial)
        state = decided[-1][2]
        self._held_tables.keep(table_id, state, recorded[-1][-1])
        log.info(
            "batch_done",
            round=state.round.number if state.round else None,
            events=sum(len(r) for r in recorded),
            version=state.version,
        )
        self._note_significant([e for _, events, _ in decided for e in events])
        done = [
            CommandResult(events, after)
            for events, (_, _, after) in zip(recorded, decided, strict=True)
        ]
        return with_skipped(len(items), skipped, done, initial)

    def _decide_in_time(
        self, items: Sequence[BatchItem], state: TableState, log: Any
    ) -> BatchDecision:
        """:meth:`_decide_batch`; once more when the clock stepped back while it was decided
        (R4): its step is recorded before the batch, and the commands stamped when their turn
        comes are stamped again, after it. Nothing decided is written yet, so nothing drawn
        counts."""
        mark = self._adjusted_at
        decision = self._decide_batch(items, state, log)
        if decision.refused is None and self._adjusted_at != mark and time_goes_back(decision):
            decision = self._decide_batch(items, state, log)
        return decision

    def _decide_batch(
        self, items: Sequence[BatchItem], state: TableState, log: Any
    ) -> BatchDecision:
        """Decide the batch's commands one after another from ``state``; stops at a refusal."""
        decision = BatchDecision()
        for index, (item, command_id) in enumerate(items):
            try:
                command = resolve(item, state, self.source, self.now)
                if command is None:
                    decision.skipped.add(index)
                    continue
                events = decide(state, command)
            except DomainError as error:
                decision.refused = (item, command_id, error, state)
                return decision
            state = fold(events, state)
            if any(e.type in ROUND_ENDS for e in events):
                decision.round_ends.append(len(decision.decided))
            decision.decided.append((command_id, events, state))
            log.debug("command_decided", command=type(item).__name__, command_id=command_id)
        return decision

    def _retried_batch(
        self, table_id: str, items: Sequence[BatchItem], log: Any
    ) -> list[CommandResult]:
        """Some commands of the batch are already recorded: answer their first events, and
        append the others as one batch decided against the table caught up."""
        self._held_tables.mark_stale(table_id)
        earlier = {command_id: self._recorded(table_id, command_id) for _, command_id in items}
        new = [(item, command_id) for item, command_id in items if earlier[command_id] is None]
        log.info("batch_replayed", recorded=len(items) - len(new), new=len(new))
        fresh = iter(self.execute_batch(table_id, new) if new else [])
        state = self._held_tables.current(table_id)
        results = []
        for _, command_id in items:
            events = earlier[command_id]
            results.append(
                next(fresh) if events is None else CommandResult(events, state, replayed=True)
            )
        return results


def time_goes_back(decision: BatchDecision) -> tuple[datetime, datetime] | None:
    """The first two times of a decided batch where one event is earlier than the one before."""
    last: datetime | None = None
    for _, events, _ in decision.decided:
        for event in events:
            if last is not None and event.at < last:
                return last, event.at
            last = event.at
    return None
