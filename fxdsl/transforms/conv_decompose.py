"""`graph-decompose`'s patterns for conv nets: convolution, pooling and batch
norm become ops that already lower (views, concat, elementwise ops,
reductions and `graph.matmul`), so they reach the GPU through the kernels
and the cuBLAS call that exist, and fuse with their neighbours.

Why decompose instead of a conv kernel of its own: the GEMM that does a
convolution's work is cuBLAS's, already tuned; the windows are index
arithmetic that the view rules already generate; and the parts that are not
the GEMM (bias, batch norm, activation, residual) are elementwise, so
`graph-fuse` puts them in one epilogue kernel as it does for `linear`. An
implicit-GEMM kernel would save the im2col copy (KH x KW times the input)
but must first beat cuBLAS on a GPU; that measurement is still to be made.

* `batch_norm(x, m, v, w, b)` -> `x * a + (b - m * a)`, `a = w * rsqrt(v +
  eps)` (the reference's order), the (C,) parameters reshaped to broadcast
  over dim 1 first: all elementwise, so it fuses into the conv's epilogue
  (a frozen model folds `a` and `b` to constants).
* `conv1d` -> `conv2d` on a height-1 view (a reshape of input and weight).
* `conv2d(x, w, bias)` -> the conv without bias, then `add(y, bias[:, 1, 1])`:
  bias + activation + residual fuse into one epilogue kernel.
* conv whose windows tile the input: `stride == kernel` (or one window) per
  dim, no padding, no dilation (a patch embedding, a 1x1 conv with stride
  1, a kernel as large as the input) -> reshape + transpose of the
  input into columns (N, C KH KW, L) and ONE `matmul(w (O, C KH KW), cols)`,
  whose (N, O, L) result is already NCHW.
* depthwise conv (`groups == C_in == C_out`) -> the sum over the KH x KW
  taps of `tap * w[:, 0, kh, kw]`: purely elementwise over the (padded)
  input's strided slices, so one kernel with its epilogue (a GEMM of K = 1
  per group would waste the library call).
* any other conv -> im2col: zero-pad (a concat with `graph.full`s), one
  strided slice per tap (a view), the taps stacked by a concat into columns
  (G, C/G KH KW, N L), and one (batched over groups) `matmul` with the
  weight reshaped to (G, O/G, C/G KH KW); for N > 1 its (O, N, L) result is
  transposed to NCHW (a view the epilogue reads). Concat is a view for
  `graph-fuse` (`fusibility`), so padding, taps and stack read `x` lazily;
  a `cast` to the same type ends the chain, the compute op that makes them
  one kernel (a chain of views alone is no group) writing the columns.
* `max_pool2d` -> `maximum` over the taps of the input padded with -inf
  (and on the right as far as a ceil_mode window reaches); `avg_pool2d` ->
  the sum of the taps of the zero-padded input divided by torch's divisor
  (a constant: count_include_pad and ceil_mode decide it per position) or
  by `divisor_override` (none at all for 1, a sum).
  Elementwise over views: one windowed kernel with its epilogue (an
  elementwise *prologue* stays a kernel of its own: fused, it would be
  recomputed per tap, and `graph-fuse` keeps views at a group's inputs).
* `adaptive_avg_pool2d` -> where the output size divides the input's,
  reshape + transpose to (N, C, OH, OW, KH, KW) and `mean` over the last
  two dims (a row reduction); else (windows of varying size) two matmuls
  with constant averaging matrices, `P_h @ x @ P_w^T`.

16-bit inputs: the sums of the elementwise forms (depthwise conv, pooling),
batch norm's arithmetic and the averaging matmuls are computed in f32 and
rounded to the input's type once, at the end, as torch's kernels compute
them: graph ops round their results, so a bf16 sum of nine taps would round
nine times (percents off). Each tap is cast on its own, after its slice: in
a fused kernel that cast is free (kernels compute in f32 anyway), where a
cast of the whole input first would be a kernel and an f32 copy of its own.
A GEMM (im2col) with a bias after it keeps its product in f32
(`graph.matmul` with an f32 result), so the sum rounds once, as `linear`'s
decomposition does; without a bias the GEMM rounds its own result once.

Taps that read only padding are dropped from the elementwise forms (depthwise
conv, pooling; `live_taps`), and the input is padded only when a kept tap
reads padding; a 3x3 window on a 1x1 map is one tap. The GEMM keeps them
all: dropping them would slice the weight, a copy larger than the columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from xdsl.dialects.builtin import UnitAttr, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from fxdsl.interpreters.graph import avg_pool_divisors
from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.ir.utils import with_provenance
from fxdsl.transforms.constants import dense_constant


class _Builder:
    """Collects the ops of one decomposition (in order) and returns results."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def full(self, shape: Sequence[int], value: float, dtype: Attribute) -> SSAValue:
        return self.add(graph.FullOp(shape, value, dtype))

    def constant(self, values: np.ndarray[Any, Any], dtype: Attribute) -> SSAValue:
        return self.add(dense_constant(values, graph.tensor(values.shape, dtype)))

    def wide(self, value: SSAValue) -> SSAValue:
        """`value` in f32 where it is 16-bit (module docstring)."""
        if dtype_of(value) not in graph.HALF_FLOAT_TYPES:
            return value
        return self.add(graph.CastOp(value, f32))

    def narrow(self, value: SSAValue, dtype: Attribute) -> SSAValue:
        """`value` rounded to `dtype` (once, at a decomposition's end)."""
        if dtype_of(value) == dtype:
            return value
        return self.add(graph.CastOp(value, dtype))

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        if shape_of(value) == tuple(shape):
            return value
        return self.add(graph.ReshapeOp(value, shape))

    def channels(self, value: SSAValue, rank: int) -> SSAValue:
        """A (C,) parameter as (C, 1, ...) broadcasting over dim 1 of a
        rank-`rank` tensor."""
        return self.reshape(value, (shape_of(value)[0], *[1] * (rank - 2)))

    def pad(
        self, x: SSAValue, widths: Sequence[tuple[int, int]], fill: float
    ) -> SSAValue:
        """`x` (N, C, *spatial) with `widths[i]` = (before, after) elements of
        `fill` around spatial dim i: a concat with `graph.full`s per dim."""
        for axis, (before, after) in enumerate(widths, start=2):
            shape = list(shape_of(x))
            if not before and not after:
                continue
            pieces = [x]
            if before:
                shape[axis] = before
                pieces.insert(0, self.full(shape, fill, dtype_of(x)))
            if after:
                shape[axis] = after
                pieces.append(self.full(shape, fill, dtype_of(x)))
            x = self.add(graph.ConcatOp(pieces, axis))
        return x

    def taps(
        self,
        x: SSAValue,
        offsets: Sequence[Sequence[int]],
        stride: Sequence[int],
        out: Sequence[int],
    ) -> list[SSAValue]:
        """One strided slice (N, C, *out) of `x` per offset (its first
        spatial element)."""
        shape = shape_of(x)
        taps: list[SSAValue] = []
        for start in offsets:
            limit = [b + (o - 1) * s + 1 for b, o, s in zip(start, out, stride)]
            slice_op = graph.SliceOp(
                x, [0, 0, *start], [*shape[:2], *limit], [1, 1, *stride]
            )
            taps.append(self.add(slice_op))
        return taps

    def fold(self, op: type[graph.BinaryOp], values: Sequence[SSAValue]) -> SSAValue:
        total = values[0]
        for value in values[1:]:
            total = self.add(op(total, value))
        return total


