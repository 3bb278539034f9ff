"""A plain progress bar on standard error, shown only when a person is watching (a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.started = time.monotonic()
        self._last = 0.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.2 and done < self.total:
            return
        self._last = now
        share = done / self.total
        bar = "#" * int(share * 30)
        rate = done / max(now - self.started, 1e-9)
        self.stream.write(f"\r{self.label} [{bar:<30}] {share:6.1%} {rate:,.0f}/s")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.update(self.total)
            self.stream.write("\n")
            self.stream.flush()
