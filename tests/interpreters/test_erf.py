"""The reference interpreter's vectorised erf against `math.erf`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fxdsl.interpreters.erf import SATURATION, STEP, erf, table_erf

_MATH_ERF = np.frompyfunc(math.erf, 1, 1)


def _grid() -> np.ndarray:
    dense = np.linspace(-7.0, 7.0, 400_001)
    tiny = np.geomspace(1e-310, 7.0, 20_000)  # subnormals up to saturation
    # grid points and the midpoints between them, where |h| is largest
    knots = np.arange(int(SATURATION * STEP) * 2 + 2) / (2 * STEP)
    return np.concatenate([dense, tiny, -tiny, knots, -knots, np.nextafter(knots, 9)])


def test_the_table_within_two_ulp_of_math_erf() -> None:
    x = _grid()
    want = _MATH_ERF(x).astype(np.float64)
    got = table_erf(x)
    ulp = np.abs(got - want) / np.spacing(np.abs(want))
    assert ulp.max() <= 2.0, f"{ulp.max()} ulp at x = {x[ulp.argmax()]!r}"


def test_float32_rounds_as_math_erf() -> None:
    x = _grid().astype(np.float32)
    want = _MATH_ERF(x.astype(np.float64)).astype(np.float32)
    got = erf(x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("x", "want"),
    [
        (0.0, 0.0),
        (-0.0, -0.0),
        (np.inf, 1.0),
        (-np.inf, -1.0),
        (6.0, 1.0),
        (-1e300, -1.0),
        (5e-324, math.erf(5e-324)),
    ],
)
def test_special_values(x: float, want: float) -> None:
    (got,) = table_erf(np.array([x]))
    assert got == want
    assert np.signbit(got) == np.signbit(want)


def test_nan_and_shape_kept() -> None:
    x = np.array([[np.nan, 0.5], [-np.nan, -2.0]], dtype=np.float32)
    got = erf(x)
    assert got.shape == (2, 2)
    assert got.dtype == np.float32
    assert np.isnan(got[:, 0]).all()
    assert got[0, 1] == np.float32(math.erf(0.5))
    assert got[1, 1] == np.float32(math.erf(-2.0))


def test_zero_size() -> None:
    assert erf(np.zeros((0, 3), np.float32)).shape == (0, 3)


def test_float64_is_math_erf() -> None:
    x = _grid()
    np.testing.assert_array_equal(erf(x), _MATH_ERF(x).astype(np.float64))
