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
aten = torch.ops.aten


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


# QAT's fake quantization (`aten_fake_quantize`): ties at .5 on both sides
# of zero, both ends saturated, NaN, +-inf and -0.0, in every float type
FQ = torch.cat(
    [
        torch.randn(504) * 4,
        torch.arange(-300, 300) * 0.05 + 0.025,
        torch.tensor([0.0, -0.0, -0.01, float("nan"), float("inf"), -float("inf")]),
        torch.tensor([1e30, -1e30]),
    ]
)
FLOATS = [torch.float32, torch.bfloat16, torch.float16, torch.float64]


def _check_bits(fn: Any, *args: Any) -> None:
    """Compiled whole, and equal to eager bit for bit (NaN where eager's
    is, the sign of zeros too)."""
    outcome = Outcome()
    with torch.no_grad(), counting_plans(outcome):
        got = torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})(*args)
    want = fn(*args)
    assert outcome.compiled == outcome.total > 0, outcome.summary()
    for mine, eager in zip(got, want, strict=True):
        assert mine.dtype == eager.dtype
        if eager.is_floating_point():
            assert torch.equal(mine.isnan(), eager.isnan())
            assert torch.equal(mine.signbit(), eager.signbit())
            mine, eager = mine.nan_to_num(0.0), eager.nan_to_num(0.0)
        assert torch.equal(mine, eager), (mine, eager)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_fake_quantize_per_tensor_and_its_mask(dtype: Any) -> None:
    def fn(x: Any) -> Any:
        plain = torch.fake_quantize_per_tensor_affine(x, 0.1, 3, 0, 255)
        out, mask = aten.fake_quantize_per_tensor_affine_cachemask(
            x, 0.1, -5, -128, 127
        )
        return plain, out, mask

    _check_bits(fn, FQ.to(dtype))


@pytest.mark.parametrize("enabled", [1, 0])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_fake_quantize_per_tensor_with_tensor_qparams(dtype: Any, enabled: int) -> None:
    """As `FakeQuantize` calls it: scale and zero point are 0-d tensors
    (its buffers), and `fake_quant_enabled` off passes x through."""

    def fn(x: Any, scale: Any, zero_point: Any, on: Any) -> Any:
        plain = torch.fake_quantize_per_tensor_affine(x, scale, zero_point, -8, 7)
        out, mask = aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            x, scale, zero_point, on, -128, 127
        )
        return plain, out, mask

    scale, zero_point = torch.tensor([0.07]), torch.tensor([-3], dtype=torch.int32)
    _check_bits(fn, FQ.to(dtype), scale, zero_point, torch.tensor([enabled]))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_fake_quantize_per_channel(dtype: Any, axis: int) -> None:
    def fn(x: Any, scales: Any, zero_points: Any) -> Any:
        plain = torch.fake_quantize_per_channel_affine(
            x, scales, zero_points, axis, -128, 127
        )
        out, mask = aten.fake_quantize_per_channel_affine_cachemask(
            x, scales, zero_points, axis, -128, 127
        )
        return plain, out, mask

    # finite values: torch converts NaN and inf to int64 per channel, which
    # C++ leaves undefined
    x = FQ[:-8].reshape(4, 3, -1).to(dtype)
    scales = torch.tensor([0.05, 0.013, 0.5, 0.2])[: x.shape[axis]]
    zero_points = torch.tensor([0, -3, 5, -128], dtype=torch.int32)[: x.shape[axis]]
    _check_bits(fn, x, scales, zero_points)


class _QatLinear(torch.nn.Module):
    """What a QAT-prepared linear computes: FakeQuantize's functional calls
    on its scale and zero-point buffers (Dynamo skips `torch.ao` modules
    themselves, so export is how such a model reaches fxdsl whole)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 4)
        self.register_buffer("scale", torch.tensor([0.05]))
        self.register_buffer("zero_point", torch.tensor([2], dtype=torch.int32))
        self.register_buffer("w_scales", torch.rand(4) * 0.02 + 0.005)
        self.register_buffer("w_zeros", torch.zeros(4, dtype=torch.int32))

    def forward(self, x: Any) -> Any:
        x = torch.fake_quantize_per_tensor_affine(
            x, self.scale, self.zero_point, -128, 127
        )
        w = torch.fake_quantize_per_channel_affine(
            self.linear.weight, self.w_scales, self.w_zeros, 0, -127, 127
        )
        return torch.nn.functional.linear(x, w, self.linear.bias)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_fake_quantized_linear_imports_at_both_levels(decompose: bool) -> None:
    import fxdsl

    model, x = _QatLinear().eval(), torch.randn(3, 8) * 4
    program = fxdsl.from_torch(model, (x,), decompose=decompose)
    (got,) = program.run(x)
    torch.testing.assert_close(torch.from_numpy(got), model(x).detach())
