"""run_reference / random_inputs: entry choice, input checks, random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from fxdsl.ir.graph import bf16, f16, f32, i1, i32
from xdsl.dialects.builtin import i64

import fxdsl
from fxdsl.interpreters.run import entry_function, random_inputs, run_reference
from fxdsl.ir.dtypes import element_type_of, numpy_dtype, round_to_bf16

TWO_FUNCS = """
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.neg %x : tensor<2xf32>
  func.return %r : tensor<2xf32>
}
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.exp %x : tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""

MIXED = """
func.func @f(%x: tensor<4x8xf32>, %n: tensor<3xi64>, %c: tensor<i1>)
    -> tensor<4x8xf32> {
  %r = graph.relu %x : tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
"""


def test_entry_defaults_to_first_public_function() -> None:
    module = fxdsl.parse(TWO_FUNCS)
    x = np.array([1.0, -2.0], np.float32)
    (out,) = run_reference(module, x)
    np.testing.assert_array_equal(out, -x)
    (out,) = run_reference(module, x, entry="second")
    np.testing.assert_array_equal(out, np.exp(x))
    (out,) = run_reference(module, x, entry="@helper")
    np.testing.assert_array_equal(out, -x)


def test_entry_falls_back_to_first_function_when_all_are_private() -> None:
    module = fxdsl.parse(TWO_FUNCS.replace("func.func @", "func.func private @"))
    assert entry_function(module).sym_name.data == "helper"


def test_default_entry_skips_declarations() -> None:
    module = fxdsl.parse(
        "func.func private @ext(tensor<2xf32>) -> tensor<2xf32>\n"
        + TWO_FUNCS.replace("func.func @", "func.func private @")
    )
    assert entry_function(module).sym_name.data == "helper"
    with pytest.raises(ValueError, match="no func.func with a body"):
        entry_function(fxdsl.parse("func.func private @ext(tensor<2xf32>)"))


def test_unknown_entry_names_the_functions() -> None:
    module = fxdsl.parse(TWO_FUNCS)
    with pytest.raises(
        ValueError, match=r"no function @nope .*@helper, @first, @second"
    ):
        run_reference(module, np.zeros(2, np.float32), entry="nope")


