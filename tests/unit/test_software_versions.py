"""R5/R19: the start decision over the system stream (service_layer/software_versions.py), pure:
code is authorised by its digest, never by its version label."""

from __future__ import annotations

from typing import Any

import pytest

from service_layer.software_versions import (
    VersionAuthorisationError,
    VersionNotAuthorised,
    checked_digest,
    start_check,
    waiting,
)

A, B, C = ("a" * 64), ("b" * 64), ("c" * 64)


def started(position: int, digest: str | None, version: str = "0.1.0") -> tuple[int, str, Any]:
    return (position, "service_started", {"software_version": version, "digest": digest})


def authorised(position: int, digest: str, reason: str) -> tuple[int, str, dict[str, Any]]:
    payload = {"version": digest, "digest": digest, "reason": reason}
    return (position, "software_version_authorised", payload)


def changed(position: int, old: str, new: str) -> tuple[int, str, dict[str, Any]]:
    payload = {"old_version": "0.1.0", "new_version": "0.1.0", "old_digest": old, "new_digest": new}
    return (position, "software_version_changed", payload)


def test_a_new_log_and_the_same_code_need_no_authorisation() -> None:
    assert start_check([], A).authorisation is None
    assert start_check([], A).last is None
    check = start_check([started(1, A), started(5, A, version="9.9")], A)
    assert (check.last.digest if check.last else None, check.authorisation) == (A, None)


def test_the_same_version_label_with_other_code_is_a_change() -> None:
    with pytest.raises(VersionNotAuthorised, match=f"the running code \\(digest {B}\\)"):
        start_check([started(1, A, version="0.1.0")], B)


def test_a_change_takes_the_last_waiting_authorisation_of_exactly_its_digest() -> None:
    log = [
        started(1, A),
        authorised(3, B, "first"),
        authorised(4, C, "not this one"),
        authorised(7, B, "second"),
        started(9, A),  # a restart of the running code consumes nothing
    ]
    check = start_check(log, B)
    assert check.last is not None and check.last.digest == A
    assert check.authorisation == {"version": B, "digest": B, "reason": "second", "position": 7}


def test_a_change_consumes_it() -> None:
    log = [
        started(1, A),
        authorised(2, B, "up"),
        changed(3, A, B),
        started(4, B),
        authorised(6, A, "back"),
        changed(7, B, A),
        started(8, A),
    ]
    assert waiting(log) == {}
    with pytest.raises(VersionNotAuthorised, match=f"digest {B}\\) is not authorised"):
        start_check(log, B)


def test_an_authorisation_of_a_version_label_authorises_no_code() -> None:
    """Recorded before change control compared digests: a label, no digest."""
    label = (2, "software_version_authorised", {"version": "0.2.0", "reason": "x"})
    assert waiting([started(1, None), label]) == {}
    with pytest.raises(VersionNotAuthorised):
        start_check([started(1, None), label], A)


def test_a_digest_authorised_by_a_release_before_digests_is_one() -> None:
    """The release before digests recorded its argument as ``version`` only: a 64-hex argument
    there names code, so the upgrade out of that release can be authorised with it."""
    older = (2, "software_version_authorised", {"version": A.upper(), "reason": "CHG-1"})
    check = start_check([started(1, None), older], A)
    assert check.authorisation is not None and check.authorisation["position"] == 2


def test_a_start_after_one_recorded_before_digests_is_a_change() -> None:
    with pytest.raises(VersionNotAuthorised) as refused:
        start_check([started(1, None, version="0.1.0")], A)
    assert "(the log last ran version 0.1.0, no digest recorded)" in str(refused.value)
    check = start_check([started(1, None), authorised(2, A, "upgrade")], A)
    assert check.authorisation is not None and check.authorisation["position"] == 2


def test_an_unauthorised_change_names_the_command_to_run() -> None:
    with pytest.raises(VersionNotAuthorised) as refused:
        start_check([started(1, A), authorised(2, B, "x")], C)
    assert str(refused.value) == (
        f"the running code (digest {C}) is not authorised (the log last ran {A}): a floor "
        f"supervisor authorises it first with `paigow service authorise-version {C} --reason "
        "TEXT --key-file FLOOR-KEY` (R5/R19); nothing was written"
    )


def test_a_digest_is_64_hex_digits_and_a_version_label_is_refused() -> None:
    assert checked_digest(" " + "AB" * 32 + " ") == "ab" * 32
    for text in ("0.1.0", "a" * 63, "g" * 64, "", None):
        with pytest.raises(VersionAuthorisationError) as refused:
            checked_digest(text)
        assert refused.value.status == 422
        assert "`paigow service identity --from DIR` prints a release's digest" in str(
            refused.value
        )
