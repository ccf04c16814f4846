"""ATen handlers: reductions and normalisations, contractions and attention
(convolution: `aten_conv`, pooling: `aten_pooling`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fxdsl.frontends.aten_registry import (
    HALF_DTYPES,
    AtenCall,
    Decompose,
    Handler,
    UnsupportedNode,
    along,
    aten,
    cast_to,
    dims_of,
    graph_dtype,
    in_f32,
    is_integer,
    widened,
)
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

# Reductions and normalisations
# --------------------------------------------------------------------------- #


def _reduction(fn: Callable[..., Tensor], dims_index: int = 1) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        x = cast_to(call.args[0], call.dtype)
        dims = call.arg(dims_index, "dim")
        keepdim = bool(call.arg(dims_index + 1, "keepdim", False))
        return fn(x, dims_of(x, dims), keepdim)

    return handler


aten("sum.dim_IntList", "sum.default")(_reduction(ops.sum))
aten("mean.dim", "mean.default")(_reduction(ops.mean))
aten("amax.default")(_reduction(ops.max))
aten("amin.default")(_reduction(ops.min))


def _truth_reduction(fn: Callable[..., Tensor]) -> Handler:
    """any/all: of `x != 0` (NaN counts as true), in the result's dtype
    (bool, but uint8 for a uint8 input, as torch's)."""

    def handler(call: AtenCall) -> Tensor:
        x: Tensor = call.args[0]
        truth = x if x.dtype == "i1" else ops.ne(x, 0)
        keepdim = bool(call.arg(2, "keepdim", False))
        return cast_to(fn(truth, dims_of(x, call.arg(1, "dim")), keepdim), call.dtype)

    return handler


aten("any.dim", "any.dims", "any.default")(_truth_reduction(ops.any))
aten("all.dim", "all.dims", "all.default")(_truth_reduction(ops.all))


@aten("var.correction", "var.dim", "var.default")
@aten("std.correction", "std.dim", "std.default")
def _var(call: AtenCall) -> Tensor:
    return _var_and_mean(call)[0]


@aten("var_mean.correction", "var_mean.dim", "var_mean.default")
@aten("std_mean.correction", "std_mean.dim", "std_mean.default")
def _var_mean(call: AtenCall) -> tuple[Tensor, Tensor]:
    return _var_and_mean(call)


def _var_and_mean(call: AtenCall) -> tuple[Tensor, Tensor]:
    """(var or std, mean) of a var/std/var_mean/std_mean call (the mean
    built only for the *_mean ops)."""
    x: Tensor = call.args[0]
    if call.target.endswith(".default"):  # (self, unbiased): every dim
        dims, keepdim = None, False
        correction = 1 if call.arg(1, "unbiased", True) else 0
    else:
        dims = dims_of(x, call.arg(1, "dim"))
        if call.target.endswith("correction"):
            correction = call.kwargs.get("correction")
            correction = 1 if correction is None else correction  # torch's default
        else:
            correction = 1 if call.arg(2, "unbiased", True) else 0
        # var.dim's keepdim is positional (self, dim, unbiased, keepdim);
        # var.correction's is keyword-only.
        keepdim = bool(call.arg(3, "keepdim", False))
    if correction == int(correction):
        result = ops.var(x, dims, keepdim, int(correction))
    else:
        result = _var_with_fractional_correction(x, dims, keepdim, float(correction))
    if ".std" in call.target:
        result = ops.sqrt(result)
    if "_mean." not in call.target:
        return result, result
    return result, ops.mean(x, dims, keepdim)


def _var_with_fractional_correction(
    x: Tensor, dims: Any, keepdim: bool, correction: float
) -> Tensor:
    """torch's var with a float correction c: sum((x - mean)^2) / max(N - c,
    0), as the population variance times N / (N - c) (inf where N <= c, so
    0/0 is NaN as in torch); 16-bit in f32, rounded once."""
    (wide,) = widened(x.dtype, x)
    reduced = range(x.ndim) if dims is None else dims
    count = math.prod(x.shape[d] for d in reduced)
    divisor = count - correction
    scale = count / divisor if divisor > 0 else math.inf
    return ops.mul(ops.var(wide, dims, keepdim, 0), scale)


@aten("softmax.int", "_softmax.default", "_safe_softmax.default")
def _softmax(call: AtenCall) -> Tensor:
    x, dim = cast_to(call.args[0], call.dtype), call.args[1]
    probs = along(x, dim, ops.softmax)
    if call.target != "aten._safe_softmax.default":
        return probs
    # _safe_softmax gives 0, not NaN, on a row whose every score is -inf
    # (a fully masked attention row).
    masked = ops.all(ops.eq(x, -math.inf), dims_of(x, dim), keepdim=True)
    return ops.where(masked, 0.0, probs)


@aten("log_softmax.int", "_log_softmax.default")
def _log_softmax(call: AtenCall) -> Tensor:
    return along(cast_to(call.args[0], call.dtype), call.args[1], ops.log_softmax)


@aten("layer_norm.default", "native_layer_norm.default")
def _layer_norm(call: AtenCall) -> Any:
    x: Tensor = call.args[0]
    shape = list(call.args[1])
    weight = call.arg(2, "weight")
    bias = call.arg(3, "bias")
    eps = call.arg(4, "eps", 1e-5)
    x, (weight, bias) = _in_parameters_type(x, weight, bias)
    weight = weight if weight is not None else ops.full(shape, 1.0, x.dtype)
    bias = bias if bias is not None else ops.full(shape, 0.0, x.dtype)
    y = ops.layer_norm(x, weight, bias, float(eps))
    if not call.target.startswith("aten.native"):
        return cast_to(y, call.dtype)
    y = cast_to(y, graph_dtype(call.result[0].dtype))
    if call.used is not None and not call.used & {1, 2}:
        return (y, None, None)
    # native_layer_norm also returns what its backward reads: the mean and
    # 1/std over the normalised dims, kept as size-1 dims (built only when
    # read: in training), computed in f32 and rounded once, as torch's
    # kernel does (a bf16 sqrt before the reciprocal put rstd an ulp off)
    dims = list(range(x.ndim - len(shape), x.ndim))
    wide = in_f32(x)
    mean = ops.mean(wide, dims, keepdim=True)
    variance = ops.var(wide, dims, keepdim=True, correction=0)
    rstd = ops.rsqrt(ops.add(variance, float(eps)))
    return (
        y,
        *(
            cast_to(t, graph_dtype(r.dtype))
            for t, r in zip((mean, rstd), call.result[1:])
        ),
    )


def _in_parameters_type(
    x: Tensor, *parameters: Tensor | None
) -> tuple[Tensor, list[Tensor | None]]:
    """A norm's input and parameters in one type. torch's kernels take a
    16-bit input with f32 parameters (statistics, weight, bias: a model
    whose norms were kept in f32) and compute in f32, rounding the result
    once: so does the import (the caller casts the result back)."""
    given = [p for p in parameters if p is not None]
    if all(p.dtype == x.dtype for p in given):
        return x, list(parameters)
    return ops.cast(x, "f32"), [
        None if p is None else cast_to(p, "f32") for p in parameters
    ]


@aten(
    "batch_norm.default",
    "_native_batch_norm_legit_no_training.default",
    "native_batch_norm.default",
)
def _batch_norm(call: AtenCall) -> Any:
    x: Tensor = call.args[0]
    weight, bias, mean, var = (call.args[i] for i in (1, 2, 3, 4))
    training = "legit_no_training" not in call.target and bool(call.args[5])
    if training:
        # batch statistics, and the running ones written: torch's
        # decomposition says both (its writes become results)
        raise Decompose("batch_norm in training mode")
    eps = float(call.args[-1] if "legit" in call.target else call.args[7])
    if mean is None or var is None:
        raise UnsupportedNode("batch_norm without running statistics")
    if 0 in x.shape:  # nothing to normalise: torch takes any rank then
        y = ops.full(list(x.shape), 0.0, x.dtype)
    else:
        x, (mean, var, weight, bias) = _in_parameters_type(x, mean, var, weight, bias)
        y = ops.batch_norm(x, mean, var, weight, bias, eps)
        y = cast_to(y, call.args[0].dtype)  # torch gives the input's type
    if call.target == "aten.batch_norm.default":
        return y
    # the saved statistics of eval mode: torch's empty tensors, which a
    # program may return (OpInfo's native_batch_norm does)
    saved = (
        ops.full([int(d) for d in r.shape], 0.0, graph_dtype(r.dtype))
        for r in call.result[1:]
    )
    return (y, *saved)


# --------------------------------------------------------------------------- #
# Contractions
# --------------------------------------------------------------------------- #


@aten("linear.default")
def _linear(call: AtenCall) -> Tensor:
    return ops.linear(call.args[0], call.args[1], call.arg(2, "bias"))


@aten("mm.default", "bmm.default", "matmul.default")
def _matmul(call: AtenCall) -> Tensor:
    return ops.matmul(call.args[0], call.args[1])


@aten("addmm.default", "baddbmm.default", "addbmm.default")
def _addmm(call: AtenCall) -> Tensor:
    bias, lhs, rhs = call.args[:3]
    beta, alpha = call.kwargs.get("beta", 1), call.kwargs.get("alpha", 1)
    if is_integer(call.dtype):  # torch truncates them to the integer type
        beta, alpha = int(beta), int(alpha)
    # 16-bit: the GEMM on its operands' type (tensor cores) stores its
    # product in f32, the rest is f32 too, rounded once at the end, as
    # torch's one kernel rounds (a bias that cancels the product keeps
    # every bit of it)
    wide = call.dtype in HALF_DTYPES
    product = ops.matmul(lhs, rhs, "f32" if wide else None)
    (bias,) = widened(call.dtype, bias)
    if call.target == "aten.addbmm.default":
        # the batch's products summed
        product = ops.sum(product, [0])
    if alpha != 1:
        product = ops.mul(product, alpha)
    if beta == 0:  # torch ignores the input then: its NaN and inf do not count
        return ops.broadcast_to(product, [int(n) for n in call.shape])
    return ops.add(product, bias if beta == 1 else ops.mul(bias, beta))


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


@aten(
    "embedding_bag.default",
    "embedding_bag.padding_idx",
    "_embedding_bag_forward_only.default",
    "_embedding_bag.default",
)
def _embedding_bag(call: AtenCall) -> tuple[Any, ...]:
    """torch's embedding_bag on 1-D indices with offsets: bag b combines the
    rows of indices[offsets[b]:offsets[b + 1]] (the last bag runs to the
    end, or to the last offset with include_last_offset) by sum (weighted
    by per_sample_weights), mean or max; rows at padding_idx count for
    nothing, an empty bag is zeros. Bag membership is a (bags, L) mask read
    from the offsets, so they may be runtime values: a sum is a matmul of
    the mask with the rows. Only the bags themselves: a graph that reads the other three
    results (a training step's backward) takes `aten_embedding_bag`'s."""
    if call.used is not None and call.used - {0}:
        # offset2bag, bag_size and max_indices (what its backward reads):
        # `aten_embedding_bag` computes them as torch does
        raise Decompose("embedding_bag's other results are read")
    weight, indices, offsets = call.args[:3]
    mode = _BAG_MODES.get(int(call.arg(4, "mode", 0)))
    samples = call.arg(6, "per_sample_weights")
    last_offset = bool(call.arg(7, "include_last_offset", False))
    padding = call.arg(8, "padding_idx", -1)
    if call.target == "aten.embedding_bag.padding_idx" and padding is not None:
        # the public overload counts a negative padding_idx from the end (its
        # kernel normalizes it); in `_embedding_bag` -1 means none
        padding = int(padding) % weight.shape[0]
    if mode is None or indices.ndim != 1:
        raise UnsupportedNode("embedding_bag needs 1-D indices and mode 0, 1 or 2")
    dtype, length = graph_dtype(call.result[0].dtype), indices.shape[0]
    bags = offsets.shape[0] - 1 if last_offset else offsets.shape[0]
    starts = ops.reshape(ops.slice(offsets, [0], [bags]), [bags, 1])
    if last_offset:
        ends = ops.slice(offsets, [1], [bags + 1])
    else:
        tail = ops.full([1], length, offsets.dtype)
        ends = ops.concat([ops.slice(offsets, [1], [bags]), tail], 0)
    position = ops.constant(np.arange(length, dtype=np.int64).reshape(1, length))
    position = cast_to(position, offsets.dtype)
    member = ops.logical_and(
        ops.ge(position, starts), ops.lt(position, ops.reshape(ends, [bags, 1]))
    )
    if padding is not None and int(padding) >= 0:
        kept = ops.ne(indices, int(padding))
        member = ops.logical_and(member, ops.reshape(kept, [1, length]))
    rows = cast_to(ops.embedding(indices, weight), dtype)  # (L, D)
    if mode == "max":
        picked = ops.where(
            ops.reshape(member, [bags, length, 1]),
            ops.reshape(rows, [1, *rows.shape]),
            -math.inf,
        )
        largest = ops.max(picked, [1])
        empty = ops.logical_not(ops.any(member, [1], keepdim=True))
        return (ops.where(empty, 0.0, largest), None, None, None)
    share = ops.cast(member, dtype)
    if samples is not None:
        share = ops.mul(share, ops.reshape(cast_to(samples, dtype), [1, length]))
    total = ops.matmul(share, rows)
    if mode == "mean":
        count = ops.sum(ops.cast(member, dtype), [1], keepdim=True)
        total = ops.div(total, ops.maximum(count, 1.0))
    return (total, None, None, None)


@aten("_trilinear.default")
def _trilinear(call: AtenCall) -> Tensor:
    """torch's `_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim)`
    (what `bilinear` becomes): each operand gets size-1 dims at its expand
    positions, the three are multiplied (broadcasting) and summed over
    `sumdim`, those dims dropped; 16-bit in f32, rounded once."""
    operands = widened(call.dtype, *(cast_to(t, call.dtype) for t in call.args[:3]))
    expands = [{int(d) for d in dims} for dims in call.args[3:6]]
    summed = sorted(int(d) for d in call.args[6])
    product = None
    for x, expand in zip(operands, expands, strict=True):
        rank = x.ndim + len(expand)
        sizes = iter(x.shape)
        shape = [1 if d in expand else next(sizes) for d in range(rank)]
        x = ops.reshape(x, shape)
        product = x if product is None else ops.mul(product, x)
    assert product is not None
    if not summed:
        return ops.reshape(product, call.shape)
    return ops.reshape(ops.sum(product, summed), call.shape)


@aten("scaled_dot_product_attention.default")
def _sdpa(call: AtenCall) -> Tensor:
    q, k, v = call.args[:3]
    mask = call.arg(3, "attn_mask")
    causal = bool(call.arg(5, "is_causal", False))
    scale = call.kwargs.get("scale")
    if call.kwargs.get("enable_gqa", False):
        k, v = repeat_heads(k, q.shape[-3]), repeat_heads(v, q.shape[-3])
    # batch dims broadcast, as the matmuls of torch's math do (a 3-D query
    # with 4-D keys); graph.attention takes equal ones
    batch = list(np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2]))
    q, k, v = (
        t
        if list(t.shape[:-2]) == batch
        else ops.broadcast_to(t, [*batch, *t.shape[-2:]])
        for t in (q, k, v)
    )
    return attention(q, k, v, mask, causal, scale)


