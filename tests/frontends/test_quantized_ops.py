"""PT2E quantization's quantize/dequantize ops (`quantized_decomposed`,
around every layer `quantize_pt2e` quantizes) through the backend: all
compiled, the quantized tensors equal to eager's exactly (ties at .5 round
to even, values clamp to the range), the dequantized ones to float
rounding. Before, each ran in torch (`aten_quantized`)."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from torch.ao.quantization.fx import _decomposed  # noqa: E402,F401 - the ops

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
qd = torch.ops.quantized_decomposed


def _check(fn: Any, *args: Any) -> None:
    outcome = Outcome()
    with torch.no_grad(), counting_plans(outcome):
        got = torch.compile(fn, backend="fxdsl")(*args)
    want = fn(*args)
    assert outcome.compiled == outcome.total > 0, outcome.summary()
    for mine, eager in zip(got, want, strict=True):
        assert mine.dtype == eager.dtype
        if eager.is_floating_point():
            torch.testing.assert_close(mine, eager, rtol=1e-6, atol=1e-6)
        else:
            assert torch.equal(mine, eager), (mine, eager)


# 0.05 * k and 0.05 * (k + 1/2): exact multiples and ties, and values past
# both ends of the range
X = torch.cat([torch.arange(-80, 80) * 0.025, torch.tensor([1e3, -1e3, 0.0])])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_per_tensor_round_trip(dtype: Any) -> None:
    def fn(x: Any) -> Any:
        q = qd.quantize_per_tensor(x, 0.05, 3, 0, 255, torch.uint8)
        return q, qd.dequantize_per_tensor(q, 0.05, 3, 0, 255, torch.uint8)

    _check(fn, X.to(dtype))


def test_per_tensor_with_tensor_parameters() -> None:
    def fn(x: Any, scale: Any, zero_point: Any) -> Any:
        q = qd.quantize_per_tensor.tensor(x, scale, zero_point, -128, 127, torch.int8)
        back = qd.dequantize_per_tensor.tensor(
            q, scale, zero_point, -128, 127, torch.int8
        )
        return q, back

    scale = torch.tensor(0.03, dtype=torch.float64)
    _check(fn, X, scale, torch.tensor(-2))


@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16], ids=str)
def test_dequantize_into_16_bits_keeps_the_scale_unrounded(out_dtype: Any) -> None:
    """torch multiplies by the scale as a Python float, in f32, and rounds
    the product once; a scale rounded to the 16-bit type first differs in
    a quarter of the values."""

    def fn(q: Any, scale: Any, zero_point: Any) -> Any:
        return (
            qd.dequantize_per_tensor.tensor(
                q, scale, zero_point, 0, 255, torch.uint8, out_dtype=out_dtype
            ),
        )

    q = torch.arange(256, dtype=torch.uint8)
    _check(fn, q, torch.tensor(0.0123, dtype=torch.float64), torch.tensor(7))


def test_per_channel_weights_in_a_linear_layer() -> None:
    def fn(x: Any, w: Any, scales: Any, zero_points: Any) -> Any:
        qw = qd.quantize_per_channel(w, scales, zero_points, 0, -127, 127, torch.int8)
        dq = qd.dequantize_per_channel(
            qw, scales, zero_points, 0, -127, 127, torch.int8
        )
        return qw, torch.nn.functional.linear(x, dq)

    generator = torch.Generator().manual_seed(0)
    w = torch.randn(5, 8, generator=generator)
    scales = torch.rand(5, generator=generator, dtype=torch.float64) * 0.02 + 0.005
    zero_points = torch.tensor([0, 1, -1, 2, 0])
    _check(fn, torch.randn(4, 8, generator=generator), w, scales, zero_points)
