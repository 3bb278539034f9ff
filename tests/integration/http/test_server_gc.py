"""``paigow serve`` freezes what it built at start out of the garbage collector's full passes: a
collection walking the evaluator's tables and the app paused every request for ~60 ms."""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi.testclient import TestClient

from adapters.settings import load_settings
from entrypoints.bootstrap import Serving, serve_app


def test_the_server_freezes_its_start_up_objects(tmp_path: Path) -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    app = serve_app(load_settings(), f"sqlite:///{tmp_path / 'table.db'}", Serving(verify=False))
    try:
        with TestClient(app) as client:
            assert client.get("/health").status_code == 200
            assert gc.get_freeze_count() > 10_000  # the tables, the app, the store
            assert gc.get_threshold()[0] == 10_000
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
