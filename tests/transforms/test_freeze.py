"""Freezing: weights bound as constants (`fxdsl.transforms.freeze`,
`fxdsl.compile(..., freeze=)`), its errors, and frozen + folded ResNet-18 and
MobileNetV3-Small against the unfrozen import and torch eager."""

from __future__ import annotations

import numpy as np
import pytest
from fxdsl.ir.graph import PARAM
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

import fxdsl
from fxdsl.interpreters.run import random_inputs
from fxdsl.ir import graph
from fxdsl.transforms.freeze import freeze, freeze_and_fold, freeze_function

LAYER = """
func.func @forward(%w: tensor<3x4xf32> {graph.param = "fc.weight"},
                   %b: tensor<3xf32> {graph.param = "fc.bias"},
                   %x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %y = graph.linear %x, %w, %b {scope = #graph.scope<("fc", 0, "Linear")>}
         : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
"""


def function_of(module: ModuleOp, name: str = "forward") -> func.FuncOp:
    (function,) = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == name
    ]
    return function


def layer_weights() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [
        rng.standard_normal((3, 4)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
    ]


def test_weights_become_constants_and_leave_the_signature() -> None:
    module = fxdsl.parse(LAYER)
    weights = layer_weights()
    frozen = freeze(module, weights)
    function = function_of(frozen)
    assert [a.name_hint for a in function.args] == ["x"]
    assert function.function_type.inputs.data == (graph.tensor([2, 4], graph.f32),)
    assert function.arg_attrs is None  # x had none: as the parser reads it
    constants = [op for op in function.walk() if isinstance(op, graph.ConstantOp)]
    assert [c.attributes[PARAM] for c in constants] == [
        StringAttr("fc.weight"),
        StringAttr("fc.bias"),
    ]
    assert [c.result.name_hint for c in constants] == ["w", "b"]
    frozen.verify()
    # the input module is untouched
    assert len(function_of(module).args) == 3
    x = random_inputs(module)[2]
    np.testing.assert_array_equal(
        fxdsl.run(frozen, x)[0], fxdsl.run(module, *weights, x)[0]
    )
    assert str(fxdsl.parse(str(frozen))) == str(frozen)


def test_a_mapping_binds_some_weights_by_fqn() -> None:
    module = fxdsl.parse(LAYER)
    w, b = layer_weights()
    frozen = freeze(module, {"fc.bias": b})
    assert [a.name_hint for a in function_of(frozen).args] == ["w", "x"]
    x = random_inputs(module)[2]
    np.testing.assert_array_equal(
        fxdsl.run(frozen, w, x)[0], fxdsl.run(module, w, b, x)[0]
    )


def test_equal_elements_freeze_to_full() -> None:
    module = fxdsl.parse(LAYER)
    w, _ = layer_weights()
    frozen = freeze(module, [w, np.zeros(3, np.float32)])
    (full,) = [op for op in frozen.walk() if isinstance(op, graph.FullOp)]
    assert full.attributes[PARAM] == StringAttr("fc.bias")


@pytest.mark.parametrize(
    ("weights", "error", "message"),
    [
        (
            lambda w, b: [w],
            ValueError,
            r"freeze: @forward has 2 weight \(graph.param\) arguments, got 1 arrays",
        ),
        (
            lambda w, b: [w.T, b],
            ValueError,
            r"freeze: @forward argument 0 \(%w, 'fc.weight'\): expected "
            r"tensor<3x4xf32>, got float32 array of shape \(4, 3\)",
        ),
        (
            lambda w, b: [w, b.astype(np.float64)],
            ValueError,
            r"argument 1 \(%b, 'fc.bias'\): expected tensor<3xf32>, got float64",
        ),
        (
            lambda w, b: {"fc.weights": w},
            ValueError,
            r"@forward has no weight argument 'fc.weights' \(its graph.param "
            r"arguments: fc.bias, fc.weight\)",
        ),
        (lambda w, b: w, TypeError, "mapping fqn -> array, got ndarray"),
        (lambda w, b: 3, TypeError, "weights must be a sequence of arrays"),
    ],
)
def test_wrong_weights_are_named(weights, error, message) -> None:
    module = fxdsl.parse(LAYER)
    with pytest.raises(error, match=message):
        freeze(module, weights(*layer_weights()))


def test_a_bad_weight_changes_nothing() -> None:
    module = fxdsl.parse(LAYER)
    before = str(module)
    w, b = layer_weights()
    with pytest.raises(ValueError, match="argument 1"):
        freeze_function(module, function_of(module), [w, b[:2]])
    assert str(module) == before


def test_entry_and_callers() -> None:
    module = fxdsl.parse(LAYER)
    with pytest.raises(ValueError, match=r"no function @main .*@forward"):
        freeze(module, layer_weights(), entry="main")
    called = fxdsl.parse(
        LAYER
        + """
    func.func @caller(%w: tensor<3x4xf32>, %b: tensor<3xf32>, %x: tensor<2x4xf32>)
        -> tensor<2x3xf32> {
      %y = func.call @forward(%w, %b, %x)
             : (tensor<3x4xf32>, tensor<3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
      func.return %y : tensor<2x3xf32>
    }
    """
    )
    with pytest.raises(ValueError, match="@forward is called by another function"):
        freeze(called, layer_weights())


def test_compile_with_frozen_weights() -> None:
    module = fxdsl.parse(LAYER)
    weights = layer_weights()
    x = random_inputs(module)[2]
    compiled = fxdsl.compile(module, backend="cpu", freeze=weights)
    (expected,) = fxdsl.run(module, *weights, x)
    np.testing.assert_allclose(compiled(x)[0], expected, rtol=1e-6)
    np.testing.assert_allclose(compiled(x=x)[0], expected, rtol=1e-6)
    with pytest.raises(ValueError, match="got 1 arrays"):
        fxdsl.compile(module, backend="cpu", freeze=weights[:1])


def test_freeze_and_fold_computes_weight_math() -> None:
    """A decomposed linear's weight transpose folds once frozen."""
    module = fxdsl.apply(fxdsl.parse(LAYER), "graph-decompose")
    assert any(isinstance(op, graph.TransposeOp) for op in module.walk())
    folded = freeze_and_fold(module, layer_weights())
    names = [op.name for op in function_of(folded).body.block.ops]
    assert names == [
        "graph.constant",
        "graph.constant",
        "graph.matmul",
        "graph.add",
        "func.return",
    ]


def test_frozen_module_lowers_to_gpu_kernels() -> None:
    """The constants reach the kernels: the GPU pipeline's IR, run on the IR
    emulator, computes what the unfrozen reference does."""
    from fxdsl.lowering.pipeline import GPU_PIPELINE
    from fxdsl.runtime.ir_emulator import Emulator

    module = fxdsl.parse(LAYER)
    weights = layer_weights()
    x = random_inputs(module)[2]
    lowered = fxdsl.apply(freeze_and_fold(module, weights), GPU_PIPELINE)
    (got,) = Emulator(lowered).run("forward", x)
    (want,) = fxdsl.run(module, *weights, x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
