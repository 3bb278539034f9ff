"""``paigow audit follow --db URL``: verify a live log as it is written (``audit/follow.py``).

Exit status: 0 when stopped (SIGTERM, SIGINT) or, with ``--once``, when its one pass found
nothing; 1 at the first finding with ``--exit-on-finding`` (or after a ``--once`` pass that
found one); 2 for bad usage (no such database, an unreadable state file or journal, a bad option).
Every finding is one alert line on standard output (``--format json``: one JSON object), recorded
first in the findings journal (``--findings``); the state (``--state``) is saved after every pass.
The database is only ever read.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from entrypoints.cli.follow_run import until_stopped, verified_line
from entrypoints.cli.options import bounded

URL_HELP = "database URL, read only (default: $PAIGOW_DB, else sqlite:///paigow.db)"


#: The files the follower reads and writes: (option, help).
_FILES = (
    (
        "--public-key",
        "the casino's public key to check checkpoint signatures with (as `audit verify`)",
    ),
    ("--witness", "a witness file: the log must agree with it"),
    (
        "--state",
        "where the follower keeps its position (JSON, replaced atomically); a restart resumes "
        "from it. Without it, every start verifies from the first event",
    ),
    ("--findings", "the findings journal: one hash-chained JSON line per finding, append only"),
)


def register_follow(verbs: Any) -> None:
    follow = verbs.add_parser(
        "follow",
        help="verify a live log round by round as checkpoints are signed, until stopped",
        description="Exit status: 0 stopped (or a --once pass found nothing), 1 a finding with "
        "--exit-on-finding (or --once), 2 bad usage.",
    )
    follow.add_argument("--db", metavar="URL", help=URL_HELP)
    for flag, text in _FILES:
        follow.add_argument(flag, metavar="FILE", help=text)
    follow.add_argument(
        "--exit-on-finding", action="store_true", help="exit 1 at the first finding"
    )
    follow.add_argument(
        "--once", action="store_true", help="one pass up to the newest checkpoint, then exit"
    )
    follow.add_argument(
        "--poll",
        type=_seconds,
        default=0.2,
        metavar="SECONDS",
        help="look for new checkpoints this often when no notification comes (default 0.2)",
    )
    follow.add_argument(
        "--unsealed-after",
        type=_grace,
        metavar="SECONDS",
        help="a finding when events no checkpoint covers, other than rounds in progress, stay "
        "so this long (default: not checked; see docs/audit.md)",
    )
    follow.add_argument(
        "--archive",
        metavar="URL",
        help="a regulator's central archive (PostgreSQL, read only): follow every property of "
        "--properties at once, each in its own schema with its own public key "
        "(deploy/archive/README.md); replaces --db, --public-key, --witness and --state",
    )
    follow.add_argument(
        "--properties",
        metavar="FILE",
        help="with --archive: the properties (TOML): one [[property]] each with name, schema, "
        "public_key, optionally subscription and witness",
    )
    follow.add_argument(
        "--stale-after",
        type=_stale,
        metavar="SECONDS",
        help="with --archive: a finding (archive.stale) when a property's replication shows no "
        "sign of life this long (default: not checked)",
    )
    follow.add_argument(
        "--state-dir",
        metavar="DIR",
        help="with --archive: one state file per property, DIR/NAME.json (as --state)",
    )
    follow.add_argument("--format", choices=("text", "json"), default="text")
    follow.add_argument(
        "--quiet", action="store_true", help="alerts and the last line only, no line per pass"
    )
    follow.set_defaults(handler=run_follow)


_NOT_SECONDS = "a number of seconds, not {text!r}"
_seconds = bounded(float, 0.01, 60, "0.01 to 60 seconds", not_a=_NOT_SECONDS, name="_seconds")
_grace = bounded(float, 0, 86_400, "0 to 86400 seconds", not_a=_NOT_SECONDS, name="_grace")
# Text out of _grace's range keeps _grace's line, as it did when _stale called it first.
_stale = bounded(_grace, 0.1, math.inf, "0.1 to 86400 seconds", name="_stale")


def run_follow(args: argparse.Namespace) -> int:
    from audit.sources import AuditUsageError

    archived = ("--properties", "--stale-after", "--state-dir")
    if args.archive is None:
        given = [f for f in archived if getattr(args, f[2:].replace("-", "_")) is not None]
        if given:
            raise AuditUsageError(f"{given[0]} goes with --archive URL")
    else:
        from entrypoints.cli.audit_archive import run_archive

        return run_archive(args)
    from audit.follow import Checkers, Follower, follow
    from audit.follow_journal import FindingsJournal, FollowState, load_state, save_state
    from audit.follow_log import open_live
    from audit.follow_tail import TailWatch
    from audit.sources import resolve_key
    from audit.witness import load as load_witness
    from entrypoints.cli.audit_settings import audit_database, public_key_setting

    url, signing_key = audit_database(args)
    witness = load_witness(args.witness) if args.witness else []
    key, _source = resolve_key(url, args.public_key, signing_key, public_key_setting(args))
    journal = FindingsJournal(args.findings) if args.findings else None
    saved = load_state(args.state) if args.state else None
    log = open_live(url, args.poll)
    try:
        if saved is not None and saved.source != log.name:
            raise AuditUsageError(
                f"the state file {args.state} follows {saved.source}, not {log.name}"
            )
        state = saved or FollowState(source=log.name)
        tail = TailWatch(args.unsealed_after) if args.unsealed_after is not None else None
        follower = Follower(log, Checkers(key, witness), state, tail)
        out = _Output(args.format, args.quiet, log.name, journal)
        out.started(state, key is not None)
        save = (lambda: save_state(args.state, state)) if args.state else (lambda: None)
        status = until_stopped(follow, follower, out, save, args)
        out.stopped(state, status)
        return status
    finally:
        log.close()


class _Output:
    """Alert lines, a line per pass that verified something, and the last line."""

    def __init__(self, form: str, quiet: bool, source: str, journal: Any) -> None:
        self.json = form == "json"
        self.quiet = quiet
        self.source = source
        self.journal = journal
        self.alerts = 0

    def _line(self, text: str, value: dict[str, Any]) -> None:
        print(json.dumps(value) if self.json else text, flush=True)

    def started(self, state: Any, signed: bool) -> None:
        checked = "signatures checked" if signed else "signatures NOT checked (no public key)"
        self._line(
            f"audit follow: {self.source} from position {state.position}, {checked}",
            {"following": self.source, "position": state.position, "signatures_checked": signed},
        )

    def outcome(self, outcome: Any) -> None:
        for finding in outcome.findings:
            seq = None
            if self.journal is not None:  # recorded before it is said
                seq = self.journal.record(finding, self.source, outcome.checkpoint)["seq"]
            self.alerts += 1
            self._line(
                f"ALERT: {finding}",
                {"alert": finding.to_dict(), "checkpoint": outcome.checkpoint, "journal_seq": seq},
            )

    def verified(self, outcome: Any) -> None:
        if outcome.checkpoint is None or self.quiet:
            return
        self._line(*verified_line(outcome))

    def stopped(self, state: Any, status: int) -> None:
        self._line(
            f"audit follow stopped: {self.source}: verified up to position {state.position} "
            f"({state.checkpoints} checkpoints), {self.alerts} finding(s) this run",
            {
                "stopped": self.source,
                "position": state.position,
                "checkpoints": state.checkpoints,
                "findings": self.alerts,
                "status": status,
            },
        )
