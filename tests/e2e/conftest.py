from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

PAIGOW = Path(sys.executable).with_name("paigow")

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def paigow(tmp_path: Path) -> Run:
    """Run the installed ``paigow`` console script as a casino script would, in a scratch folder."""

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PAIGOW), *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
            check=False,
        )

    return run
