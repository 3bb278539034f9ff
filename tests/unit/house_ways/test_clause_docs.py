from __future__ import annotations

from scripts.gen_house_way_docs import DOC, render


def test_clause_table_in_the_docs_matches_the_code() -> None:
    assert DOC.read_text() == render(), "run: python scripts/gen_house_way_docs.py"
