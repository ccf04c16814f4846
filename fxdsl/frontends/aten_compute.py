"""ATen handlers: reductions and normalisations, convolution and pooling,
contractions and attention."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fxdsl.frontends.aten_registry import (
    AtenCall,
    Decompose,
    Handler,
    UnsupportedNode,
    along,
    aten,
    cast_to,
    dims_of,
    graph_dtype,
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
aten("any.dim", "any.dims", "any.default")(_reduction(lambda *a: ops.any(*a)))
aten("all.dim", "all.dims", "all.default")(_reduction(lambda *a: ops.all(*a)))


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
    if correction != int(correction):
        raise UnsupportedNode(f"a fractional correction ({correction})")
    result = ops.var(x, dims, keepdim, int(correction))
    if ".std" in call.target:
        result = ops.sqrt(result)
    if "_mean." not in call.target:
        return result, result
    return result, ops.mean(x, dims, keepdim)


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
    weight = weight if weight is not None else ops.full(shape, 1.0, x.dtype)
    bias = bias if bias is not None else ops.full(shape, 0.0, x.dtype)
    y = ops.layer_norm(x, weight, bias, float(eps))
    if not call.target.startswith("aten.native"):
        return y
    if call.used is not None and not call.used & {1, 2}:
        return (y, None, None)
    # native_layer_norm also returns what its backward reads: the mean and
    # 1/std over the normalised dims, kept as size-1 dims (built only when
    # read: in training).
    dims = list(range(x.ndim - len(shape), x.ndim))
    mean = ops.mean(x, dims, keepdim=True)
    variance = ops.var(x, dims, keepdim=True, correction=0)
    return (y, mean, ops.rsqrt(ops.add(variance, float(eps))))


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
    y = ops.batch_norm(x, mean, var, weight, bias, eps)
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
# Convolution and pooling
# --------------------------------------------------------------------------- #


def _per_dim(values: Any, rank: int) -> list[int]:
    """torch's int-or-list window argument as one entry per spatial dim."""
    listed = [int(values)] if isinstance(values, int) else [int(v) for v in values]
    return listed * rank if len(listed) == 1 else listed


def _batched(x: Tensor, rank: int, build: Callable[[Tensor], Tensor]) -> Tensor:
    """`build` on an input with a batch dim: torch takes unbatched (C, ...)
    inputs too, which get a batch of one and lose it again."""
    if x.ndim != rank + 1:
        return build(x)
    y = build(ops.reshape(x, [1, *x.shape]))
    return ops.reshape(y, list(y.shape[1:]))


def _same_padding(weight: Tensor, dilation: list[int]) -> list[int]:
    totals = [d * (k - 1) for k, d in zip(weight.shape[2:], dilation)]
    if any(t % 2 for t in totals):
        raise UnsupportedNode(
            f'padding="same" needs uneven padding for kernel {weight.shape[2:]} '
            "(graph convolutions pad symmetrically)"
        )
    return [t // 2 for t in totals]


@aten(
    "convolution.default",
    "conv2d.default",
    "conv2d.padding",
    "conv1d.default",
    "conv1d.padding",
)
def _convolution(call: AtenCall) -> Tensor:
    x, weight, bias = (
        cast_to(t, call.dtype) for t in (*call.args[:2], call.arg(2, "bias"))
    )
    rank = weight.ndim - 2
    if call.target == "aten.convolution.default":
        stride, padding, dilation, transposed, _, groups = call.args[3:9]
        if transposed:
            raise UnsupportedNode("transposed convolution has no graph form")
    else:
        stride, padding = call.arg(3, "stride", 1), call.arg(4, "padding", 0)
        dilation, groups = call.arg(5, "dilation", 1), call.arg(6, "groups", 1)
    dilation = _per_dim(dilation, rank)
    if padding == "same":
        padding = _same_padding(weight, dilation)
    elif padding == "valid":
        padding = 0
    conv = {1: ops.conv1d, 2: ops.conv2d}.get(rank)
    if conv is None:
        raise UnsupportedNode(f"{rank}-D convolution (only 1-D and 2-D)")
    return _batched(
        x,
        rank,
        lambda t: conv(
            t,
            weight,
            bias,
            _per_dim(stride, rank),
            _per_dim(padding, rank),
            dilation,
            int(groups),
        ),
    )


@aten("max_pool2d.default", "max_pool2d_with_indices.default")
def _max_pool2d(call: AtenCall) -> Any:
    if call.used is not None and 1 in call.used:
        raise UnsupportedNode("max_pool2d's indices have no graph form")
    kernel = _per_dim(call.args[1], 2)
    stride = _per_dim(call.arg(2, "stride", []) or kernel, 2)
    padding = _per_dim(call.arg(3, "padding", 0), 2)
    dilation = _per_dim(call.arg(4, "dilation", 1), 2)
    ceil_mode = bool(call.arg(5, "ceil_mode", False))
    y = _batched(
        call.args[0],
        2,
        lambda t: ops.max_pool2d(t, kernel, stride, padding, dilation, ceil_mode),
    )
    return y if call.target == "aten.max_pool2d.default" else (y, None)


@aten("avg_pool2d.default")
def _avg_pool2d(call: AtenCall) -> Tensor:
    if call.arg(6, "divisor_override") is not None:
        raise UnsupportedNode("avg_pool2d with divisor_override")
    kernel = _per_dim(call.args[1], 2)
    stride = _per_dim(call.arg(2, "stride", []) or kernel, 2)
    padding = _per_dim(call.arg(3, "padding", 0), 2)
    ceil_mode = bool(call.arg(4, "ceil_mode", False))
    include_pad = bool(call.arg(5, "count_include_pad", True))
    return _batched(
        call.args[0],
        2,
        lambda t: ops.avg_pool2d(t, kernel, stride, padding, ceil_mode, include_pad),
    )


@aten("adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    size = call.shape[-2:]
    if size == [1, 1]:
        # global pooling, as the core-ATen graph writes it: a mean over H, W
        return ops.mean(x, [x.ndim - 2, x.ndim - 1], keepdim=True)
    return _batched(x, 2, lambda t: ops.adaptive_avg_pool2d(t, size))


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
    product = ops.matmul(lhs, rhs)
    if call.target == "aten.addbmm.default":
        # the batch's products summed
        product = ops.sum(product, [0])
    if alpha != 1:
        product = ops.mul(product, alpha)
    return ops.add(product, bias if beta == 1 else ops.mul(bias, beta))


@aten("scaled_dot_product_attention.default")
def _sdpa(call: AtenCall) -> Tensor:
    q, k, v = call.args[:3]
    mask = call.arg(3, "attn_mask")
    causal = bool(call.arg(5, "is_causal", False))
    scale = call.kwargs.get("scale")
    if call.kwargs.get("enable_gqa", False):
        k, v = repeat_heads(k, q.shape[-3]), repeat_heads(v, q.shape[-3])
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
