"""``paigow audit follow --archive URL --properties FILE``: a regulator's central archive, every
property followed at once (``audit/follow_archive.py``; the setup: deploy/archive/README.md).

The same exit statuses, state and journal as ``paigow audit follow --db`` (``audit_follow.py``):
one state file per property (``--state-dir DIR``: ``DIR/NAME.json``), one findings journal for
all (``--findings``: each line's ``source`` is the property's name). Every line names the property
(``property``, and ``schema`` in JSON); ``--stale-after`` adds the ``archive.stale`` finding and
the ``resumed`` line (docs/audit.md, "The archive's follower").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from entrypoints.cli.follow_run import until_stopped, verified_line


def run_archive(args: argparse.Namespace) -> int:
    from audit.follow_archive import follow_archive, load_properties, open_archive
    from audit.follow_journal import FindingsJournal, load_state, save_state
    from audit.sources import AuditUsageError

    for flag, value in (
        ("--db", args.db),
        ("--public-key", args.public_key),
        ("--witness", args.witness),
        ("--state", args.state),
    ):
        if value is not None:
            raise AuditUsageError(
                f"{flag} does not go with --archive (the properties file names each property's "
                "schema, key and witness; --state-dir keeps their states)"
            )
    if args.properties is None:
        raise AuditUsageError("--archive needs --properties FILE")
    properties = load_properties(args.properties)
    folder = Path(args.state_dir) if args.state_dir else None
    if folder is not None and not folder.is_dir():
        raise AuditUsageError(f"--state-dir {folder}: no such folder")
    states = {}
    for prop in properties:
        saved = load_state(folder / f"{prop.name}.json") if folder else None
        if saved is not None:
            states[prop.name] = saved
    journal = FindingsJournal(args.findings) if args.findings else None
    archive = open_archive(
        args.archive,
        properties,
        states,
        poll=args.poll,
        unsealed_after=args.unsealed_after,
        stale_after=args.stale_after,
    )
    try:
        out = _Output(args.format, args.quiet, journal)
        for followed in archive.followed:
            out.started(archive.name, followed.prop, followed.follower.state)
        written: dict[str, Any] = {}

        def save() -> None:
            if folder is None:
                return
            for name, state in archive.states.items():
                if state.stands() != written.get(name):
                    save_state(folder / f"{name}.json", state)
                    written[name] = state.stands()

        status = until_stopped(follow_archive, archive, out, save, args)
        for followed in archive.followed:
            out.stopped(followed.prop, followed.follower.state, status)
        return status
    finally:
        archive.close()


class _Output:
    """The lines of ``audit_follow._Output``, each naming its property."""

    def __init__(self, form: str, quiet: bool, journal: Any) -> None:
        self.json = form == "json"
        self.quiet = quiet
        self.journal = journal
        self.alerts: dict[str, int] = {}

    def _line(self, prop: Any, text: str, value: dict[str, Any]) -> None:
        named = {"property": prop.name, "schema": prop.schema, **value}
        print(json.dumps(named) if self.json else f"[{prop.name}] {text}", flush=True)

    def started(self, source: str, prop: Any, state: Any) -> None:
        link = f"subscription {prop.subscription}" if prop.subscription else "checkpoints only"
        self._line(
            prop,
            f"audit follow: {source} schema {prop.schema} from position {state.position}, "
            f"signatures checked with {prop.key_file}, liveness: {link}",
            {
                "following": source,
                "position": state.position,
                "signatures_checked": True,
                "public_key": prop.key_file,
                "subscription": prop.subscription,
            },
        )

    def outcome(self, done: Any) -> None:
        prop, outcome = done.prop, done.outcome
        if done.note == "syncing":
            self._line(
                prop,
                "the first copy into the archive is still running: not judged yet",
                {"syncing": True},
            )
        elif done.note == "synced":
            self._line(prop, "the first copy is complete", {"syncing": False})
        for finding in outcome.findings:
            seq = None
            if self.journal is not None:  # recorded before it is said
                seq = self.journal.record(finding, prop.name, outcome.checkpoint)["seq"]
            self.alerts[prop.name] = self.alerts.get(prop.name, 0) + 1
            value: dict[str, Any] = {
                "alert": finding.to_dict(),
                "checkpoint": outcome.checkpoint,
                "journal_seq": seq,
            }
            if done.stale is not None and finding.clause == "archive.stale":
                value["stale"] = done.stale
            self._line(prop, f"ALERT: {finding}", value)
        if done.note == "resumed":
            self._line(prop, "its replication shows signs of life again", {"resumed": True})

    def verified(self, done: Any) -> None:
        outcome = done.outcome
        if outcome.checkpoint is None or self.quiet:
            return
        self._line(done.prop, *verified_line(outcome))

    def stopped(self, prop: Any, state: Any, status: int) -> None:
        found = self.alerts.get(prop.name, 0)
        self._line(
            prop,
            f"audit follow stopped: verified up to position {state.position} "
            f"({state.checkpoints} checkpoints), {found} finding(s) this run",
            {
                "stopped": prop.name,
                "position": state.position,
                "checkpoints": state.checkpoints,
                "findings": found,
                "status": status,
            },
        )
