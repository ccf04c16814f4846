"""assert_same_numerics: passes on equal programs, explains differences."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import Rewriter

import fxdsl
from fxdsl.dialects import graph as g
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
