"""One-line errors, never a surprise database (issue 19): every command, given a database it cannot
reach or one that does not exist, prints ONE line on standard error naming the URL (the password
masked) and what to do, exits 2, prints no traceback and creates no file; a bad option is one line
too. Only ``simulate``, ``serve`` and ``db upgrade`` create a database."""

from __future__ import annotations

import os
import shlex
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest

from adapters.store.migrate import head_revision
from tests.e2e.conftest import Run

#: Every command that opens a database, with what else it needs to get that far.
COMMANDS = {
    "simulate": ["simulate", "--rounds", "1", "--quiet"],
    "serve": ["serve", "--port", "0"],
    "serve --workers": ["serve", "--port", "0", "--workers", "2"],
    "report": ["report"],
    "recall": ["recall", "--table", "PG-1"],
    "db upgrade": ["db", "upgrade"],
    "db verify": ["db", "verify"],
    "keys create": ["keys", "create", "--role", "dealer"],
    "keys list": ["keys", "list"],
    "keys revoke": ["keys", "revoke", "abc"],
    "audit verify": ["audit", "verify"],
    "audit export": ["audit", "export", "--out", "bundle.json"],
    "audit recall": ["audit", "recall", "--table", "PG-1", "--round", "1"],
}
#: The commands that only read (or add to an existing database): none may create one.
READERS = [name for name in COMMANDS if name not in ("simulate", "serve", "serve --workers")]
READERS.remove("db upgrade")


