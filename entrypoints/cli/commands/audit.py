"""``paigow audit``: verify the log offline, export a bundle for a regulator, recall a round.

- ``paigow audit verify [--db URL | --bundle FILE] [--table ID] [--from N] [--to N]``: every
  finding, one per line (``--format json``: one JSON object per line), then ONE summary line.
  Exit status 0 when everything holds, 1 with findings, 2 for bad usage (no such database or
  bundle, ``--from`` after ``--to``…).
- ``paigow audit export [--db URL] [--table ID] [--from N] [--to N] --out FILE``: a
  self-contained bundle (``audit/bundle.py``) that ``audit verify --bundle`` checks with no
  database.
- ``paigow audit recall [--db URL | --bundle FILE] --table ID --round N``: one round as the table
  played it, from its events.

- ``paigow audit follow --db URL [--state FILE] [--findings FILE] [--exit-on-finding] [--once]``:
  verify a live log round by round as its checkpoints are signed
  (``entrypoints/cli/audit_follow.py``); ``--archive URL --properties FILE [--stale-after
  SECONDS]``: every property of a regulator's archive at once, each with its own key
  (``entrypoints/cli/audit_archive.py``, deploy/archive/README.md).
- ``paigow audit witness --db URL --out FILE``: append the database's new signed checkpoints to
  a witness file kept outside the casino's database (``audit/witness.py``); a contradiction with
  what it holds is reported, exit status 1.

``--from``/``--to`` are round numbers. The database is only ever read. ``verify`` fails any event
no signed checkpoint covers (``--allow-unsealed-tail``: rounds still in progress at the end),
a log that lacks or contradicts a witnessed checkpoint (``--witness FILE``), and a projection row
the events do not give (``service_layer/projection_check.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any

from entrypoints.cli.audit_follow import register_follow
from entrypoints.cli.audit_settings import audit_database, public_key_setting
from entrypoints.cli.options import bounded
from entrypoints.cli.progress import Progress

URL_HELP = "database URL, read only (default: $PAIGOW_DB, else sqlite:///paigow.db)"
KEY_HELP = (
    "the casino's public key (PEM or hex; a signing key file also works) to check checkpoint "
    "signatures with; default: $PAIGOW_PUBLIC_KEY, $PAIGOW_SIGNING_KEY's public half, the "
    "bundle's, and only when none of those: the key beside a SQLite file (not an independent "
    "check: the result says so)"
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit", help="verify every round offline, export a bundle, recall a round"
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    verify = verbs.add_parser(
        "verify",
        help="check the chain, the procedure, the rules and the money of every round",
        description="Exit status: 0 all holds, 1 findings, 2 bad usage.",
    )
    source = verify.add_mutually_exclusive_group()
    source.add_argument("--db", metavar="URL", help=URL_HELP)
    source.add_argument("--bundle", metavar="FILE", help="a bundle from `paigow audit export`")
    _scope(verify)
    verify.add_argument("--public-key", metavar="FILE", help=KEY_HELP)
    verify.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="audit in N worker processes (default: the machine's cores; 1: in this process): "
        "each table's rounds re-derived in ranges of rows, and from 3 on a database the chain "
        "and signatures checked by the workers too, by stretches of positions; the findings "
        "are the same",
    )
    # Rows of a table per range of work with --jobs above 1: for tests that split a small log
    # into many ranges (audit/ranges.py), not for users.
    verify.add_argument("--range-rows", type=_jobs_range, default=None, help=argparse.SUPPRESS)
    verify.add_argument("--format", choices=("text", "json"), default="text")
    _sealing_options(verify)
    verify.set_defaults(handler=run_verify)
    _register_witness(verbs)
    register_follow(verbs)

    export = verbs.add_parser("export", help="write a self-contained bundle of the log")
    export.add_argument("--db", metavar="URL", help=URL_HELP)
    _scope(export)
    export.add_argument("--out", metavar="FILE", required=True, help="the bundle to write")
    export.add_argument("--public-key", metavar="FILE", help=KEY_HELP)
    export.set_defaults(handler=run_export)

    recall = verbs.add_parser("recall", help="one round as the table played it, from its events")
    source = recall.add_mutually_exclusive_group()
    source.add_argument("--db", metavar="URL", help=URL_HELP)
    source.add_argument("--bundle", metavar="FILE", help="a bundle from `paigow audit export`")
    recall.add_argument("--table", required=True, metavar="ID", help="the table (its stream id)")
    recall.add_argument("--round", required=True, type=_round, metavar="N", dest="round_number")
    recall.add_argument("--format", choices=("text", "json"), default="text")
    recall.set_defaults(handler=run_recall)


def _sealing_options(verify: argparse.ArgumentParser) -> None:
    verify.add_argument(
        "--allow-unsealed-tail",
        action="store_true",
        help="accept events after the last checkpoint when they are only rounds still in "
        "progress (and the service lifecycle events of a log written before every stop was "
        "sealed); the summary says so",
    )
    verify.add_argument(
        "--witness",
        metavar="FILE",
        help="a witness file (`paigow audit witness`): fail a log that lacks or contradicts any "
        "checkpoint it holds",
    )


def _register_witness(verbs: Any) -> None:
    witness = verbs.add_parser(
        "witness",
        help="record the database's signed checkpoints into a witness file kept elsewhere",
        description="Exit status: 0 recorded, 1 the database contradicts the witness, 2 bad usage.",
    )
    witness.add_argument("--db", metavar="URL", help=URL_HELP)
    witness.add_argument(
        "--out", metavar="FILE", required=True, help="the witness file (JSON lines)"
    )
    witness.set_defaults(handler=run_witness)


def _scope(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", metavar="ID", help="one table (its stream id); default: all")
    parser.add_argument("--from", type=_round, metavar="N", dest="from_round", help="first round")
    parser.add_argument("--to", type=_round, metavar="N", dest="to_round", help="last round")


_round = bounded(
    int,
    1,
    math.inf,
    "rounds are numbered from 1",
    not_a="a round number, not {text!r}",
    name="_round",
)


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's), at most 64."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(64, cores))


_jobs_range = bounded(
    int, 1, math.inf, "at least 1 row", not_a="a number of rows, not {text!r}", name="_jobs_range"
)
_jobs = bounded(
    int, 1, 64, "1..64 processes", not_a="a number of processes, not {text!r}", name="_jobs"
)


def _check_range(args: argparse.Namespace) -> str | None:
    if args.from_round and args.to_round and args.from_round > args.to_round:
        return f"--from {args.from_round} is after --to {args.to_round}"
    return None


def _usage(message: str) -> int:
    print(f"paigow audit: {message}", file=sys.stderr)
    return 2


def run_verify(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    from audit.bundle import open_bundle
    from audit.sources import open_database
    from audit.verify import verify_log

    problem = _check_range(args)
    if problem:
        return _usage(problem)
    from audit.witness import load as load_witness

    witness = load_witness(args.witness) if args.witness else []
    url = None
    if args.bundle:
        source = open_bundle(args.bundle, args.public_key, public_key_setting(args))
    else:
        url, signing_key = audit_database(args)
        source = open_database(
            url, args.public_key, signing_key=signing_key, public_setting=public_key_setting(args)
        )
    # A bundle audits the scope it was exported for, unless the command line narrows it.
    scope = (source.manifest or {}).get("scope") or {}
    # One bar, a line a stage: the log's rows, the rounds the workers still re-derive once the
    # last row is read, then the projections rebuilt and compared (no silent stretch at 100 %).
    bar = Progress(source.total or 0, "audit verify")
    try:
        try:
            report = verify_log(
                source,
                table=args.table or scope.get("table"),
                first_round=args.from_round or scope.get("from_round"),
                last_round=args.to_round or scope.get("to_round"),
                progress=bar.update,
                jobs=args.jobs if args.jobs is not None else default_jobs(),
                allow_unsealed_tail=args.allow_unsealed_tail,
                witness=witness,
                stage=bar.stage,
                **({"range_rows": args.range_rows} if args.range_rows else {}),
            )
        finally:
            source.close()
        if url is not None:
            from entrypoints.cli.main import settings_of
            from service_layer.projection_check import check_projections

            day = settings_of(args).gaming_day()
            report.findings = sorted(
                [*report.findings, *check_projections(url, day, stage=bar.stage)],
                key=lambda f: f.sort_key(),
            )
    finally:
        bar.close()
    # The command's wall time, from the process's start (``launch.py``) to its verdict.
    report.seconds = time.perf_counter() - getattr(args, "started", started)
    write_report(report, args.format)
    return 0 if report.ok else 1


def write_report(report: Any, form: str) -> None:
    """The findings, the books and the summary (``--format json``: one JSON object a line)."""
    out = sys.stdout
    if form == "json":
        for finding in report.findings:
            out.write(json.dumps(finding.to_dict()) + "\n")
        out.write(json.dumps({"summary": report.summary(), **report.to_dict()}) + "\n")
    else:
        for finding in report.findings:
            out.write(f"{finding}\n")
        from entrypoints.cli.render import money as amount
        from entrypoints.cli.render import signed_money as signed

        for money in report.money:
            # Money as money, each word in its casino meaning and as `paigow report` says it
            # (docs/projections.md, "The words for money"): the game win is the report's, the
            # house result the part of it before commission.
            out.write(
                f"money: table {money.table_id}: {len(money.players)} players bought in "
                f"{amount(money.bought_in)}, cashed out {amount(money.cashed_out)}, still in "
                f"players' hands {amount(money.balances)}; game win {signed(money.game_win)} = "
                f"house result {signed(money.house_result)} + commission "
                f"{amount(money.commission)}\n"
            )
        out.write(report.summary() + "\n")  # it says where the key came from, once


def run_witness(args: argparse.Namespace) -> int:
    from audit.witness import record

    url, _signing_key = audit_database(args)
    done = record(url, args.out)
    for line in done.contradictions:
        print(f"witness: {line}")
    if done.contradictions:
        print(
            f"witness FAILED: {len(done.contradictions)} contradiction(s) with {args.out}; "
            "nothing appended"
        )
        return 1
    print(f"witness: {done.appended} new checkpoint(s) appended to {args.out} ({done.held} held)")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from audit.bundle import export, target_problem

    unwritable = target_problem(args.out, replace_bundle=True)
    problem = _check_range(args) or (unwritable and f"--out {unwritable}")
    if problem:
        return _usage(problem)
    from adapters.store.signing import sealer_for

    url, signing_key = audit_database(args)
    sqlite_file = url.database if url.get_backend_name() == "sqlite" else None
    manifest = export(
        url,
        args.out,
        table=args.table,
        from_round=args.from_round,
        to_round=args.to_round,
        public_key=args.public_key or public_key_setting(args),
        signing_key=signing_key,
        sealer=sealer_for(sqlite_file, signing_key),
        replace_bundle=True,  # a nightly export may keep one name
    )
    counts = manifest["counts"]
    last = manifest["last"] or {}
    print(
        f"exported {counts['events']} events ({counts['rounds']} rounds, "
        f"{manifest['checkpoints']} checkpoints) to {args.out}; last hash {last.get('hash')}"
    )
    return 0


def run_recall(args: argparse.Namespace) -> int:
    from audit.recall import recall, render

    db = None if args.bundle else audit_database(args)[0]
    found = recall(args.table, args.round_number, db=db, bundle=args.bundle)
    if found is None:
        return _usage(f"table {args.table} has no round {args.round_number}")
    if args.format == "json":
        print(json.dumps(found, indent=2))
    else:
        print(render(found))
    return 0
