"""Canonical bytes and hashes of the event log. Standard library only: the verifier shares it.

Every hashed text is plain ASCII JSON with sorted keys, no spaces and no floats, so an auditor can
recompute it in any language:

- payload: ``json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)``;
  these exact bytes are stored and hashed.
- event hash: SHA-256 of ``["paigow-event-v1",prev,stream,version,type,schema,at,actor_id,
  actor_role,command_id]`` + ``"\\n"`` + payload, where ``prev`` is the stream's previous event
  hash (64 zeros for the first event of a stream).
- global hash: SHA-256 of ``["paigow-global-v1",prev_global,position,event_hash]``: one chain over
  every stream, in global position order.
- checkpoint message: ``["paigow-checkpoint-v1",position,global_hash,at]``, signed with Ed25519.

Times are UTC, ISO 8601 with microseconds and a ``Z``: ``2025-01-31T20:15:00.000000Z``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from hashlib import sha256
from json.encoder import encode_basestring_ascii
from typing import Any

GENESIS_HASH = "0" * 64
#: A text as the hashed JSON writes it (ASCII, escaped, in double quotes): the recipes' quoting.
quote = encode_basestring_ascii
EVENT_DOMAIN = "paigow-event-v1"
GLOBAL_DOMAIN = "paigow-global-v1"
CHECKPOINT_DOMAIN = "paigow-checkpoint-v1"

_dumps = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
).encode

# orjson, when installed, writes the same bytes ten times faster for what the store mostly holds:
# sorted keys, no spaces, integers and printable-ASCII strings without escapes. Anything else (a
# non-ASCII character, any escape, DEL, a type orjson refuses) goes to the standard library, whose
# text is the definition; a test compares both on generated values. Reads: orjson parses what we
# wrote, and the standard library what orjson will not (a lone surrogate escape).
try:
    from orjson import OPT_SORT_KEYS as _SORTED
    from orjson import dumps as _fast_dumps
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - the standard library alone is exact, only slower
    _SORTED = 0
    _fast_dumps = None  # type: ignore[assignment]
    _fast_loads = None  # type: ignore[assignment]
# For the store's chain_batch, which inlines canonical_bytes' fast path (its hottest loop).
FAST_DUMPS = _fast_dumps
SORT_KEYS = _SORTED


def canonical_bytes(value: Any) -> bytes:
    """The canonical text of a JSON value, as the ASCII bytes that are hashed."""
    if _fast_dumps is not None:
        try:
            data: bytes = _fast_dumps(value, option=_SORTED)
        except TypeError:  # orjson's refusals (an int beyond 64 bits, a key not a string, …)
            pass
        else:
            # Printable ASCII only: the standard library escapes DEL (0x7f) too, and any
            # backslash in orjson's output is an escape the two may write differently.
            if data.isascii() and b"\\" not in data and b"\x7f" not in data:
                return data
    return _dumps(value).encode()


def canonical_json(value: Any) -> str:
    """The one text form of a JSON value (floats are refused before: ``envelope.check_json``)."""
    return canonical_bytes(value).decode()


def loads_json(text: str) -> Any:
    """Parse JSON text this store wrote (canonical, float-free: its hash proves it)."""
    if _fast_loads is not None:
        try:
            return _fast_loads(text)
        except ValueError:  # a lone surrogate escape, which the standard library accepts
            pass
    return json.loads(text)


class NotCanonical(ValueError):
    """Stored payload text that is not the canonical form of a float-free JSON object."""


def _refuse_float(text: str) -> Any:
    raise NotCanonical(f"float {text} in a payload")


def _refuse_constant(text: str) -> Any:
    raise NotCanonical(f"{text} in a payload")


_decoder = json.JSONDecoder(parse_float=_refuse_float, parse_constant=_refuse_constant)


def load_payload(text: str) -> dict[str, Any]:
    """The payload object of stored text: a JSON object without floats (form not checked)."""
    try:
        value = _decoder.decode(text)
    except ValueError as error:
        raise NotCanonical(str(error)) from None
    if type(value) is not dict:
        raise NotCanonical("a payload is a JSON object")
    return value


def parse_payload(text: str) -> dict[str, Any]:
    """The payload object of stored text; raises ``NotCanonical`` if it is not canonical."""
    value = load_payload(text)  # the standard library's decoder: it refuses floats and NaN
    if _fast_dumps is not None:
        # The audit's hottest check, once a stored event: orjson writes the canonical text of
        # what the store holds ten times faster (``canonical_bytes``' guard: printable ASCII, no
        # escape). Equal bytes are the canonical form; anything else is judged by the
        # standard library's text, the definition, as before.
        try:
            data: bytes = _fast_dumps(value, option=_SORTED)
        except TypeError:
            pass
        else:
            if (
                data.isascii()
                and b"\\" not in data
                and b"\x7f" not in data
                and data == text.encode("utf-8", "surrogatepass")
            ):
                return value
    if _dumps(value) != text:
        raise NotCanonical("payload text is not in canonical form")
    return value


def format_time(moment: datetime) -> str:
    """UTC, microseconds, ``Z``: sorts as text and round-trips exactly."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def event_link(
    prev: str,
    quoted_stream: str,
    version: int,
    quoted_type: str,
    schema_version: int,
    quoted_at: str,
    quoted_actor: str,
    quoted_command: str,
    payload: str,
) -> str:
    """THE event-hash recipe, on parts already quoted (``quote``; ``quoted_actor`` is the quoted
    id and role joined by a comma) and ``prev`` as it stands between its quotes (a hash of our own
    is hex, which quoting leaves as it is). The hot loops (append, replay) quote each repeating
    text once and call this; ``event_hash`` quotes for the rest. ``payload`` is the stored text."""
    return sha256(
        f'["{EVENT_DOMAIN}","{prev}",{quoted_stream},{version},{quoted_type},'
        f"{schema_version:d},{quoted_at},{quoted_actor},{quoted_command}]\n{payload}".encode(
            "utf-8", "surrogatepass"
        )
    ).hexdigest()


