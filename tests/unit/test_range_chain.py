"""The chain checked by stretches of positions (``audit/range_chain.py``) on a log built here: each
stretch takes the links into it as given, and the main process's ``join`` accepts a stretch only
when those links are where the stretches before it left the chain, from the key in force there.
The same cases on recorded casinos, findings compared with one process's:
tests/integration/audit/test_position_ranges.py."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.store.signing import Signer
from audit.chain import Integrity
from audit.range_chain import check_range, join
from eventlog.canonical import GENESIS_HASH, event_hash, global_hash

AT = "2026-11-27T20:00:00.000000Z"
SIGNER = Signer.generate()
STREAMS = ("PG-1", "PG-2")


def log(events: int = 40, every: int = 5) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Bets at two tables in turn, a checkpoint signed every ``every`` events."""
    rows, checkpoints = [], []
    heads = {s: (0, GENESIS_HASH) for s in STREAMS}
    global_prev = GENESIS_HASH
    for position in range(1, events + 1):
        stream = STREAMS[position % 2]
        version, prev = heads[stream][0] + 1, heads[stream][1]
        payload = f'{{"amount":{position}}}'
        digest = event_hash(
            prev, stream, version, "bet_placed", 1, AT, "ana", "dealer", "c", payload
        )
        chained = global_hash(global_prev, position, digest)
        rows.append((position, stream, version, "bet_placed", 1, payload, AT, "ana", "dealer",
                     "c", prev, digest, global_prev, chained))  # fmt: skip
        heads[stream], global_prev = (version, digest), chained
        if position % every == 0:
            checkpoints.append((position, chained, AT, SIGNER.key_id,
                                SIGNER.sign(position, chained, AT)))  # fmt: skip
    return rows, checkpoints


def stretches(
    rows: list[tuple[Any, ...]], checkpoints: list[tuple[Any, ...]], size: int
) -> list[Any]:
    out = []
    for number, first in enumerate(range(1, len(rows) + 1, size)):
        last = min(len(rows), first + size - 1)
        part = [r for r in rows if first <= r[0] <= last]
        signed = [c for c in checkpoints if first <= c[0] <= last]
        checked, _ = check_range(
            part, signed, [], number, first, last, SIGNER.public_raw, "-", None
        )
        out.append(checked)
    return out


def joined(parts: list[Any]) -> tuple[Integrity, list[bool]]:
    integrity = Integrity((), SIGNER.public_raw)
    return integrity, [join(integrity, part) for part in parts]


def test_stretches_that_hold_join_into_the_whole_log_as_one_pass_leaves_it() -> None:
    rows, checkpoints = log()
    whole = Integrity(checkpoints, SIGNER.public_raw)
    for row in rows:
        whole.check(row)
    integrity, agreed = joined(stretches(rows, checkpoints, 7))
    assert agreed == [True] * 6 and whole.findings == []
    assert (integrity.chain.position, integrity.chain.global_head) == (40, rows[-1][13])
    assert integrity.chain.heads == whole.chain.heads
    assert (integrity.checkpoints_checked, integrity.sealed, integrity.unsealed) == (8, 40, 0)


def rehash(rows: list[tuple[Any, ...]], start: int, **change: Any) -> list[tuple[Any, ...]]:
    """The rows with the one at ``start`` changed (``global_prev`` or ``prev``) and every hash
    from it on computed again: a stretch from ``start`` holds on its own."""
    out = [r for r in rows if r[0] < start]
    heads = {r[1]: r[11] for r in out}
    global_prev = out[-1][13] if out else GENESIS_HASH
    for row in rows[len(out) :]:
        position, stream, version, kind, schema, text, at, actor, role, command = row[:10]
        prev = heads.get(stream, GENESIS_HASH)
        if position == start:
            prev = change.get("prev", prev)
            global_prev = change.get("global_prev", global_prev)
        digest = event_hash(prev, stream, version, kind, schema, at, actor, role, command, text)
        chained = global_hash(global_prev, position, digest)
        out.append((*row[:10], prev, digest, global_prev, chained))
        heads[stream], global_prev = digest, chained
    return out


@pytest.mark.parametrize("change", ["global_prev", "prev"])
def test_a_link_broken_at_a_boundary_holds_inside_its_stretch_and_fails_the_join(
    change: str,
) -> None:
    rows, _ = log()
    forged = rehash(rows, 15, **{change: "f" * 64})  # 15: the first event of the third stretch
    parts = stretches(forged, [], 7)
    assert all(part.holds for part in parts)
    _, agreed = joined(parts)
    assert agreed[:3] == [True, True, False]


def test_an_event_edited_in_the_middle_of_a_stretch_fails_that_stretch() -> None:
    rows, checkpoints = log()
    rows[17] = (*rows[17][:5], '{"amount":1}', *rows[17][6:])  # position 18, hashes left
    parts = stretches(rows, checkpoints, 7)
    assert [part.holds for part in parts] == [True, True, False, True, True, True]


def test_an_event_deleted_at_a_boundary_fails_the_stretch_it_began() -> None:
    rows, checkpoints = log()
    del rows[14]  # position 15, the first of the third stretch
    parts = stretches(rows, checkpoints, 7)
    assert [part.holds for part in parts][:3] == [True, True, False]


def test_a_broken_signature_in_a_later_stretch_fails_that_stretch() -> None:
    rows, checkpoints = log()
    position, head, at, key, signature = checkpoints[6]  # position 35: the fifth stretch
    checkpoints[6] = (
        position,
        head,
        at,
        key,
        ("0" if signature[0] != "0" else "1") + signature[1:],
    )
    parts = stretches(rows, checkpoints, 7)
    assert [part.holds for part in parts] == [True] * 4 + [False, True]


def test_a_stretch_checked_from_another_key_than_the_one_in_force_is_not_joined() -> None:
    rows, checkpoints = log()
    parts = stretches(rows, checkpoints, 7)
    parts[2].key_assumed = "0123456789abcdef"
    _, agreed = joined(parts)
    assert agreed[:3] == [True, True, False]
