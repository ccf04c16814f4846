"""Model builders: traced modules with realistic scopes and weight names.

`mlp` is a small residual MLP; `gpt2_block` / `gpt2_stack` trace GPT-2 blocks
with HF GPT-2's module names (`transformer.h.N.attn.c_attn.weight`, ...) and
module types as scopes, weights as `graph.param` arguments in a fixed order
(`gpt2_param_names`). Linear weights use the torch layout (out, in).

The causal mask is built from a `graph.constant` of positions (`arange(T)`):
`key <= query` is an i1 (T, T) mask and masked scores become -1e9 through
`graph.select`. A large finite value rather than -inf keeps a fully masked row
(impossible here, but possible after slicing) from turning into NaN; after
softmax it is exactly 0 in f32, like -inf.

`mlp_numpy` and `gpt2_numpy` are independent float64 numpy implementations of
the same models (they never look at the IR), the oracles for the tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from fxdsl.interpreters.run import entry_function
from fxdsl.ir.graph import PARAM, shape_of
from fxdsl.ir.utils import arg_attr
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor, TensorSpec, scope, trace

# Per-block weights in argument order: (name under `transformer.h.N.`, shape).
_BLOCK_PARAMS: tuple[tuple[str, str], ...] = (
    ("ln_1.weight", "D"),
    ("ln_1.bias", "D"),
    ("attn.c_attn.weight", "3D,D"),
    ("attn.c_attn.bias", "3D"),
    ("attn.c_proj.weight", "D,D"),
    ("attn.c_proj.bias", "D"),
    ("ln_2.weight", "D"),
    ("ln_2.bias", "D"),
    ("mlp.c_fc.weight", "4D,D"),
    ("mlp.c_fc.bias", "4D"),
    ("mlp.c_proj.weight", "D,4D"),
    ("mlp.c_proj.bias", "D"),
)
PARAMS_PER_BLOCK = len(_BLOCK_PARAMS)
LN_EPS = 1e-5
MASK_VALUE = -1e9


def _dims(spec: str, d: int) -> tuple[int, ...]:
    return tuple(int(p[:-1] or 1) * d for p in spec.split(","))


def gpt2_param_names(n_blocks: int, final_ln: bool = True) -> list[str]:
    """Weight fqns in argument order (after the hidden-states input)."""
    names = [
        f"transformer.h.{i}.{suffix}"
        for i in range(n_blocks)
        for suffix, _ in _BLOCK_PARAMS
    ]
    if final_ln:
        names += ["transformer.ln_f.weight", "transformer.ln_f.bias"]
    return names


def gpt2_specs(
    n_blocks: int, B: int, T: int, D: int, final_ln: bool = True
) -> list[TensorSpec]:
    """Argument specs: hidden states (B, T, D), then every weight."""
    specs = [TensorSpec((B, T, D), name="hidden_states")]
    for i in range(n_blocks):
        for suffix, dims in _BLOCK_PARAMS:
            specs.append(
                TensorSpec(_dims(dims, D), param=f"transformer.h.{i}.{suffix}")
            )
    if final_ln:
        for suffix in ("weight", "bias"):
            specs.append(TensorSpec((D,), param=f"transformer.ln_f.{suffix}"))
    return specs


def causal_attention(qkv: Tensor, heads: int) -> Tensor:
    """GPT-2's attention core, unfused as HF writes it: the heads of a fused
    (B, T, 3D) qkv projection, causal softmax(q kᵀ / sqrt(hd)) v, and the
    heads merged back into (B, T, D)."""
    B, T, D3 = qkv.shape
    D = D3 // 3
    hd = D // heads
    q, k, v = (
        t.reshape(B, T, heads, hd).permute(0, 2, 1, 3)
        for t in ops.split(qkv, [D, D, D], dim=-1)
    )
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    positions = ops.constant(np.arange(T, dtype=np.int64))
    causal = positions.reshape(1, T) <= positions.reshape(T, 1)
    probs = ops.softmax(ops.where(causal, scores, MASK_VALUE), dim=-1)
    return (probs @ v).permute(0, 2, 1, 3).reshape(B, T, D)


def _attention(x: Tensor, p: dict[str, Tensor], fqn: str, heads: int) -> Tensor:
    with scope(f"{fqn}.c_attn", "Linear"):
        qkv = ops.linear(x, p["attn.c_attn.weight"], p["attn.c_attn.bias"])
    context = causal_attention(qkv, heads)
    with scope(f"{fqn}.c_proj", "Linear"):
        return ops.linear(context, p["attn.c_proj.weight"], p["attn.c_proj.bias"])


def _mlp_part(x: Tensor, p: dict[str, Tensor], fqn: str) -> Tensor:
    with scope(f"{fqn}.c_fc", "Linear"):
        h = ops.linear(x, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"])
    with scope(f"{fqn}.act", "NewGELUActivation"):
        h = ops.gelu(h, approximate="tanh")
    with scope(f"{fqn}.c_proj", "Linear"):
        return ops.linear(h, p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])


def _block(x: Tensor, p: dict[str, Tensor], fqn: str, heads: int) -> Tensor:
    """Pre-LN GPT-2 block: x + attn(ln_1(x)), then + mlp(ln_2(x))."""
    with scope(fqn, "GPT2Block"):
        with scope(f"{fqn}.ln_1", "LayerNorm"):
            h = ops.layer_norm(x, p["ln_1.weight"], p["ln_1.bias"], LN_EPS)
        with scope(f"{fqn}.attn", "GPT2Attention"):
            h = _attention(h, p, f"{fqn}.attn", heads)
        # Residual adds belong to the block, as in HF's GPT2Block.forward.
        x = x + h
        with scope(f"{fqn}.ln_2", "LayerNorm"):
            h = ops.layer_norm(x, p["ln_2.weight"], p["ln_2.bias"], LN_EPS)
        with scope(f"{fqn}.mlp", "GPT2MLP"):
            h = _mlp_part(h, p, f"{fqn}.mlp")
        return x + h


def gpt2_stack(
    n_blocks: int,
    B: int = 1,
    T: int = 64,
    D: int = 768,
    heads: int = 12,
    *,
    final_ln: bool = True,
    name: str = "gpt2",
) -> ModuleOp:
    """`n_blocks` GPT-2 blocks (then `transformer.ln_f` when `final_ln`) on
    hidden states (B, T, D); each block has its own weight arguments, so the
    blocks are structurally identical with different inputs."""
    if D % heads:
        raise ValueError(f"gpt2_stack: D={D} is not divisible by heads={heads}")

    def model(x: Tensor, *weights: Tensor) -> Tensor:
        with scope("transformer", "GPT2Model"):
            for i in range(n_blocks):
                chunk = weights[i * PARAMS_PER_BLOCK : (i + 1) * PARAMS_PER_BLOCK]
                params = {s: w for (s, _), w in zip(_BLOCK_PARAMS, chunk)}
                x = _block(x, params, f"transformer.h.{i}", heads)
            if final_ln:
                with scope("transformer.ln_f", "LayerNorm"):
                    x = ops.layer_norm(x, weights[-2], weights[-1], LN_EPS)
            return x

    return trace(model, *gpt2_specs(n_blocks, B, T, D, final_ln), name=name)


def gpt2_block(B: int = 1, T: int = 64, D: int = 768, heads: int = 12) -> ModuleOp:
    """One GPT-2 block (`transformer.h.0`, no final layer norm)."""
    return gpt2_stack(1, B, T, D, heads, final_ln=False, name="gpt2_block")


def mlp(B: int = 64, D: int = 256, H: int = 1024) -> ModuleOp:
    """`layer_norm(x + fc2(gelu(fc1(x))))` on x (B, D), hidden size H."""
    specs = [
        TensorSpec((B, D), name="x"),
        TensorSpec((H, D), param="fc1.weight"),
        TensorSpec((H,), param="fc1.bias"),
        TensorSpec((D, H), param="fc2.weight"),
        TensorSpec((D,), param="fc2.bias"),
        TensorSpec((D,), param="norm.weight"),
        TensorSpec((D,), param="norm.bias"),
    ]

    def mlp(
        x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor, g: Tensor, b: Tensor
    ) -> Tensor:
        with scope("fc1", "Linear"):
            h = ops.linear(x, w1, b1)
        with scope("act", "GELU"):
            h = ops.gelu(h)
        with scope("fc2", "Linear"):
            h = ops.linear(h, w2, b2)
        h = h + x
        with scope("norm", "LayerNorm"):
            return ops.layer_norm(h, g, b, LN_EPS)

    return trace(mlp, *specs)


# --------------------------------------------------------------------------- #
# numpy references (float64, independent of the IR and its interpreter)
# --------------------------------------------------------------------------- #


def _np_layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + LN_EPS) * w + b


def _np_gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _np_gelu_erf(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _np_block(x: np.ndarray, p: Sequence[np.ndarray], heads: int) -> np.ndarray:
    ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b = p[:6]
    ln2_w, ln2_b, fc_w, fc_b, out_w, out_b = p[6:]
    B, T, D = x.shape
    hd = D // heads
    h = _np_layer_norm(x, ln1_w, ln1_b)
    qkv = h @ attn_w.T + attn_b
    q, k, v = (
        part.reshape(B, T, heads, hd).transpose(0, 2, 1, 3)
        for part in np.split(qkv, 3, axis=-1)
    )
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hd)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(future, -np.inf, scores)
    context = np.einsum("bhqk,bhkd->bqhd", _np_softmax(scores), v).reshape(B, T, D)
    x = x + context @ proj_w.T + proj_b
    h = _np_layer_norm(x, ln2_w, ln2_b)
    return x + _np_gelu_tanh(h @ fc_w.T + fc_b) @ out_w.T + out_b


def gpt2_numpy(
    hidden_states: np.ndarray,
    *weights: np.ndarray,
    heads: int = 12,
    final_ln: bool = True,
) -> np.ndarray:
    """numpy GPT-2 blocks on the arguments of `gpt2_stack` (same order);
    computes in float64, returns float32."""
    per_block = len(weights) - (2 if final_ln else 0)
    n_blocks, extra = divmod(per_block, PARAMS_PER_BLOCK)
    if extra or per_block < 0:
        raise ValueError(f"gpt2_numpy: {len(weights)} weights do not form blocks")
    x = np.asarray(hidden_states, dtype=np.float64)
    w = [np.asarray(a, dtype=np.float64) for a in weights]
    for i in range(n_blocks):
        x = _np_block(x, w[i * PARAMS_PER_BLOCK : (i + 1) * PARAMS_PER_BLOCK], heads)
    if final_ln:
        x = _np_layer_norm(x, w[-2], w[-1])
    return x.astype(np.float32)


def mlp_numpy(x: np.ndarray, *weights: np.ndarray) -> np.ndarray:
    """numpy version of `mlp` on its arguments (float64 inside)."""
    w1, b1, w2, b2, g, b = (np.asarray(a, dtype=np.float64) for a in weights)
    x64 = np.asarray(x, dtype=np.float64)
    h = _np_gelu_erf(x64 @ w1.T + b1) @ w2.T + b2
    return _np_layer_norm(h + x64, g, b).astype(np.float32)


def example_inputs(
    module: ModuleOp, seed: int = 0, weight_scale: float = 0.02
) -> list[np.ndarray]:
    """Seeded float32 inputs at GPT-2 initialisation scale: activations
    N(0, 1), weights N(0, weight_scale), layer-norm weights around 1. Keeps
    softmax unsaturated, so numerics comparisons test something."""
    rng = np.random.default_rng(seed)
    entry = entry_function(module)
    arrays: list[np.ndarray] = []
    for i, arg in enumerate(entry.args):
        shape = shape_of(arg)
        fqn = arg_attr(entry, i, PARAM) or ""
        if not fqn:
            array = rng.standard_normal(shape)
        elif fqn.endswith(".weight") and len(shape) == 1:  # a norm's scale
            array = 1.0 + 0.1 * rng.standard_normal(shape)
        else:
            array = weight_scale * rng.standard_normal(shape)
        arrays.append(array.astype(np.float32))
    return arrays
