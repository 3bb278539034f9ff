"""The progress bar: on standard error when it is a terminal (the rate, elapsed and remaining
time), never with ``--quiet``, and never on standard output, whose JSON stays as it is."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import time
from pathlib import Path

from .conftest import PAIGOW


def _simulate_on_a_terminal(tmp_path: Path, *args: str) -> tuple[str, str]:
    """Standard error on a pseudo-terminal, standard output in a pipe, as a person piping the
    JSON to a file would run it."""
    command = ["simulate", "--db", "sqlite:///sim.db", "--rounds", "30"]
    return _on_a_terminal(
        tmp_path, *command, "--seed", "1", "--commit-rounds", "5", "--format", "json", *args
    )


def _on_a_terminal(tmp_path: Path, *args: str) -> tuple[str, str]:
    command = [str(PAIGOW), *args]
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            command,
            stdout=subprocess.PIPE,
            stderr=follower,
            cwd=tmp_path,
            timeout=300,
            check=False,
            env=os.environ | {"COLUMNS": "120", "TERM": "xterm"},
        )
        os.close(follower)
        follower = -1
        written = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            written += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0, written
    return done.stdout.decode(), written.decode(errors="replace")


def test_a_terminal_sees_the_rate_elapsed_and_remaining_time(tmp_path: Path) -> None:
    stdout, stderr = _simulate_on_a_terminal(tmp_path)
    assert json.loads(stdout)["rounds"] == 30  # stdout holds the JSON alone
    assert "simulate" in stderr and "30/30" in stderr
    assert "elapsed" in stderr and "left" in stderr and "/s" in stderr


def test_quiet_shows_no_bar_even_on_a_terminal(tmp_path: Path) -> None:
    stdout, stderr = _simulate_on_a_terminal(tmp_path, "--quiet")
    assert json.loads(stdout)["rounds"] == 30
    assert stderr == ""


def test_audit_verify_shows_its_closing_stages_and_prints_its_wall_time(tmp_path: Path) -> None:
    """After the log's rows: the rounds the workers still re-derive, then the projections rebuilt
    and compared, each a line of its own (no silent stretch at 100 %); the summary's time is the
    command's wall time, and the key's provenance is said once."""
    _simulate_on_a_terminal(tmp_path)
    reported = subprocess.run(
        [str(PAIGOW), "report", "--db", "sqlite:///sim.db", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert reported.returncode == 0, reported.stderr  # the projections stored: checked next
    started = time.perf_counter()
    stdout, stderr = _on_a_terminal(
        tmp_path, "audit", "verify", "--db", "sqlite:///sim.db", "--jobs", "2", "--range-rows", "50"
    )
    wall = time.perf_counter() - started
    assert "audit verify" in stderr and "re-deriving ranges" in stderr
    assert "checking projections" in stderr
    summary = stdout.splitlines()[-1]
    assert summary.startswith("audit OK: ")
    printed = float(summary.rsplit(", ", 1)[-1].removesuffix(" s"))
    assert 0.5 * wall <= printed <= wall + 0.1
    assert stdout.count("not an independent check") == 1
