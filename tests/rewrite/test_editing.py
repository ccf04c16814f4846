"""Direct editing helpers: walk, insert, replace uses, erase."""

from __future__ import annotations

import numpy as np
import pytest

import fxdsl
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.ir import graph
from fxdsl.rewrite import (
    erase,
    insert_after,
    insert_before,
    ops_in_order,
    replace_all_uses,
)

PROGRAM = """
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %y {scope = #graph.scope<("m", 0, "M")>} : tensor<4xf32>
  %b = graph.exp %a : tensor<4xf32>
  %c = graph.add %b, %a : tensor<4xf32>
  func.return %c : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = graph.neg %x : tensor<4xf32>
  func.return %n : tensor<4xf32>
}
"""


def names(op: object) -> list[str]:
    return [o.name for o in ops_in_order(op)]  # type: ignore[arg-type]


def test_ops_in_order_module_and_function() -> None:
    module = fxdsl.parse(PROGRAM)
    assert names(module) == [
        "graph.add",
        "graph.exp",
        "graph.add",
        "func.return",
        "graph.neg",
        "func.return",
    ]
    second = list(module.ops)[1]
    assert names(second) == ["graph.neg", "func.return"]
    with pytest.raises(TypeError, match="expected a builtin.module or func.func"):
        list(ops_in_order(next(ops_in_order(module))))


def test_insert_relu_after_every_add_by_hand() -> None:
    module = fxdsl.parse(PROGRAM)
    for op in ops_in_order(module):
        if isinstance(op, graph.AddOp):
            relu = insert_after(op, graph.ReluOp(op.result))
            replace_all_uses(op.result, relu.results[0], exclude=[relu])
    module.verify()
    assert names(module)[:5] == [
        "graph.add",
        "graph.relu",
        "graph.exp",
        "graph.add",
        "graph.relu",
    ]
    first_add, first_relu, exp, *_ = ops_in_order(module)
    assert exp.operands[0] is first_relu.results[0]
    # The inserted op inherits the anchor's provenance.
    assert first_relu.attributes["scope"] == first_add.attributes["scope"]
    x, y = random_inputs(module)
    a = np.maximum(x + y, 0)
    np.testing.assert_allclose(
        run_reference(module, x, y)[0], np.maximum(np.exp(a) + a, 0), rtol=1e-5
    )


def test_insert_before_and_replace_uses_preserve_numerics() -> None:
    module = fxdsl.parse(PROGRAM)
    before = module.clone()
    exp = next(op for op in ops_in_order(module) if isinstance(op, graph.ExpOp))
    # exp(a) == 1 / exp(-a): build the right side before the exp, then swap.
    neg = insert_before(exp, graph.NegOp(exp.operands[0]))
    exp_neg = insert_before(exp, graph.ExpOp(neg.results[0]))
    inverse = insert_before(exp, graph.ReciprocalOp(exp_neg.results[0]))
    replace_all_uses(exp.results[0], inverse.results[0])
    erase(exp)
    module.verify()
    assert "graph.exp %a" not in str(module)
    inputs = random_inputs(before)
    np.testing.assert_allclose(
        run_reference(module, *inputs)[0], run_reference(before, *inputs)[0], rtol=1e-5
    )


def test_erase_refuses_used_ops_unless_forced() -> None:
    module = fxdsl.parse(PROGRAM)
    first_add, exp, second_add, ret, *_ = ops_in_order(module)
    with pytest.raises(
        ValueError, match=r"graph.add still has 2 use\(s\) \(by graph.add, graph.exp\)"
    ):
        erase(first_add)
    assert first_add.parent is not None
    erase(ret, force=False)  # no results, no uses
    erase(second_add)
    erase(exp)
    erase(first_add)
    assert names(next(iter(module.ops))) == []


def test_replace_all_uses_checks_types() -> None:
    module = fxdsl.parse(
        """
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  %a = graph.neg %x : tensor<4xf32>
  func.return %a : tensor<4xf32>
}"""
    )
    neg = next(ops_in_order(module))
    y = neg.parent.parent.block.args[1]  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="type tensor<4xf16> of the new value differs"):
        replace_all_uses(neg.results[0], y)
