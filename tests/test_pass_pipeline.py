"""`fxdsl.apply`'s verification: after every pass by default, or once at the
end (`verify_each=False`, what the compile paths use); either way a pass
that breaks the IR does not go unnoticed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

import fxdsl
from fxdsl.ir import graph
from fxdsl.ir.utils import DominanceError

TEXT = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}"""


@dataclass(frozen=True)
class SwapFirstTwo(ModulePass):
    """Moves `%b = neg %a` in front of `%a`: a use before its definition."""

    name = "swap-first-two"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        neg = next(o for o in op.walk() if isinstance(o, graph.NegOp))
        exp = next(o for o in op.walk() if isinstance(o, graph.ExpOp))
        neg.detach()
        block = exp.parent_block()
        assert block is not None
        block.insert_op_before(neg, exp)


@dataclass(frozen=True)
class Counting(ModulePass):
    """Counts its runs (to see the later pass still ran)."""

    name = "counting"
    runs: list[int]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.runs.append(1)


@pytest.mark.parametrize("verify_each", [True, False])
def test_a_broken_pass_is_caught(verify_each: bool) -> None:
    runs: list[int] = []
    pipeline = PassPipeline((SwapFirstTwo(), Counting(runs)))
    if verify_each:  # the callback parse_pipeline installs
        from fxdsl.ir.utils import verify_ssa

        pipeline = PassPipeline(pipeline.passes, lambda _p, m, _n: verify_ssa(m))
    with pytest.raises(DominanceError, match="does not dominate"):
        fxdsl.apply(fxdsl.parse(TEXT), pipeline, verify_each=verify_each)
    # verified after each pass, the pipeline stops at the broken one
    assert runs == ([] if verify_each else [1])


def test_verify_each_false_gives_the_same_result() -> None:
    from fxdsl.lowering.pipeline import GPU_PIPELINE

    each = fxdsl.apply(fxdsl.parse(TEXT), GPU_PIPELINE)
    once = fxdsl.apply(fxdsl.parse(TEXT), GPU_PIPELINE, verify_each=False)
    assert str(each) == str(once)
