"""PT2E quantization's quantize/dequantize ops (`quantized_decomposed`,
which `torch.ao.quantization.quantize_pt2e` puts around every quantized
op) as torch computes them, for `aten_decompositions.OWN`: their kernels
are Python registered as CompositeExplicitAutograd, so torch offers no
decomposition and each ran in torch, splitting the graph at every
quantized layer.

* quantize: `clamp(round(x * (1 / scale)) + zero_point, qmin, qmax)` in
  the quantized dtype (a 16-bit x in f32 first); the reciprocal is taken
  in float64 and the product in x's type, as torch's Python float does;
* dequantize: `(q - zero_point) * scale` in `out_dtype` (f32 by default;
  per channel the difference is taken in integers, then multiplied);
* per channel: the scales and zero points along `axis`, broadcast.

The `.tensor` overloads take 0-d tensors for scale and zero point; torch
reads them with `.item()`, which a graph cannot, so they stay tensors,
with the same arithmetic. (A float64 scale, as PT2E's `choose_qparams`
gives, keeps its reciprocal's node in torch on a GPU, whose kernels take
no f64.)
"""

from __future__ import annotations

from typing import Any


def _float_input(x: Any) -> Any:
    import torch

    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _reciprocal(scale: Any, like: Any) -> Any:
    """1 / scale in float64, then in `like`'s type (a Python float's path)."""
    import torch

    if isinstance(scale, torch.Tensor):
        return (1.0 / scale.double()).to(like.dtype)
    return 1.0 / scale


def quantize_per_tensor(
    x: Any, scale: Any, zero_point: Any, quant_min: int, quant_max: int, dtype: Any
) -> Any:
    import torch

    x = _float_input(x)
    scaled = torch.round(x * _reciprocal(scale, x)) + zero_point
    return torch.clamp(scaled, quant_min, quant_max).to(dtype)


def dequantize_per_tensor(
    q: Any,
    scale: Any,
    zero_point: Any,
    quant_min: int,
    quant_max: int,
    dtype: Any,
    *,
    out_dtype: Any = None,
) -> Any:
    import torch

    # a 0-d scale multiplies as torch's Python float does: in the compute
    # type of `out_dtype`, unrounded to a 16-bit out_dtype first
    return (q.to(out_dtype or torch.float32) - zero_point) * scale


def _along(values: Any, axis: int, ndim: int) -> Any:
    """A per-channel vector shaped to broadcast along `axis`."""
    shape = [1] * ndim
    shape[axis] = -1
    return values.reshape(shape)


def quantize_per_channel(
    x: Any,
    scales: Any,
    zero_points: Any,
    axis: int,
    quant_min: int,
    quant_max: int,
    dtype: Any,
) -> Any:
    import torch

    x = _float_input(x)
    axis = axis % x.dim()
    # as torch: x times the reciprocal tensor promotes to the scales' type
    inverse = _along(1.0 / scales, axis, x.dim())
    shifted = torch.round(x * inverse) + _along(zero_points, axis, x.dim())
    return torch.clamp(shifted, quant_min, quant_max).to(dtype)


def dequantize_per_channel(
    q: Any,
    scales: Any,
    zero_points: Any,
    axis: int,
    quant_min: int,
    quant_max: int,
    dtype: Any,
    *,
    out_dtype: Any = None,
) -> Any:
    import torch

    axis = axis % q.dim()
    # as torch: the integer difference times the scales, then the cast
    shifted = q if zero_points is None else q - _along(zero_points, axis, q.dim())
    product = shifted * _along(scales, axis, q.dim())
    return product.to(out_dtype or torch.float32)


DECOMPOSITIONS = {
    "quantized_decomposed.quantize_per_tensor.default": quantize_per_tensor,
    "quantized_decomposed.quantize_per_tensor.tensor": quantize_per_tensor,
    "quantized_decomposed.quantize_per_tensor.tensor2": quantize_per_tensor,
    "quantized_decomposed.dequantize_per_tensor.default": dequantize_per_tensor,
    "quantized_decomposed.dequantize_per_tensor.tensor": dequantize_per_tensor,
    "quantized_decomposed.dequantize_per_tensor.tensor2": dequantize_per_tensor,
    "quantized_decomposed.quantize_per_channel.default": quantize_per_channel,
    "quantized_decomposed.dequantize_per_channel.default": dequantize_per_channel,
}
"""By overload name, for `aten_decompositions.OWN`."""
