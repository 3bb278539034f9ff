"""docs/architecture.md's counts of one bet are what ``scripts/bet_path.py`` measures: the files
that run during it and the files that make its shapes (the script traces a real bet over SQLite)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_architecture_page_counts_the_bets_files_as_the_script_traces_them() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/bet_path.py", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    traced = json.loads(done.stdout.strip().splitlines()[-1])
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert re.findall(r"It counts \*\*(\d+) files\*\*", page) == [str(traced["files"])]
    assert re.findall(r"\*\*(\d+) files make\s+the bet's shapes\*\*", page) == [
        str(traced["makers"])
    ]
    named = set(re.findall(r"`((?:entrypoints|service_layer|table_core|eventlog|adapters)/[^`]+)`",
                           page.split("**To follow it")[1].split("\n\n")[0]))  # fmt: skip
    assert named == set(traced["maker_paths"])
    assert set(traced["maker_paths"]) <= set(traced["paths"])
