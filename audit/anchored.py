"""What a checkpoint vouches for in a bundle of one table, whose events are not one chain.

In a whole log every event links to the one before it, so a signed head seals every event up to
it. A one-table bundle holds the table's stream (each event linked to the table's previous one)
and, for a dispute, the dispute's own events of the ``system`` stream, each standing alone (its
stream's events between them are not in the bundle). A signed head commits to the event it is at
and, through the links the bundle holds, to:

- the events of the same stream before it, while that stream runs unbroken in the bundle (a
  ``segment``: a stream that skips versions starts a new one);
- the event just before it in global order, when that event is in the bundle (its global link
  was checked: the deck holds written with a dispute's opening, in one transaction).

So a checkpoint at a dispute's ``dispute_closed`` seals that event alone, never the table's events
before it: each must be sealed by a checkpoint its own links reach, or the audit reports it
unsealed. The events not yet sealed are kept as runs (consecutive events of one segment), a few
per bundle.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class _Run:
    segment: tuple[str, int]
    first: int  # its first event's global position
    count: int
    follows: bool  # its first event links to the event just before it (global order)


class Reach:
    def __init__(self) -> None:
        self._runs: list[_Run] = []
        self._segments: dict[str, int] = {}

    def row(self, position: int, stream: str, linked: bool, follows: bool) -> None:
        """An event, in global order: ``linked`` to its stream's previous event in the bundle,
        ``follows`` the bundle's previous event in global order."""
        number = self._segments.get(stream, 0)
        if not linked:
            number += 1
            self._segments[stream] = number
        segment = (stream, number)
        last = self._runs[-1] if self._runs else None
        if last is not None and last.segment == segment:
            last.count += 1
        else:
            self._runs.append(_Run(segment, position, 1, follows))

    def sealed_at_last(self) -> tuple[int, int | None]:
        """A checkpoint held at the last event: drop what it seals; the events still unsealed
        (how many, and the first one's position)."""
        reached: set[tuple[str, int]] = set()
        through_global = True  # the checkpoint's own event
        kept: list[_Run] = []
        for run in reversed(self._runs):
            if through_global or run.segment in reached:
                reached.add(run.segment)
                through_global = run.follows
            else:
                kept.append(run)
                through_global = False
        kept.reverse()
        self._runs = kept
        if not kept:
            return 0, None
        return sum(run.count for run in kept), kept[0].first
