"""`torch.nn`'s Transformer fast path as the ops it fuses, for inference:
`nn.TransformerEncoderLayer` (batch first, eval, no grad) calls
`aten._transformer_encoder_layer_fwd`, and `nn.MultiheadAttention`
`aten._native_multi_head_attention`, one kernel each in torch with no
decomposition. These are fxdsl's (`aten_decompositions.OWN`), written as
the slow path computes the same layer, so the importer sees the linear
layers, the attention and the norms it knows:

* attention: q, k, v from the packed in-projection, heads split, scores
  `q k^T / sqrt(d)` plus the mask, softmax, `@ v`, heads merged, the
  out-projection. The mask is torch's merged one (`merge_masks`): float
  masks add (the module has made bool ones -inf already), a bool one is
  True where masked; its `mask_type` says its shape: 0 `(T, S)`, 1 the key
  padding `(B, S)`, 2 `(B, H, T, S)`;
* the encoder layer: attention and a ReLU/GELU feed-forward, each added to
  its input, with layer norms after (or, `norm_first`, before) them.
"""

from __future__ import annotations

import math
from typing import Any


def _additive(mask: Any, mask_type: Any, batch: int, dtype: Any) -> Any:
    """The mask as a float of `dtype` (the scores') to add to (B, H, T, S)
    scores: mask_type 1 is a (B, S) key padding mask, any other broadcasts
    as it is ((T, S) or merged (B, H, T, S))."""
    import torch

    if mask is None:
        return None
    if mask.dtype == torch.bool:  # True: masked out
        zeros = torch.zeros_like(mask, dtype=dtype)
        mask = zeros.masked_fill(mask, -math.inf)
    if mask_type == 1:
        return mask.reshape(batch, 1, 1, mask.shape[-1])
    return mask


def _attention(
    query: Any,
    key: Any,
    value: Any,
    heads: int,
    weights: tuple[Any, ...],
    mask: Any,
    mask_type: Any,
) -> tuple[Any, Any]:
    """(output, probabilities) of multi-head attention, batch first."""
    import torch
    import torch.nn.functional as F

    qkv_weight, qkv_bias, proj_weight, proj_bias = weights
    wq, wk, wv = qkv_weight.chunk(3)
    bq, bk, bv = qkv_bias.chunk(3)
    batch, length, embed = query.shape

    def split(x: Any, w: Any, b: Any) -> Any:
        return (
            F.linear(x, w, b).reshape(batch, -1, heads, embed // heads).transpose(1, 2)
        )

    q, k, v = split(query, wq, bq), split(key, wk, bk), split(value, wv, bv)
    scores = torch.matmul(q / math.sqrt(embed // heads), k.transpose(-2, -1))
    added = _additive(mask, mask_type, batch, scores.dtype)
    if added is not None:
        scores = scores + added
    probabilities = torch.softmax(scores, -1)
    out = torch.matmul(probabilities, v).transpose(1, 2).reshape(batch, length, embed)
    return F.linear(out, proj_weight, proj_bias), probabilities


def native_multi_head_attention(
    query: Any,
    key: Any,
    value: Any,
    embed_dim: int,
    num_head: int,
    qkv_weight: Any,
    qkv_bias: Any,
    proj_weight: Any,
    proj_bias: Any,
    mask: Any = None,
    need_weights: bool = True,
    average_attn_weights: bool = True,
    mask_type: Any = None,
) -> tuple[Any, Any]:
    weights = (qkv_weight, qkv_bias, proj_weight, proj_bias)
    out, probabilities = _attention(
        query, key, value, num_head, weights, mask, mask_type
    )
    if not need_weights:
        return out, None  # torch's: an undefined tensor, None to the caller
    if average_attn_weights:
        probabilities = probabilities.mean(1)
    return out, probabilities


def transformer_encoder_layer_fwd(
    src: Any,
    embed_dim: int,
    num_heads: int,
    qkv_weight: Any,
    qkv_bias: Any,
    proj_weight: Any,
    proj_bias: Any,
    use_gelu: bool,
    norm_first: bool,
    eps: float,
    norm_weight_1: Any,
    norm_bias_1: Any,
    norm_weight_2: Any,
    norm_bias_2: Any,
    ffn_weight_1: Any,
    ffn_bias_1: Any,
    ffn_weight_2: Any,
    ffn_bias_2: Any,
    mask: Any = None,
    mask_type: Any = None,
) -> Any:
    import torch.nn.functional as F

    weights = (qkv_weight, qkv_bias, proj_weight, proj_bias)
    norm_1 = (norm_weight_1, norm_bias_1)
    norm_2 = (norm_weight_2, norm_bias_2)

    def norm(x: Any, parameters: tuple[Any, Any]) -> Any:
        return F.layer_norm(x, (embed_dim,), *parameters, eps)

    def attend(x: Any) -> Any:
        return _attention(x, x, x, num_heads, weights, mask, mask_type)[0]

    def feed_forward(x: Any) -> Any:
        hidden = F.linear(x, ffn_weight_1, ffn_bias_1)
        hidden = F.gelu(hidden) if use_gelu else F.relu(hidden)
        return F.linear(hidden, ffn_weight_2, ffn_bias_2)

    if norm_first:
        x = src + attend(norm(src, norm_1))
        return x + feed_forward(norm(x, norm_2))
    x = norm(src + attend(src), norm_1)
    return norm(x + feed_forward(x), norm_2)


DECOMPOSITIONS = {
    "aten._native_multi_head_attention.default": native_multi_head_attention,
    "aten._transformer_encoder_layer_fwd.default": transformer_encoder_layer_fwd,
}
"""By overload name, for `aten_decompositions.OWN`."""
