"""A progress bar on standard error (rich): done, rate, elapsed and remaining time.

Shown only when a person is watching (standard error is a terminal) and not asked to be quiet, so
scripts, pipes and tests see nothing; standard output (JSON, tables) is never touched.
"""

from __future__ import annotations

import atexit
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID


class Progress:
    """``update(done)`` as the work goes, ``stage(label, total)`` between stages, ``close()`` at
    the end; ``enabled = False`` (``--quiet``) before the first update keeps it silent. The bar
    starts on the first update, so a disabled one costs one attribute check per call."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None

    def _start(self) -> RichProgress:
        bar = _rich_bar(self.stream)
        self._task = bar.add_task(self.label, total=self.total)
        bar.start()
        self._bar = bar
        atexit.register(self._stop)  # an error before close() must not leave the cursor hidden
        return bar

    def _stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        atexit.unregister(self._stop)

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        bar = self._bar or self._start()
        assert self._task is not None
        bar.update(self._task, completed=min(done, self.total))

    def stage(self, label: str, total: int) -> Callable[[int], None]:
        """The work's next stage: the current line is left complete and a new one, ``label`` out
        of ``total``, counts from 0 (``audit verify``: reading the log, then the workers'
        last rounds, then the projections). Returns :meth:`update`, for the new stage."""
        if self.enabled and self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.total)
        self.label = label
        self.total = max(total, 1)
        if self.enabled and self._bar is not None:
            self._task = self._bar.add_task(label, total=self.total)
        return self.update

    def close(self) -> None:
        if not self.enabled:
            return
        self.update(self.total)
        self._stop()


def _rich_bar(stream: TextIO) -> RichProgress:
    """What is done, how fast, the time taken and the time left. rich is imported here, when a
    bar is shown: scripts and pipes never pay for it."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        Task,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress
    from rich.table import Column
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Items per second (rich's own speed column counts bytes)."""

        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f}/s", style="progress.data.speed")

    def whole() -> Column:  # a figure is never cut: the bar gives way
        return Column(no_wrap=True)

    return RichProgress(
        TextColumn("{task.description}", table_column=whole()),
        BarColumn(bar_width=None, table_column=Column(ratio=1)),
        TaskProgressColumn(table_column=whole()),
        MofNCompleteColumn(table_column=whole()),
        RateColumn(table_column=whole()),
        TextColumn("elapsed", table_column=whole()),
        TimeElapsedColumn(table_column=whole()),
        TextColumn("left", table_column=whole()),
        TimeRemainingColumn(table_column=whole()),
        console=Console(file=stream),
        # Never reroute standard output through the bar: its JSON must reach stdout as is.
        redirect_stdout=False,
        redirect_stderr=False,
        expand=True,  # the bar takes the room the figures leave
    )