def test_fxdsl_run_uses_the_reference() -> None:
    module = fxdsl.parse(TWO_FUNCS)
    x = np.array([0.5, 3.0], np.float32)
    (out,) = fxdsl.run(module, x, entry="second")
    np.testing.assert_array_equal(out, np.exp(x))


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ((np.zeros((4, 8), np.float32),), r"@f takes 3 inputs, got 1"),
        (
            (np.zeros((4, 7), np.float32), np.zeros(3, np.int64), np.array(True)),
            r"argument 0 \(%x\): expected tensor<4x8xf32>, got float32 array of shape "
            r"\(4, 7\)",
        ),
        (
            (np.zeros((4, 8), np.float64), np.zeros(3, np.int64), np.array(True)),
            r"argument 0 \(%x\): expected tensor<4x8xf32>, got float64 array",
        ),
        (
            (np.zeros((4, 8), np.float32), np.zeros(3, np.int32), np.array(True)),
            r"argument 1 \(%n\): expected tensor<3xi64>, got int32 array "
            r"of shape \(3,\)",
        ),
        (
            (np.zeros((4, 8), np.float32), [1.5, 2.0, 3.0], True),
            r"argument 1 \(%n\): expected tensor<3xi64>, got float64 array",
        ),
        (
            (np.zeros((4, 8), np.float32), [1, 2], True),
            r"argument 1 \(%n\): expected tensor<3xi64>, got int64 array "
            r"of shape \(2,\)",
        ),
        (
            (np.zeros((4, 8), np.float32), [1, 2, 3], [True]),
            r"argument 2 \(%c\): expected tensor<i1>, got bool array of shape \(1,\)",
        ),
    ],
)
def test_input_mismatch_is_a_clear_error(
    inputs: tuple[object, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        run_reference(fxdsl.parse(MIXED), *inputs)


def test_python_lists_and_scalars_convert_when_shape_matches() -> None:
    module = fxdsl.parse(MIXED)
    x = [[float(i - j) for j in range(8)] for i in range(4)]
    (out,) = run_reference(module, x, [1, 2, 3], True)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.maximum(np.array(x, np.float32), 0))


def test_bf16_argument_takes_float32_and_rounds() -> None:
    module = fxdsl.parse("""func.func @f(%x: tensor<2xbf16>) -> tensor<2xbf16> {
      func.return %x : tensor<2xbf16>
    }""")
    (out,) = run_reference(module, np.array([1.0 + 2.0**-9, 2.0], np.float32))
    np.testing.assert_array_equal(out, np.array([1.0, 2.0], np.float32), strict=True)


RANK0_BF16 = """func.func @f(%x: tensor<4xbf16>) -> tensor<bf16> {
  %s = graph.sum %x dims [0] : (tensor<4xbf16>) -> tensor<bf16>
  func.return %s : tensor<bf16>
}"""


def test_rank0_bf16_result_keeps_its_shape() -> None:
    # bf16 rounding once made a rank-0 result 1-D (shape (1,))
    module = fxdsl.parse(RANK0_BF16)
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    for (out,) in (fxdsl.run(module, x), fxdsl.compile(module, backend="cpu")(x)):
        np.testing.assert_array_equal(out, np.array(10.0, np.float32), strict=True)


def test_outputs_are_fresh_writable_arrays() -> None:
    module = fxdsl.parse("""func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>,
                                                          tensor<2x3xf32>) {
      %b = graph.broadcast_to %x : (tensor<3xf32>) -> tensor<2x3xf32>
      func.return %x, %b : tensor<3xf32>, tensor<2x3xf32>
    }""")
    x = np.array([1.0, 2.0, 3.0], np.float32)
    same, broadcast = run_reference(module, x)
    same[0] = 99.0
    broadcast[0, 0] = 99.0
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])
    assert broadcast[1, 0] == 1.0


# --------------------------------------------------------------------------- #
# random_inputs
# --------------------------------------------------------------------------- #

ALL_TYPES = """func.func @f(%a: tensor<64x32xf32>, %b: tensor<16xf16>,
                          %c: tensor<16xbf16>,
                          %d: tensor<500xi32>, %e: tensor<500xi64>, %g: tensor<100xi1>)
                          -> tensor<64x32xf32> {
  func.return %a : tensor<64x32xf32>
}"""


def test_random_inputs_refuse_a_dynamic_dimension() -> None:
    # numpy once said "negative dimensions are not allowed"
    module = fxdsl.parse("""func.func @f(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
      func.return %x : tensor<4x?xf32>
    }""")
    with pytest.raises(ValueError, match=r"tensor<4x\?xf32> has a dynamic dim"):
        random_inputs(module)


def test_random_inputs_match_types_and_are_deterministic() -> None:
    module = fxdsl.parse(ALL_TYPES)
    inputs = random_inputs(module, seed=0)
    types = entry_function(module).function_type.inputs.data
    for array, typ in zip(inputs, types, strict=True):
        assert array.shape == tuple(typ.get_shape())  # type: ignore[attr-defined]
        assert array.dtype == numpy_dtype(typ.element_type)  # type: ignore[attr-defined]
    a, _, c, d, e, g = inputs
    assert abs(float(a.mean())) < 0.1
    assert 0.9 < float(a.std()) < 1.1
    assert float(np.abs(a).max()) <= 3.0
    assert float(np.abs(a).max()) > 2.5
    np.testing.assert_array_equal(c, round_to_bf16(c))
    assert d.min() >= 1
    assert d.max() <= 8
    assert e.min() >= 1
    assert e.max() <= 8
    assert 20 < int(g.sum()) < 80
    again = random_inputs(module, seed=0)
    other = random_inputs(module, seed=1)
    for x, y in zip(inputs, again):
        np.testing.assert_array_equal(x, y, strict=True)
    assert not np.array_equal(inputs[0], other[0])
    run_reference(module, *inputs, check_types=True)


