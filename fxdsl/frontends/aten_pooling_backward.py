"""ATen handlers: the gradients of average pooling, for training CNNs
(Inception's and NFNet's 3x3 average pools, an adaptive pool's head).

Average pooling is linear, so its gradient spreads each output's gradient,
divided by that window's divisor, evenly over the window's inputs:

* `avg_pool2d_backward`, `avg_pool3d_backward`: the divisors (torch's:
  the window clipped to the padded input, or to the input itself without
  `count_include_pad`, or the override) are constants of the shapes; the
  gradient divided by them is spread by a transposed depthwise convolution
  with a kernel of ones (the transposed conv of `aten_conv`: stride,
  padding, and `ceil_mode`'s extra windows cropped as its output padding;
  3-D as 2-D, one dim more).
* `_adaptive_avg_pool2d_backward`, `..._3d_...`: windows of varying size,
  so per spatial dim a constant (out, in) matrix of window membership over
  its length; the gradient is `A_h^T G A_w`, two GEMMs (3-D: a third over
  the depth, with (H, W) flattened).

16-bit gradients are spread in f32 and rounded once, as torch's kernels
accumulate.
"""

from __future__ import annotations

import numpy as np

from fxdsl.frontends.aten_conv import batched, conv_transpose, per_dim
from fxdsl.frontends.aten_pooling import adaptive_bounds
from fxdsl.frontends.aten_registry import AtenCall, aten, cast_to, in_f32
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


def _divisors(
    size: int, out: int, kernel: int, stride: int, padding: int, include_pad: bool
) -> np.ndarray:
    """torch's divisor of each of the `out` windows along one dim."""
    start = np.arange(out) * stride - padding
    end = np.minimum(start + kernel, size + padding)
    if include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


@aten("avg_pool2d_backward.default", "avg_pool3d_backward.default")
def _avg_pool_backward(call: AtenCall) -> Tensor:
    grad, x = call.args[:2]
    rank = 2 if call.target == "aten.avg_pool2d_backward.default" else 3
    kernel = per_dim(call.args[2], rank)
    stride = per_dim(call.args[3] or kernel, rank)
    padding = per_dim(call.args[4], rank)
    include_pad, override = bool(call.args[6]), call.arg(7, "divisor_override")
    spatial, out = list(x.shape[-rank:]), list(grad.shape[-rank:])
    divisor = np.ones([1] * rank)
    if override:
        divisor = np.full(out, float(override))
    else:
        for axis, (n, o, k, s, p) in enumerate(
            zip(spatial, out, kernel, stride, padding)
        ):
            lengths = _divisors(n, o, k, s, p, include_pad)
            divisor = divisor * lengths.reshape(
                [-1 if a == axis else 1 for a in range(rank)]
            )
    # the input rows past the last window (ceil_mode's windows may reach
    # past the padded input: a negative count crops)
    extra = [
        n - ((o - 1) * s - 2 * p + k)
        for n, o, s, p, k in zip(spatial, out, stride, padding, kernel)
    ]

    def spread(g: Tensor) -> Tensor:
        channels = g.shape[1]
        scaled = ops.div(in_f32(g), ops.constant(divisor.astype(np.float32), "f32"))
        ones = ops.full([channels, 1, *kernel], 1.0, "f32")
        window = (stride, padding, extra, [1] * rank, channels)
        return conv_transpose(scaled, ones, None, *window)

    return cast_to(batched(grad, rank, spread), call.dtype)


def _membership(size: int, out: int) -> np.ndarray:
    """(out, size): row `o` is 1 / its length over adaptive window `o`
    (`[floor(o n / out), ceil((o + 1) n / out))`), 0 elsewhere."""
    starts, ends = adaptive_bounds(size, out)
    inside = (np.arange(size)[None] >= starts[:, None]) & (
        np.arange(size)[None] < ends[:, None]
    )
    return inside / (ends - starts)[:, None]


@aten("_adaptive_avg_pool2d_backward.default", "_adaptive_avg_pool3d_backward.default")
def _adaptive_avg_pool_backward(call: AtenCall) -> Tensor:
    grad, x = call.args[:2]
    rank = 2 if "pool2d" in call.target else 3
    out, spatial = grad.shape[-rank:], x.shape[-rank:]
    rows, cols = _membership(spatial[-2], out[-2]), _membership(spatial[-1], out[-1])
    spread = ops.matmul(in_f32(grad), _constant(cols))  # (..., OH, W)
    result = ops.matmul(_constant(rows.T), spread)  # (..., H, W)
    if rank == 3:  # then depth: (..., OD, H W) to (..., D, H W)
        lead = list(grad.shape[:-3])
        plane = ops.reshape(result, [*lead, out[0], spatial[1] * spatial[2]])
        depth = _constant(_membership(spatial[0], out[0]).T)
        result = ops.reshape(ops.matmul(depth, plane), list(x.shape))
    return cast_to(result, call.dtype)


def _constant(matrix: np.ndarray) -> Tensor:
    return ops.constant(matrix.astype(np.float32), "f32")
