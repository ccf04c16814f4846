"""assert_same_numerics: passes on equal programs, explains differences."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import Rewriter

import fxdsl
from fxdsl.interpreters.tolerance import summed_terms
from fxdsl.ir import graph as g
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.testing.numerics import assert_outputs_close

PROGRAM = """
func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>)
    -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %s = graph.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %t = graph.tanh %s : tensor<4x8xf32>
  %m = graph.sum %t dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
  func.return %t, %m : tensor<4x8xf32>, tensor<4x1xf32>
}
func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {
  %n = graph.neg %x : tensor<2xf32>
  func.return %n : tensor<2xf32>
}
"""


def program() -> ModuleOp:
    return fxdsl.parse(PROGRAM)


def replace_first(
    module: ModuleOp, old: type[g.BinaryOp], new: type[g.BinaryOp]
) -> None:
    op = next(o for o in module.walk() if isinstance(o, old))
    Rewriter.replace_op(
        op, new.create(operands=list(op.operands), result_types=[op.result.type])
    )


def test_clone_passes_and_nothing_is_mutated() -> None:
    before = program()
    after = clone_module(before)
    text_before, text_after = str(before), str(after)
    assert_same_numerics(before, after)
    assert str(before) == text_before
    assert str(after) == text_after


def test_changed_op_fails_with_a_helpful_message() -> None:
    before = program()
    after = clone_module(before)
    replace_first(after, g.AddOp, g.SubOp)
    with pytest.raises(AssertionError) as error:
        assert_same_numerics(before, after, seeds=(3,))
    message = str(error.value)
    assert "@main, seed 3: output 0:" in message
    assert re.search(r"max abs diff \d", message)
    assert "max rel diff" in message
    assert "worst at index (" in message


def test_shape_and_count_mismatches_are_reported() -> None:
    with pytest.raises(AssertionError, match=r"output 1: expected float32\[4, 1\], "):
        assert_outputs_close([np.zeros(2), np.zeros((4, 1), np.float32)],
                             [np.zeros(2), np.zeros((4,), np.float32)])  # fmt: skip
    with pytest.raises(AssertionError, match="2 outputs expected, got 1"):
        assert_outputs_close([np.zeros(2), np.zeros(2)], [np.zeros(2)])
    with pytest.raises(AssertionError, match="1 of 3 elements differ \\(exact\\)"):
        assert_outputs_close([np.array([1, 2, 3])], [np.array([1, 2, 4])])


def test_tolerances() -> None:
    want = np.array([1.0, 0.0], np.float32)
    assert_outputs_close([want], [want + np.float32(5e-7)])
    with pytest.raises(AssertionError):
        assert_outputs_close([want], [want + np.float32(1e-4)])
    assert_outputs_close([want], [want + np.float32(1e-4)], rtol=1e-3, atol=1e-3)
    nan = np.array([np.nan, 1.0])
    assert_outputs_close([nan], [nan.copy()])
    with pytest.raises(AssertionError):
        assert_outputs_close([nan], [np.array([0.0, 1.0])])


def test_entry_selects_the_function() -> None:
    before = program()
    after = clone_module(before)
    assert_same_numerics(before, after, entry="other")
    other = next(o for o in after.walk() if isinstance(o, g.NegOp))
    Rewriter.replace_op(other, g.AbsOp(other.input))
    assert_same_numerics(before, after)  # @main is unchanged
    with pytest.raises(AssertionError, match="@other"):
        assert_same_numerics(before, after, entry="other")


@settings(max_examples=25, deadline=None)
@given(graphs(scoped=True))
def test_random_graphs_equal_their_clones(module: ModuleOp) -> None:
    assert_same_numerics(module, clone_module(module))


GPT2_BLOCK = Path(__file__).parents[2] / "examples" / "gpt2_block.mlir"


def _bypass_first(module: ModuleOp, kind: type[g.GeluOp]) -> None:
    # a stand-in miscompile: the op's result becomes its input
    op = next(o for o in module.walk() if isinstance(o, kind))
    op.result.replace_all_uses_with(op.input)
    op.detach()
    op.erase()


def test_reordered_sums_pass_and_a_miscompile_still_fails() -> None:
    # split-K changes the summation order of 768- and 3072-term sums: max abs
    # diff 0.84 on outputs of ~7000, beyond an elementwise rtol of 1e-5
    before = fxdsl.parse(GPT2_BLOCK.read_text())
    split_k = fxdsl.apply(clone_module(before), "graph-decompose,graph-split-k")
    assert_same_numerics(before, split_k, seeds=(0,))
    wrong = fxdsl.apply(clone_module(before), "graph-decompose,graph-split-k")
    _bypass_first(wrong, g.GeluOp)
    with pytest.raises(AssertionError, match="for reordered sums"):
        assert_same_numerics(before, wrong, seeds=(0,))


def test_summed_terms_counts_what_each_reduction_sums() -> None:
    # sum over dims [1] of 4x8: 8 terms; tanh, add, neg: none
    module = fxdsl.parse(PROGRAM)
    assert summed_terms(module) == 8
    matmul = fxdsl.parse(
        "func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {\n"
        "  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>)"
        " -> tensor<4x3xf32>\n  func.return %c : tensor<4x3xf32>\n}"
    )
    assert summed_terms(matmul) == 8
