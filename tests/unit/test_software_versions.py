"""R5/R19: the start decision over the system stream (adapters/software_versions.py), pure."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.software_versions import VersionNotAuthorised, start_check, waiting


def started(position: int, version: str) -> tuple[int, str, dict[str, Any]]:
    return (position, "service_started", {"software_version": version})


def authorised(position: int, version: str, reason: str) -> tuple[int, str, dict[str, Any]]:
    return (position, "software_version_authorised", {"version": version, "reason": reason})


def changed(position: int, old: str, new: str) -> tuple[int, str, dict[str, Any]]:
    return (position, "software_version_changed", {"old_version": old, "new_version": new})


def test_a_new_database_and_the_same_version_need_no_authorisation() -> None:
    assert start_check([], "9.9").authorisation is None
    assert start_check([], "9.9").last is None
    check = start_check([started(1, "1.0"), started(5, "1.0")], "1.0")
    assert (check.last, check.authorisation) == ("1.0", None)


def test_a_change_takes_the_last_waiting_authorisation_of_exactly_its_version() -> None:
    log = [
        started(1, "1.0"),
        authorised(3, "2.0", "first"),
        authorised(4, "2.0.1", "not this one"),
        authorised(7, "2.0", "second"),
        started(9, "1.0"),  # a restart of the running version consumes nothing
    ]
    check = start_check(log, "2.0")
    assert check.last == "1.0"
    assert check.authorisation == {"version": "2.0", "reason": "second", "position": 7}


def test_a_change_consumes_it() -> None:
    log = [
        started(1, "1.0"),
        authorised(2, "2.0", "up"),
        changed(3, "1.0", "2.0"),
        started(4, "2.0"),
        authorised(6, "1.0", "back"),
        changed(7, "2.0", "1.0"),
        started(8, "1.0"),
    ]
    assert waiting(log) == {}
    with pytest.raises(VersionNotAuthorised, match=r"software version 2\.0 is not authorised"):
        start_check(log, "2.0")


def test_an_unauthorised_change_names_the_command_to_run() -> None:
    with pytest.raises(VersionNotAuthorised) as refused:
        start_check([started(1, "0.1.0"), authorised(2, "0.2.0", "x")], "0.3.0")
    hint = "`paigow service authorise-version 0.3.0 --reason TEXT --key-file FLOOR-KEY`"
    assert hint in str(refused.value)
    assert "(the log last ran 0.1.0)" in str(refused.value)
