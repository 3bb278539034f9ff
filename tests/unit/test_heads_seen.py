"""The rule by which an append tells another writer's progress from a log cut or rewritten under
it (adapters/store/heads_seen.py), on its own: the engines' tests are in
tests/integration/audit/test_log_rewound.py."""

from __future__ import annotations

import pytest

from adapters.store.heads_seen import HeadsSeen
from table_core.ports import LogRewritten

H = "a" * 64


def _seen() -> HeadsSeen:
    seen = HeadsSeen()
    seen.saw_stream("PG-1", 10, H, 120)
    seen.saw_log(120, "g" * 64)
    return seen


def test_the_head_seen_or_one_that_extends_it_passes() -> None:
    seen = _seen()
    held = seen.held("PG-1")
    seen.check_stream(held, "PG-1", 10, H, lambda _v: pytest.fail("no probe needed"))
    seen.check_stream(held, "PG-1", 12, "b" * 64, lambda v: H if v == 10 else None)
    seen.check_log(held, 130, "h" * 64, lambda p: "g" * 64 if p == 120 else None)
    seen.check_stream(seen.held("other"), "other", 1, "c" * 64, lambda _v: None)  # never seen
    assert seen.broken is None


@pytest.mark.parametrize(
    ("version", "digest", "at_seen", "problem"),
    [
        (9, "b" * 64, None, "rewound"),  # its last event cut
        (10, "b" * 64, None, "rewritten"),  # the same version, another hash
        (11, "b" * 64, "c" * 64, "rewritten"),  # moved on, but not from what was seen
    ],
)
def test_a_stream_behind_or_rewritten_is_refused_and_the_store_signs_no_more(
    version: int, digest: str, at_seen: str | None, problem: str
) -> None:
    seen = _seen()
    with pytest.raises(LogRewritten) as refused:
        seen.check_stream(seen.held("PG-1"), "PG-1", version, digest, lambda _v: at_seen)
    finding = refused.value.finding
    assert (finding.position, finding.stream_id, finding.version, finding.problem) == (
        120,
        "PG-1",
        10,
        problem,
    )
    with pytest.raises(LogRewritten):
        seen.refuse_to_sign()
    # Forgotten: the failure itself can be recorded after what is there now.
    seen.check_stream(seen.held("PG-1"), "PG-1", version, digest, lambda _v: None)
    seen.check_log(seen.held("PG-1"), 1, "x" * 64, lambda _p: None)


def test_a_log_that_ends_before_the_position_seen_is_rewound() -> None:
    seen = _seen()
    with pytest.raises(LogRewritten, match="its events after position 100 were cut") as refused:
        seen.check_log(seen.held(""), 100, "z" * 64, lambda _p: None)
    assert (refused.value.finding.position, refused.value.finding.problem) == (120, "rewound")


def test_what_was_held_before_a_read_is_what_counts() -> None:
    """Another thread commits (and raises what was seen) while this one's head read is on its
    way: the read is compared with what was held when it was sent, never a false alarm."""
    seen = _seen()
    held = seen.held("PG-1")
    seen.saw_stream("PG-1", 11, "d" * 64, 121)  # the other thread's commit
    seen.saw_log(121, "k" * 64)
    seen.check_stream(held, "PG-1", 10, H, lambda _v: None)  # the read saw the log before it
    seen.check_log(held, 120, "g" * 64, lambda _p: None)
    assert seen.broken is None
    seen.saw_stream("PG-1", 9, "e" * 64, 100)  # an older read never lowers what was seen
    assert seen.streams["PG-1"] == (11, "d" * 64, 121)
