"""QAT's fake quantization (`torch.ao.quantization.FakeQuantize` and
`fake_quantize_per_*_affine`), forward values and the gradient masks, as
torch's CPU kernels compute them (`QuantizedOpKernels.cpp`):

* `inv_scale = 1.0f / scale`, in f32;
* `q = zero_point + nearbyint(x * inv_scale)`: the product in f32 (a
  16-bit x widened; an f64 x in f64), rounded half to even, then the zero
  point added in that type;
* per tensor: `mask = qmin <= q <= qmax`, the output `(fmin(fmax(q, qmin),
  qmax) - zero_point) * scale` in f32 (`fmax` takes a NaN to `qmin`),
  rounded once to x's type;
* per channel: the same, with `scale` and `zero_point` along `axis`; the
  product is a double rounded to x's type (for f32 and 16-bit x the f32
  product, which is exact before that rounding).

The integers involved stay exact in f32 only up to 2^24, so a range
wider than +-2^23 is left to torch, as is a per-channel float zero point
(its kernel rounds after adding it, through `lrintf`, and multiplies in
double). A per-channel NaN or +-inf input converts to int64 in torch,
which C++ leaves undefined (x86 gives `qmin` for both); here, as per
tensor: NaN gives `qmin`, +-inf the bound on its side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fxdsl.frontends.aten_math import round_half_even
from fxdsl.frontends.aten_registry import (
    AtenCall,
    UnsupportedNode,
    aten,
    cast_to,
    dim_of,
    is_integer,
)
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

_EXACT_RANGE = 2**23
"""The largest |qmin|, |qmax| whose differences f32 holds exactly."""


def _compute_type(x: Tensor) -> str:
    """The type of torch's `x * inv_scale`: a float times a C++ float."""
    return "f64" if x.dtype == "f64" else "f32"


def _check_range(call: AtenCall, quant_min: int, quant_max: int) -> None:
    if max(abs(quant_min), abs(quant_max)) > _EXACT_RANGE:
        raise UnsupportedNode(
            f"{call.target}: range [{quant_min}, {quant_max}] is wider than "
            f"+-2^23, beyond f32's exact integers"
        )


def _fake_quantize(
    x: Tensor,
    inv_scale: Any,
    scale: Any,
    zero_point: Any,
    bounds: tuple[int, int],
    product: str,
) -> tuple[Tensor, Tensor]:
    """(fake-quantized x in `product`, mask) for qparams already in x's
    compute type (Python numbers or broadcastable tensors); `scale` and
    the zero point subtracted again are in `product`."""
    quant_min, quant_max = bounds
    q = ops.add(round_half_even(ops.mul(x, inv_scale)), zero_point)
    mask = ops.logical_and(ops.ge(q, float(quant_min)), ops.le(q, float(quant_max)))
    # fmin(fmax(q, qmin), qmax): NaN compares false and takes qmin
    low = ops.where(ops.ge(q, float(quant_min)), q, float(quant_min))
    clamped = ops.where(ops.gt(q, float(quant_max)), float(quant_max), low)
    shift = cast_to(zero_point, product)
    out = ops.mul(ops.sub(cast_to(clamped, product), shift), cast_to(scale, product))
    return out, mask


def _per_tensor(
    call: AtenCall, scale: Any, zero_point: Any, bounds: tuple[int, int]
) -> tuple[Tensor, Tensor]:
    x: Tensor = call.args[0]
    _check_range(call, *bounds)
    compute = _compute_type(x)
    if isinstance(scale, Tensor):  # `.item().toFloat()`, `.item().toInt()`
        scale = cast_to(ops.reshape(scale, []), "f32")
        inv_scale = cast_to(ops.div(1.0, scale), compute)
        zero_point = cast_to(cast_to(ops.reshape(zero_point, []), "i64"), compute)
    else:
        scale = float(np.float32(scale))
        inv_scale = float(np.float32(1.0) / np.float32(scale))
        zero_point = float(int(zero_point))
    # `(qval - z_point) * sc`: an int64 times a C++ float is a float
    out, mask = _fake_quantize(
        cast_to(x, compute), inv_scale, scale, zero_point, bounds, "f32"
    )
    return cast_to(out, x.dtype), mask


def _int_bounds(call: AtenCall, first: int) -> tuple[int, int]:
    return int(call.arg(first, "quant_min")), int(call.arg(first + 1, "quant_max"))


@aten("fake_quantize_per_tensor_affine_cachemask.default")
def _per_tensor_cachemask(call: AtenCall) -> tuple[Tensor, Tensor]:
    return _per_tensor(call, call.args[1], call.args[2], _int_bounds(call, 3))


@aten("fake_quantize_per_tensor_affine.default")
@aten("fake_quantize_per_tensor_affine.tensor_qparams")
def _per_tensor_values(call: AtenCall) -> Tensor:
    return _per_tensor(call, call.args[1], call.args[2], _int_bounds(call, 3))[0]


@aten("_fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default")
def _per_tensor_enabled(call: AtenCall) -> tuple[Tensor, Tensor]:
    x: Tensor = call.args[0]
    enabled: Tensor = call.args[3]
    out, mask = _per_tensor(call, call.args[1], call.args[2], _int_bounds(call, 4))
    # `fake_quant_enabled.item()`: off, x passes through with an all-true mask
    on = ops.ne(cast_to(ops.reshape(enabled, []), "i64"), 0)
    return ops.where(on, out, x), ops.logical_or(mask, ops.logical_not(on))


def _per_channel(call: AtenCall) -> tuple[Tensor, Tensor]:
    x: Tensor = call.args[0]
    scale: Tensor = call.args[1]
    zero_point: Tensor = call.args[2]
    bounds = _int_bounds(call, 4)
    _check_range(call, *bounds)
    if not is_integer(zero_point.dtype):
        raise UnsupportedNode(
            f"{call.target}: a float zero point (torch rounds after adding it, "
            f"in double)"
        )
    axis = dim_of(x, int(call.arg(3, "axis")))
    along = [1] * x.ndim
    along[axis] = x.shape[axis]
    compute = _compute_type(x)
    # the kernel's product is a double: exact, then rounded to x's type
    product = compute if x.dtype in ("f32", "f64") else "f32"
    scale = ops.reshape(cast_to(scale, "f32"), along)
    inv_scale = cast_to(ops.div(1.0, scale), compute)
    shift = cast_to(ops.reshape(zero_point, along), compute)
    out, mask = _fake_quantize(
        cast_to(x, compute), inv_scale, scale, shift, bounds, product
    )
    return cast_to(out, x.dtype), mask


@aten("fake_quantize_per_channel_affine_cachemask.default")
def _per_channel_cachemask(call: AtenCall) -> tuple[Tensor, Tensor]:
    return _per_channel(call)


@aten("fake_quantize_per_channel_affine.default")
def _per_channel_values(call: AtenCall) -> Tensor:
    return _per_channel(call)[0]
