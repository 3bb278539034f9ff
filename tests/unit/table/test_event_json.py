"""``event_to_dict`` is built per event class (eventlog/_speed.py, ``dumper``): it must write
exactly what pydantic's ``model_dump(mode="json")`` writes, for every event and every time.

conftest.py compares both on every event ``decide`` emits in the table tests; these tests add the
events read back from JSON (validated, with pydantic's own time zone objects), the times the
service's clock never gives, and the minute kept between calls."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st
from pydantic import AwareDatetime, TypeAdapter

from eventlog.mapper import event_to_dict, parse_event, time_text

from .conftest import same_json
from .test_events import _all_events

PYDANTIC_TIME: TypeAdapter[datetime] = TypeAdapter(AwareDatetime)

offsets = st.one_of(
    st.just(UTC),
    st.just(timezone(timedelta(0))),
    st.integers(-1439, 1439).map(lambda m: timezone(timedelta(minutes=m))),
    st.integers(-86_399, 86_399).map(lambda s: timezone(timedelta(seconds=s))),
    st.integers(-86_399_999_999, 86_399_999_999).map(lambda u: timezone(timedelta(microseconds=u))),
    st.sampled_from(
        [ZoneInfo("Europe/Paris"), ZoneInfo("America/St_Johns"), ZoneInfo("Asia/Kolkata")]
    ),
)
times = st.builds(
    lambda naive, zone: naive.replace(tzinfo=zone),
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    offsets,
)


@given(times)
def test_a_time_is_written_as_pydantic_writes_it(at: datetime) -> None:
    assert time_text(at) == PYDANTIC_TIME.dump_python(at, mode="json")


@given(
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1)),
    st.lists(st.integers(0, 150_000_000), min_size=1, max_size=40),
)
def test_a_dealers_clock_ticking_across_minutes_is_written_exactly(
    start: datetime, steps: list[int]
) -> None:
    at = start.replace(tzinfo=UTC)
    for step in steps:  # the minute of the last time is kept: forward, backward, the same again
        for moment in (at, at - timedelta(minutes=1), at):
            assert time_text(moment) == PYDANTIC_TIME.dump_python(moment, mode="json")
        at += timedelta(microseconds=step)


def test_the_first_and_last_minutes_of_the_calendar() -> None:
    for at in (
        datetime.min.replace(tzinfo=UTC),
        datetime.max.replace(tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 58, 59, 999_999, tzinfo=UTC),
        datetime(999, 1, 1, tzinfo=UTC),
    ):
        assert time_text(at) == PYDANTIC_TIME.dump_python(at, mode="json")


def test_events_read_back_from_json_dump_as_pydantic_dumps_them() -> None:
    events = _all_events()
    # table_opened holds the rules profile, which has a field serializer: pydantic dumps it
    assert {e.type for e in events} >= {"table_opened", "stacks_assigned", "round_settled"}
    for event in events:
        stored = json.loads(json.dumps(event_to_dict(event)))
        again = parse_event(stored)  # validated: pydantic's own time zone object
        assert same_json(event_to_dict(again), again.model_dump(mode="json")), again
        assert event_to_dict(again) == stored
