"""The Ed25519 key that signs checkpoints: from configuration, or made for a new embedded database.

Key files sit beside the database: ``<db>.signing-key`` (PKCS#8 PEM, mode 0600) and
``<db>.signing-key.pub`` (SubjectPublicKeyInfo PEM), both kept out of git by ``.gitignore``. A
production PostgreSQL store takes its key from configuration (``PAIGOW_SIGNING_KEY`` names a PEM
file, or the caller passes one); the public half is what a regulator is given.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from adapters.store.tags import Tagger
from eventlog.canonical import bundle_manifest_message, checkpoint_message
from eventlog.keys import KeyFileExposed, key_id, key_paths, read_private_key_file
from table_core.ports import StoreError


@dataclass(frozen=True)
class Signer:
    private_key: Ed25519PrivateKey

    @property
    def public_raw(self) -> bytes:
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @property
    def key_id(self) -> str:
        return key_id(self.public_raw)

    def private_pem(self) -> bytes:
        """The private key as an unencrypted PKCS#8 PEM file holds it (``from_pem`` reads it)."""
        return self.private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def public_pem(self) -> bytes:
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    def tagger(self) -> Tagger:
        """The append tags' key, derived from this key (adapters/store/tags.py): a new object
        each call, so each store keeps its own cache of trusted checkpoints."""
        raw = self.private_key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return Tagger(raw, self.public_raw)

    def sign(self, position: int, chain_hash: str, at: str) -> str:
        return self.private_key.sign(checkpoint_message(position, chain_hash, at)).hex()

    def secret_for(self, purpose: str) -> bytes:
        """A secret derived from this key for ``purpose`` (HMAC-SHA256 keyed by the private key):
        the same in every process that holds the key, and no help in finding it."""
        raw = self.private_key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return hmac.new(raw, purpose.encode("utf-8"), hashlib.sha256).digest()

    def seal_bundle(self, digest: str) -> tuple[str, str]:
        """An audit bundle's seal over its manifest's digest: (key id, signature)."""
        return self.key_id, self.private_key.sign(bundle_manifest_message(digest)).hex()

    @classmethod
    def generate(cls) -> Signer:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, data: bytes) -> Signer:
        key = serialization.load_pem_private_key(data, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("the signing key must be an Ed25519 private key")
        return cls(key)

    @classmethod
    def from_file(cls, path: str | Path) -> Signer:
        """The key in a PEM file, refused when its group or others can read it."""
        return cls.from_pem(read_private_key_file(path))

    def write(self, path: str | Path) -> Path:
        """The private key to a NEW file (mode 0600) and its public half beside it as a NEW
        ``<path>.pub``; returns the public file's path. Neither file is ever written over: when
        either exists, ``FileExistsError`` names it and nothing is written."""
        path = Path(path)
        public = Path(str(path) + ".pub")
        _write_new_pair(path, self.private_pem(), public, self.public_pem())
        return public


def create_key_files(db_path: str | Path) -> Signer:
    """The key of a new embedded database, its private file readable by its owner only: a fresh
    one, or the one another process created at the same moment (two commands opening the same new
    file both see it keyless; the first to link its key wins, the other reads that key, whole,
    and both sign as one). A public half beside the database without its private key: one
    ``StoreError`` line, nothing written."""
    private_path, public_path = key_paths(db_path)
    signer = Signer.generate()
    try:
        _write_new_pair(private_path, signer.private_pem(), public_path, signer.public_pem())
    except FileExistsError:
        theirs = key_beside(private_path)
        if theirs is None:
            raise StoreError(
                f"{public_path} exists without its private key {private_path}: set "
                "PAIGOW_SIGNING_KEY to that private key's file, or move the public key away "
                "(nothing was written)"
            ) from None
        return theirs
    return signer


#: How long a process that lost the race waits for a key file written by older code (which
#: wrote in place) to be whole; a key linked into place is whole at once.
KEY_WAIT_S = 5.0


def key_beside(private_path: Path) -> Signer | None:
    """The private key at ``private_path``, whole (``None``: there is none)."""
    deadline = time.monotonic() + KEY_WAIT_S
    while True:
        try:
            return Signer.from_file(private_path)
        except FileNotFoundError:
            return None
        except KeyFileExposed:
            raise
        except ValueError:  # not whole yet (in place, by older code): wait a little
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _write_new_pair(private: Path, private_pem: bytes, public: Path, public_pem: bytes) -> None:
    """Both key files, each NEW and whole (written under a temporary name, then linked: never
    over a key that signed, nor over the public key a verifier was given, and a reader never
    sees half a key); when either exists, ``FileExistsError`` names it and neither is left
    written. The private key is linked first: whoever sees the public half finds its key."""
    for path in (private, public):
        if path.exists() or path.is_symlink():
            raise FileExistsError(errno.EEXIST, "exists", str(path))
    _write_new(private, private_pem, 0o600)
    try:
        _write_new(public, public_pem, 0o644)
    except BaseException:
        private.unlink(missing_ok=True)  # ours, written a moment ago: nothing half-made is left
        raise


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """``data`` at the new name ``path`` (``FileExistsError`` when it exists), whole or not at
    all: written and flushed under a temporary name in the same folder, then linked."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(descriptor, mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temporary, path)  # atomic, and never over an existing file
    finally:
        os.unlink(temporary)


def write_public_key(path: str | Path, pem: bytes) -> None:
    """The public key ``pem`` to a NEW file (mode 0644, whole or not at all); a file already
    holding exactly it is left as it is. Anything else there, a private key above all, is never
    written over: one ``StoreError`` line."""
    path = Path(path)
    try:
        if path.read_bytes() == pem:
            return
    except FileNotFoundError:
        pass
    except OSError as error:
        raise StoreError(f"cannot write {path}: {error.strerror}") from None
    else:
        raise StoreError(f"{path} exists and holds something else: a key file is never overwritten")
    try:
        _write_new(path, pem, 0o644)
    except FileExistsError:
        raise StoreError(f"{path} exists: a key file is never overwritten") from None
    except OSError as error:
        raise StoreError(f"cannot write {path}: {error.strerror}") from None


def read_signer(path: str | Path) -> Signer:
    """The signing key in a file someone named (``PAIGOW_SIGNING_KEY``, ``--key-file``): a file
    that cannot be read or holds no Ed25519 private key is one ``StoreError`` line naming it."""
    try:
        return Signer.from_file(path)
    except StoreError:
        raise
    except OSError as error:
        reason = error.strerror or str(error)
        raise StoreError(f"cannot read the signing key {path}: {reason}") from None
    except (ValueError, TypeError):
        raise StoreError(
            f"the signing key {path} holds no Ed25519 private key in PEM form "
            "(`paigow keys signing create` writes one)"
        ) from None


def configured_signer(signing_key: Signer | str | Path | None) -> Signer | None:
    """The key the caller gave (a signer or a key file; the settings' ``signing_key`` is the
    caller's default), else none."""
    if isinstance(signing_key, Signer):
        return signing_key
    return read_signer(signing_key) if signing_key is not None else None


def sealer_for(database: str | None, signing_key: str | Path | None) -> Signer | None:
    """The key that seals an audit bundle exported from a database: the configured one, else the
    one beside a SQLite file when this user may read it; ``None``: the bundle goes unsealed (the
    audit's report says what that leaves uncovered)."""
    if signing_key:
        return read_signer(signing_key)
    if database:
        private = key_paths(database)[0]
        try:
            return Signer.from_file(private) if private.exists() else None
        except (OSError, ValueError):
            return None
    return None