@pytest.fixture(scope="module")
def closed_port() -> int:
    """A local port nothing listens on: a PostgreSQL server that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _one_line(done: object) -> str:
    stderr: str = done.stderr  # type: ignore[attr-defined]
    assert done.returncode == 2, stderr  # type: ignore[attr-defined]
    assert stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr
    return stderr


@pytest.mark.parametrize("name", COMMANDS)
def test_an_unreachable_postgresql_is_one_line_naming_it(
    paigow: Run, tmp_path: Path, closed_port: int, name: str
) -> None:
    url = f"postgresql+psycopg://casino:s3cret@127.0.0.1:{closed_port}/paigow"
    done = paigow(*COMMANDS[name], "--db", url)
    line = _one_line(done)
    masked = f"postgresql+psycopg://casino:***@127.0.0.1:{closed_port}/paigow"
    assert line.startswith("paigow: cannot re") and masked in line, line
    assert "s3cret" not in line and "s3cret" not in done.stdout
    assert "check that the server runs there" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", READERS)
def test_a_missing_sqlite_file_is_an_error_not_a_new_database(
    paigow: Run, tmp_path: Path, name: str
) -> None:
    done = paigow(*COMMANDS[name], "--db", "sqlite:///casino.db")  # a typo of the real name
    line = _one_line(done)
    assert line == (
        "paigow: no database at casino.db; "
        "`paigow db upgrade --db sqlite:///casino.db` creates one\n"
    )
    assert list(tmp_path.iterdir()) == []  # no database, no key pair


@pytest.mark.parametrize("name", COMMANDS)
def test_a_file_path_for_a_url_is_one_line_naming_the_files_url(
    paigow: Run, tmp_path: Path, name: str
) -> None:
    line = _one_line(paigow(*COMMANDS[name], "--db", "casino.db"))
    assert line == (
        "paigow: --db and PAIGOW_DB take a database URL, not a file's path: "
        "sqlite:///casino.db names that file\n"
    )
    assert list(tmp_path.iterdir()) == []  # nothing made, not even by the writers


def test_the_url_a_file_path_is_answered_with_runs_as_printed(paigow: Run, tmp_path: Path) -> None:
    line = _one_line(paigow("db", "upgrade", "--db", str(tmp_path / "casino.db")))
    url = line.split(": ")[-1].removesuffix(" names that file\n")
    assert url == f"sqlite:///{tmp_path}/casino.db"
    made = paigow("db", "upgrade", "--db", url)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "casino.db").is_file()


def test_text_that_is_no_url_is_one_line_that_never_echoes_it(paigow: Run, tmp_path: Path) -> None:
    line = _one_line(paigow("report", "--db", "postgresql//casino:s3cret@db-1/paigow"))
    assert line == (
        "paigow: not a database URL (--db or PAIGOW_DB): use sqlite:///FILE, "
        "postgresql+psycopg://USER@HOST:PORT/DB or memory://\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_default_database_is_not_created_by_a_reader(
    paigow: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PAIGOW_DB", raising=False)
    line = _one_line(paigow("keys", "list"))
    assert line.startswith("paigow: no database at paigow.db; ")
    assert list(tmp_path.iterdir()) == []


def test_db_upgrade_creates_the_database_and_its_key_readers_then_open(
    paigow: Run, tmp_path: Path
) -> None:
    made = paigow("db", "upgrade", "--db", "sqlite:///casino.db")
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("sqlite:///casino.db: schema at ")
    keys = ["casino.db.signing-key", "casino.db.signing-key.pub"]
    assert sorted(p.name for p in tmp_path.iterdir() if "signing" in p.name) == keys
    private = (tmp_path / keys[0]).read_bytes()
    again = paigow("db", "upgrade", "--db", "sqlite:///casino.db")  # at head: nothing new
    assert again.returncode == 0, again.stderr
    listed = paigow("keys", "list", "--db", "sqlite:///casino.db")
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, "", "")
    assert (tmp_path / keys[0]).read_bytes() == private


@pytest.mark.parametrize("name", ["report", "db upgrade", "serve", "keys list"])
def test_a_database_a_newer_release_upgraded_is_one_line_saying_so(
    paigow: Run, tmp_path: Path, name: str
) -> None:
    """A release rolled back after its upgrade: `db upgrade` cannot help, and says so."""
    made = paigow("db", "upgrade", "--db", "sqlite:///casino.db")
    assert made.returncode == 0, made.stderr
    with sqlite3.connect(tmp_path / "casino.db") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099_newer_release'")
    before = _rows(tmp_path / "casino.db")
    line = _one_line(paigow(*COMMANDS[name], "--db", "sqlite:///casino.db"))
    assert line == (
        "paigow: sqlite:///casino.db: the database schema is at 0099_newer_release, which this "
        f"code does not know (its newest is {head_revision()}): a newer release upgraded it; "
        "run that release, as schemas are never taken back down\n"
    )
    assert _rows(tmp_path / "casino.db") == before  # nothing written


def test_db_upgrade_does_not_move_into_another_applications_database(
    paigow: Run, tmp_path: Path
) -> None:
    with sqlite3.connect(tmp_path / "loyalty.db") as connection:
        connection.execute("CREATE TABLE members (card TEXT, points INTEGER)")
        connection.execute("INSERT INTO members VALUES ('CARD-1', 1200)")
    before = _rows(tmp_path / "loyalty.db")
    line = _one_line(paigow("db", "upgrade", "--db", "sqlite:///loyalty.db"))
    assert line == (
        "paigow: sqlite:///loyalty.db holds tables of another application (members) and no "
        "paigow schema: the event store keeps a database of its own; name a new one (nothing "
        "was written)\n"
    )
    assert _rows(tmp_path / "loyalty.db") == before


def _rows(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return list(connection.iterdump())


def test_a_missing_postgresql_database_says_how_to_make_one(paigow: Run) -> None:
    pytest.importorskip("psycopg")
    from sqlalchemy.engine import make_url

    from tests.integration.conftest import ADMIN_URL, _admin_connection

    try:
        _admin_connection().close()
    except Exception as error:
        pytest.skip(f"PostgreSQL is not reachable: {error}")
    name = f"paigow_no_such_db_{os.getpid()}"
    url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    line = _one_line(paigow("keys", "list", "--db", url))
    assert line.startswith(f"paigow: no database at {url}: ")
    server = make_url(ADMIN_URL)
    where = ["-h", str(server.host), "-p", str(server.port or 5432), "-U", str(server.username)]
    assert line.endswith(
        f"create it (`{shlex.join(['createdb', *where, name])}`), then "
        f"`paigow db upgrade --db {url}`\n"
    )
    # Both commands it names, run as printed: the database is made and at the schema's head.
    createdb, upgrade = line.split("`")[1::2]
    try:
        subprocess.run(shlex.split(createdb), check=True, capture_output=True)
        done = paigow(*shlex.split(upgrade)[1:])
        assert done.returncode == 0, done.stderr
        listed = paigow("keys", "list", "--db", url)
        assert (listed.returncode, listed.stderr) == (0, "")
    finally:
        subprocess.run(
            ["dropdb", *where, "--if-exists", "--force", name],
            capture_output=True, check=False,
        )  # fmt: skip


def test_a_folder_that_does_not_exist_is_one_line(paigow: Run, tmp_path: Path) -> None:
    line = _one_line(paigow("simulate", "--rounds", "1", "--db", "sqlite:///no/such/dir/x.db"))
    assert line.startswith("paigow: cannot open the database at sqlite:///no/such/dir/x.db: ")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_a_database_is_one_line(paigow: Run, tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not a database\n")
    line = _one_line(paigow("report", "--db", "sqlite:///notes.db"))
    assert line.startswith("paigow: cannot open the database at sqlite:///notes.db: ")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["settle", "--commission", "bogus"],
            "paigow settle: --commission: invalid choice 'bogus' "
            "(choose from percent, flat, flat_always); see --help\n",
        ),
        (
            ["keys", "create"],
            "paigow keys create: the following arguments are required: --role; see --help\n",
        ),
        (
            ["recall", "--table", "PG-1", "--seat", "9"],
            "paigow recall: --seat: invalid choice 9 (choose from 1, 2, 3, 4, 5, 6); see --help\n",
        ),
        (["report", "--bogus"], "paigow: unrecognized arguments: --bogus; see --help\n"),
        (  # not a port: the server would wrap it round and listen on another
            ["serve", "--port", "99999"],
            "paigow serve: --port: must be a port from 0 to 65535, not '99999'; see --help\n",
        ),
    ],
)
def test_a_bad_option_is_one_line(paigow: Run, argv: list[str], expected: str) -> None:
    done = paigow(*argv)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", expected)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_in_use_is_one_line_before_the_store_opens(
    paigow: Run, tmp_path: Path, workers: str
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _one_line(paigow("serve", "--port", str(port), "--workers", workers))
    assert line == (
        f"paigow: cannot listen on 127.0.0.1:{port}: address already in use (--host, --port)\n"
    )
    assert list(tmp_path.iterdir()) == []  # no database made for a server that cannot serve


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read the signing key {key}: No such file or directory"),
        (
            "not a key\n",
            "the signing key {key} holds no Ed25519 private key in PEM form "
            "(`paigow keys signing create` writes one)",
        ),
    ],
)
def test_a_signing_key_setting_that_cannot_be_read_is_one_line(
    paigow: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, expected: str
) -> None:
    key = tmp_path / "signing.pem"
    if content is not None:
        key.write_text(content)
        key.chmod(0o600)
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(key))
    line = _one_line(paigow("serve", "--port", "0", "--db", "sqlite:///casino.db"))
    assert line == f"paigow: {expected.format(key=key)}\n"
    assert not (tmp_path / "casino.db").exists()  # no database made with no key to sign it


def test_verbose_adds_the_traceback(paigow: Run, tmp_path: Path) -> None:
    done = paigow("--verbose", "keys", "list", "--db", "sqlite:///casino.db")
    assert done.returncode == 2
    assert "Traceback" in done.stderr
    assert done.stderr.endswith(
        "paigow: no database at casino.db; `paigow db upgrade --db sqlite:///casino.db` "
        "creates one\n"
    )
    assert list(tmp_path.iterdir()) == []
