"""``paigow serve``: the HTTP API (docs/http.md) on uvicorn.

``paigow serve [--db URL] [--host 127.0.0.1] [--port 8000] [--workers N]`` serves the API and its
OpenAPI document (``/openapi.json``, ``/docs``); ``paigow serve --write-openapi
docs/openapi.json`` writes the document and exits. Logs are structlog JSON lines on standard error
unless ``PAIGOW_LOG_FORMAT=console`` (adapters/settings.py). ``--workers N`` (N > 1) runs N server
processes on one port (uvicorn's supervisor; docs/http.md "Several worker processes").
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from entrypoints.cli.options import bounded


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve the HTTP API (FastAPI on uvicorn)")
    parser.add_argument(
        "--db", metavar="URL", help="database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=_port, default=8000, help="port to listen on (0: any free port)"
    )
    parser.add_argument(
        "--workers",
        type=_worker_count,
        default=1,
        metavar="N",
        help="server processes sharing the port and the database (default 1)",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="do not verify the store at start (commands are refused while it fails)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="serve queries only: every command is refused (503 read_only); for a store whose "
        "signing key is missing, which otherwise refuses to start",
    )
    parser.add_argument(
        "--write-openapi",
        metavar="PATH",
        type=Path,
        help="write the OpenAPI document to PATH and exit",
    )
    parser.set_defaults(handler=run)


_PROCESSES = "must be a whole number of processes from 1, not {text!r}"
_worker_count = bounded(int, 1, math.inf, _PROCESSES, not_a=_PROCESSES, name="_worker_count")
_PORTS = "must be a port from 0 to 65535, not {text!r}"
_port = bounded(int, 0, 65535, _PORTS, not_a=_PORTS, name="_port")


def _cannot_listen(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (taken, no such address), else None: said in
    one line before the store is opened, instead of the server's own log line after it. The
    server binds with SO_REUSEADDR, so this probe does too (a port in TIME_WAIT is free)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = found[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except (OSError, UnicodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        return f"cannot listen on {host}:{port}: {reason.lower()} (--host, --port)"
    return None


def run(args: argparse.Namespace) -> int:
    from adapters.logging import configure_logging
    from entrypoints.cli.main import settings_of

    settings = settings_of(args)
    configure_logging(settings.log_level, settings.log_format or "json")
    if args.write_openapi is not None:
        return _write_openapi(args.write_openapi, settings)
    refused = _cannot_listen(args.host, args.port)
    if refused is not None:
        print(f"paigow: {refused}", file=sys.stderr)
        return 2
    if args.workers > 1:
        return _run_workers(args, settings)
    import uvicorn

    from entrypoints.bootstrap import Serving, serve_app

    serving = Serving(verify=not args.no_verify, read_only=args.read_only)
    app = serve_app(settings, args.db, serving)
    print(f"paigow: serving on {_address(args)}", file=sys.stderr, flush=True)
    uvicorn.run(app, **_uvicorn_settings(args))
    return 0


def _address(args: argparse.Namespace) -> str:
    """The server's address as a URL (an IPv6 host in brackets)."""
    host = f"[{args.host}]" if ":" in args.host else args.host
    return f"http://{host}:{args.port}"


def _uvicorn_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What one process and N workers run with alike."""
    return {
        "host": args.host,
        "port": args.port,
        "log_level": "warning",
        "access_log": False,  # the app writes its own access log (entrypoints/http/observe.py)
        "lifespan": "on",
    }


def _run_workers(args: argparse.Namespace, settings: Any) -> int:
    """N worker processes on one socket, each with its own store connection and service
    (entrypoints/bootstrap.py ``worker_app``); uvicorn's supervisor stops them all on SIGTERM."""
    import uvicorn

    from adapters.code_identity import running_code
    from adapters.settings import env_name
    from adapters.store import database_url, open_configured
    from entrypoints.bootstrap import WORKER_APP
    from service_layer.metrics import MULTIPROC_DIR
    from service_layer.readiness import require_signing_key
    from service_layer.software_versions import require_authorised

    url = database_url(args.db or settings.db)
    if url.drivername == "memory":
        print(
            "paigow: --workers needs a database the workers share: memory:// lives in one process",
            file=sys.stderr,
        )
        return 2
    # Open the store once here, before any worker: a new SQLite file is created (with its
    # signing key) by one process, not raced by N, and a database at the wrong revision is one
    # clear error instead of N workers failing to start (a store that cannot sign, too).
    store = open_configured(settings, args.db)
    try:
        if not args.read_only:
            shown = url.render_as_string(hide_password=True)
            require_signing_key(store, shown, read_only_hint=True)
            # R5/R19, before any worker starts: the code identified and its digest authorised
            require_authorised(store, running_code().code.digest)
    finally:
        store.close()
    # What the workers build their apps from (entrypoints/bootstrap.py ``worker_app``).
    os.environ[env_name("serve_worker_db")] = args.db or ""
    os.environ[env_name("serve_worker_verify")] = "0" if args.no_verify else "1"
    os.environ[env_name("serve_worker_read_only")] = "1" if args.read_only else "0"
    # The workers' counters and histograms in files summed at each scrape
    # (service_layer/metrics.py).
    metrics_dir = tempfile.mkdtemp(prefix="paigow-metrics-")
    os.environ[MULTIPROC_DIR] = metrics_dir
    print(
        f"paigow: serving on {_address(args)} ({args.workers} workers)",
        file=sys.stderr,
        flush=True,
    )
    try:
        uvicorn.run(WORKER_APP, factory=True, workers=args.workers, **_uvicorn_settings(args))
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def _write_openapi(path: Path, settings: Any) -> int:
    from entrypoints.bootstrap import wire
    from entrypoints.http.app import create_app, write_openapi
    from service_layer.operators.keys import MemoryKeyStore

    # The document depends on the code only: any store will do to build the app.
    service = wire(settings, "memory://").service
    write_openapi(create_app(service, MemoryKeyStore(service.store), settings), path)
    print(f"paigow: OpenAPI document written to {path}", file=sys.stderr)
    return 0
