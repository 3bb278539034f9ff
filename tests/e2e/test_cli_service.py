"""R5/R19 from the command line: the code's identity is its digest.

- ``paigow service identity`` prints the running code's digest and parts; ``--from DIR`` computes
  a checkout's without importing it, and coreutils alone compute the same (docs/audit.md);
- a database last run by other code refuses ``paigow simulate`` (one line naming the command,
  exit 2, nothing written) until the floor authorises exactly the running digest with ``paigow
  service authorise-version DIGEST`` (as a floor supervisor's API key, R19); a version label is
  refused; the change then names the authorisation and the audit passes;
- the reproductions: a copy of the tree with the commission raised by one percent, or with a
  deck-and-dice source that does not shuffle, is other code: refused at its start; authorised,
  the unshuffled decks it deals are named by the audit (R-DEAL-4); a package shadowed from
  another directory refuses the start.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adapters.clock import SteppingClock
from adapters.store import open_store
from eventlog.code_identity import LOCK_FILE, PACKAGES
from service_layer.change_control import authorise
from service_layer.service import TableService
from table_core.ports import Actor

from .conftest import Run, operator_keys

DB = "sqlite:///casino.db"
ROOT = Path(__file__).resolve().parents[2]
SIMULATE = ("simulate", "--db", DB, "--rounds", "1", "--players", "1")


def checkout(into: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    (into / LOCK_FILE).parent.mkdir(parents=True)
    shutil.copy(ROOT / LOCK_FILE, into / LOCK_FILE)
    return into


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def run_tree(tree: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``paigow`` run from the checkout at ``tree`` (its packages first on the path)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


def identity(run: Run, *args: str) -> dict[str, object]:
    done = run("service", "identity", *args)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_identity_of_the_running_code_and_of_a_checkout(paigow: Run, tmp_path: Path) -> None:
    running = identity(paigow)
    assert set(running) == {
        *("digest", "recipe", "parts", "files", "root", "software_version", "rng"),
    }
    assert running["rng"] == {
        "class": "adapters.rng.SecureDeckAndDice",
        "draws_from": "os.urandom",
        "file": "adapters/rng.py",
        "sha256": hashlib.sha256((ROOT / "adapters" / "rng.py").read_bytes()).hexdigest(),
    }
    release = checkout(tmp_path / "release-1.4")
    computed = identity(paigow, "--from", str(release))
    assert (computed["digest"], computed["parts"]) == (running["digest"], running["parts"])
    assert computed["root"] == str(release)
    # What a regulator runs on a clean checkout, with coreutils only (docs/audit.md).
    recipe = (
        "{ find adapters audit entrypoints eventlog migrations service_layer table_core -type f "
        "! -name '*.pyc' "
        "! -name '*.pyo' ! -path '*/__pycache__/*' -print0; "
        "printf 'requirements/runtime.lock\\0'; } "
        "| LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum"
    )
    shell = subprocess.run(
        ["bash", "-c", recipe], cwd=release, capture_output=True, text=True, check=True
    )
    assert shell.stdout.split()[0] == running["digest"]
    missing = paigow("service", "identity", "--from", str(tmp_path / "nowhere"))
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr.startswith("paigow service: ")
    assert len(missing.stderr.splitlines()) == 1


def test_other_code_is_refused_until_the_floor_authorises_its_digest(
    paigow: Run, tmp_path: Path
) -> None:
    made = paigow(*SIMULATE, "--seed", "2")
    assert made.returncode == 0, made.stderr  # the first start of a new database needs none
    old = hashlib.sha256(b"release 0.0.9").hexdigest()
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:  # a rollback to an older release, authorised: its digest injected, not installed
        at = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
        authorise(store, old, "rollback drill", Actor("floor-ines", "floor"), at)
        clock = SteppingClock(at, timedelta(seconds=1))
        TableService(store, clock=clock, code_digest=old).start()
    finally:
        store.close()
    running = str(identity(paigow)["digest"])
    size = (tmp_path / "casino.db").stat().st_size
    refused = paigow(*SIMULATE)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.splitlines() == [
        f"paigow: the running code (digest {running}) is not authorised (the log last ran "
        f"{old}): a floor supervisor authorises it first with `paigow service authorise-version "
        f"{running} --reason TEXT --key-file FLOOR-KEY --db {DB}` (R5/R19); nothing was "
        "written"
    ]
    assert (tmp_path / "casino.db").stat().st_size == size
    label = paigow("service", "authorise-version", "0.1.0", "--db", DB, "--reason", "x",
                   "--floor", "f-1")  # fmt: skip
    assert (label.returncode, label.stdout) == (2, "")
    assert label.stderr.splitlines() == [
        "paigow service: a software version is authorised by its code's digest (64 hex digits), "
        "not '0.1.0': `paigow service identity --from DIR` prints a release's digest from its "
        "checkout, `paigow service identity` the running code's"
    ]
    operator_keys(DB, tmp_path, ("security", "floor"), floor="floor-ines")
    floor = ("--key-file", "floor.key")
    empty = paigow("service", "authorise-version", running, "--db", DB, "--reason", " ", *floor)
    assert (empty.returncode, empty.stderr) == (
        2,
        "paigow service: a software version's authorisation needs a reason\n",
    )
    assert (tmp_path / "casino.db").stat().st_size == size
    # The command the refusal named, run as printed (its placeholders filled in).
    suggested = refused.stderr.split("`")[1]
    suggested = suggested.replace("TEXT", "'CHG-12 release'").replace("FLOOR-KEY", "floor.key")
    granted = paigow(*shlex.split(suggested)[1:])
    assert granted.returncode == 0, granted.stderr
    record = json.loads(granted.stdout)
    assert set(record) == {"position", "version", "digest", "reason", "authorised_by", "at"}
    assert (record["digest"], record["version"], record["authorised_by"]) == (
        running,
        running,
        {"id": "floor-ines", "role": "floor"},
    )
    # The casino's store has operator keys now, which paigow simulate leaves alone: the service
    # itself starts under the running version.
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:
        TableService(store).start()
    finally:
        store.close()
    versions = paigow("service", "versions", "--db", DB)
    lines = [json.loads(line) for line in versions.stdout.splitlines()]
    assert [(line["event"], line.get("new_digest"), line.get("digest")) for line in lines] == [
        ("software_version_authorised", None, old),
        ("software_version_changed", old, None),
        ("software_version_authorised", None, running),
        ("software_version_changed", running, None),
    ]
    assert (lines[3]["authorisation"], lines[3]["reason"]) == (record["position"], "CHG-12 release")
    assert lines[3]["old_digest"] == old
    audited = paigow("audit", "verify", "--db", DB)
    assert audited.returncode == 0, audited.stdout + audited.stderr


def test_a_copy_with_the_commission_raised_one_percent_is_refused_at_restart(
    paigow: Run, tmp_path: Path
) -> None:
    """The same version label, other code (the commission one percent higher): exit 2, one line."""
    made = paigow(*SIMULATE, "--seed", "2")
    assert made.returncode == 0, made.stderr
    tree = checkout(tmp_path / "tampered")
    edit(
        tree / "table_core" / "settlement.py",
        "wager * rules.rate_bp,",
        "wager * (rules.rate_bp + 100),",
    )
    changed = str(identity(paigow, "--from", str(tree))["digest"])
    assert changed != identity(paigow)["digest"]
    size = (tmp_path / "casino.db").stat().st_size
    refused = run_tree(tree, tmp_path, *SIMULATE, "--seed", "3")
    assert (refused.returncode, refused.stdout) == (2, "")
    (line,) = refused.stderr.splitlines()
    assert line.startswith(f"paigow: the running code (digest {changed}) is not authorised")
    assert (tmp_path / "casino.db").stat().st_size == size


def test_a_source_that_does_not_shuffle_is_refused_and_once_authorised_the_audit_names_it(
    paigow: Run, tmp_path: Path
) -> None:
    made = paigow(*SIMULATE, "--seed", "2")
    assert made.returncode == 0, made.stderr
    tree = checkout(tmp_path / "unshuffled")
    unshuffled = (
        "        return list(FULL_DECK)  # never shuffled\n        deck = list(FULL_DECK)\n"
    )
    edit(tree / "adapters" / "rng.py", "        deck = list(FULL_DECK)\n", unshuffled)
    refused = run_tree(tree, tmp_path, *SIMULATE)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    digest = str(identity(paigow, "--from", str(tree))["digest"])
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:  # authorised in process: a store with operator keys would refuse the simulation
        authorise(store, digest, "CHG-13", Actor("floor-ines", "floor"), datetime.now(UTC))
    finally:
        store.close()
    dealt = run_tree(tree, tmp_path, "simulate", "--db", DB, "--rounds", "3", "--players", "1")
    assert dealt.returncode == 0, dealt.stderr
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:
        starts = [e.payload for e in store.read_stream("system") if e.type == "service_started"]
    finally:
        store.close()
    unshuffled = hashlib.sha256((tree / "adapters" / "rng.py").read_bytes()).hexdigest()
    assert (starts[-1]["digest"], starts[-1]["rng"]["sha256"]) == (digest, unshuffled)
    assert starts[-1]["rng"]["class"] == "adapters.rng.SecureDeckAndDice"
    audited = paigow("audit", "verify", "--db", DB, "--format", "json")
    assert audited.returncode == 1, audited.stderr
    *findings, summary = (json.loads(line) for line in audited.stdout.splitlines())
    assert [(f["clause"], f["stream_id"], f["event_type"]) for f in findings] == [
        ("R-DEAL-4", "SIM-2", "stacks_dealt"),
        ("R-DEAL-4", "SIM-2", "stacks_dealt"),
    ]
    assert (
        "was dealt the same deck order as the electronic deal at position"
        in (findings[0]["message"])
    )
    assert summary["ok"] is False


#: A sitecustomize that loads ``adapters.rng`` from a file of its own before ``paigow`` runs.
INJECT_RNG = """
import importlib.util, pathlib, sys
path = pathlib.Path(__file__).with_name("rng.py")
spec = importlib.util.spec_from_file_location("adapters.rng", path)
module = importlib.util.module_from_spec(spec)
sys.modules["adapters.rng"] = module
spec.loader.exec_module(module)
"""


def test_a_package_shadowed_from_another_directory_refuses_the_start(
    paigow: Run, tmp_path: Path
) -> None:
    made = paigow(*SIMULATE, "--seed", "2")
    assert made.returncode == 0, made.stderr
    injected = tmp_path / "injected"
    shutil.copytree(
        ROOT / "table_core", injected / "table_core", ignore=shutil.ignore_patterns("__pycache__")
    )
    size = (tmp_path / "casino.db").stat().st_size
    refused = run_tree(injected, tmp_path, *SIMULATE, "--seed", "3")
    assert (refused.returncode, refused.stdout) == (2, "")
    (line,) = refused.stderr.splitlines()
    assert line.startswith("paigow: the packages come from different directories (adapters from ")
    assert f"table_core from {injected}" in line
    assert line.endswith("the code's digest covers one checkout; nothing was written (R5/R19)")
    assert (tmp_path / "casino.db").stat().st_size == size


def test_a_module_injected_from_another_file_refuses_the_start(paigow: Run, tmp_path: Path) -> None:
    made = paigow(*SIMULATE, "--seed", "2")
    assert made.returncode == 0, made.stderr
    hook = tmp_path / "hook"
    hook.mkdir()
    shutil.copy(ROOT / "adapters" / "rng.py", hook / "rng.py")
    (hook / "sitecustomize.py").write_text(INJECT_RNG)
    size = (tmp_path / "casino.db").stat().st_size
    refused = run_tree(hook, tmp_path, *SIMULATE, "--seed", "3")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.splitlines() == [
        f"paigow: module adapters.rng was loaded from {hook / 'rng.py'}, outside the checkout "
        f"{ROOT}: the code's digest would not describe what runs; nothing was written (R5/R19)"
    ]
    assert (tmp_path / "casino.db").stat().st_size == size
