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
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from adapters.store.tags import Tagger
from eventlog.canonical import bundle_manifest_message, checkpoint_message
from eventlog.keys import key_id, key_paths, read_private_key_file


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
    """A fresh key for a new embedded database; the private file is readable by its owner only."""
    private_path, public_path = key_paths(db_path)
    signer = Signer.generate()
    _write_new_pair(private_path, signer.private_pem(), public_path, signer.public_pem())
    return signer


def _write_new_pair(private: Path, private_pem: bytes, public: Path, public_pem: bytes) -> None:
    """Both key files, each NEW (``O_EXCL``: never over a key that signed, nor over the public
    key a verifier was given); when either exists, ``FileExistsError`` names it and neither is
    left written."""
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
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def configured_signer(signing_key: Signer | str | Path | None) -> Signer | None:
    """The key the caller gave (a signer or a key file; the settings' ``signing_key`` is the
    caller's default), else none."""
    if isinstance(signing_key, Signer):
        return signing_key
    return Signer.from_file(signing_key) if signing_key is not None else None


def sealer_for(database: str | None, signing_key: str | Path | None) -> Signer | None:
    """The key that seals an audit bundle exported from a database: the configured one, else the
    one beside a SQLite file when this user may read it; ``None``: the bundle goes unsealed (the
    audit's report says what that leaves uncovered)."""
    if signing_key:
        return Signer.from_file(signing_key)
    if database:
        private = key_paths(database)[0]
        try:
            return Signer.from_file(private) if private.exists() else None
        except (OSError, ValueError):
            return None
    return None
