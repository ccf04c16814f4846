"""graph-fold-constants: what folds (and what must not), provenance, numerics
against the reference on hand-written and random graphs, frozen random
graphs folding to exactly their outputs, option errors, and scale."""

from __future__ import annotations

import time

import numpy as np
import pytest
from fxdsl.ir.graph import NAME, PARAM, f32
from hypothesis import HealthCheck, given, settings
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import PassFailedException

import fxdsl
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.ir import graph
from fxdsl.ir.utils import arg_attr
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.tools.fxdsl_opt import main as fxdsl_opt
from fxdsl.transforms.freeze import freeze
from fxdsl.transforms.graph_fold_constants import (
    GraphFoldConstantsPass,
    fold_constants,
)

SOURCES = (graph.ConstantOp, graph.FullOp)


def count(module: ModuleOp, op_type: type | tuple[type, ...]) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def body_ops(module: ModuleOp) -> list[Operation]:
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return list(function.body.block.ops)


MIXED = """
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %c = graph.constant dense<[[1.0, -2.0, 3.0], [0.5, 0.25, -4.0]]> : tensor<2x3xf32>
  %h = graph.full value 0.5 : tensor<3xf32>
  %s = graph.mul %c, %h {scope = #graph.scope<("m", 0, "M")>}
         : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = graph.tanh %s : tensor<2x3xf32>
  %y = graph.add %x, %t : tensor<2x3xf32>
  %w = graph.transpose %c perm [1, 0] {scope = #graph.scope<("w", 0, "W")>}
         : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %y, %w : tensor<2x3xf32>, tensor<3x2xf32>
}
"""


def test_constant_ops_fold_and_numerics_hold() -> None:
    before = fxdsl.parse(MIXED)
    after = fold_constants(clone_module(before))
    names = [op.name for op in body_ops(after)]
    assert names == [
        "graph.constant",  # tanh(c * h)
        "graph.add",
        "graph.constant",  # c^T
        "func.return",
    ]
    transposed = body_ops(after)[2]
    assert transposed.attributes["scope"] == body_ops(before)[-2].attributes["scope"]
    assert_same_numerics(before, after)


def test_the_pass_is_registered() -> None:
    after = fxdsl.apply(fxdsl.parse(MIXED), "graph-fold-constants")
    assert count(after, graph.TanhOp) == count(after, graph.TransposeOp) == 0


SPLIT = """
func.func @f() -> (tensor<2x2xf32>, tensor<0x2xf32>, tensor<1x2xf32>) {
  %c = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 5.0]]> : tensor<3x2xf32>
  %p, %q, %r = graph.split %c dim 0 sizes [2, 0, 1] {graph.name = ["a", "", "b"]}
    : (tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<0x2xf32>, tensor<1x2xf32>)
  func.return %p, %q, %r : tensor<2x2xf32>, tensor<0x2xf32>, tensor<1x2xf32>
}
"""


def test_multi_result_op_gives_each_result_its_name() -> None:
    before = fxdsl.parse(SPLIT)
    after = fold_constants(clone_module(before))
    first, empty, last = body_ops(after)[:3]
    assert isinstance(first, graph.ConstantOp)
    assert first.attributes[NAME] == StringAttr("a")
    assert NAME not in empty.attributes
    # [5, 5]: equal elements are one scalar
    assert isinstance(last, graph.FullOp)
    assert last.attributes[NAME] == StringAttr("b")
    text = str(after)
    assert fxdsl.parse(text).is_structurally_equivalent(after)
    assert_same_numerics(before, after)


def test_splat_values_are_full_and_keep_their_sign() -> None:
    before = fxdsl.parse("""
    func.func @f() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xi64>) {
      %z = graph.full value 0.0 : tensor<3xf32>
      %n = graph.neg %z : tensor<3xf32>
      %c = graph.constant dense<[0.0, -0.0, 0.0]> : tensor<3xf32>
      %m = graph.mul %c, %z : tensor<3xf32>
      %big = graph.constant dense<[9007199254740993, 9007199254740993]> : tensor<2xi64>
      %b = graph.add %big, %big : tensor<2xi64>
      func.return %n, %m, %b : tensor<3xf32>, tensor<3xf32>, tensor<2xi64>
    }
    """)
    after = fold_constants(clone_module(before))
    negated, mixed, big = body_ops(after)[:3]
    assert isinstance(negated, graph.FullOp)
    assert np.signbit(negated.value.value.data)
    # -0.0 beside 0.0 is not one value; an i64 beyond 2^53 is not an f64
    assert isinstance(mixed, graph.ConstantOp)
    assert isinstance(big, graph.ConstantOp)
    expected, actual = run_reference(before), run_reference(after)
    for want, got in zip(expected, actual, strict=True):
        np.testing.assert_array_equal(np.signbit(want), np.signbit(got))
        np.testing.assert_array_equal(want, got)


def test_max_elements_leaves_big_values_alone() -> None:
    text = """
    func.func @f() -> tensor<512x512xf32> {
      %s = graph.full value 2.0 : tensor<1x1xf32>
      %e = graph.exp %s : tensor<1x1xf32>
      %b = graph.broadcast_to %e : (tensor<1x1xf32>) -> tensor<512x512xf32>
      func.return %b : tensor<512x512xf32>
    }
    """
    capped = fold_constants(fxdsl.parse(text), max_elements=1000)
    assert [op.name for op in body_ops(capped)][:2] == [
        "graph.full",
        "graph.broadcast_to",
    ]
    folded = fold_constants(fxdsl.parse(text))
    (full, _) = body_ops(folded)
    assert isinstance(full, graph.FullOp)
    assert graph.shape_of(full.result) == (512, 512)