def _positions(
    tap: Sequence[int],
    dilation: Sequence[int],
    stride: Sequence[int],
    out: Sequence[int],
) -> list[range]:
    """Per spatial dim, the positions in the padded input a tap reads."""
    return [
        range(k * d, k * d + (o - 1) * s + 1, s)
        for k, d, s, o in zip(tap, dilation, stride, out)
    ]


def live_taps(
    spatial: Sequence[int],
    widths: Sequence[tuple[int, int]],
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[int],
) -> list[tuple[int, ...]]:
    """The kernel taps (row-major) that read some input element: a tap that
    reads only padding adds nothing (zeros times finite weights; -inf to a
    maximum over a window that holds an input element), and at small sizes
    many do (a 3x3 conv on a 1x1 map has one live tap, a 5x5 one of 25)."""
    return [
        tuple(tap)
        for tap in np.ndindex(*kernel)
        if all(
            any(w[0] <= i < w[0] + n for i in at)
            for at, n, w in zip(_positions(tap, dilation, stride, out), spatial, widths)
        )
    ]


def _window(
    b: _Builder,
    x: SSAValue,
    widths: Sequence[tuple[int, int]],
    fill: float,
    taps: Sequence[Sequence[int]],
    stride: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[int],
) -> tuple[list[SSAValue], bool]:
    """One strided slice (N, C, *out) per tap of `x` padded with `fill`, or
    of `x` itself when no tap reads the padding; and whether it was padded."""
    spatial = shape_of(x)[2:]
    reach = [_positions(t, dilation, stride, out) for t in taps]
    padded = any(
        not w[0] <= at[0] <= at[-1] < w[0] + n
        for tap in reach
        for at, n, w in zip(tap, spatial, widths)
    )
    if padded:
        x = b.pad(x, widths, fill)
        starts = [[at[0] for at in tap] for tap in reach]
    else:
        starts = [[at[0] - w[0] for at, w in zip(tap, widths)] for tap in reach]
    return b.taps(x, starts, stride, out), padded