def repeat_heads(x: Tensor, heads: int) -> Tensor:
    """Grouped-query attention: each of x's kv heads serves heads/kv queries
    (torch's `repeat_interleave` on dim -3)."""
    kv = x.shape[-3]
    if kv == heads:
        return x
    lead, (t, d) = list(x.shape[:-3]), x.shape[-2:]
    grouped = ops.reshape(x, [*lead, kv, 1, t, d])
    expanded = ops.broadcast_to(grouped, [*lead, kv, heads // kv, t, d])
    return ops.reshape(expanded, [*lead, heads, t, d])


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Any,
    causal: bool,
    scale: float | None,
) -> Tensor:
    """`graph.attention`; a mask the importer folded is a `FoldedMask`
    (causal or none), anything else becomes the op's mask operand."""
    if isinstance(mask, FoldedMask):
        causal = causal or mask.causal
        mask = mask.operand
    factor = tidy_scale(scale, q.shape[-1])
    if mask is None:
        return ops.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=factor)
    return ops.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, is_causal=causal, scale=factor
    )


def tidy_scale(scale: float | None, head_dim: int) -> float:
    """The attention scale, canonical: torch's default 1/√d for None or
    anything within rounding of it (`d ** -0.5`, or √s·√s from the core
    decomposition), else 15 digits, so both IR levels print the same."""
    default = 1.0 / math.sqrt(head_dim)
    if scale is None or math.isclose(scale, default, rel_tol=1e-12):
        return default
    return float(f"{float(scale):.15g}")


@dataclass
class FoldedMask:
    """An attention mask the importer evaluated: `causal` when it holds the
    causal pattern, `operand` (a materialised constant) for the rest of it
    (a per-key padding mask, or the whole mask when it is no such
    pattern), None when nothing is left."""

    causal: bool
    operand: Tensor | None


# --------------------------------------------------------------------------- #
