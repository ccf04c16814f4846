"""graph-fuse / graph-unfuse: numerics, group structure, invariants, options."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
from fxdsl.ir.graph import FusionGroupOp, YieldOp
from hypothesis import HealthCheck, given, settings
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

import fxdsl
from fxdsl.frontends.models import gpt2_block, gpt2_stack
from fxdsl.testing import assert_same_numerics, clone_module, graphs, random_graph
from fxdsl.transforms.fusibility import (
    Fusibility,
    classify,
    drops_dims,
    reduction_space,
)
from fxdsl.transforms.fusion_groups import FusionGraph
from fxdsl.transforms.graph_fuse import BlockFuser, GraphFusePass, fuse

ROOT = Path(__file__).resolve().parents[2]
FILECHECK_CASES = ROOT / "tests/filecheck/transforms/graph-fuse.mlir"


def groups(module: Operation) -> list[FusionGroupOp]:
    return [op for op in module.walk() if isinstance(op, FusionGroupOp)]


def contents(group: FusionGroupOp) -> Counter[str]:
    """Op names in a group body without the `graph.` prefix, constants and yield."""
    return Counter(
        op.name.removeprefix("graph.")
        for op in group.body.block.ops
        if classify(op) is not Fusibility.CONSTANT and not isinstance(op, YieldOp)
    )


def check_invariants(
    module: Operation, max_args: int = 128, max_ops: int = 1024
) -> None:
    """The kernel rules every group formed by graph-fuse keeps (fusibility.py).

    Numerics cannot catch a break of these: the reference interpreter runs any
    group body correctly, only one-kernel lowering depends on them.
    """
    for group in groups(module):
        body = [op for op in group.body.block.ops if not isinstance(op, YieldOp)]
        kinds = [classify(op) for op in body]
        assert Fusibility.OPAQUE not in kinds
        assert 2 <= sum(k is not Fusibility.CONSTANT for k in kinds) <= max_ops
        assert {Fusibility.ELEMENTWISE, Fusibility.REDUCTION} & set(kinds)
        assert len(group.inputs) + len(group.outputs) <= max_args
        assert not any(map(is_view, owners(group.yield_op.values)))
        # Constants are cloned into the body, never passed in.
        assert not any(map(is_constant_op, owners(group.inputs)))
        spaces = {reduction_space(op) for op in body} - {None}
        assert len(spaces) <= 1, f"reductions on different spaces: {spaces}"
        for op in body:
            if drops_dims(op):  # its result only leaves the group
                assert all(isinstance(u.operation, YieldOp) for u in op.results[0].uses)
            if is_view(op):  # views only remap inputs, constants or views
                source = op.operands[0].owner
                assert (
                    not isinstance(source, Operation)
                    or is_view(source)
                    or (is_constant_op(source))
                )


def owners(values: Iterable[SSAValue]) -> list[Operation | None]:
    return [v.owner if isinstance(v.owner, Operation) else None for v in values]


def is_view(op: Operation | None) -> bool:
    return op is not None and classify(op) is Fusibility.VIEW


def is_constant_op(op: Operation | None) -> bool:
    return op is not None and classify(op) is Fusibility.CONSTANT


# --------------------------------------------------------------------------- #
# Hand-written cases: the FileCheck inputs, run numerically
# --------------------------------------------------------------------------- #

CASES = fxdsl.parse(FILECHECK_CASES.read_text(), str(FILECHECK_CASES))
FUNCTIONS = [f for f in CASES.body.block.ops if isinstance(f, FuncOp)]
# Not run by the reference interpreter: a call to a declaration, a scalar i1
# argument (both checked by FileCheck only).
NOT_RUNNABLE = {"callee", "opaque_group_and_call", "blocks"}
CASE_NAMES = [f.sym_name.data for f in FUNCTIONS if f.sym_name.data not in NOT_RUNNABLE]


@pytest.mark.parametrize("name", CASE_NAMES)
@pytest.mark.parametrize(
    "pipeline",
    [
        "graph-fuse",
        "graph-fuse{horizontal=false max-args=4}",
        "graph-decompose,graph-fuse",
        "graph-fuse,graph-unfuse",
    ],
)
def test_handwritten_numerics(name: str, pipeline: str) -> None:
    after = fxdsl.apply(clone_module(CASES), pipeline)
    functions = [f for f in after.body.block.ops if isinstance(f, FuncOp)]
    function = next(f for f in functions if f.sym_name.data == name)
    check_invariants(function, max_args=4 if "max-args=4" in pipeline else 128)
    assert_same_numerics(CASES, after, entry=name)


def test_expected_group_counts() -> None:
    after = fuse(clone_module(CASES))
    functions = [f for f in after.body.block.ops if isinstance(f, FuncOp)]
    per_func = {f.sym_name.data: len(groups(f)) for f in functions}
    assert per_func == {
        "chain": 1, "diamond": 1, "outside_use": 1, "fixpoint": 1, "matmul_splits": 2,
        "linear_epilogue": 1, "softmax": 1, "layer_norm": 1, "center": 1,
        "incompatible_reductions": 0, "siblings": 1, "scalar_siblings": 0,
        "arg_limit": 1, "merge_groups": 1, "view_not_output": 0, "cleanup": 1,
        "callee": 0, "opaque_group_and_call": 2, "blocks": 2,
    }  # fmt: skip


# --------------------------------------------------------------------------- #
# GPT-2
# --------------------------------------------------------------------------- #

SOFTMAX_GROUP = Counter(["mul", "reshape", "reshape", "le", "select", "softmax"])
ATTN_RESIDUAL_LN = Counter(["add", "add", "layer_norm"])
BIAS_GELU = Counter(["add", "gelu"])
BIAS_RESIDUAL = Counter(["add", "add"])


def test_gpt2_block_groups() -> None:
    """One block after graph-decompose,graph-fuse: four groups.

    1. scale + causal mask (iota reshapes, `le`, select) + softmax;
    2. c_proj bias + residual add + ln_2 (the prologue of ln_2; also outputs the
       residual sum for the second residual add);
    3. c_fc bias + gelu;
    4. mlp c_proj bias + residual add.
    ln_1 reads the block input directly and stays a lone op; the c_attn bias
    add feeds the (opaque) split and stays a lone op.
    """
    before = gpt2_block(T=8, D=32, heads=4)
    after = fxdsl.apply(clone_module(before), "graph-decompose,graph-fuse")
    found = [contents(g) for g in groups(after)]
    assert found == [SOFTMAX_GROUP, ATTN_RESIDUAL_LN, BIAS_GELU, BIAS_RESIDUAL]
    assert [len(g.outputs) for g in groups(after)] == [1, 2, 1, 1]
    lone = Counter(op.name for op in after.walk() if op.parent_op() is not None
                   and isinstance(op.parent_op(), FuncOp))  # fmt: skip
    assert lone["graph.matmul"] == 6
    assert lone["graph.layer_norm"] == 1
    check_invariants(after)
    assert_same_numerics(before, after, seeds=(0,), rtol=1e-4, atol=1e-5)
    unfused = fxdsl.apply(after, "graph-unfuse")
    assert not groups(unfused)
    assert_same_numerics(before, unfused, seeds=(1,), rtol=1e-4, atol=1e-5)


def test_gpt2_example_file_groups() -> None:
    """The checked-in example (T=64, D=768) has the same four groups."""
    path = ROOT / "examples/gpt2_block.mlir"
    module = fxdsl.parse(path.read_text(), str(path))
    fxdsl.apply(module, "graph-decompose,graph-fuse")
    found = [contents(g) for g in groups(module)]
    assert found == [SOFTMAX_GROUP, ATTN_RESIDUAL_LN, BIAS_GELU, BIAS_RESIDUAL]


def test_gpt2_stack_block_boundary() -> None:
    """Between blocks the residual add of block i is the prologue of block
    i+1's ln_1 (and the last one of ln_f)."""
    before = gpt2_stack(2, T=8, D=32, heads=4)
    after = fxdsl.apply(clone_module(before), "graph-decompose,graph-fuse")
    found = [contents(g) for g in groups(after)]
    block = [SOFTMAX_GROUP, ATTN_RESIDUAL_LN, BIAS_GELU, ATTN_RESIDUAL_LN]
    assert found == block + block
    assert_same_numerics(before, after, seeds=(0,), rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------- #
# Random graphs
# --------------------------------------------------------------------------- #

RANDOM = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@RANDOM
@given(graphs(max_ops=30))
def test_random_fuse_numerics(module: ModuleOp) -> None:
    fused = fuse(clone_module(module))
    fused.verify()
    check_invariants(fused)
    assert_same_numerics(module, fused, seeds=(0,))
    unfused = fxdsl.apply(clone_module(fused), "graph-unfuse")
    assert not groups(unfused)
    assert_same_numerics(module, unfused, seeds=(0,))


@RANDOM
@given(graphs(max_ops=30, scoped=True))
def test_random_fuse_options(module: ModuleOp) -> None:
    options = {"horizontal": False, "max_args": 3, "max_ops_per_group": 3}
    fused = fuse(clone_module(module), **options)
    fused.verify()
    check_invariants(fused, max_args=3, max_ops=3)
    assert_same_numerics(module, fused, seeds=(0,))


def test_random_graphs_deterministic() -> None:
    for seed in range(20):
        module = random_graph(seed, max_ops=60)
        first = str(fuse(clone_module(module)))
        assert first == str(fuse(clone_module(module)))


def test_many_random_graphs_fuse() -> None:
    """A sweep wider than hypothesis' examples: fusion must find groups and keep
    numerics on 100 seeded graphs."""
    total = 0
    for seed in range(100):
        module = random_graph(seed, max_ops=40)
        fused = fuse(clone_module(module))
        check_invariants(fused)
        total += len(groups(fused))
        assert_same_numerics(module, fused, seeds=(seed,))
    assert total > 100


# --------------------------------------------------------------------------- #
# Options and errors
# --------------------------------------------------------------------------- #


def test_max_ops_per_group() -> None:
    ops = "\n".join(f"  %{i + 1} = graph.exp %{i} : tensor<4xf32>" for i in range(10))
    text = f"func.func @f(%0: tensor<4xf32>) -> tensor<4xf32> {{\n{ops}\n" \
        "  func.return %10 : tensor<4xf32>\n}"  # fmt: skip
    fused = fuse(fxdsl.parse(text), max_ops_per_group=3)
    assert [sum(contents(g).values()) for g in groups(fused)] == [3, 3, 3]


@pytest.mark.parametrize(
    "options",
    [{"max_args": 0}, {"max_args": -3}, {"max_ops_per_group": 0},
     {"horizontal": "yes"}, {"max_args": True}],
)  # fmt: skip
def test_bad_options_raise(options: dict[str, object]) -> None:
    with pytest.raises(PassFailedException, match="graph-fuse: "):
        GraphFusePass(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize("option", ["max-args=0", "max-args=abc", "horizontal=maybe"])
def test_bad_options_driver(option: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", str(FILECHECK_CASES),
         "-p", f"graph-fuse{{{option}}}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert "error:" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


# --------------------------------------------------------------------------- #
# The dependency graph (fusion_groups.FusionGraph)
# --------------------------------------------------------------------------- #

PATH_AROUND = """
func.func @f(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = graph.exp %x : tensor<4x4xf32>
  %m = graph.matmul %a, %w : tensor<4x4xf32>
  %b = graph.add %a, %m : tensor<4x4xf32>
  func.return %b : tensor<4x4xf32>
}
"""


def test_window_refuses_path_through_other_node() -> None:
    """exp -> matmul -> add and exp -> add: merging exp and add would put the
    matmul both before and after the group."""
    module = fxdsl.parse(PATH_AROUND)
    block = next(f for f in module.body.block.ops if isinstance(f, FuncOp)).body.block
    graph = FusionGraph(block)
    exp, matmul, add = (graph.index[op] for op in graph.ops[:3])
    assert graph.window(exp, add) is None
    assert graph.window(exp, matmul) is not None
    assert graph.window(matmul, add) is not None


@pytest.mark.parametrize("seed", range(30))
def test_order_stays_topological(seed: int) -> None:
    """After all merges, every edge of the contracted graph goes forward in
    `order`, and `order` is what materialize emits."""
    module = random_graph(seed, max_ops=60)
    block = next(f for f in module.body.block.ops if isinstance(f, FuncOp)).body.block
    fuser = BlockFuser(block, GraphFusePass())
    changed = True
    while changed:
        changed = fuser.vertical() | fuser.horizontal()
    graph = fuser.graph
    roots = graph.roots()
    assert len(roots) < len(graph.ops) or not groups(fuse(clone_module(module)))
    for node in roots:
        for nxt in graph.succ[node]:
            assert graph.find(nxt) == nxt
            assert graph.order[node] < graph.order[nxt]
    assert len({graph.order[n] for n in roots}) == len(roots)
