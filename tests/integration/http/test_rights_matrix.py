"""R19, separation of duties, proven on both ways in from the one matrix
(``service_layer/operators/rights.py``): every writing HTTP route and every writing CLI command,
called with a key of each role, is allowed where ``RIGHTS`` lists the role and refused (403; exit
status 2 and one line) where it does not. The CLI's writing commands are exactly ``CLI_COMMANDS``:
the parser's subcommands that take an operator's key."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from entrypoints.cli.main import build_parser, main
from service_layer.operators.rights import CLI_COMMANDS, READS, RIGHTS, ROLES, refusal
from tests.e2e.conftest import operator_keys
from tests.integration.http.conftest import TABLE, Api, open_table
from tests.integration.http.test_roles import BODIES, call, operations

#: The HTTP operations that write, each exercised with every role.
_CLI_ONLY = {
    "purge",
    "key_create",
    "key_revoke",
    "key_role",
    "signing_key_rotate",
    "adopt_untagged",
}
WRITES = sorted(op for op in RIGHTS if op not in READS and op not in _CLI_ONLY)


def test_the_matrix_has_a_row_for_every_endpoint_and_cli_command(api: Api) -> None:
    served = {operation for operation, _, _ in operations(api)} - {"health", "ready"}
    assert served <= set(RIGHTS)
    assert set(WRITES) <= served
    assert set(CLI_COMMANDS.values()) <= set(RIGHTS)
    assert set(ROLES) == {"dealer", "floor", "cage", "auditor", "count", "security"}


@pytest.mark.parametrize("role", ROLES)
def test_every_writing_route_admits_the_matrixs_roles_only(api: Api, role: str) -> None:
    open_table(api, (2, "ana", 100_000), (3, "bo", 50_000))
    api.ok("dealer", "/round/start")
    routes = {op: (method, path) for op, method, path in operations(api) if op in WRITES}
    assert sorted(routes) == WRITES
    for n, operation in enumerate(WRITES):
        method, path = routes[operation]
        response = call(api, operation, method, path, role, n)
        assert response.status_code < 500, (operation, response.text)
        if role in RIGHTS[operation]:
            assert response.status_code not in (401, 403), (operation, role, response.text)
        else:
            assert response.status_code == 403, (operation, role, response.text)
            assert response.json()["message"] == refusal(operation, role, f"call {operation}")
    assert BODIES  # the bodies of test_roles: one source of valid requests


# --- the command line --------------------------------------------------------------------------


def _key_commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> Iterator[str]:
    """The subcommands (their words) whose parser takes ``--key-file``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _key_commands(sub, (*words, name))
        elif "--key-file" in action.option_strings:
            yield " ".join(words)


def test_the_cli_commands_that_act_as_an_operator_are_the_matrixs() -> None:
    assert sorted(_key_commands(build_parser())) == sorted(CLI_COMMANDS)


@pytest.fixture(autouse=True)
def _logging_kept() -> Iterator[None]:
    """The commands run in process configure logging onto this test's captured stderr: the
    configuration is put back, so later tests do not write to a closed stream."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture(scope="module")
def keyed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with one key per role (``ROLE.key``), copied for each command."""
    from adapters.store import open_store

    folder = tmp_path_factory.mktemp("matrix")
    url = f"sqlite:///{folder / 'casino.db'}"
    open_store(url).close()  # a new file and its signing key
    operator_keys(url, folder)
    return folder


def _argv(command: str, folder: Path, url: str) -> list[str]:
    """Arguments that get ``paigow COMMAND`` past its parser to the operator's check."""
    table = ["--table", TABLE]
    rest: dict[str, list[str]] = {
        "table open-day": [*table, "--day", "2026-12-01", "--opener", "2500=2500"],
        "table close-day": [*table, "--closer", "2500=2500"],
        "table fill": [*table, "--slip", "F-1", "--chips", "2500=2500"],
        "table credit": [*table, "--slip", "C-1", "--chips", "2500=2500"],
        "table count": [*table, "--day", "2026-12-01", "--cash", "0"],
        "table correct-rating": [*table, "--player", "ana", "--reason", "x", "--minutes", "1"],
        "deck receive": [*table, "--deck", "D-1", "--seal", "S-1"],
        "deck inspect": [*table, "--deck", "D-1", "--count", "53", "--inspector", "i"],
        "deck load": [*table, "--deck", "D-1", "--shuffler", "SH-1"],
        "deck use": [*table, "--deck", "D-1"],
        "deck retire": [*table, "--deck", "D-1", "--reason", "worn"],
        "deck hold": [*table, "--deck", "D-1", "--reason", "look"],
        "deck release": [*table, "--deck", "D-1", "--reason", "done"],
        "dispute open": [*table, "--round", "1", "--reason", "x"],
        "dispute close": ["D-00000000", "--outcome", "x"],
        "service authorise-version": ["9" * 64, "--reason", "CHG-1"],
        "house-way install": ["no-such-way.toml", *table, "--reason", "x"],
        "purge": ["--through", "1", "--archive", str(folder / "a.jsonl"), "--reason", "x"],
        "keys create": ["--role", "dealer"],
        "db adopt": ["--through", "1", "--reason", "x"],
        "keys revoke": ["000000000000"],
        "keys role": ["000000000000", "--role", "cage", "--reason", "x"],
        "keys signing rotate": [
            "--key",
            str(folder / "casino.db.signing-key"),
            "--out",
            str(folder / "next.pem"),
        ],
    }
    return [*command.split(), *rest[command], "--db", url]


def _copy(template: Path, folder: Path) -> str:
    for each in template.iterdir():
        if each.is_file():
            shutil.copy2(each, folder / each.name)
    return f"sqlite:///{folder / 'casino.db'}"


@pytest.mark.parametrize("command", sorted(CLI_COMMANDS))
def test_every_writing_cli_command_admits_the_matrixs_roles_only(
    command: str, keyed_template: Path, tmp_path: Path, capsys: Any
) -> None:
    url = _copy(keyed_template, tmp_path)
    operation = CLI_COMMANDS[command]
    # The refused roles first: an allowed one may change the store (a rotated signing key).
    for role in sorted(ROLES, key=lambda r: r in RIGHTS[operation]):
        capsys.readouterr()
        status = main([*_argv(command, tmp_path, url), "--key-file", str(tmp_path / f"{role}.key")])
        err = capsys.readouterr().err
        why = refusal(operation, role, f"run paigow {command}")
        if why is None:
            assert "role may not" not in err, (command, role, err)
        else:
            assert (status, err.splitlines()[-1]) == (2, f"paigow: {why}"), (command, role)
