"""The archive follower's parts that need no server (``audit/follow_archive.py``): the properties
file, each property's connection URL, and when a property's replication is called stale. The
whole, on four PostgreSQL clusters: tests/integration/archive/test_archive.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.follow_archive import Liveness, load_properties, property_url
from audit.sources import AuditUsageError

KEY = "ab" * 32


def write(folder: Path, text: str) -> Path:
    (folder / "keys").mkdir(exist_ok=True)
    (folder / "keys" / "a.pub").write_text(KEY)
    (folder / "keys" / "b.pub").write_text("cd" * 32)
    path = folder / "properties.toml"
    path.write_text(text)
    return path


def test_each_property_has_its_schema_its_pinned_key_and_its_subscription(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[[property]]\nname = "north"\nschema = "property_a"\npublic_key = "keys/a.pub"\n'
        '[[property]]\nname = "south"\nschema = "property_b"\npublic_key = "keys/b.pub"\n'
        'subscription = ""\n',
    )
    north, south = load_properties(path)
    assert (north.name, north.schema, north.public_key.hex()) == ("north", "property_a", KEY)
    assert north.subscription == "property_a"  # by default the schema's name
    assert north.key_file == str(tmp_path / "keys" / "a.pub")  # the file's folder's
    assert (south.public_key.hex(), south.subscription) == ("cd" * 32, None)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[[property]]\nname = "a"\nschema = "property_a"\n', "public_key (a file) is required"),
        (
            '[[property]]\nname = "a"\nschema = "property_a"\npublic_key = "keys/none.pub"\n',
            "property a: cannot read the public key",
        ),
        (
            '[[property]]\nname = "a"\nschema = "Property A"\npublic_key = "keys/a.pub"\n',
            "schema must be a lower-case identifier",
        ),
        (
            '[[property]]\nname = "a"\nschema = "s"\npublic_key = "keys/a.pub"\npublickey = 1\n',
            "unknown key publickey",
        ),
        (
            '[[property]]\nname = "a"\nschema = "s"\npublic_key = "keys/a.pub"\n'
            '[[property]]\nname = "b"\nschema = "s"\npublic_key = "keys/b.pub"\n',
            "the schema s is given twice",
        ),
        ("stale_after = 3\n", "one [[property]] table per property"),
        ("[[property]\n", "cannot read the properties file"),
    ],
)
def test_a_bad_properties_file_is_refused_naming_what(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(AuditUsageError) as refused:
        load_properties(write(tmp_path, text))
    assert says in str(refused.value)


def test_a_property_is_read_through_its_schema_on_the_archive() -> None:
    url = property_url("postgresql+psycopg://f@h:5/archive?options=-cstatement_timeout%3D0", "p_a")
    assert url.query["options"] == "-cstatement_timeout=0 -csearch_path=p_a"
    assert url.database == "archive" and url.username == "f"


def test_stale_after_the_time_without_a_sign_of_life_then_resumed() -> None:
    live = Liveness(5.0, now=100.0)
    assert live.see(103.0, moved=False, link_age=None) is None  # the start counts as alive
    assert live.see(104.0, moved=False, link_age=0.5) is None  # a keepalive at 103.5
    assert live.see(108.4, moved=False, link_age=None) is None  # 4.9 s quiet
    assert live.see(108.6, moved=False, link_age=None) == "stale"
    assert live.see(120.0, moved=False, link_age=None) is None  # said once
    assert live.see(121.0, moved=True, link_age=None) == "resumed"  # a new checkpoint
    assert live.see(125.0, moved=False, link_age=9.0) is None  # an old message is no news
    assert live.see(126.5, moved=False, link_age=None) == "stale"


def test_a_worker_failing_again_and_again_is_stale_though_it_hears_the_publisher() -> None:
    """A row the archive refuses: the worker reconnects every second, hears the publisher, fails
    a few milliseconds later. A look that catches the message is undone by the next look's new
    error: stale after the time, as a disabled subscription would be."""
    live = Liveness(5.0, now=0.0)
    errors, verdicts = 0, []
    for step in range(1, 60):
        now = step * 0.2
        # each whole second: heard at +0.01 s, failed at +0.06 s; the look at +0.04 s hears it
        age = 0.03 if step % 5 == 0 else None
        if step % 5 == 1:
            errors += 1  # counted by the look after the failure
        verdicts.append((round(now, 1), live.see(now + 0.04, False, age, errors)))
    assert [at for at, verdict in verdicts if verdict] == [5.0]
    assert live.failing(12.0)


def test_a_link_that_failed_once_and_runs_again_is_alive() -> None:
    live = Liveness(5.0, now=0.0)
    seen = [live.see(0.2, False, 0.1, 0)]
    seen.append(live.see(1.0, False, None, 1))  # the publisher restarted: one error
    for step in range(6, 100):  # keepalives again every 2 s from 1.2 s on
        now = step * 0.2
        seen.append(live.see(now, False, round((now - 1.2) % 2.0, 3), 1))
    assert set(seen) == {None}
    assert not live.failing(19.0)
