"""The ``paigow`` console script's first module: bytecode cached before anything else is imported.

Every ``paigow`` process imports a few hundred modules (pydantic, SQLAlchemy, cryptography, the
project's own). Where the environment forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``, set
on some build machines and in some images), each process would compile all of them again: about
3 s before a command does anything. So the console script starts here, with nothing imported but
``os``, ``sys`` and ``time``, and:

- keeps bytecode in a per-user cache outside the checkout: ``$PYTHONPYCACHEPREFIX`` when set,
  else ``$XDG_CACHE_HOME/paigow/pycache`` (``~/.cache/paigow/pycache``). Nothing is written in
  the tree (the code identity, ``eventlog/code_identity.py``, never reads bytecode anyway); a
  folder that cannot be written (a read-only home under systemd) leaves Python's defaults as they
  are;
- writes bytecode there even under ``PYTHONDONTWRITEBYTECODE``;
- passes both on to the processes a command starts, through the environment.

Then it imports the command line (``entrypoints.cli.main``) and runs it, telling it when the
process began (``audit verify`` prints the command's wall time).
"""

from __future__ import annotations

import os
import sys
import time

#: When this process began running the project's code.
STARTED = time.perf_counter()


def cache_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """Where bytecode is kept: ``$PYTHONPYCACHEPREFIX``, else the user's cache folder."""
    given = environ.get("PYTHONPYCACHEPREFIX")
    if given:
        return given
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "paigow", "pycache")


def cache_bytecode() -> None:
    """Read and write bytecode in :func:`cache_dir`, whatever ``PYTHONDONTWRITEBYTECODE`` says;
    where that folder cannot be written (a read-only home under systemd's ``ProtectHome``),
    Python's own defaults stay, and with them any bytecode compiled beside the sources at install
    time."""
    folder = cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return
    if not os.access(folder, os.W_OK):
        return
    sys.pycache_prefix = folder
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    os.environ["PYTHONDONTWRITEBYTECODE"] = ""  # empty: unset for the processes started here


def main() -> int:
    cache_bytecode()
    from entrypoints.cli.main import main as run

    return run(started=STARTED)


if __name__ == "__main__":
    sys.exit(main())
