"""fxdsl/ir/utils.py: layer-neutral IR queries."""

from __future__ import annotations

import pickle

import pytest
from xdsl.dialects import test as test_dialect

import fxdsl
from fxdsl.ir.utils import (
    DominanceError,
    OpFailure,
    functions,
    location_of,
    reachable_module,
    verify_ssa,
)
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


CALLS = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @middle(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @middle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


def test_reachable_module_keeps_the_entry_and_what_it_calls() -> None:
    module = fxdsl.parse(CALLS)
    kept = reachable_module(module, "main")
    assert [f.sym_name.data for f in functions(kept)] == ["main", "middle", "leaf"]
    assert [f.sym_name.data for f in functions(reachable_module(module, "@leaf"))] == [
        "leaf"
    ]
    kept.verify()
    # the original is untouched
    assert len(functions(module)) == 4
    with pytest.raises(ValueError, match="no function @nope"):
        reachable_module(module, "nope")


def test_reachable_module_follows_references_nested_in_attributes() -> None:
    module = fxdsl.parse(
        CALLS.replace(
            "func.func @main(",
            "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes "
            "{refs = [{fn = @other}]} {\n  func.return %x : tensor<4xf32>\n}\n"
            "func.func @unused(",
        )
    )
    kept = reachable_module(module, "main")
    assert [f.sym_name.data for f in functions(kept)] == ["main", "other", "leaf"]


def test_lowering_one_entry_lowers_only_what_it_needs() -> None:
    """`lower_for_cuda(entry=...)` lowers the entry's functions alone: the
    kernels of other functions are not in its launch plan's module."""
    from fxdsl.pipeline.lower import lower_for_cuda

    module = fxdsl.parse(CALLS + TWO.replace("@f", "@f2").replace("@g", "@g2"))
    lowered, plan = lower_for_cuda(module, entry="g2")
    assert plan.kernels
    assert all("g2" in name for name in plan.kernels), plan.kernels
    names = {f.sym_name.data for f in functions(lowered)}
    assert "main" not in names
    assert "other" not in names


def test_functions_of_a_function_and_of_other_ops() -> None:
    g = functions(fxdsl.parse(TWO))[2]
    assert functions(g) == [g]
    neg = next(iter(g.body.block.ops))
    with pytest.raises(TypeError, match="got graph.neg"):
        functions(neg)


def test_op_failure_carries_the_ops_location() -> None:
    """Python callers see where (str), the drivers get the parts apart."""
    neg = next(iter(functions(fxdsl.parse(TWO, "two.mlir"))[2].body.block.ops))
    assert location_of(neg) == "two.mlir:7:3"
    failure = OpFailure("some-pass: cannot handle graph.neg", neg)
    assert (failure.where, failure.message) == (
        "two.mlir:7:3",
        "some-pass: cannot handle graph.neg",
    )
    assert str(failure) == "two.mlir:7:3: some-pass: cannot handle graph.neg"
    unlocated = OpFailure("some-pass: built in Python", test_dialect.TestOp())
    assert unlocated.where is None
    assert str(unlocated) == "some-pass: built in Python"
    copied = pickle.loads(pickle.dumps(failure))
    assert (type(copied), str(copied)) == (OpFailure, str(failure))


def test_rewrite_editing_still_exports_functions() -> None:
    assert editing.functions is functions


USE_BEFORE_DEF = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = graph.neg %a : tensor<4xf32>
  %a = graph.exp %x : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
"""


def test_parse_rejects_a_use_before_its_definition() -> None:
    with pytest.raises(DominanceError, match="operand #0 does not dominate") as info:
        fxdsl.parse(USE_BEFORE_DEF)
    assert info.value.op.name == "graph.neg"


def test_nested_regions_see_values_of_enclosing_blocks() -> None:
    """scf.if's regions are not isolated: they may use %a defined above."""
    module = fxdsl.parse("""
func.func @f(%x: f32, %c: i1) -> f32 {
  %a = arith.addf %x, %x : f32
  %r = scf.if %c -> (f32) {
    %m = arith.mulf %a, %x : f32
    scf.yield %m : f32
  } else {
    scf.yield %a : f32
  }
  func.return %r : f32
}
""")
    verify_ssa(module)
    # ...but the if's result may not be used inside the if
    (mul,) = [op for op in module.walk() if op.name == "arith.mulf"]
    (if_op,) = [op for op in module.walk() if op.name == "scf.if"]
    mul.operands[0] = if_op.results[0]
    with pytest.raises(DominanceError, match="arith.mulf: operand #0"):
        verify_ssa(module)


def test_a_pass_that_breaks_dominance_is_caught_after_it() -> None:
    """`apply` verifies dominance after every pass, as `parse` does."""
    from xdsl.passes import ModulePass

    class SwapFirstTwo(ModulePass):
        name = "swap-first-two"

        def apply(self, ctx, op) -> None:  # type: ignore[no-untyped-def]
            body = functions(op)[0].body.block
            first = body.first_op
            assert first is not None
            second = first.next_op
            assert second is not None
            first.detach()
            body.insert_op_after(first, second)

    module = fxdsl.parse(USE_BEFORE_DEF.replace(
        "%b = graph.neg %a : tensor<4xf32>\n  %a = graph.exp %x : tensor<4xf32>",
        "%a = graph.exp %x : tensor<4xf32>\n  %b = graph.neg %a : tensor<4xf32>",
    ))  # fmt: skip
    pipeline = fxdsl.api.parse_pipeline("cse")
    pipeline = type(pipeline)((SwapFirstTwo(), *pipeline.passes), pipeline.callback)
    with pytest.raises(DominanceError, match="graph.neg: operand #0"):
        fxdsl.apply(module, pipeline)


def test_dominance_check_is_linear_in_practice() -> None:
    """A 20000-op chain in one block verifies in well under a second."""
    import time

    lines = ["%v0 = graph.neg %x : tensor<4xf32>"]
    lines += [f"%v{k} = graph.neg %v{k - 1} : tensor<4xf32>" for k in range(1, 20000)]
    text = (
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  "
        + "\n  ".join(lines)
        + "\n  func.return %v19999 : tensor<4xf32>\n}\n"
    )
    module = fxdsl.parse(text)
    start = time.process_time()  # CPU time: other processes do not count
    verify_ssa(module)
    assert time.process_time() - start < 5.0  # quadratic would take minutes
