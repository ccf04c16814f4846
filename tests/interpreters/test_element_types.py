"""The element types beyond the kernels' (f64, i16, i8, ui8): numpy
dtypes both ways, dense storage, the reference computing in each type's own
precision and width, and the GPU lowering refusing each at its op."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.utils.exceptions import PassFailedException

from fxdsl.api import apply, parse
from fxdsl.interpreters.run import run_reference
from fxdsl.ir import graph
from fxdsl.ir.dtypes import element_type_of, from_bytes, numpy_dtype, to_bytes

NEW_TYPES = {"f64": np.float64, "i16": np.int16, "i8": np.int8, "ui8": np.uint8}


@pytest.mark.parametrize("name", NEW_TYPES)
def test_numpy_dtype_both_ways(name: str) -> None:
    element = {str(t): t for t in graph.ELEMENT_TYPES}[name]
    assert numpy_dtype(element) == np.dtype(NEW_TYPES[name])
    assert element_type_of(NEW_TYPES[name]) == element
    values = np.array([0, 1, 100, 255 if name == "ui8" else -7], NEW_TYPES[name])
    back = from_bytes(to_bytes(values, element), element, (4,))
    assert back.dtype == values.dtype
    np.testing.assert_array_equal(back, values)


def _run(text: str, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    return run_reference(parse(text), *inputs, check_types=True)


def test_f64_computes_in_double_precision() -> None:
    # exp(1 + 1e-12) in float64 keeps the 1e-12 that float32 loses
    (y,) = _run(
        """func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
             %y = graph.exp %x : tensor<2xf64>
             %s = graph.softmax %y dim 0 : tensor<2xf64>
             func.return %s : tensor<2xf64>
           }""",
        np.array([1.0, 1.0 + 1e-12]),
    )
    e = np.exp(np.array([1.0, 1.0 + 1e-12]))
    want = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, want, rtol=1e-15)
    assert y[1] != y[0]


def test_small_integers_wrap_in_their_width() -> None:
    x = np.array([250, 3], np.uint8)
    (u, s, c) = _run(
        """func.func @f(%x: tensor<2xui8>) -> (tensor<2xui8>, tensor<2xi8>, tensor<2xi16>) {
             %u = graph.add %x, %x : tensor<2xui8>
             %s = graph.cast %x : (tensor<2xui8>) -> tensor<2xi8>
             %c = graph.cast %x : (tensor<2xui8>) -> tensor<2xi16>
             %d = graph.mul %c, %c : tensor<2xi16>
             func.return %u, %s, %d : tensor<2xui8>, tensor<2xi8>, tensor<2xi16>
           }""",
        x,
    )
    np.testing.assert_array_equal(u, np.array([244, 6], np.uint8))
    np.testing.assert_array_equal(s, np.array([-6, 3], np.int8))
    np.testing.assert_array_equal(c, np.array([-3036, 9], np.int16))  # 62500 wraps


@pytest.mark.parametrize("name", NEW_TYPES)
def test_the_gpu_lowering_refuses_each_at_its_op(name: str) -> None:
    module = parse(
        f"""func.func @f(%x: tensor<4x{name}>) -> tensor<4x{name}> {{
              %y = graph.add %x, %x : tensor<4x{name}>
              func.return %y : tensor<4x{name}>
            }}"""
    )
    with pytest.raises(
        PassFailedException, match=f"graph.add has a tensor of element type {name}"
    ):
        apply(module, "convert-graph-to-gpu")