def event_hash(
    prev_hash: str,
    stream_id: str,
    version: int,
    event_type: str,
    schema_version: int,
    at: str,
    actor_id: str,
    actor_role: str,
    command_id: str,
    payload: str,
) -> str:
    """The event hash of stored texts (see the module's docstring)."""
    return event_link(
        quote(prev_hash)[1:-1],
        quote(stream_id),
        int(version),
        quote(event_type),
        int(schema_version),
        quote(at),
        f"{quote(actor_id)},{quote(actor_role)}",
        quote(command_id),
        payload,
    )


def global_link(prev: str, position: int, event_hash_hex: str) -> str:
    """THE global-hash recipe; both hashes as they stand between their quotes (hex for ours)."""
    return sha256(
        f'["{GLOBAL_DOMAIN}","{prev}",{position},"{event_hash_hex}"]'.encode()
    ).hexdigest()


def global_hash(prev_global: str, position: int, event_hash_hex: str) -> str:
    return global_link(quote(prev_global)[1:-1], int(position), quote(event_hash_hex)[1:-1])


def checkpoint_message(position: int, chain_hash: str, at: str) -> bytes:
    text = f'["{CHECKPOINT_DOMAIN}",{int(position)},{quote(chain_hash)},{quote(at)}]'
    return text.encode("utf-8")


KEY_ROTATION_DOMAIN = "paigow-key-rotation-v1"


def key_rotation_message(old_key_id: str, new_public_key: str, at: str) -> bytes:
    """The bytes the old signing key signs to hand over to a new one: its own id, the new raw
    public key in hex and the time (the ``signing_key_rotated`` event of the system stream)."""
    text = f'["{KEY_ROTATION_DOMAIN}",{quote(old_key_id)},{quote(new_public_key)},{quote(at)}]'
    return text.encode("utf-8")


BUNDLE_MANIFEST_DOMAIN = "paigow-bundle-manifest-v1"


def bundle_manifest_message(digest: str) -> bytes:
    """The bytes the signing key signs to seal an audit bundle: the SHA-256 of its manifest's
    canonical JSON, the ``seal`` left out (``audit.bundle_checks``). The manifest holds the
    digest of every line after it, so the seal covers the whole file."""
    return f'["{BUNDLE_MANIFEST_DOMAIN}",{quote(digest)}]'.encode()
