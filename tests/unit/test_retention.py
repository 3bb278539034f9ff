"""R18's decision, pure (``eventlog/retention.py``), and the audit's check of a recorded purge
(``audit/retention.py``) over rows written by hand: categories, minimums, the log's time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from audit.clock import ClockRule
from audit.findings import Finding
from audit.retention import RetentionDuty
from eventlog import system_events
from eventlog.retention import (
    MINIMUM_DAYS,
    SYSTEM_STREAM,
    Newest,
    below_minimum,
    category_of,
    inside_retention,
    newest_by_category,
)

T0 = datetime(2020, 1, 1, tzinfo=UTC)
DEFAULTS = dict(MINIMUM_DAYS)


def test_the_categories_and_their_minimums() -> None:
    assert SYSTEM_STREAM == system_events.SYSTEM_STREAM
    assert DEFAULTS == {"game": 1826, "system": 1826, "disputes": 365, "access": 90}
    assert category_of("PG-1", "chips_cashed_out") == "game"
    assert category_of("PG-1", "deck_received") == "game"
    assert category_of("system", "dispute_opened") == "disputes"
    assert category_of("system", "dispute_closed") == "disputes"
    assert category_of("system", "authentication_failed") == "access"
    assert category_of("system", "api_key_created") == "system"
    assert category_of("system", "range_purged") == "system"
    assert category_of("system", "a_type_of_a_later_release") == "system"


def test_a_period_below_its_minimum_or_missing_may_not_be_in_force() -> None:
    assert below_minimum(DEFAULTS) == []
    assert below_minimum({**DEFAULTS, "game": 3650}) == []
    assert below_minimum({**DEFAULTS, "game": 1, "access": 89}) == [
        "game events: 1 days, below the jurisdiction's minimum of 1826",
        "access and authentication logs: 89 days, below the jurisdiction's minimum of 90",
    ]
    assert below_minimum({"game": 1826, "system": 1826, "disputes": 365, "weather": 1}) == [
        "unknown category 'weather'",
        "access and authentication logs: no period in days",
    ]


def test_the_newest_event_of_each_category_in_a_range() -> None:
    rows = [
        (1, "PG-1", "table_opened", T0),
        (2, "system", "dispute_opened", T0 + timedelta(days=3)),
        (3, "PG-1", "round_closed", T0 + timedelta(days=2)),
        (4, "PG-1", "round_closed", T0 + timedelta(days=1)),  # a clock stepped back
        (5, "system", "service_started", T0 + timedelta(days=2)),
    ]
    assert newest_by_category(rows) == {
        "game": Newest(3, T0 + timedelta(days=2)),
        "disputes": Newest(2, T0 + timedelta(days=3)),
        "system": Newest(5, T0 + timedelta(days=2)),
    }


def test_the_decision_is_the_newest_event_plus_its_period_against_the_log_time() -> None:
    newest = {"game": Newest(9, T0), "disputes": Newest(4, T0 + timedelta(days=100))}
    exactly = T0 + timedelta(days=1826)
    assert inside_retention(newest, DEFAULTS, exactly) == []  # kept until then: may go now
    (game,) = inside_retention(newest, DEFAULTS, exactly - timedelta(seconds=1))
    assert (game.category, game.newest.position, game.kept_until) == ("game", 9, exactly)
    assert game.message() == (
        "position 9 (game events) was recorded at 2020-01-01T00:00:00+00:00, inside the "
        "retention of 1826 days for game events (kept until 2024-12-31T00:00:00+00:00; the "
        "log's time is 2024-12-30T23:59:59+00:00)"
    )
    longer = {**DEFAULTS, "disputes": 1826}  # the casino keeps its dispute history longer
    (disputes,) = inside_retention(newest, longer, exactly)
    assert (disputes.category, disputes.newest.position) == ("disputes", 4)
    # A category without a period is kept as long as the longest there is (here five years)
    assert [
        v.category for v in inside_retention(newest, {"game": 10}, T0 + timedelta(days=50))
    ] == ["disputes"]


# --- the audit's check of a recorded purge -------------------------------------------------------


def _row(position: int, kind: str, at: datetime, stream: str = "system") -> tuple[Any, ...]:
    return (position, stream, position, kind, 1, "{}", at.isoformat(), "floor-1", "floor")


def _purged(at: datetime, log_time: datetime, newest_at: datetime, **changes: Any) -> Any:
    return {
        "first_position": 1,
        "last_position": 10,
        "log_time": log_time.isoformat(),
        "retention": DEFAULTS,
        "newest": {"game": {"position": 10, "at": newest_at.isoformat()}},
        **changes,
    }


def _check(rows: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[Finding]:
    clock = ClockRule()
    duty = RetentionDuty([], clock)
    for row, payload in rows:
        if row[1] == "system":
            duty.system_row(row, payload)
        else:
            clock.table_row(row)
    return duty.findings


def test_a_purge_past_retention_at_the_log_time_passes() -> None:
    later = T0 + timedelta(days=1900)
    assert _check([
        (_row(11, "round_closed", later, "PG-2"), {}),
        (_row(12, "retention_set", later), {"periods": DEFAULTS}),
        (_row(13, "range_purged", later), _purged(later, later, T0)),
    ]) == []  # fmt: skip


def test_a_purge_inside_retention_or_judged_ahead_of_its_log_is_named() -> None:
    seen = T0 + timedelta(days=30)
    ahead = T0 + timedelta(days=1900)
    findings = _check([
        (_row(11, "service_started", seen), {}),
        (_row(12, "range_purged", ahead), _purged(ahead, ahead, T0)),
    ])  # fmt: skip
    assert [(f.clause, f.position, f.message) for f in findings] == [
        ("R18", 12, "purge of positions 1..10 was judged at 2025-03-15T00:00:00+00:00, later "
         "than the log's time 2020-01-31T00:00:00+00:00 (its latest event before the purge)"),
        ("R18", 12, "purge of positions 1..10 removed position 10 (game events) was recorded at "
         "2020-01-01T00:00:00+00:00, inside the retention of 1826 days for game events (kept "
         "until 2024-12-31T00:00:00+00:00; the log's time is 2020-01-31T00:00:00+00:00)"),
    ]  # fmt: skip


def test_a_purge_that_applied_other_periods_than_those_in_force_is_named() -> None:
    later = T0 + timedelta(days=1900)
    longer = {**DEFAULTS, "game": 3650}
    findings = _check([
        (_row(11, "retention_set", later), {"periods": longer}),
        (_row(12, "service_stopped", later), {}),
        (_row(13, "range_purged", later), _purged(later, later, T0)),
    ])  # fmt: skip
    assert [(f.position, f.message) for f in findings] == [
        (13, "purge of positions 1..10 applied access 90 days, disputes 365 days, game 1826 "
         "days, system 1826 days, but the retention in force (recorded at position 11) is access "
         "90 days, disputes 365 days, game 3650 days, system 1826 days"),
        (13, "purge of positions 1..10 removed position 10 (game events) was recorded at "
         "2020-01-01T00:00:00+00:00, inside the retention of 3650 days for game events (kept "
         "until 2029-12-29T00:00:00+00:00; the log's time is 2025-03-15T00:00:00+00:00)"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("retention_set", {"periods": {**DEFAULTS, "access": 30}},
         "retention set below what may be in force: access and authentication logs: 30 days, "
         "below the jurisdiction's minimum of 90"),
        ("range_purged", {"retention": {**DEFAULTS, "game": 1}, "log_time": "2025-03-15T00:00:00Z",
                          "newest": {}, "first_position": 1, "last_position": 10},
         "purge of positions 1..10 applied a retention below its minimums: game events: 1 days, "
         "below the jurisdiction's minimum of 1826"),
        ("range_purged", {"retention": DEFAULTS, "log_time": "2025-03-15T00:00:00Z",
                          "newest": {"game": {"at": "soon"}}, "first_position": 1,
                          "last_position": 10},
         "purge of positions 1..10: its log time or newest events do not read ('position')"),
    ],
)  # fmt: skip
def test_what_may_not_be_in_force_or_does_not_read_is_named(
    kind: str, payload: dict[str, Any], message: str
) -> None:
    later = T0 + timedelta(days=1900)
    (finding,) = _check(
        [(_row(11, "service_started", later), {}), (_row(12, kind, later), payload)]
    )
    assert (finding.kind, finding.clause, finding.position, finding.message) == (
        "procedure", "R18", 12, message
    )  # fmt: skip


def test_a_purge_recorded_before_purges_named_their_log_time_is_passed_by() -> None:
    legacy = {"first_position": 1, "last_position": 10, "retention_days": 1826}
    assert _check([(_row(12, "range_purged", T0), legacy)]) == []