def test_ops_the_reference_rejects_stay() -> None:
    before = fxdsl.parse("""
    func.func @f() -> tensor<2x3xf32> {
      %t = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
      %i = graph.constant dense<[0, 7]> : tensor<2xi64>
      %g = graph.embedding %i, %t : (tensor<2xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
      func.return %g : tensor<2x3xf32>
    }
    """)
    after = fold_constants(clone_module(before))
    assert count(after, graph.EmbeddingOp) == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_elements": -1}, "max-elements must be an integer >= 0, got -1"),
        ({"max_elements": 1.5}, "max-elements must be an integer >= 0, got 1.5"),
        ({"allow_growth": "yes"}, "allow-growth must be true or false, got 'yes'"),
        ({"conv_bn": 1}, "conv-bn must be true or false, got 1"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(PassFailedException, match=f"graph-fold-constants: {message}"):
        GraphFoldConstantsPass(**options)  # type: ignore[arg-type]


def test_bad_option_from_the_driver_is_an_error_and_exit_code_1(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.mlir"  # type: ignore[operator]
    path.write_text(MIXED)
    code = fxdsl_opt([str(path), "-p", "graph-fold-constants{max-elements=-1}"])
    captured = capsys.readouterr()
    assert code == 1
    assert "error: graph-fold-constants: max-elements must be" in captured.err
    assert captured.out == ""


# --------------------------------------------------------------------------- #
# Random graphs
# --------------------------------------------------------------------------- #


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_ops=25))
def test_random_fold_numerics(module: ModuleOp) -> None:
    after = fold_constants(clone_module(module))
    after.verify()
    assert count(after, graph.GraphOp) <= count(module, graph.GraphOp)
    assert_same_numerics(module, after, seeds=(0,))


def _all_weights(module: ModuleOp) -> ModuleOp:
    """Every argument of @main marked as a weight."""
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    function.arg_attrs = ArrayAttr([
        DictionaryAttr({PARAM: StringAttr(f"w{i}")}) for i in range(len(function.args))
    ])  # fmt: skip
    return module


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_ops=25, dtypes=("f32", "f16", "bf16")))
def test_random_graph_frozen_folds_to_exactly_its_outputs(module: ModuleOp) -> None:
    """Bind every input: the whole function is known, folds to constants
    (allow-growth), and they hold bit for bit what the reference computes."""
    inputs = random_inputs(module, seed=0)
    expected = run_reference(module, *inputs)
    frozen = freeze(_all_weights(clone_module(module)), inputs, entry="main")
    fold_constants(frozen, allow_growth=True)
    frozen.verify()
    ops = body_ops(frozen)
    assert all(isinstance(op, SOURCES) for op in ops[:-1]), [op.name for op in ops]
    actual = run_reference(frozen)
    for want, got in zip(expected, actual, strict=True):
        assert want.dtype == got.dtype
        np.testing.assert_array_equal(want, got)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_ops=25, scoped=True))
def test_random_scoped_graph_frozen_keeps_its_numerics(module: ModuleOp) -> None:
    """Bind only the `graph.param` weights (wherever they sit among the
    arguments): the function takes the other inputs and computes the same."""
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    params = [
        arg_attr(function, i, PARAM) is not None for i in range(len(function.args))
    ]
    inputs = random_inputs(module, seed=0)
    weights = [x for x, p in zip(inputs, params, strict=True) if p]
    users = [x for x, p in zip(inputs, params, strict=True) if not p]
    frozen = fold_constants(freeze(module, weights, entry="main"))
    (folded,) = [op for op in frozen.ops if isinstance(op, func.FuncOp)]
    assert len(folded.args) == len(users)
    expected = run_reference(module, *inputs)
    actual = run_reference(frozen, *users)
    for want, got in zip(expected, actual, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- #
# Scale
# --------------------------------------------------------------------------- #


def _layers(count: int) -> ModuleOp:
    """`count` layers of 4 ops: 3 on constants (they fold), 1 on the input."""
    vector = TensorType(f32, [8])
    block = Block(arg_types=[vector])
    y: SSAValue = block.args[0]
    for i in range(count):
        data = [float((i + k) % 7) / 8 for k in range(8)]
        c = graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(vector, data))
        h = graph.FullOp([8], 0.5)
        m = graph.MulOp(c.result, h.result)
        e = graph.ExpOp(m.result)
        a = graph.AddOp(y, e.result)
        block.add_ops([c, h, m, e, a])
        y = a.result
    block.add_op(func.ReturnOp(y))
    function = func.FuncOp("f", ((vector,), (vector,)), Region(block))
    return ModuleOp([function])


def test_scale_is_linear_and_deterministic() -> None:
    """20,000 ops, 15,000 of them folding, in a few seconds; twice the same
    text; a quarter of the layers take about a quarter of the time."""

    def timed(module: ModuleOp) -> tuple[float, ModuleOp]:
        start = time.perf_counter()
        fold_constants(module)
        return time.perf_counter() - start, module

    t_big, big = timed(_layers(4000))
    t_small, _ = timed(_layers(1000))
    _, twin = timed(_layers(4000))
    assert count(big, graph.AddOp) == 4000
    assert count(big, graph.ConstantOp) == 4000
    assert count(big, (graph.MulOp, graph.ExpOp, graph.FullOp)) == 0
    assert str(big) == str(twin)
    assert t_big < 8 * t_small + 1.0  # linear: 4x the ops, not 16x the time
    assert t_big < 30
