"""ATen handlers: attention as training graphs have it.

In training, AOTAutograd's forward graph calls torch's CPU flash attention
(`_scaled_dot_product_flash_attention_for_cpu`), which returns the output
and each query row's logsumexp of its scaled, masked scores; the backward
graph calls its backward with both. Without these the attention of every
trained model ran in torch.

* forward: the output is `graph.attention` (as SDPA's); the logsumexp, only
  where the backward reads it, is `m + log(sum(exp(s - m)))` over the
  scores `s` recomputed in f32 (`m`: the row's maximum; a row whose every
  key is masked gives -inf).
* backward: with `p = exp(s - lse)` (the softmax, from the saved lse),
  `dv = pᵀ g`, `dp = g vᵀ`, `ds = p (dp - rowsum(g o))`, `dq = ds k c`,
  `dk = dsᵀ q c` (`c` the scale): the math of FlashAttention's backward,
  unfused (graph-fuse puts the elementwise parts with their GEMMs). 16-bit
  inputs are computed in f32 and rounded once, as torch's kernel.

At inference, torch's CUDA kernels' forwards (flash, efficient, cuDNN)
import as SDPA does, where only their output is read.

A dropout (`dropout_p > 0`) draws random numbers: such a node stays in torch
(`aten_random.draws_random`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fxdsl.frontends.aten_compute import FoldedMask, attention, tidy_scale
from fxdsl.frontends.aten_registry import AtenCall, UnsupportedNode, aten, widened
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

FORWARD = "_scaled_dot_product_flash_attention_for_cpu.default"
BACKWARD = "_scaled_dot_product_flash_attention_for_cpu_backward.default"


def _last_two(x: Tensor) -> Tensor:
    order = list(range(x.ndim))
    order[-2:] = order[-1], order[-2]
    return ops.transpose(x, order)


def _scores(q: Tensor, k: Tensor, mask: Any, causal: bool, scale: float) -> Tensor:
    """`q kᵀ · scale`, masked as torch's SDPA masks (an i1 mask: -inf where
    false; an additive one: added; causal: top-left aligned), in f32."""
    q, k = widened(q.dtype, q, k)
    s = ops.mul(ops.matmul(q, _last_two(k)), scale)
    if isinstance(mask, FoldedMask):
        causal = causal or mask.causal
        mask = mask.operand
    if mask is not None and mask.dtype == "i1":
        s = ops.where(mask, s, -math.inf)
    elif mask is not None:
        s = ops.add(s, ops.cast(mask, s.dtype))
    if causal:
        t, keys = s.shape[-2:]
        s = ops.where(ops.constant(np.tri(t, keys, dtype=bool), "i1"), s, -math.inf)
    return s


def _logsumexp(s: Tensor) -> Tensor:
    """Each row's logsumexp (-inf for a row of -inf), the last dim dropped."""
    top = ops.max(s, [-1], keepdim=True)
    finite = ops.where(ops.eq(top, -math.inf), 0.0, top)
    total = ops.sum(ops.exp(ops.sub(s, finite)), [-1], keepdim=True)
    return ops.reshape(ops.add(ops.log(total), finite), list(s.shape[:-1]))


def _arguments(call: AtenCall, q: Tensor, causal_at: int) -> tuple[Any, bool, float]:
    """The mask, causal flag and scale (canonical) of either op."""
    causal = bool(call.arg(causal_at, "is_causal", False))
    scale = tidy_scale(call.kwargs.get("scale"), q.shape[-1])
    return call.kwargs.get("attn_mask"), causal, scale


@aten(FORWARD)
def _forward(call: AtenCall) -> tuple[Any, Any]:
    q, k, v = call.args[:3]
    mask, causal, scale = _arguments(call, q, 4)
    out = attention(q, k, v, mask, causal, call.kwargs.get("scale"))
    if call.used is not None and 1 not in call.used:
        return (out, None)
    return (out, _logsumexp(_scores(q, k, mask, causal, scale)))


CUDA_FORWARDS = {
    "_scaled_dot_product_flash_attention.default": (None, 4, 9),
    "_scaled_dot_product_efficient_attention.default": (3, 6, 4),
    "_scaled_dot_product_cudnn_attention.default": (3, 6, 9),
}
"""torch's CUDA attention kernels (what SDPA dispatches to on a GPU): the
position of the mask (attn_bias) and of is_causal, and the result count."""


@aten(*CUDA_FORWARDS)
def _cuda_forward(call: AtenCall) -> tuple[Any, ...]:
    """The output of a CUDA attention kernel, as SDPA's; what else it
    returns (logsumexp, the RNG state: what its backward reads) has no
    graph form here, so a graph that reads it leaves the node to torch."""
    mask_at, causal_at, results = CUDA_FORWARDS[call.target.removeprefix("aten.")]
    if call.used is not None and call.used - {0}:
        raise UnsupportedNode(
            f"{call.target}: only its output imports (its logsumexp and RNG "
            "state are what its backward reads)"
        )
    q, k, v = call.args[:3]
    mask = None if mask_at is None else call.arg(mask_at, "attn_bias")
    causal = bool(call.arg(causal_at, "is_causal", False))
    out = attention(q, k, v, mask, causal, call.kwargs.get("scale"))
    return (out, *[None] * (results - 1))


@aten(BACKWARD)
def _backward(call: AtenCall) -> tuple[Tensor, Tensor, Tensor]:
    grad, q, k, v, out, lse = call.args[:6]
    mask, causal, scale = _arguments(call, q, 7)
    s = _scores(q, k, mask, causal, scale)
    grad, q, k, v, out = widened(q.dtype, grad, q, k, v, out)
    lse = ops.reshape(ops.cast(lse, "f32"), [*lse.shape, 1])
    # a row without keys (lse -inf) has no softmax: nothing flows back
    p = ops.where(ops.eq(lse, -math.inf), 0.0, ops.exp(ops.sub(s, lse)))
    dv = ops.matmul(_last_two(p), grad)
    dp = ops.matmul(grad, _last_two(v))
    delta = ops.sum(ops.mul(grad, out), [-1], keepdim=True)
    ds = ops.mul(p, ops.sub(dp, delta))
    dq = ops.mul(ops.matmul(ds, k), scale)
    dk = ops.mul(ops.matmul(_last_two(ds), q), scale)
    return dq, dk, dv
