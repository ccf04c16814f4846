"""The ATen coverage table of the docs (`fxdsl.testing.coverage`) is the
one the code gives: a new mapping or a new torch makes it stale."""

from __future__ import annotations

from pathlib import Path

from fxdsl.testing.optional import need

need("torch")

from fxdsl.testing import coverage  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "coverage.md"


def test_the_checked_in_table_is_the_codes() -> None:
    assert DOC.read_text() == coverage.markdown(), (
        "docs/coverage.md is stale: python -m fxdsl.testing.coverage > docs/coverage.md"
    )


def test_each_row_says_how_as_the_importer_decides() -> None:
    """Rows follow the handler table and torch's decompositions: an op with
    a handler is mapped, one torch decomposes is decomposed, core ops
    without either are fallbacks."""
    from fxdsl.frontends.aten_ops import ATEN

    rows = {row.op: row for row in coverage.rows()}
    assert set(ATEN) <= set(rows)
    assert rows["aten.add.Tensor"].how == "mapped"
    assert rows["aten.add.Tensor"].level == "core"
    assert rows["aten.nonzero.default"].how == "fallback"
    assert rows["aten.acos.default"].how in ("mapped", "decomposed")
    assert {row.how for row in rows.values()} == set(coverage.HOW)
    assert all(row.level == "core" for row in rows.values() if row.op not in ATEN)
