"""The progress bar: on standard error when it is a terminal (the rate, elapsed and remaining
time), never with ``--quiet``, and never on standard output, whose JSON stays as it is."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

from .conftest import PAIGOW


def _simulate_on_a_terminal(tmp_path: Path, *args: str) -> tuple[str, str]:
    """Standard error on a pseudo-terminal, standard output in a pipe, as a person piping the
    JSON to a file would run it."""
    command = [str(PAIGOW), "simulate", "--db", "sqlite:///sim.db", "--rounds", "30"]
    command += ["--seed", "1", "--commit-rounds", "5", "--format", "json", *args]
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
