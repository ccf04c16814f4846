"""ATen handler: `convolution_backward`, the gradients of a convolution.

`convolution_backward(grad_output, input, weight, bias_sizes, stride,
padding, dilation, transposed, output_padding, groups, output_mask)`
returns (grad_input, grad_weight, grad_bias), each only where `output_mask`
asks for it (None elsewhere: a first layer's input needs no gradient).
Training a model with convolutions (ConvBERT's and Whisper's conv1d, any
CNN) has one per layer in its backward graph; built here from the forward's
own pieces (`aten_conv`):

* grad_input of a convolution is the transposed convolution of
  grad_output by the same weight, its `output_padding` the rows the
  forward's floor division dropped; of a transposed convolution, the
  convolution.
* grad_weight is a correlation of the input's windows with grad_output:
  the windows the forward read (the input padded, one strided slice per
  kernel tap: `windows`), contracted with grad_output over the batch and
  the output positions, one GEMM per group. For a transposed convolution
  the roles swap: grad_output's windows, contracted with the input.
* grad_bias sums grad_output over all but its channel dim.
"""

from __future__ import annotations

import itertools
import math

from fxdsl.frontends.aten_conv import conv, conv_transpose, pad, per_dim
from fxdsl.frontends.aten_registry import AtenCall, UnsupportedNode, aten
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


def windows(
    x: Tensor,
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    out: list[int],
) -> Tensor:
    """(N, C, K, *out): for each of the K = prod(kernel) taps (row-major,
    as a weight's taps are ordered), the elements of `x` (N, C, *spatial)
    padded by `padding` that the tap meets at each of the `out` positions."""
    n, channels = x.shape[:2]
    for axis, size in enumerate(padding):
        x = pad(x, 2 + axis, size, size)
    taps = []
    for tap in itertools.product(*(range(k) for k in kernel)):
        start = [0, 0, *[t * d for t, d in zip(tap, dilation, strict=True)]]
        limit = [n, channels]
        limit += [s + (m - 1) * st + 1 for s, m, st in zip(start[2:], out, stride)]
        picked = ops.slice(x, start, limit, [1, 1, *stride])
        taps.append(ops.reshape(picked, [n, channels, 1, *out]))
    return taps[0] if len(taps) == 1 else ops.concat(taps, 2)


def weight_gradient(
    windowed: Tensor,
    other: Tensor,
    kernel: list[int],
    window: tuple[list[int], list[int], list[int]],
    groups: int,
) -> Tensor:
    """(C_other, C_windowed / G, *kernel): per group g, `other`'s channels
    of g (N, Co/G, *out) times the windows of `windowed`'s channels of g,
    summed over the batch and the positions of `other`."""
    stride, padding, dilation = window
    n, c_other, *out = other.shape
    c_win = windowed.shape[1]
    taps, positions = math.prod(kernel), math.prod(out)
    patches = windows(windowed, kernel, stride, padding, dilation, out)
    # (N, G, Cw/G, K, L) -> (G, N, L, Cw/G, K) -> (G, N L, Cw/G K)
    patches = ops.reshape(patches, [n, groups, c_win // groups, taps, positions])
    patches = ops.transpose(patches, [1, 0, 4, 2, 3])
    patches = ops.reshape(patches, [groups, n * positions, c_win // groups * taps])
    # (N, G, Co/G, L) -> (G, Co/G, N, L) -> (G, Co/G, N L)
    rows = ops.reshape(other, [n, groups, c_other // groups, positions])
    rows = ops.transpose(rows, [1, 2, 0, 3])
    rows = ops.reshape(rows, [groups, c_other // groups, n * positions])
    product = ops.matmul(rows, patches)  # (G, Co/G, Cw/G K)
    return ops.reshape(product, [c_other, c_win // groups, *kernel])


@aten("convolution_backward.default")
def _convolution_backward(call: AtenCall) -> tuple[Tensor | None, ...]:
    grad, x, weight = call.args[:3]
    # output_padding (args[8]) needs no use: a transposed conv's input
    # gradient is the plain conv, whose floor division drops those rows
    # (all but floor(output_padding / stride) of them: an output_padding
    # of a stride or more, allowed below the dilation, reads past x's end;
    # those rows are cropped)
    stride, padding, dilation, transposed = call.args[4:8]
    groups = int(call.args[9])
    mask = list(call.args[10])
    if call.used is not None:  # what the graph reads of what torch computes
        mask = [m and i in call.used for i, m in enumerate(mask)]
    rank = weight.ndim - 2
    if grad.ndim != rank + 2:
        raise UnsupportedNode("convolution_backward of an unbatched input")
    stride, padding = per_dim(stride, rank), per_dim(padding, rank)
    dilation = per_dim(dilation, rank)
    kernel = list(weight.shape[2:])
    results: list[Tensor | None] = [None, None, None]
    if mask[0]:
        if transposed:
            spread = conv(grad, weight, None, stride, padding, dilation, groups)
            if spread.shape != x.shape:
                spread = ops.slice(spread, [0] * x.ndim, list(x.shape))
            results[0] = spread
        else:
            # the input rows the forward's floor division left unread
            dropped = [
                size - ((o - 1) * s - 2 * p + d * (k - 1) + 1)
                for size, o, s, p, d, k in zip(
                    x.shape[2:], grad.shape[2:], stride, padding, dilation, kernel
                )
            ]
            results[0] = conv_transpose(
                grad, weight, None, stride, padding, dropped, dilation, groups
            )
    if mask[1]:
        window = (stride, padding, dilation)
        if transposed:
            results[1] = weight_gradient(grad, x, kernel, window, groups)
        else:
            results[1] = weight_gradient(x, grad, kernel, window, groups)
    if mask[2]:
        results[2] = ops.sum(grad, [0, *range(2, grad.ndim)])
    return tuple(results)