def _conv_gemm(
    weight: SSAValue, columns: SSAValue, product: Attribute | None
) -> graph.MatmulOp:
    """A convolution's GEMM, marked `graph.CONV_GEMM` (its precision is the
    convolution's)."""
    gemm = graph.MatmulOp(weight, columns, product)
    gemm.attributes[graph.CONV_GEMM] = UnitAttr()
    return gemm


def _conv2d(
    b: _Builder,
    x: SSAValue,
    weight: SSAValue,
    conv: graph.ConvOp,
    out: Sequence[int],
    product: Attribute | None = None,
) -> SSAValue:
    """The ops of a bias-free 2-D conv of x (N, C, H, W); returns (N, O, *out).
    `product`: the GEMM's result type (f32 for 16-bit operands whose bias is
    added after it, so the sum rounds once; None: x's)."""
    n, channels = shape_of(x)[:2]
    o, per_group, *kernel = shape_of(weight)
    stride, padding = conv.stride_list, conv.padding_list
    dilation, groups = conv.dilation_list, conv.group_count
    if len(stride) == 1:  # conv1d as conv2d on a height-1 view
        stride, padding, dilation = (1, *stride), (0, *padding), (1, *dilation)
    length = prod(out)
    widths = [(p, p) for p in padding]
    live = live_taps(shape_of(x)[2:], widths, kernel, stride, dilation, out)
    if not live:  # every window lies in the padding
        return b.full((n, o, *out), 0.0, dtype_of(x))
    if groups == channels == o and per_group == 1:
        taps_of_x, _ = _window(b, x, widths, 0.0, live, stride, dilation, out)
        # weight[:, 0, kh, kw] as (C, 1, 1), one slice per tap, as the taps
        taps_of_w = b.taps(weight, live, (1, 1), (1, 1))
        products = [
            b.add(graph.MulOp(b.wide(t), b.wide(b.reshape(w, (o, 1, 1)))))
            for t, w in zip(taps_of_x, taps_of_w)
        ]
        return b.fold(graph.AddOp, products)
    # windows that tile the input (or a single window per dim) are patches
    disjoint = all(
        d == 1 and (s == k or o == 1)
        for s, k, d, o in zip(stride, kernel, dilation, out)
    )
    if groups == 1 and disjoint and not any(padding):
        taps = prod(kernel)
        height, width = (k * s for k, s in zip(kernel, out))
        if shape_of(x)[2:] != (height, width):
            x = b.add(graph.SliceOp(x, [0] * 4, [n, channels, height, width]))
        patches = b.reshape(x, (n, channels, out[0], kernel[0], out[1], kernel[1]))
        if taps > 1:
            patches = b.add(graph.TransposeOp(patches, [0, 1, 3, 5, 2, 4]))
        columns = b.reshape(patches, (n, channels * taps, length))
        flat = b.reshape(weight, (o, channels * taps))
        return b.reshape(b.add(_conv_gemm(flat, columns, product)), (n, o, *out))
    # every tap, dead or not: the weight has a column for each, and slicing
    # it to the live ones costs a copy of the weight (more than the columns)
    live = [tuple(t) for t in np.ndindex(*kernel)]
    taps = len(live)
    columns_of, padded = _window(b, x, widths, 0.0, live, stride, dilation, out)
    # taps as (N, G, C/G, 1, L), stacked to (N, G, C/G, KK, L), then ordered
    # (G, C/G, KK, N, L): every image is one GEMM's columns, so the batch
    # is the groups' only (the weight is not broadcast over N)
    pieces = [b.reshape(t, (n, groups, per_group, 1, length)) for t in columns_of]
    stacked = pieces[0] if taps == 1 else b.add(graph.ConcatOp(pieces, 3))
    if n > 1:
        stacked = b.add(graph.TransposeOp(stacked, [1, 2, 3, 0, 4]))
    if taps > 1 or padded or n > 1:
        # the columns as one kernel: a cast to the same type is the compute
        # op that makes graph-fuse group the views (pad, taps, stack) before it
        stacked = b.add(graph.CastOp(stacked, dtype_of(x)))
    lead = (groups,) if groups > 1 else ()
    columns = b.reshape(stacked, (*lead, per_group * taps, n * length))
    flat = b.reshape(weight, (*lead, o // groups, per_group * taps))
    product = b.add(_conv_gemm(flat, columns, product))
    if n == 1:
        return b.reshape(product, (n, o, *out))
    images = b.reshape(product, (o, n, length))
    return b.reshape(b.add(graph.TransposeOp(images, [1, 0, 2])), (n, o, *out))


class DecomposeConv(RewritePattern):
    """conv2d / conv1d -> GEMM, taps or patches, + a bias add (module
    docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ConvOp, rewriter: PatternRewriter) -> None:
        b = _Builder()
        x, weight, result = op.input, op.weight, shape_of(op.result)
        if isinstance(op, graph.Conv1dOp):
            x = b.reshape(x, (*shape_of(x)[:2], 1, shape_of(x)[2]))
            weight = b.reshape(weight, (*shape_of(weight)[:2], 1, shape_of(weight)[2]))
        # a 16-bit GEMM keeps its product in f32 for the bias, or where the
        # op's result is f32 (module doc)
        half = dtype_of(op.input) in graph.HALF_FLOAT_TYPES
        wide = half and (op.bias is not None or dtype_of(op.result) == f32)
        product = f32 if wide else None
        y = b.reshape(_conv2d(b, x, weight, op, _spatial(result), product), result)
        if op.bias is not None:
            bias = b.channels(op.bias, len(result))
            same = dtype_of(y) == dtype_of(bias)
            y = b.add(graph.AddOp(y, bias if same else b.wide(bias)))
        y = b.narrow(y, dtype_of(op.result))
        rewriter.replace(op, with_provenance(b.ops, op), [y])


def _spatial(result: tuple[int, ...]) -> tuple[int, ...]:
    """The 2-D output size of a conv result (N, O, *out); conv1d's is (1, L)."""
    return result[2:] if len(result) == 4 else (1, *result[2:])


class DecomposeMaxPool(RewritePattern):
    """max_pool2d -> maximum over taps of the -inf padded input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.MaxPool2dOp, rewriter: PatternRewriter
    ) -> None:
        b = _Builder()
        taps = _pool_taps(b, op, float("-inf"))
        y = b.fold(graph.MaximumOp, taps)
        rewriter.replace(op, with_provenance(b.ops, op), [y])


def _pool_widths(op: graph.Pool2dOp, out: Sequence[int]) -> list[tuple[int, int]]:
    """(before, after) padding per spatial dim: `padding`, and on the right
    as far as the last (ceil_mode) window reaches."""
    widths: list[tuple[int, int]] = []
    for axis, p in enumerate(op.padding_list):
        size = shape_of(op.input)[2 + axis]
        span = op.dilation_list[axis] * (op.kernel_list[axis] - 1) + 1
        reach = (out[axis] - 1) * op.stride_list[axis] + span
        widths.append((p, max(p, reach - size - p)))
    return widths


def _pool_taps(b: _Builder, op: graph.Pool2dOp, fill: float) -> list[SSAValue]:
    """The taps of a pooling window that read some input element."""
    out = shape_of(op.result)[2:]
    widths = _pool_widths(op, out)
    window = (op.stride_list, op.dilation_list, out)
    live = live_taps(shape_of(op.input)[2:], widths, op.kernel_list, *window)
    if not live:  # a dilated window that reads only padding
        return [b.full(shape_of(op.result), fill, dtype_of(op.input))]
    return _window(b, op.input, widths, fill, live, *window)[0]


class DecomposeAvgPool(RewritePattern):
    """avg_pool2d -> sum of taps of the zero-padded input / torch's divisor."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.AvgPool2dOp, rewriter: PatternRewriter
    ) -> None:
        b = _Builder()
        dtype = dtype_of(op.input)
        taps = [b.wide(t) for t in _pool_taps(b, op, 0.0)]
        total = b.fold(graph.AddOp, taps)
        divisors = avg_pool_divisors(op)
        if np.all(divisors == 1):
            y = total
        elif len(np.unique(divisors)) == 1:
            divisor = b.full((), float(divisors.flat[0]), dtype_of(total))
            y = b.add(graph.DivOp(total, divisor))
        else:
            y = b.add(graph.DivOp(total, b.constant(divisors, dtype_of(total))))
        y = b.narrow(y, dtype)
        rewriter.replace(op, with_provenance(b.ops, op), [y])


def _averaging(size: int, out: int) -> np.ndarray[Any, Any]:
    """(out, size): row i averages torch's adaptive window i."""
    matrix = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -((-(i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


class DecomposeAdaptiveAvgPool(RewritePattern):
    """adaptive_avg_pool2d -> mean over reshaped windows, or two averaging
    matmuls where the sizes do not divide."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.AdaptiveAvgPool2dOp, rewriter: PatternRewriter
    ) -> None:
        b = _Builder()
        n, c, height, width = shape_of(op.input)
        oh, ow = shape_of(op.result)[2:]
        dtype = dtype_of(op.input)
        if height % oh == 0 and width % ow == 0:
            kh, kw = height // oh, width // ow
            windows = b.reshape(op.input, (n, c, oh, kh, ow, kw))
            if kh > 1 and ow > 1:
                windows = b.add(graph.TransposeOp(windows, [0, 1, 2, 4, 3, 5]))
            windows = b.reshape(windows, (n, c, oh, ow, kh * kw))
            y = b.add(graph.MeanOp(windows, [4]))
        else:
            x = b.wide(op.input)
            columns = b.constant(_averaging(width, ow).T, dtype_of(x))
            rows = b.constant(_averaging(height, oh), dtype_of(x))
            y = b.add(graph.MatmulOp(rows, b.add(graph.MatmulOp(x, columns))))
            y = b.narrow(y, dtype)
        rewriter.replace(op, with_provenance(b.ops, op), [y])


class DecomposeBatchNorm(RewritePattern):
    """batch_norm -> x * a + (bias - mean * a), a = weight * rsqrt(var + eps)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.BatchNormOp, rewriter: PatternRewriter
    ) -> None:
        b = _Builder()
        rank = len(shape_of(op.input))
        mean, var, weight, bias = (
            b.wide(b.channels(v, rank))
            for v in (op.running_mean, op.running_var, op.weight, op.bias)
        )
        x = b.wide(op.input)
        eps = b.full((), op.eps_value, dtype_of(x))
        root = b.add(graph.RsqrtOp(b.add(graph.AddOp(var, eps))))
        scale = b.add(graph.MulOp(weight, root))
        shift = b.add(graph.SubOp(bias, b.add(graph.MulOp(mean, scale))))
        y = b.add(graph.AddOp(b.add(graph.MulOp(x, scale)), shift))
        y = b.narrow(y, dtype_of(op.result))
        rewriter.replace(op, with_provenance(b.ops, op), [y])


CONV_DECOMPOSITIONS: tuple[RewritePattern, ...] = (
    DecomposeConv(),
    DecomposeMaxPool(),
    DecomposeAvgPool(),
    DecomposeAdaptiveAvgPool(),
    DecomposeBatchNorm(),
)
"""The conv-net patterns, registered in `graph_decompose.DECOMPOSITIONS`."""
