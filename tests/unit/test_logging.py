"""Log lines leave in one write each (adapters/logging.py, structlog's ``WriteLogger``): processes
sharing stderr (``paigow serve --workers N``) must never interleave two lines into one."""

from __future__ import annotations

import io
import json
import sys
import threading
from collections.abc import Iterator

import pytest
import structlog

from adapters.logging import configure_logging, get_logger


class Recording(io.StringIO):
    """A stream that keeps each ``write`` call's text apart."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def logging_to_recording(monkeypatch: pytest.MonkeyPatch, level: str) -> Recording:
    """Logging configured onto a recording stderr (in the test itself: pytest's capture sets
    ``sys.stderr`` again between a fixture and the test)."""
    stream = Recording()
    monkeypatch.setattr(sys, "stderr", stream)
    configure_logging(level=level, fmt="json")
    return stream


def test_each_line_is_one_write_with_its_newline(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = logging_to_recording(monkeypatch, "info")
    log = get_logger(store="memory://")
    log.info("command_done", events=2)
    log.warning("command_conflict", expected_version=7)
    assert len(stderr.writes) == 2
    assert all(write.endswith("\n") and write.count("\n") == 1 for write in stderr.writes)
    assert [json.loads(write)["event"] for write in stderr.writes] == [
        "command_done",
        "command_conflict",
    ]


def test_threads_logging_at_once_write_whole_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = logging_to_recording(monkeypatch, "info")

    def work(worker: int) -> None:
        log = get_logger(worker=worker)
        for number in range(200):
            log.info("command_done", number=number)

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stderr.writes) == 800
    assert all(json.loads(write)["event"] == "command_done" for write in stderr.writes)
    assert all(write.endswith("}\n") for write in stderr.writes)


def test_below_the_level_nothing_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = logging_to_recording(monkeypatch, "warning")
    get_logger().info("command_done")
    assert stderr.writes == []
