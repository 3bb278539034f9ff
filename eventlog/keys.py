"""Public keys of the log: loading one, naming it, and checking a checkpoint's signature with it.

The private key that signs lives with the store (``adapters.store.signing.Signer``); a verifier
needs only what is here. ``cryptography`` is imported when a key or signature is first used.
"""

from __future__ import annotations

from functools import lru_cache
from hashlib import sha256
from pathlib import Path
from typing import Any

from eventlog.canonical import bundle_manifest_message, checkpoint_message, key_rotation_message
from table_core.ports import StoreError


def key_id(public_key_raw: bytes) -> str:
    """A short name for a public key: the first 16 hex digits of its SHA-256."""
    return sha256(public_key_raw).hexdigest()[:16]


def key_paths(db_path: str | Path) -> tuple[Path, Path]:
    """Where an embedded database's key files sit: ``<db>.signing-key`` (the private key, PKCS#8
    PEM) and ``<db>.signing-key.pub`` (its public half, SubjectPublicKeyInfo PEM)."""
    base = str(db_path)
    return Path(base + ".signing-key"), Path(base + ".signing-key.pub")


class KeyFileExposed(StoreError, ValueError):
    """A private key file that its group or others can read: refused on load (one line)."""


def read_private_key_file(path: str | Path) -> bytes:
    """A private key file's bytes, refused when its group or others may read it (mode 0600 or
    stricter is what ``paigow keys signing create`` writes)."""
    import os
    import stat

    path = Path(path)
    with path.open("rb") as handle:
        mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
        if mode & 0o077:
            raise KeyFileExposed(
                f"the private key {path} is readable by its group or others (mode {mode:04o}): "
                f"run `chmod 600 {path}`"
            )
        return handle.read()


def public_half(private_pem: bytes) -> bytes:
    """The raw public key of an unencrypted Ed25519 private key PEM (a signing key file)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = serialization.load_pem_private_key(private_pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the signing key must be an Ed25519 private key")
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def load_public_key(data: bytes | str) -> bytes:
    """Raw 32-byte Ed25519 public key from PEM text, 64 hex digits, or raw bytes."""
    if isinstance(data, str):
        data = data.encode()
    text = data.strip()
    if text.startswith(b"-----BEGIN"):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        key = serialization.load_pem_public_key(text)
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("not an Ed25519 public key")
        return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    if len(text) == 64:
        return bytes.fromhex(text.decode())
    if len(data) == 32:
        return data
    raise ValueError("an Ed25519 public key is PEM, 64 hex digits or 32 raw bytes")


@lru_cache(maxsize=16)
def _public(public_key: bytes) -> Any:
    """The key object, made once (an audit checks one signature a round with the same key)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(public_key)


def signature_holds(public_key: bytes, signature_hex: str, message: bytes) -> bool:
    """Whether ``signature_hex`` is ``public_key``'s Ed25519 signature of ``message``."""
    from cryptography.exceptions import InvalidSignature

    try:
        _public(public_key).verify(bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def checkpoint_signature_holds(
    public_key: bytes, signature_hex: str, position: int, chain_hash: str, signed_at: str
) -> bool:
    """Whether a checkpoint row's signature holds over its message (``canonical``'s recipe)."""
    return signature_holds(
        public_key, signature_hex, checkpoint_message(position, chain_hash, signed_at)
    )


def rotation_signature_holds(
    public_key: bytes, signature_hex: str, old_key_id: str, new_public_key: str, at: str
) -> bool:
    """Whether a key rotation's signature by the old key holds (``canonical``'s recipe)."""
    return signature_holds(
        public_key, signature_hex, key_rotation_message(old_key_id, new_public_key, at)
    )


def bundle_seal_holds(public_key: bytes, signature_hex: str, digest: str) -> bool:
    """Whether an audit bundle's seal holds over its manifest's digest (``canonical``'s recipe)."""
    return signature_holds(public_key, signature_hex, bundle_manifest_message(digest))
