"""The code's identity (R5/R19): one SHA-256 over the files of a release, by a recipe anyone can
run without this code.

What is covered: every regular file under ``adapters/``, ``audit/``, ``entrypoints/``,
``eventlog/``, ``migrations/``, ``service_layer/`` and ``table_core/`` of a checkout (the Python
modules, whether a process imports them or not, and the package data that changes behaviour: the
floor's templates and static files, Alembic's script template), except bytecode caches
(``__pycache__`` directories, ``*.pyc``, ``*.pyo``); and the lock file
``requirements/runtime.lock``, which pins every library the service runs by its hash. The rules,
House Ways and pay tables are Python modules of ``table_core``.

The recipe is ``sha256sum``'s: each covered file's SHA-256 and its path relative to the
checkout, ``"<hex>  <path>\\n"``, the lines in the byte order of the paths; the digest is the
SHA-256 of those lines. A regulator computes it from a clean checkout with coreutils alone
(docs/audit.md "Software change control")::

    { find adapters audit entrypoints eventlog migrations service_layer table_core \\
        -type f ! -name '*.pyc' ! -name '*.pyo' ! -path '*/__pycache__/*' -print0
      printf 'requirements/runtime.lock\\0'; } | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum

It depends on the files' bytes and relative paths only: not on the install path, file times,
bytecode caches or what a process imported. A symbolic link, or a name ``sha256sum`` would escape
(a backslash or a line break), is refused rather than given a meaning of its own.

The parts (:attr:`CodeDigest.parts`) say where two digests differ: each package's own listing's
SHA-256, and the lock file's SHA-256.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

#: The recipe's name, recorded beside each digest: a different recipe is a new name.
RECIPE = "sha256sum-v1"
#: The directories of a checkout whose files are the code.
PACKAGES = (
    "adapters",
    "audit",
    "entrypoints",
    "eventlog",
    "migrations",
    "service_layer",
    "table_core",
)
#: The lock file that pins the libraries (their versions and hashes).
LOCK_FILE = "requirements/runtime.lock"
_BYTECODE = (".pyc", ".pyo")


class CodeIdentityError(ValueError):
    """The tree cannot be identified: a package or the lock file missing, a symbolic link, an
    unreadable file, or a name the recipe cannot list."""


@dataclass(frozen=True)
class CodeDigest:
    """A tree's identity: ``digest`` (64 hex digits), its ``parts`` and each covered file's
    SHA-256 (``files``: relative path -> hex)."""

    digest: str
    parts: dict[str, str]
    files: dict[str, str] = field(repr=False)
    recipe: str = RECIPE

    def summary(self) -> dict[str, object]:
        """The identity as ``service identity`` prints it and ``service_started`` records it."""
        return {
            "digest": self.digest,
            "recipe": self.recipe,
            "parts": dict(self.parts),
            "files": len(self.files),
        }


def covered_files(root: Path) -> list[str]:
    """The covered files of the checkout at ``root``: relative POSIX paths, in byte order."""
    found = [LOCK_FILE]
    for package in PACKAGES:
        top = root / package
        if not top.is_dir() or top.is_symlink():
            raise CodeIdentityError(f"{top} is not a directory: not a checkout of the code")
        for directory, subdirs, names in os.walk(top):
            here = Path(directory)
            for name in subdirs:
                if (here / name).is_symlink():
                    raise CodeIdentityError(f"{here / name} is a symbolic link")
            subdirs[:] = [d for d in subdirs if d != "__pycache__"]
            for name in names:
                if name.endswith(_BYTECODE):
                    continue
                path = here / name
                mode = path.lstat().st_mode
                if not stat.S_ISREG(mode):
                    raise CodeIdentityError(f"{path} is not a regular file")
                found.append(path.relative_to(root).as_posix())
    for relative in found:
        if "\\" in relative or "\n" in relative or "\r" in relative:
            raise CodeIdentityError(f"{relative!r}: a name the recipe cannot list")
    return sorted(found, key=lambda p: p.encode())


def compute(root: Path) -> CodeDigest:
    """The identity of the checkout at ``root``, read from its files (nothing is imported)."""
    root = Path(root)
    lock = root / LOCK_FILE
    if not lock.is_file() or lock.is_symlink():
        raise CodeIdentityError(f"{lock} is missing: the code's identity covers the lock file")
    files: dict[str, str] = {}
    for relative in covered_files(root):
        try:
            files[relative] = hashlib.sha256((root / relative).read_bytes()).hexdigest()
        except OSError as error:
            raise CodeIdentityError(f"cannot read {root / relative}: {error.strerror}") from None
    return CodeDigest(listing_digest(files), _parts(files), files)


def listing_digest(files: dict[str, str]) -> str:
    """The SHA-256 of ``sha256sum``'s listing of ``files`` (relative path -> hex)."""
    lines = "".join(f"{files[p]}  {p}\n" for p in sorted(files, key=lambda p: p.encode()))
    return hashlib.sha256(lines.encode()).hexdigest()


def _parts(files: dict[str, str]) -> dict[str, str]:
    parts = {
        package: listing_digest({p: h for p, h in files.items() if p.startswith(package + "/")})
        for package in PACKAGES
    }
    parts[LOCK_FILE] = files[LOCK_FILE]
    return parts


def is_digest(text: str) -> bool:
    """Whether ``text`` is a SHA-256 as the recipe writes it: 64 lower-case hex digits."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)
