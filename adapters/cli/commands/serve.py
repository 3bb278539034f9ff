"""``paigow serve``: the HTTP API (docs/http.md) on uvicorn.

``paigow serve [--db URL] [--host 127.0.0.1] [--port 8000]`` serves the API and its OpenAPI
document (``/openapi.json``, ``/docs``); ``paigow serve --write-openapi docs/openapi.json`` writes
the document and exits. Logs are structlog JSON lines on standard error unless
``PAIGOW_LOG_FORMAT=console``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve the HTTP API (FastAPI on uvicorn)")
    parser.add_argument(
        "--db", metavar="URL", help="database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="do not verify the store at start (commands are refused while it fails)",
    )
    parser.add_argument(
        "--write-openapi",
        metavar="PATH",
        type=Path,
        help="write the OpenAPI document to PATH and exit",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from adapters.logging import configure_logging

    configure_logging(fmt=os.environ.get("PAIGOW_LOG_FORMAT") or "json")
    if args.write_openapi is not None:
        return _write_openapi(args.write_openapi)
    import uvicorn

    from adapters.http.server import build_app

    app = build_app(args.db, verify=not args.no_verify)
    print(f"paigow: serving on http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,  # the service logs every command with structlog
        lifespan="on",
    )
    return 0


def _write_openapi(path: Path) -> int:
    from adapters.http.app import create_app, write_openapi
    from adapters.http.keys import MemoryKeyStore
    from adapters.service import TableService
    from adapters.store import open_store

    # The document depends on the code only: any store will do to build the app.
    write_openapi(create_app(TableService(open_store("memory://")), MemoryKeyStore()), path)
    print(f"paigow: OpenAPI document written to {path}", file=sys.stderr)
    return 0