INDEX_USES = """
func.func private @lookup(%i: tensor<6xi64>, %w: tensor<7x4xf32>) -> tensor<6x4xf32> {
  %r = graph.embedding %i, %w : (tensor<6xi64>, tensor<7x4xf32>) -> tensor<6x4xf32>
  func.return %r : tensor<6x4xf32>
}
func.func @f(%direct: tensor<2x3xi64>, %reshaped: tensor<2x3xi64>,
             %called: tensor<6xi64>,
             %grouped: tensor<2x3xi32>, %both: tensor<2x3xi64>, %plain: tensor<2x3xi64>,
             %w: tensor<50x4xf32>, %w7: tensor<7x4xf32>, %x: tensor<2x9xf32>)
    -> (tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<2x3xf32>,
        tensor<2x3x4xf32>, tensor<2x3xf32>) {
  %e1 = graph.embedding %direct, %w : (tensor<2x3xi64>, tensor<50x4xf32>)
          -> tensor<2x3x4xf32>
  %flat = graph.reshape %reshaped : (tensor<2x3xi64>) -> tensor<6xi64>
  %e2 = graph.embedding %flat, %w : (tensor<6xi64>, tensor<50x4xf32>) -> tensor<6x4xf32>
  %e3 = func.call @lookup(%called, %w7) : (tensor<6xi64>, tensor<7x4xf32>)
          -> tensor<6x4xf32>
  %g = graph.fusion_group (%x, %grouped) : (tensor<2x9xf32>, tensor<2x3xi32>)
         -> tensor<2x3xf32> {
  ^bb0(%xa: tensor<2x9xf32>, %ia: tensor<2x3xi32>):
    %r = graph.gather %xa, %ia dim 1 : (tensor<2x9xf32>, tensor<2x3xi32>)
           -> tensor<2x3xf32>
    graph.yield %r : tensor<2x3xf32>
  }
  %b1 = graph.embedding %both, %w : (tensor<2x3xi64>, tensor<50x4xf32>)
          -> tensor<2x3x4xf32>
  %b2 = graph.gather %x, %both dim 1 : (tensor<2x9xf32>, tensor<2x3xi64>)
          -> tensor<2x3xf32>
  func.return %e1, %e2, %e3, %g, %b1, %b2 : tensor<2x3x4xf32>, tensor<6x4xf32>,
    tensor<6x4xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>, tensor<2x3xf32>
}
"""


@pytest.mark.parametrize("seed", range(5))
def test_random_indices_are_in_range_of_every_use(seed: int) -> None:
    module = fxdsl.parse(INDEX_USES)
    inputs = random_inputs(module, seed=seed)
    direct, reshaped, called, grouped, both, plain = inputs[:6]
    assert direct.min() >= 0
    assert direct.max() < 50
    assert direct.max() >= 8
    assert reshaped.min() >= 0
    assert reshaped.max() < 50
    assert reshaped.max() >= 8
    assert called.min() >= 0
    assert called.max() < 7
    assert grouped.dtype == np.int32
    assert grouped.min() >= 0
    assert grouped.max() < 9
    assert both.min() >= 0
    assert both.max() < 9
    assert plain.min() >= 1
    assert plain.max() <= 8
    run_reference(module, *inputs, check_types=True)


def test_dtype_helpers_round_trip() -> None:
    for typ in (f32, f16, i64, i32, i1):
        assert element_type_of(numpy_dtype(typ)) == typ
    assert numpy_dtype(bf16) == np.float32
    assert element_type_of(np.float32) == f32
    with pytest.raises(ValueError, match="complex128 has no fxdsl element type"):
        element_type_of(np.complex128)


def test_branches_between_blocks_run() -> None:
    """cf.br with block arguments: the reference follows the control flow."""
    module = fxdsl.parse("""
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  cf.br ^next(%e : tensor<4xf32>)
^next(%v: tensor<4xf32>):
  %n = graph.neg %v : tensor<4xf32>
  func.return %n : tensor<4xf32>
}
""")
    x = np.arange(4, dtype=np.float32)
    (y,) = run_reference(module, x)
    np.testing.assert_allclose(y, -np.exp(x), rtol=1e-6)
