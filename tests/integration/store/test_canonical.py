"""The canonical bytes are the standard library's, whichever encoder wrote them.

``canonical.canonical_bytes`` takes orjson's fast path only when its output is plain ASCII with no
escape, and otherwise the standard library's ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=True)``, which DEFINES the stored and hashed text (an auditor recomputes it in any
language). Generated JSON values, nasty strings included, must come out byte for byte the same.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventlog.canonical import (
    NotCanonical,
    canonical_bytes,
    canonical_json,
    loads_json,
    parse_payload,
)

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
    | st.text()
    | st.text(alphabet=st.characters(max_codepoint=0x7F))
    | st.sampled_from(["", "\\", '"', "\x00", "\x1f", "\x7f", "\u2028", "é", "\U0001f0a1", "JK"])
)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def stdlib(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(), values, max_size=6))
def test_canonical_bytes_are_the_standard_librarys(payload: dict[str, Any]) -> None:
    data = canonical_bytes(payload)
    assert data == stdlib(payload)
    assert canonical_json(payload) == data.decode()
    assert loads_json(data.decode()) == payload


def test_the_pinned_payload_of_the_contract_keeps_its_bytes() -> None:
    payload = {"seat": 1, "main": 500, "currency": "EUR", "note": "dealer Zoë, table 7"}
    assert canonical_bytes(payload) == (
        b'{"currency":"EUR","main":500,"note":"dealer Zo\\u00eb, table 7","seat":1}'
    )


def test_a_lone_surrogate_written_by_the_standard_library_reads_back() -> None:
    payload = {"odd": "\ud800"}
    assert loads_json(canonical_json(payload)) == payload


def test_escapes_are_always_the_standard_librarys() -> None:
    # DEL is ASCII yet escaped by ensure_ascii; orjson writes it raw: the fallback must catch it.
    for text in ("\x7f", "tab\there", 'quote"d', "back\\slash", "\x00", "\u2028"):
        payload = {"reason": text, text: 1}
        assert canonical_bytes(payload) == stdlib(payload)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), values, max_size=6))
def test_parse_payload_accepts_exactly_the_standard_librarys_text(payload: dict[str, Any]) -> None:
    """The chain's canonical check (orjson's bytes compared first, issue 22) accepts the standard
    library's text and refuses the same value written any other way."""
    text = stdlib(payload).decode()
    assert parse_payload(text) == payload
    spaced = json.dumps(payload, sort_keys=True, ensure_ascii=True)
    if spaced != text:
        with pytest.raises(NotCanonical, match="not in canonical form"):
            parse_payload(spaced)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a":1.0}', "float 1.0 in a payload"),
        ('{"a":1e3}', "float 1e3 in a payload"),
        ('{"a":[2,-1.5]}', "float -1.5 in a payload"),
        ('{"a":"x:1.5","b":[3]}', None),  # a float's look in a string: the careful reader's
        ('{"a":18446744073709551616}', None),  # beyond 64 bits: the careful reader's
        ('{"a":NaN}', "NaN in a payload"),
        ('{"b":1,"a":2}', "payload text is not in canonical form"),
        (r'{"a":"\u00e9"}', None),
        (r'{"a":"\u00E9"}', "payload text is not in canonical form"),
        ('{"a":"é"}', "payload text is not in canonical form"),
        ("[1]", "a payload is a JSON object"),
    ],
)
def test_parse_payload_refuses_floats_and_other_forms(text: str, message: str | None) -> None:
    if message is None:
        assert parse_payload(text) == json.loads(text)
        return
    with pytest.raises(NotCanonical) as refused:
        parse_payload(text)
    assert str(refused.value) == message
