"""fxdsl.apply's pipeline syntax: op names as unquoted option values."""

from __future__ import annotations

import pytest

import fxdsl
from fxdsl.util.pipeline_syntax import quote_dotted_values


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            "graph-partition{ops=graph.add,graph.mul}",
            'graph-partition{ops="graph.add","graph.mul"}',
        ),
        (
            "graph-partition{ops=graph.* outline=group}",
            'graph-partition{ops="graph.*" outline=group}',
        ),
        ('p{a=1.5 b="graph.add"},cse', 'p{a=1.5 b="graph.add"},cse'),
        ("p{eps=-1.0e-5 ops=add}", "p{eps=-1.0e-5 ops=add}"),
        ("cse,dce", "cse,dce"),
    ],
)
def test_quote_dotted_values(spec: str, expected: str) -> None:
    assert quote_dotted_values(spec) == expected


def test_apply_accepts_unquoted_op_names() -> None:
    module = fxdsl.parse(
        """
        func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
          %0 = graph.add %x, %x : tensor<4xf32>
          %1 = graph.mul %0, %x : tensor<4xf32>
          %2 = graph.exp %1 : tensor<4xf32>
          func.return %2 : tensor<4xf32>
        }
        """
    )
    fxdsl.apply(module, "graph-partition{ops=graph.add,graph.mul outline=group}")
    text = str(module)
    assert text.count("graph.fusion_group") == 1
    group = text[text.index("graph.fusion_group") : text.index("graph.yield")]
    assert "graph.add" in group
    assert "graph.mul" in group
    assert "graph.exp" not in group
