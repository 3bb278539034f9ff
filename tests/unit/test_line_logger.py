"""Log lines leave in one write each (adapters/logging.py): processes sharing stderr
(``paigow serve --workers N``) must never interleave two lines into one."""

from __future__ import annotations

import io
import threading

from adapters.logging import LineLogger


class Recording(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_each_line_is_one_write_with_its_newline() -> None:
    stream = Recording()
    logger = LineLogger(stream, threading.Lock())
    logger.info('{"event": "command_done"}')
    logger.warning('{"event": "command_conflict"}')
    assert stream.writes == ['{"event": "command_done"}\n', '{"event": "command_conflict"}\n']
