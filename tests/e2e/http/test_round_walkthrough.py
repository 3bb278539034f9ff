"""docs/http.md, "A round, step by step", run as written: its key lines (``paigow keys create``
for each role, as the security key) in a shell, then every ``curl`` line of the section, in order,
against a live ``paigow serve`` on a new SQLite file. Each answer's status is the one the line's
``# → NNN`` comment says; the day's books have no variance and the audit of the whole log is OK,
every dealt round from a recorded deck (no "no custody record")."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adapters.settings import load_settings
from tests.e2e.conftest import PAIGOW, Run, operator_keys
from tests.e2e.serving import serving

DOC = Path(__file__).resolve().parents[3] / "docs" / "http.md"
SECTION = "## A round, step by step"
DB = "sqlite:///casino.db"
ROLES = ("FLOOR", "DEALER", "CAGE", "COUNT", "AUDITOR")


@dataclass
class Step:
    command: str  # one shell command, its continuation lines joined
    status: int  # the status its "# → NNN" comment expects


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"{DOC} has no {SECTION!r}"
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)


def complete(command: str) -> bool:
    """Whether the shell reads ``command`` whole (a quoted JSON body may span lines)."""
    try:
        shlex.split(command)
    except ValueError:  # no closing quotation
        return False
    return True


def steps(block: str) -> list[Step]:
    """The block's commands, each with the status of the ``# → NNN`` comment above it."""
    found: list[Step] = []
    status: int | None = None
    lines = iter(block.splitlines())
    for line in lines:
        said = re.match(r"#\s*→\s*(\d{3})\b", line.strip())
        if said:
            status = int(said.group(1))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        command = line
        while command.endswith("\\") or not complete(command):
            command += "\n" + next(lines)  # bash reads a backslash-newline as it is written
        assert command.startswith("curl "), f"not a curl line: {command!r}"
        assert status is not None, f"no '# → status' above {command!r}"
        found.append(Step(command, status))
        status = None
    return found


def test_the_docs_round_runs_as_written(tmp_path: Path, paigow: Run) -> None:
    setup, *requests = blocks(section())
    walk = [step for block in requests for step in steps(block)]
    assert len(walk) >= 25

    # The database and its first (security) key, as operations.md makes them; then the section's
    # own lines make the role keys with it and read them into shell variables.
    made = paigow("db", "upgrade", "--db", DB)
    assert made.returncode == 0, made.stderr
    operator_keys(DB, tmp_path, ("security",))
    shell_env = {**os.environ, "PATH": f"{PAIGOW.parent}{os.pathsep}{os.environ['PATH']}"}
    printed = subprocess.run(
        ["bash", "-euc", setup + "\n" + 'echo "' + " ".join(f"${r}" for r in ROLES) + '"'],
        cwd=tmp_path, env=shell_env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert printed.returncode == 0, printed.stderr
    *made_keys, last = printed.stdout.splitlines()  # each key's JSON line, then the tokens
    assert [json.loads(k)["role"] for k in made_keys] == [r.lower() for r in ROLES]
    tokens = dict(zip(ROLES, last.split(), strict=True))
    assert all(t.startswith("pgw_") for t in tokens.values())
    day = load_settings().gaming_day().today(datetime.now(UTC)).isoformat()  # the server's

    answers: list[tuple[Step, Any]] = []
    with serving(DB, tmp_path, {**os.environ, "PAIGOW_LOG_FORMAT": "json"}) as served:
        env = {**shell_env, **tokens, "PAIGOW": served.base, "DAY": day}
        for n, step in enumerate(walk, 1):
            body = tmp_path / f"answer-{n}.json"
            ran = subprocess.run(
                ["bash", "-euc", f"{step.command} -sS -o {body} -w '%{{http_code}}'"],
                cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            assert ran.returncode == 0, (step.command, ran.stderr)
            answer = json.loads(body.read_text())
            assert int(ran.stdout) == step.status, (step.command, ran.stdout, answer)
            answers.append((step, answer))

    def answer_to(path: str) -> Any:
        (found,) = [a for s, a in answers if re.search(rf'/{path}"\s*$', s.command)]
        return found

    refused = [a for s, a in answers if s.status == 403]
    assert [a["error"] for a in refused] == ["forbidden"]
    assert answer_to("tables/PG-1")["tray"] == 469_100  # as the section says the closer must be
    (books,) = answer_to(r"reports\?day=\$DAY&view=accounting")["accounting"]
    assert (books["table_id"], books["drop"], books["drop_counted"]) == ("PG-1", 30_000, 30_000)
    variances = ("opener_variance", "closer_variance", "drop_variance", "win_variance")
    assert {v: books[v] for v in variances} == dict.fromkeys(variances, 0), books
    assert (books["opener"], books["closer"], books["game_win"]) == (500_000, 469_100, -900)
    audit = answer_to("audit/verify")
    assert audit["ok"] is True and audit["findings"] == [], audit["summary"]
    assert audit["rounds"] == 1 and audit["signatures_checked"] is True
    assert audit["summary"].startswith("audit OK")
    assert "1 round(s) dealt from a recorded deck (R20)" in audit["summary"]
    assert "no custody record" not in audit["summary"]
