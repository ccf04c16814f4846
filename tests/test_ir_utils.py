"""fxdsl/ir_utils.py: layer-neutral IR queries."""

from __future__ import annotations

import pytest

import fxdsl
from fxdsl.ir_utils import functions
from fxdsl.rewrite import editing

TWO = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


def test_functions_of_a_module_in_order() -> None:
    module = fxdsl.parse(TWO)
    assert [f.sym_name.data for f in functions(module)] == ["f", "decl", "g"]


def test_functions_of_a_function_and_of_other_ops() -> None:
    g = functions(fxdsl.parse(TWO))[2]
    assert functions(g) == [g]
    neg = next(iter(g.body.block.ops))
    with pytest.raises(TypeError, match="got graph.neg"):
        functions(neg)


def test_rewrite_editing_still_exports_functions() -> None:
    assert editing.functions is functions
