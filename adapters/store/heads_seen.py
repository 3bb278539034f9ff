"""What a store last wrote or read of each stream's head and of the log's head, so that an append
notices at once a log that went backwards or was rewritten under the running service.

Recorded events never change and a log only grows, so what this store saw is still in the store
whoever appended since: the event it saw last of a stream is still at that version with that
hash, and the log still holds that hash at that position. An append compares the heads it finds
(it reads them anyway, or the server checks them) with what it saw:

- the same version (position) with the same hash: nothing happened;
- a higher one whose event at the version it saw still has the hash it saw: another writer moved
  it on (a version conflict, as ever);
- a lower one: events were cut (``rewound``); the same or a higher one with another hash at the
  version it saw: an event was rewritten (``rewritten``).

Either of the last two is ``LogRewritten``, naming the version and position the store held;
nothing is written. The store then signs nothing more (``broken``): a service restarted on the
log verifies it whole before it trusts it. What it saw is replaced by what it found, so that the
service can still record the failure itself (unsealed) where the store allows it.

A store remembers only the streams it wrote or read since it opened: a service restarted on a cut
log cannot tell (only a witness of an earlier checkpoint can, ``paigow audit witness``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from eventlog.verifier import Finding
from table_core.ports import LogRewritten

#: ``probe(version or position)``: the hash the store holds there now (``None``: nothing).
Probe = Callable[[int], str | None]
#: What was seen of a stream (version, hash, position) and of the log (position, hash).
Held = tuple[tuple[int, str, int] | None, tuple[int, str] | None]


def _change(seen: int, seen_hash: str, found: int, digest: str, probe: Probe) -> str | None:
    """What became of a head seen at ``seen`` (a stream's version or the log's position) with
    ``seen_hash``, now found at ``found`` with ``digest``: ``None`` when it is the same or was
    moved on with the one seen still in it, "rewound" when it went back, "rewritten" when the
    hash at ``seen`` is another (``probe`` is asked only when the head moved on)."""
    if found == seen and digest == seen_hash:
        return None
    if found < seen:
        return "rewound"
    if found == seen or probe(seen) != seen_hash:
        return "rewritten"
    return None


#: The finding's detail for each change of a head: a stream's, the log's.
_STREAM_DETAIL = {
    "rewound": "stream {stream!r} was at version {seen} (position {position}) and is now at "
    "{found}: its events after version {found} were cut",
    "rewritten": "stream {stream!r}: the event at version {seen} (position {position}) is not "
    "the one this store wrote or read: it was rewritten",
}
_LOG_DETAIL = {
    "rewound": "the log reached position {seen} and now ends at {found}: "
    "its events after position {found} were cut",
    "rewritten": "the log's hash at position {seen} is not the one this store wrote or read: "
    "the log was rewritten",
}


class HeadsSeen:
    """The heads one store wrote or read: per stream (version, hash, position), and the log's."""

    def __init__(self) -> None:
        self.streams: dict[str, tuple[int, str, int]] = {}
        self.log: tuple[int, str] | None = None
        #: The first rewrite met: from then on the store signs nothing.
        self.broken: LogRewritten | None = None
        self._lock = threading.Lock()

    def saw_stream(self, stream_id: str, version: int, digest: str, position: int | None) -> None:
        """The stream's event at ``version`` (kept when it is the newest seen)."""
        with self._lock:
            held = self.streams.get(stream_id)
            if held is None or version > held[0]:
                self.streams[stream_id] = (version, digest, position or 0)

    def saw_log(self, position: int, digest: str) -> None:
        with self._lock:
            if self.log is None or position > self.log[0]:
                self.log = (position, digest)

    def held(self, stream_id: str) -> Held:
        """What was seen of the stream and of the log, taken BEFORE the heads are read: a head
        read is compared with what was committed before it was sent (another thread of this
        store may commit, and raise what it saw, while the read is on its way)."""
        return self.streams.get(stream_id), self.log

    def check_stream(
        self, held: Held, stream_id: str, version: int, digest: str, probe: Probe
    ) -> None:
        """``LogRewritten`` unless the stream's head found (``version``, ``digest``) is the one
        seen (``held``) or follows on from it (``probe``: the stream's hash at a version, asked
        only then)."""
        if held[0] is None:
            return
        seen, seen_hash, position = held[0]
        problem = _change(seen, seen_hash, version, digest, probe)
        if problem is not None:
            detail = _STREAM_DETAIL[problem].format(
                stream=stream_id, seen=seen, position=position, found=version
            )
            raise self.broken_at(Finding(position, stream_id, seen, problem, detail))

    def check_log(self, held: Held, position: int, digest: str, probe: Probe) -> None:
        """As ``check_stream``, for the global log's head (position, hash)."""
        if held[1] is None:
            return
        seen, seen_hash = held[1]
        problem = _change(seen, seen_hash, position, digest, probe)
        if problem is not None:
            detail = _LOG_DETAIL[problem].format(seen=seen, found=position)
            raise self.broken_at(Finding(seen, None, None, problem, detail))

    def check_link(self, stream_id: str, version: int, digest: str, found: str | None) -> None:
        """The stream's event at ``version`` that an append extends had ``digest`` and has
        ``found`` now (``None``: it is gone): ``LogRewritten`` unless they are the same."""
        if found == digest:
            return
        held = self.streams.get(stream_id)
        position = held[2] if held is not None and held[0] == version else self.log_position()
        if found is None:
            problem = "rewound"
            detail = (
                f"stream {stream_id!r}: its event at version {version}, which this append "
                "extends, is gone: its events were cut"
            )
        else:
            problem = "rewritten"
            detail = (
                f"stream {stream_id!r}: its event at version {version}, which this append "
                "extends, has another hash: it was rewritten"
            )
        raise self.broken_at(Finding(position, stream_id, version, problem, detail))

    def log_position(self) -> int:
        """The newest log position seen (0: none)."""
        return self.log[0] if self.log is not None else 0

    def refuse_to_sign(self) -> None:
        """Raise the rewrite met, if any: a store that met one signs nothing more."""
        if self.broken is not None:  # a new exception each time: no traceback piling up
            raise LogRewritten(str(self.broken), self.broken.finding)

    def broken_at(self, finding: Finding) -> LogRewritten:
        """The error for ``finding``, remembered: the store signs nothing more."""
        error = LogRewritten(
            f"the log changed under this store at position {finding.position} "
            f"({finding.problem}): {finding.detail}; nothing was written",
            finding,
        )
        with self._lock:
            if self.broken is None:
                self.broken = error
            # What was found is what there is now: forget what was seen, so that the failure
            # itself can still be recorded (unsealed) after it.
            self.streams.clear()
            self.log = None
        return error
