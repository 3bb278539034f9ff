"""``paigow events follow``: the event feed (docs/feed.md) as JSON lines on standard output, for
scripts.

    paigow events follow [--db URL] [--after P] [--types T[,T…]] [--table ID[,ID…]] [--once]

Reads the database directly, as the other reading commands do (``report``, ``recall``, ``audit
…``): no server, no API key; what it may read is what its database login may. Each line is one
event, exactly as ``GET /events`` gives it (position, stream, version, type, payload as stored,
hashes, the checkpoint that seals it, ``redacted``), in position order, every stream
(``--table system`` for the system stream alone). No card of an open round is shown, as in the
HTTP feed. It follows until interrupted (exit 130), woken by PostgreSQL's LISTEN/NOTIFY or polling
SQLite every ``--poll`` seconds; ``--once`` stops at the log's head (exit 0). A script resumes
with ``--after`` the last position it handled: no gap, no duplicate.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from entrypoints.cli.options import bounded

URL_HELP = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"
PAGE = 500


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("events", help="the event feed as JSON lines")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    follow = verbs.add_parser(
        "follow", help="every event after a position, then each as it is recorded"
    )
    follow.add_argument("--db", metavar="URL", help=URL_HELP)
    follow.add_argument(
        "--after", type=_position, default=0, metavar="P", help="start after this position (0)"
    )
    follow.add_argument(
        "--types",
        action="append",
        metavar="T[,T...]",
        help="only these event types (repeat or comma-separate)",
    )
    follow.add_argument(
        "--table",
        action="append",
        metavar="ID[,ID...]",
        help="only these tables' streams (`system`: the system stream)",
    )
    follow.add_argument(
        "--once", action="store_true", help="stop at the log's head instead of following"
    )
    follow.add_argument(
        "--poll", type=_seconds, default=0.05, metavar="S", help="SQLite: seconds between reads"
    )
    follow.set_defaults(handler=run_follow)


def _position(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a position is a whole number from 0, not {text!r}")
    return int(text)


_SECONDS = "seconds from 0.005 to 60, not {text!r}"
_seconds = bounded(float, 0.005, 60, _SECONDS, not_a=_SECONDS, name="_seconds")


def run_follow(args: argparse.Namespace) -> int:
    from adapters.projections import opened
    from adapters.store.feed_listen import listener_for
    from entrypoints.cli.commands.report import _url
    from service_layer.feed import Feed, UnknownEventTypes, event_lines, scope_for, split_list

    # The floor's scope (every stream): the database login, not a role, says what it may read.
    try:
        scope = scope_for("floor", split_list(args.table), split_list(args.types))
    except UnknownEventTypes as error:
        print(f"paigow events follow: --types: {error}", file=sys.stderr)
        return 2
    with opened(_url(args), create=False) as store:
        feed = Feed(store)
        make_listener = None if args.once else listener_for(store)
        listener = make_listener() if make_listener is not None else None
        try:
            after = args.after
            while True:
                page = feed.page(after, PAGE, scope)
                if page.events:
                    sys.stdout.write("\n".join(event_lines(page)) + "\n")
                    sys.stdout.flush()
                after = page.next_after
                if page.full:
                    continue
                if args.once:
                    return 0
                if listener is not None:
                    listener.wait(1.0)  # a notification, or a read each second regardless
                else:
                    time.sleep(args.poll)
        finally:
            if listener is not None:
                listener.close()
