"""Cases in the manner of PyTorch Inductor's fused-attention suite
(`test/inductor/test_fused_attention.py`, class
`TestSDPAPatternRewriterTemplate`), run through
`torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})` on the
CPU and compared with eager.

Inductor's suite writes attention out by hand, in the many forms models use
(`_sfdp_pattern_1` to `_27` of `torch/_inductor/fx_passes/fuse_attention.py`):
q @ kᵀ scaled by a multiply, a divide or a 1/√d, before or after the
product; softmax, sometimes in f32 between casts; masks that are added
(additive float, bool, int), applied with `masked_fill(-inf)` or
`where(mask, scores, finfo.min)`, causal from `tril`, per key from a padded
batch; dropout in eval or with p = 0; q, k and v transposed or permuted
from (batch, seq, heads, dim); 3-d `bmm`s and views; f32 and f16. Inductor
checks that it rewrites them to SDPA; fxdsl recognises some of the same
shapes (`aten_patterns._attention`: `softmax(q·a @ (k·b)ᵀ [+ mask]) @ v`)
and imports them as one `graph.attention`, so a matcher that reads too much
into a shape gives a silently wrong answer. Here each program becomes a row
of a table: a function, a factory for its arguments, and what fxdsl should
make of it. The function runs once in eager and twice compiled (the second
call reuses the compiled graph), each time on arguments made afresh from
the same seed, under `torch.no_grad()`: every output (and every argument
afterwards) must match eager's (f32 within atol 1e-5, rtol 1.3e-6, the
suite's own; f16 and bf16 within atol = rtol = 1e-2, NaNs equal;
measured: f16 within 2e-3, bf16 within 1.6e-2 absolute on values up to
4, 1 to 2 ulps), every operator of each graph must run in fxdsl, and a
row marked `fused` must have become a `graph.attention`. The rows the
suite also trains (`check_train`), where nothing random is drawn, run once
more with gradients: the compiled output and every input's gradient
against eager's, at the same f32 tolerance.

What fxdsl fuses: of the suite's own programs only `_13` (unscaled 3-d
`bmm`s) and the SDPA call of `_test_insignificant_strides`. Its matcher
takes a scale only as a factor of q or k before the product and kᵀ only
as a transpose of the last two dims, so scores divided or multiplied after
the product, `permute(0, 1, 3, 2)` of an already transposed k (Dynamo
makes one permute of the two), `masked_fill`/`where` masks and softmax in
f32 between casts all run as plain matmuls and softmaxes, in fxdsl and
right. The `beyond_*` rows put the suite's masks into the fused form.

The bodies are restated, not copied, at smaller sizes (the CPU islands run
on fxdsl's numpy reference interpreter): (2, 2, 8, 16) where the suite
takes (4, 2, 16, 32), its own (2, 8, 4, 16) for the f16 rows; the suite's
batch-1 variants are kept. Where a test ran several programs (v1/v2, div
and mul, batch 4 and 1, the `checkpoint` wrapper) each became a row. Rows
named `beyond_*` at the end are not in the suite: the same programs in the
form fxdsl does fuse (q scaled before the product), with the masks and
views the suite's rows never put there (a bool or int tensor *added* to the
scores, a scalar, `alpha`, a row masked whole, a 3-d mask under a 4-d
view), GQA's expanded keys and values, a causal slice of a buffer,
non-square causal masks, and bf16.

Not ported, and why:
- Dropout with p > 0 in training (`_test_sdpa_rewriter_3`, `_4`, `_6`,
  `_12`, `_13`, `_16`, `_17`, `_19`, `_20`, `_25`, `_26`, `_27` with
  `training=True`): fxdsl draws its own random numbers, not torch's, by
  design; the suite itself does not compare those results either. Their
  programs run here in eval (`training=False`), and `_7`/`_9`'s dropout of
  p = 1e-11 in training (which keeps every element, so the numbers do not
  matter) as the suite runs it.
- Inductor internals: the `fuse_attention` counter and the generated code
  checked for `aten._scaled_dot_product` (here: the `graph.attention` op in
  fxdsl's plan instead), `freezing` (`_test_sdpa_rewriter_1_freezing`: its
  program is the f16 row of `_1`), dynamic shapes
  (`SDPAPatternRewriter*DynamicTests`, `mark_dynamic`).
- `_test_insignificant_strides` calls CUDA's
  `_scaled_dot_product_efficient_attention`, which has no CPU kernel: its
  program (rotary q and k, a one-element mask padded, sliced and expanded)
  is kept with `F.scaled_dot_product_attention`.
- `_test_sdpa_rewriter_16_fp32_mask` draws its mask with `torch.randn`
  inside the function: it runs with the backend's `fallback_random`, so
  torch draws eager's numbers.
- Training through dropout and the `checkpoint` wrapper's recomputation in
  training; the `checkpoint` rows run in inference.

What the port found, all fixed in `aten_patterns._attention` and the
importer (in every repro `s = (q * 0.5) @ k.transpose(-2, -1)`, q, k, v of
shape (1, 1, 4, 8), compiled with `min_block_size=1` under `no_grad`):
- `(s + m).softmax(-1) @ v` with a bool m (`beyond_bool_mask_added`, and
  `beyond_bool_zeros_added` for an all-False m, the suite's `_5_v2` in
  fused form) was fused with m as SDPA's keep-mask, where eager adds True
  as 1.0 (max |diff| 0.97; zeros for the all-False m). Silently wrong. A
  bool or integer tensor added is now cast and added (`beyond_int_mask_added`
  was refused by `graph.attention` before).
- `torch.add(s, m, alpha=3.0)` (`beyond_mask_added_with_alpha`) was fused
  as `s + m`, alpha lost (max |diff| 0.86). Silently wrong; now not fused.
- `(s + 2.0)` (`beyond_scalar_added`) crashed the importer ("'float' object
  has no attribute 'all_input_nodes'"; the graph ran in torch); not fused.
- A row masked whole by -inf under a hand-written softmax
  (`beyond_row_masked_whole`; `beyond_left_padded_causal`, a folded mask
  doing the same) is NaN in eager and was zeros (SDPA's rule, which fxdsl
  keeps for SDPA itself: `beyond_sdpa_*_row_masked_whole`). The importer
  now puts the NaN back (`Pattern.nan_rows`): from the folded mask at
  import, or computed from a runtime mask.
- A 3-d (batch * heads) mask under 4-d views of the output, or a 4-d one
  under 3-d products (`beyond_bmm3_mask3_view4`, `beyond_bmm3_mask4_out3`):
  matched, then refused by `graph.attention`, so the node ran in torch;
  now such a mask is not fused.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import torch.nn.functional as F  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402
from torch import nn  # noqa: E402

from fxdsl.testing.generation import recording_plans  # noqa: E402
from fxdsl.testing.peer_cases import (  # noqa: E402
    Case,
    assert_same,
    compare_with_eager,
    fresh,
)

pytestmark = [
    pytest.mark.usefixtures("fresh_dynamo"),
    # the `checkpoint` rows, run without gradients as the suite's inference
    pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad"),
]

SEED = 1234
OPTIONS = {"min_block_size": 1}
F32 = {"atol": 1e-5, "rtol": 1.3e-6}
LOWP = {"atol": 1e-2, "rtol": 1e-2}
INF = float("inf")

B, H, S, D = 2, 2, 8, 16  # batch, heads, sequence, head dim
HALF_SHAPE = (2, 8, 4, 16)  # the suite's own for its f16 rows


@dataclass(frozen=True)
class AttentionCase(Case):
    """One row: `fn` on `make()`'s arguments, compiled against eager (at
    `F32`'s tolerance), and what fxdsl should make of it."""

    fused: bool = False
    """Whether fxdsl should make the attention one `graph.attention`."""
    train: bool = False
    """Whether the row also runs with gradients (the suite's `check_train`,
    nothing random drawn)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The backend's options beside `OPTIONS`."""


def case(
    name: str,
    fn: Callable[..., Any],
    make: Callable[[], tuple[Any, ...]],
    *,
    fused: bool = False,
    train: bool = False,
    options: dict[str, Any] | None = None,
    xfail: str | None = None,
) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    row = AttentionCase(
        fn, make, F32, {}, fused=fused, train=train, options=options or {}
    )
    return pytest.param(row, id=name, marks=marks)


def qkv(*shape: int, dtype: Any = torch.float32) -> Callable[[], tuple[Any, ...]]:
    shape = shape or (B, H, S, D)
    return lambda: tuple(torch.randn(shape, dtype=dtype) for _ in range(3))


def qkv_and(
    *extra: Callable[[], Any], shape: tuple[int, ...] = (B, H, S, D)
) -> Callable[[], tuple[Any, ...]]:
    """q, k, v of `shape`, then one argument from each of `extra`."""
    return lambda: (*qkv(*shape)(), *(make() for make in extra))


def with_flag(fn: Callable[..., Any], training: bool) -> Callable[..., Any]:
    """`fn` with its trailing `training` argument bound (the suite passes it
    as an argument; a bool is a constant to Dynamo either way)."""
    return lambda *args: fn(*args, training)


def checkpointed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The suite's `checkpoint_wrapper`."""
    return lambda *args: torch.utils.checkpoint.checkpoint(
        fn, *args, use_reentrant=True
    )


# --------------------------------------------------------------------------
# scores scaled after the product (_1, _2, _11, prev_13 to prev_15)


def _div_sqrt(q: Any, k: Any, v: Any) -> Any:
    scores = torch.matmul(q, k.transpose(-2, -1)).div(math.sqrt(k.shape[-1]))
    return scores.softmax(dim=-1).matmul(v)


def _mul_inv_sqrt(q: Any, k: Any, v: Any) -> Any:
    scores = torch.matmul(q, k.transpose(-2, -1)).mul(1.0 / math.sqrt(k.shape[-1]))
    return scores.softmax(dim=-1).matmul(v)


def _weights_returned(q: Any, k: Any, v: Any) -> Any:
    # _test_pattern_fails_with_reuse: the softmax is an output too
    weights = torch.matmul(q, k.transpose(-2, -1)).div(math.sqrt(k.shape[-1]))
    weights = weights.softmax(dim=-1)
    return weights.matmul(v), weights


def _seq_first(q: Any, k: Any, v: Any) -> Any:
    # (batch, seq, heads, dim) in, heads moved forward
    q, k2, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = torch.matmul(q, k2.transpose(-2, -1)).div(math.sqrt(k.shape[-1]))
    return scores.softmax(dim=-1).matmul(v)


def _div_sqrt_clone(q: Any, k: Any, v: Any) -> Any:
    scores = torch.matmul(q, k.transpose(-2, -1)).div(math.sqrt(k.shape[-1]))
    return scores.softmax(dim=-1).clone().matmul(v)


def _mul_inv_sqrt_clone(q: Any, k: Any, v: Any) -> Any:
    scores = torch.matmul(q, k.transpose(-2, -1)).mul(1.0 / math.sqrt(k.shape[-1]))
    return scores.softmax(dim=-1).clone().matmul(v)


def _seq_first_clone(q: Any, k: Any, v: Any) -> Any:
    q, k2, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = torch.matmul(q, k2.transpose(-2, -1)).div(math.sqrt(k.shape[-1]))
    return scores.softmax(dim=-1).clone().matmul(v)


def _seq_first_dropout_after(q: Any, k: Any, v: Any, training: bool) -> Any:
    # _12: the dropout is on the attention's output
    out = _seq_first(q, k, v)
    return F.dropout(out, p=0.4, training=training, inplace=False)


SCALED_AFTER = [
    case("rewriter_1_div_sqrt_f32", _div_sqrt, qkv(), train=True),
    case("rewriter_1_div_sqrt_f16", _div_sqrt, qkv(dtype=torch.float16)),
    case("rewriter_1_div_sqrt_checkpoint", checkpointed(_div_sqrt), qkv()),
    case("pattern_fails_with_reuse", _weights_returned, qkv(), train=True),
    case("rewriter_2_mul_inv_sqrt", _mul_inv_sqrt, qkv(), train=True),
    case("rewriter_2_checkpoint", checkpointed(_mul_inv_sqrt), qkv()),
    case("rewriter_11_seq_first_transposes", _seq_first, qkv(), train=True),
    case(
        "rewriter_12_dropout_on_output_eval",
        with_flag(_seq_first_dropout_after, False),
        qkv(),
    ),
    case("prev_13_clone_of_softmax", _div_sqrt_clone, qkv()),
    case("prev_13_checkpoint", checkpointed(_div_sqrt_clone), qkv()),
    case("prev_14_mul_clone", _mul_inv_sqrt_clone, qkv()),
    case("prev_15_seq_first_clone", _seq_first_clone, qkv()),
]


# --------------------------------------------------------------------------
# dropout in eval or of p ~ 0 (_3, _4, _6, _7, _9, _13)


def _div3_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    weights = torch.matmul(q, k.transpose(-2, -1)).div(3.0).softmax(dim=-1)
    return F.dropout(weights, p=0.4, training=training, inplace=False).matmul(v)


def _mul04_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    weights = torch.matmul(q, k.transpose(-2, -1)).mul(0.4).softmax(dim=-1)
    return F.dropout(weights, p=0.2, inplace=False, training=training).matmul(v)


def _causal_additive(q: Any, k: Any) -> Any:
    """Scores scaled by 1/√d plus a causal mask of 0 and -inf, built in the
    function (`_5_v1`, `_6`)."""
    keep = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril(diagonal=0)
    mask = keep.masked_fill(torch.logical_not(keep), -INF)
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + mask


def _causal_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    weights = torch.softmax(_causal_additive(q, k), dim=-1)
    return F.dropout(weights, 0.5, training) @ v


def _half_permuted(q: Any, k: Any, v: Any, p: float | None, training: bool) -> Any:
    """`_7`/`_8`: f16 scores divided after the product, softmax in f32."""
    q, k, v = (x.permute(0, 2, 1, 3) for x in (q, k, v))
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).to(torch.float32)
    weights = torch.softmax(scores, dim=-1)
    if p is not None:
        weights = torch.dropout(weights, p, training)
    return weights.to(torch.float16) @ v


def _half_q_scaled(q: Any, k: Any, v: Any, p: float | None, training: bool) -> Any:
    """`_9`/`_10`: as `_half_permuted`, q divided before the product."""
    q, k, v = (x.permute(0, 2, 1, 3) for x in (q, k, v))
    q = q / math.sqrt(q.size(-1))
    weights = torch.softmax((q @ k.transpose(-2, -1)).to(torch.float32), dim=-1)
    if p is not None:
        weights = torch.dropout(weights, p, training)
    return weights.to(torch.float16) @ v


def _bmm_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    # _13: 3-d, unscaled
    weights = torch.bmm(q, k.transpose(1, 2)).softmax(dim=-1)
    return torch.bmm(F.dropout(weights, p=0.5, training=training), v)


TINY_P = 0.00000000001
HALF = qkv(*HALF_SHAPE, dtype=torch.float16)

DROPOUT = [
    case("rewriter_3_dropout_eval", with_flag(_div3_dropout, False), qkv()),
    case("rewriter_4_mul_dropout_eval", with_flag(_mul04_dropout, False), qkv()),
    case("rewriter_6_causal_dropout_eval", with_flag(_causal_dropout, False), qkv()),
    case(
        "rewriter_7_f16_tiny_dropout_training",
        lambda q, k, v: _half_permuted(q, k, v, TINY_P, True),
        HALF,
    ),
    case(
        "rewriter_7_f16_dropout_eval",
        lambda q, k, v: _half_permuted(q, k, v, TINY_P, False),
        HALF,
    ),
    case("rewriter_8_f16_softmax_in_f32", lambda *a: _half_permuted(*a, None, False), HALF),
    case(
        "rewriter_9_f16_q_scaled_tiny_dropout_training",
        lambda q, k, v: _half_q_scaled(q, k, v, TINY_P, True),
        HALF,
    ),
    case("rewriter_10_f16_q_scaled", lambda *a: _half_q_scaled(*a, None, False), HALF),
    case("rewriter_13_bmm_dropout_eval_f32", with_flag(_bmm_dropout, False), qkv(4, 8, 16), fused=True),
    case("rewriter_13_bmm_dropout_eval_f16", with_flag(_bmm_dropout, False), qkv(4, 8, 16, dtype=torch.float16), fused=True),
]  # fmt: skip


# --------------------------------------------------------------------------
# masks (_5, _14 to _24, the unsupported masks and tensor factors)


def _causal_softmax(q: Any, k: Any, v: Any) -> Any:
    return torch.softmax(_causal_additive(q, k), dim=-1) @ v


def _bool_zeros_added(q: Any, k: Any, v: Any) -> Any:
    # _5_v2 (pytorch#100318): an all-False bool mask *added* to the scores
    mask = torch.zeros(q.size(-2), k.size(-2), dtype=torch.bool).bool()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + mask
    return torch.softmax(scores, dim=-1) @ v


class _TensorFactor(nn.Module):
    """`_test_pattern_fails_with_tensor_factor`: scaled by a tensor."""

    def __init__(self, inverse: bool) -> None:
        super().__init__()
        self.inverse = inverse

    def forward(self, q: Any, k: Any, v: Any, factor: Any) -> Any:
        factor = factor.detach()
        scores = torch.matmul(q, k.transpose(-2, -1))
        scores = scores.div(factor) if self.inverse else scores.mul(factor)
        return scores.softmax(dim=-1).matmul(v)


def _added_mask(q: Any, k: Any, v: Any, mask: Any) -> Any:
    # _test_pattern_fails_with_unsupported_mask: an int tensor, or 2.0
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + mask
    return torch.softmax(scores, dim=-1) @ v


def _seq_causal_added(q: Any, k: Any) -> Any:
    """`_14`/`_16`: (batch, seq, heads, dim) permuted, scores / 3 plus a
    causal 0/-inf mask over seq."""
    keep = torch.ones(q.size(1), k.size(1), dtype=torch.bool).tril(diagonal=0)
    mask = keep.masked_fill(torch.logical_not(keep), -INF)
    q, k = q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3)
    return torch.matmul(q, k.transpose(-2, -1)).div(3.0) + mask


def _seq_causal(q: Any, k: Any, v: Any) -> Any:
    return _seq_causal_added(q, k).softmax(dim=-1).matmul(v.permute(0, 2, 1, 3))


def _seq_causal_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    weights = F.dropout(
        _seq_causal_added(q, k).softmax(dim=-1), p=0.4, training=training
    )
    return weights.to(dtype=q.dtype).matmul(v.permute(0, 2, 1, 3))


def _seq_random_mask_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    # _16_fp32_mask: the additive mask is drawn in the function
    mask = torch.randn(q.size(1), k.size(1), dtype=torch.float).tril(diagonal=0)
    qp, kp, vp = (x.permute(0, 2, 1, 3) for x in (q, k, v))
    scores = torch.matmul(qp, kp.transpose(-2, -1)).div(3.0) + mask
    weights = F.dropout(scores.softmax(dim=-1), p=0.4, training=training)
    return weights.to(dtype=q.dtype).matmul(vp)


def _padded_keys(scores: Any, q: Any, k_len: int) -> Any:
    """`_15`/`_17`/`_20`: a (batch, keys) mask from `tril`, viewed per key
    and expanded over heads and queries, filled with -inf."""
    bs = q.size(0)
    keep = torch.ones(bs, k_len, dtype=torch.bool).tril(diagonal=0)
    drop = (keep == 0).view((bs, 1, 1, k_len)).expand_as(scores)
    return scores.masked_fill(drop, -INF)


def _key_padding(q: Any, k: Any, v: Any) -> Any:
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = _padded_keys(torch.matmul(q, k.transpose(-2, -1)) / 3.0, q, k.size(-2))
    return torch.matmul(F.softmax(scores, dim=-1), v)


def _key_padding_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = _padded_keys(torch.matmul(q, k.transpose(-2, -1)) / 3.0, q, k.size(-2))
    weights = F.dropout(F.softmax(scores, dim=-1), p=0.4, training=training)
    return torch.matmul(weights, v)


def _q_scaled_key_padding_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    q = q / math.sqrt(q.size(-1))
    scores = _padded_keys(torch.matmul(q, k.transpose(-2, -1)), q, k.size(-2))
    weights = F.dropout(F.softmax(scores, dim=-1), p=0.4, training=training)
    return torch.matmul(weights, v)


def _gpt2_where(q: Any, k: Any, v: Any, causal: Any) -> Any:
    # _18 (hf_GPT2): 0-d full()s for the scale and finfo.min, dropout p=0
    q, k, v = q.permute([0, 2, 1, 3]), k.permute([0, 2, 1, 3]), v.permute([0, 2, 1, 3])
    weights = torch.matmul(q, k.permute(0, 1, 3, 2))
    weights = weights.div(torch.full((), math.sqrt(v.size(-1)), dtype=q.dtype))
    lowest = torch.full((), torch.finfo(q.dtype).min, dtype=q.dtype)
    weights = torch.where(causal, weights, lowest)
    out = F.dropout(weights.softmax(dim=-1), 0.0).matmul(v)
    return out, k.permute([0, 2, 1, 3]), v.permute([0, 2, 1, 3])


def _where_then_added(
    q: Any, k: Any, v: Any, causal: Any, mask: Any, training: bool
) -> Any:
    # _19: where(causal, scores, finfo.min), then an additive mask
    weights = torch.matmul(q, k.permute(0, 1, 3, 2))
    weights = weights.div(torch.full((), math.sqrt(v.size(-1)), dtype=weights.dtype))
    lowest = torch.full((), torch.finfo(q.dtype).min, dtype=q.dtype)
    weights = torch.where(causal, weights, lowest) + mask
    weights = weights.softmax(dim=-1).type(v.dtype)
    return F.dropout(weights, p=0.4, training=training, inplace=False).matmul(v)


def _in_place_mask(q: Any, k: Any, v: Any, mask: Any) -> Any:
    """`_21`: unscaled scores, `+=` an additive mask, softmax in f32."""
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = torch.matmul(q, k.permute(0, 1, 3, 2))
    scores += mask
    return scores.float().softmax(dim=-1).type(v.dtype).matmul(v)


def _in_place_mask_kv_out(q: Any, k: Any, v: Any, mask: Any) -> Any:
    # _22: as _21, returning the transposed k and v as well
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = torch.matmul(q, k.permute(0, 1, 3, 2))
    scores += mask
    return scores.float().softmax(dim=-1).type(v.dtype).matmul(v), k, v


def _in_place_zero_mask(q: Any, k: Any, v: Any) -> Any:
    # _23: the mask a constant full() of zeros
    return _in_place_mask_kv_out(q, k, v, torch.full((1, 1, 1, 2), 0.0))


def _in_place_mask_dropout(q: Any, k: Any, v: Any, mask: Any, training: bool) -> Any:
    # _25/_26 (XPU only in the suite): f16, an f16 mask, dropout
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    scores = torch.matmul(q, k.permute(0, 1, 3, 2))
    scores += mask
    weights = scores.float().softmax(dim=-1).type(v.dtype)
    return F.dropout(weights, p=0.1, training=training).matmul(v), k, v


def _half_zero_mask_dropout(q: Any, k: Any, v: Any, training: bool) -> Any:
    # _27 (XPU only): _26 with a constant f16 mask of zeros
    mask = torch.full((1, 1, 1, 2), 0.0, dtype=torch.half)
    return _in_place_mask_dropout(q, k, v, mask, training)


def _bmm_view_mask(q: Any, k: Any, v: Any, mask: Any) -> Any:
    """`_24` (MBart): 3-d bmms, the 4-d mask added through views."""
    bs, heads, seq, dim = q.shape
    q3 = q.view(bs * heads, seq, dim)
    k3, v3 = k.reshape(bs * heads, seq, dim), v.reshape(bs * heads, seq, dim)
    weights = torch.bmm(q3, k3.transpose(1, 2)).view(bs, heads, seq, seq) + mask
    weights = F.softmax(weights.view(bs * heads, seq, seq), dim=-1)
    return torch.bmm(weights, v3).view(bs, heads, seq, dim)


def _tril(n: int) -> Callable[[], Any]:
    return lambda: torch.ones(n, n, dtype=torch.bool).tril(diagonal=0)


def _rn(*shape: int, dtype: Any = torch.float32) -> Callable[[], Any]:
    return lambda: torch.randn(shape, dtype=dtype)


def _transposed_mask() -> Any:
    return torch.randn(1, 1, 2, 2).transpose(2, 3)  # last stride != 1


SMALL = (2, 2, 4, 16)  # _18 to _23, _25 to _27: (batch, seq, heads, dim)


def _half_small() -> tuple[Any, ...]:
    return (*qkv(*SMALL, dtype=torch.half)(), torch.randn(1, 1, 1, 2).half())


MASKS = [
    case("rewriter_5_v1_causal_additive", _causal_softmax, qkv(), train=True),
    case("rewriter_5_v1_checkpoint", checkpointed(_causal_softmax), qkv()),
    case("rewriter_5_v2_bool_zeros_added", _bool_zeros_added, qkv(), train=True),
    case("rewriter_5_v2_checkpoint", checkpointed(_bool_zeros_added), qkv()),
    case("tensor_factor_div", _TensorFactor(True).eval(), qkv_and(_rn(4, 1, 1), shape=(2, 4, 4, 4)), train=True),
    case("tensor_factor_mul", _TensorFactor(False).eval(), qkv_and(_rn(4, 1, 1), shape=(2, 4, 4, 4)), train=True),
    case("unsupported_mask_int", _added_mask, qkv_and(lambda: torch.randn(2, 4, 4, 4).to(torch.int), shape=(2, 4, 4, 4)), train=True),
    case("unsupported_mask_python_float", lambda q, k, v: _added_mask(q, k, v, 2.0), qkv(2, 4, 4, 4), train=True),
    case("rewriter_14_seq_causal_div3", _seq_causal, qkv(), train=True),
    case("rewriter_15_key_padding_masked_fill", _key_padding, qkv()),
    case("rewriter_16_causal_dropout_eval", with_flag(_seq_causal_dropout, False), qkv()),
    case("rewriter_16_batch_1", with_flag(_seq_causal_dropout, False), qkv(1, S, H, D)),
    case("rewriter_16_fp32_mask_drawn_inside", with_flag(_seq_random_mask_dropout, False), qkv(), options={"fallback_random": True}),
    case("rewriter_16_fp32_mask_batch_1", with_flag(_seq_random_mask_dropout, False), qkv(1, S, H, D), options={"fallback_random": True}),
    case("rewriter_17_key_padding_dropout_eval", with_flag(_key_padding_dropout, False), qkv()),
    case("rewriter_18_gpt2_where_finfo_min", _gpt2_where, qkv_and(_tril(2), shape=SMALL)),
    case("rewriter_18_batch_1", _gpt2_where, qkv_and(_tril(2), shape=(1, 2, 4, 16))),
    case("rewriter_19_where_and_additive", with_flag(_where_then_added, False), qkv_and(_tril(S), _rn(S, S))),
    case("rewriter_20_q_scaled_key_padding", with_flag(_q_scaled_key_padding_dropout, False), qkv()),
    case("rewriter_21_in_place_mask", _in_place_mask, qkv_and(_rn(1, 1, 1, 2), shape=SMALL)),
    case("rewriter_21_batch_1", _in_place_mask, qkv_and(_rn(1, 1, 1, 2), shape=(1, 2, 4, 16))),
    case("rewriter_22_kv_returned", _in_place_mask_kv_out, qkv_and(_rn(1, 1, 2, 2), shape=SMALL)),
    case("rewriter_22_batch_1", _in_place_mask_kv_out, qkv_and(_rn(1, 1, 2, 2), shape=(1, 2, 4, 16))),
    case("rewriter_22_transposed_mask", _in_place_mask_kv_out, qkv_and(_transposed_mask, shape=SMALL)),
    case("rewriter_23_constant_zero_mask", _in_place_zero_mask, qkv(*SMALL)),
    case("rewriter_23_batch_1", _in_place_zero_mask, qkv(1, 2, 4, 16)),
    case("rewriter_24_bmm_view_mask", _bmm_view_mask, qkv_and(_rn(1, 1, S, S))),
    case("rewriter_25_f16_mask_dropout_eval", lambda *a: _in_place_mask_dropout(*a, False)[0], _half_small),
    case("rewriter_26_f16_kv_returned_eval", lambda *a: _in_place_mask_dropout(*a, False), _half_small),
    case("rewriter_27_f16_zero_mask_eval", with_flag(_half_zero_mask_dropout, False), qkv(*SMALL, dtype=torch.half)),
]  # fmt: skip


# --------------------------------------------------------------------------
# _test_insignificant_strides (pytorch#124289), with the CPU's SDPA


def _rotary_sdpa(q: Any, k: Any, v: Any, freqs: Any, scale: Any) -> Any:
    angles = torch.cat([freqs, freqs], 2)
    cos, sin = angles.cos().unsqueeze(1), angles.sin().unsqueeze(1)
    half = q.size(-1) // 2

    def rotate(x: Any) -> Any:
        turned = torch.cat([-x[..., half:], x[..., :half]], 3)
        return x * cos + turned * sin

    mask = F.pad(scale[:, :, :, :], [0, 7], value=0.0)[..., :1]
    mask = mask.expand(1, q.size(1), 1, 1)
    return F.scaled_dot_product_attention(rotate(q), rotate(k), v, attn_mask=mask)


STRIDES = [
    case(
        "insignificant_strides_expanded_mask",
        _rotary_sdpa,
        qkv_and(_rn(1, 1, 8), _rn(1, 1, 1, 1), shape=(1, 4, 1, 16)),
        fused=True,
    ),
]


# --------------------------------------------------------------------------
# beyond the suite: the form fxdsl fuses (q scaled before the product), with
# what the suite's rows put after it


def _q_scaled(q: Any, k: Any) -> Any:
    return (q * q.size(-1) ** -0.5) @ k.transpose(-2, -1)


def _fusable(q: Any, k: Any, v: Any) -> Any:
    return _q_scaled(q, k).softmax(dim=-1) @ v


def _fusable_masked(q: Any, k: Any, v: Any, mask: Any) -> Any:
    return (_q_scaled(q, k) + mask).softmax(dim=-1) @ v


def _mask_first(q: Any, k: Any, v: Any, mask: Any) -> Any:
    return (mask + _q_scaled(q, k)).softmax(dim=-1) @ v


def _q_and_k_scaled(q: Any, k: Any, v: Any) -> Any:
    # torch's own decomposition of SDPA: √scale on each side
    return ((q * 0.5) @ (k * 0.125).transpose(-2, -1)).softmax(dim=-1) @ v


def _q_scaled_twice_negative(q: Any, k: Any, v: Any) -> Any:
    return (((q * -0.5) * 2) @ k.transpose(-2, -1)).softmax(dim=-1) @ v


def _fusable_seq_first(q: Any, k: Any, v: Any) -> Any:
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    return _fusable(q, k, v)


def _causal_constant(q: Any, k: Any, v: Any, diagonal: int = 0) -> Any:
    """Causal 0/-inf made in the function (folded at compile time); `tril`
    is top-left aligned for T != S, as SDPA's `is_causal`."""
    keep = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril(diagonal)
    mask = torch.zeros(keep.shape).masked_fill(~keep, -INF)
    return _fusable_masked(q, k, v, mask)


def _causal_bottom_right(q: Any, k: Any, v: Any) -> Any:
    # a decoder's last T queries over S keys: not the `is_causal` pattern
    return _causal_constant(q, k, v, k.size(-2) - q.size(-2))


def _key_padding_constant(q: Any, k: Any, v: Any) -> Any:
    # BERT's padding: one row of keys per batch, 0/-inf
    keep = torch.arange(S)[None, :] < torch.tensor([S, S - 3])[:, None]
    mask = torch.zeros(B, 1, 1, S).masked_fill(~keep[:, None, None, :], -INF)
    return _fusable_masked(q, k, v, mask)


def _left_padded_causal(q: Any, k: Any, v: Any) -> Any:
    """A left-padded decoder batch, 0/-inf: batch 1's first two queries see
    no key at all (every key before them is padding), so eager's softmax
    rows there are NaN."""
    keep = torch.ones(B, S, dtype=torch.bool)
    keep[1, :2] = False
    causal = torch.ones(S, S, dtype=torch.bool).tril()
    mask = torch.zeros(B, 1, S, S).masked_fill(~(keep[:, None, None, :] & causal), -INF)
    return _fusable_masked(q, k, v, mask)


def _masked_fill_lowest(q: Any, k: Any, v: Any) -> Any:
    keep = torch.ones(S, S, dtype=torch.bool).tril()
    scores = _q_scaled(q, k).masked_fill(~keep, torch.finfo(q.dtype).min)
    return scores.softmax(dim=-1) @ v


def _added_alpha(q: Any, k: Any, v: Any, mask: Any) -> Any:
    return torch.add(_q_scaled(q, k), mask, alpha=3.0).softmax(dim=-1) @ v


def _added_scalar(q: Any, k: Any, v: Any) -> Any:
    return (_q_scaled(q, k) + 2.0).softmax(dim=-1) @ v


def _bool_zeros_added_fusable(q: Any, k: Any, v: Any) -> Any:
    # _5_v2 in the fused form: adds 0.0 everywhere
    mask = torch.zeros(q.size(-2), k.size(-2), dtype=torch.bool)
    return _fusable_masked(q, k, v, mask)


def _bmm3_mask3_view4(q: Any, k: Any, v: Any, mask: Any) -> Any:
    """3-d products over (batch * heads), a (batch * heads, T, S) mask, the
    output viewed back to 4-d."""
    bs, heads, seq, dim = q.shape
    scores = torch.bmm(
        q.reshape(bs * heads, seq, dim) * 0.25,
        k.reshape(bs * heads, seq, dim).transpose(1, 2),
    )
    probs = (scores + mask).softmax(dim=-1)
    return torch.bmm(probs, v.reshape(bs * heads, seq, dim)).view(bs, heads, seq, dim)


def _bmm3_mask4_out3(q: Any, k: Any, v: Any, mask: Any) -> Any:
    """As `_bmm3_mask3_view4` the other way round: the scores viewed 4-d
    for a 4-d mask, the output left 3-d."""
    bs, heads, seq, dim = q.shape
    scores = torch.bmm(
        q.reshape(bs * heads, seq, dim) * 0.25,
        k.reshape(bs * heads, seq, dim).transpose(1, 2),
    )
    probs = (scores.view(bs, heads, seq, seq) + mask).softmax(dim=-1)
    return torch.bmm(probs.view(bs * heads, seq, seq), v.reshape(bs * heads, seq, dim))


def _gqa_expand(q: Any, k: Any, v: Any) -> Any:
    """Llama's `repeat_kv`: each kv head expanded to its group of queries."""
    bs, kv_heads, seq, dim = k.shape
    group = q.size(1) // kv_heads
    k, v = (
        x[:, :, None].expand(bs, kv_heads, group, seq, dim).reshape(bs, -1, seq, dim)
        for x in (k, v)
    )
    return _fusable(q, k, v)


def _gqa_repeat_interleave(q: Any, k: Any, v: Any) -> Any:
    group = q.size(1) // k.size(1)
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return _fusable(q, k, v)


def _sdpa_gqa(q: Any, k: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def _sdpa_masked(q: Any, k: Any, v: Any, mask: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3)


class _Gpt2Slice(nn.Module):
    """The old GPT-2's causal slice of a (1, 1, 16, 16) buffer, for T
    queries after S - T earlier keys; `additive`: as a finfo.min mask added
    to the scores, else through `where`."""

    def __init__(self, additive: bool) -> None:
        super().__init__()
        self.additive = additive
        self.register_buffer(
            "bias", torch.ones(16, 16, dtype=torch.bool).tril()[None, None]
        )

    def forward(self, q: Any, k: Any, v: Any) -> Any:
        t, s = q.size(-2), k.size(-2)
        causal = self.bias[:, :, s - t : s, :s]
        lowest = torch.finfo(q.dtype).min
        scores = _q_scaled(q, k)
        if self.additive:
            scores = scores + (~causal).to(q.dtype) * lowest
        else:
            scores = torch.where(causal, scores, torch.full((), lowest))
        return scores.softmax(dim=-1) @ v


def _upcast(q: Any, k: Any, v: Any) -> Any:
    # a 16-bit attention computed in f32 by hand, cast back
    return _fusable(q.float(), k.float(), v.float()).to(q.dtype)


def _upcast_masked(q: Any, k: Any, v: Any, mask: Any) -> Any:
    return _fusable_masked(q.float(), k.float(), v.float(), mask).to(q.dtype)


def _sdpa_causal(q: Any, k: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _softmax_over_queries(q: Any, k: Any, v: Any) -> Any:
    return _q_scaled(q, k).softmax(dim=-2) @ v


def _bool_mask() -> Any:
    return torch.rand(B, 1, S, S) > 0.5


def _row_masked_whole() -> Any:
    mask = torch.randn(B, 1, S, S)
    mask[0, 0, 3] = -INF
    return mask


def _bool_row_masked_whole() -> Any:
    keep = torch.rand(B, 1, S, S) > 0.3
    keep[0, 0, 3] = False
    return keep


def _gqa_args() -> tuple[Any, ...]:
    """Four query heads over two key/value heads."""
    return torch.randn(B, 4, S, D), torch.randn(B, 2, S, D), torch.randn(B, 2, S, D)


def _later_queries() -> tuple[Any, ...]:
    """Four queries over eight keys."""
    return (torch.randn(B, H, 4, D), *qkv()()[1:])


def _more_queries() -> tuple[Any, ...]:
    """Eight queries over four keys."""
    return (torch.randn(B, H, S, D), *qkv(B, H, 4, D)()[1:])


BF16, F16 = qkv(dtype=torch.bfloat16), qkv(dtype=torch.float16)

# What the port found (repros in the module's docstring):

BEYOND = [
    case("beyond_q_scaled", _fusable, qkv(), fused=True, train=True),
    case("beyond_q_and_k_scaled", _q_and_k_scaled, qkv(), fused=True, train=True),
    case("beyond_q_scaled_twice_negative", _q_scaled_twice_negative, qkv(), fused=True),
    case("beyond_seq_first_transposes", _fusable_seq_first, qkv(), fused=True),
    case("beyond_additive_mask_input", _fusable_masked, qkv_and(_rn(B, 1, S, S)), fused=True, train=True),
    case("beyond_mask_added_first", _mask_first, qkv_and(_rn(B, 1, S, S))),
    case("beyond_causal_constant", _causal_constant, qkv(), fused=True, train=True),
    case("beyond_causal_fewer_queries", _causal_constant, _later_queries, fused=True),
    case("beyond_causal_more_queries", _causal_constant, _more_queries, fused=True),
    case("beyond_causal_bottom_right", _causal_bottom_right, _later_queries, fused=True),
    case("beyond_key_padding_constant", _key_padding_constant, qkv(), fused=True),
    case("beyond_masked_fill_finfo_min", _masked_fill_lowest, qkv()),
    case("beyond_gpt2_causal_slice_where", _Gpt2Slice(False).eval(), _later_queries),
    case("beyond_gpt2_causal_slice_additive", _Gpt2Slice(True).eval(), _later_queries, fused=True),
    case("beyond_gqa_expand", _gqa_expand, _gqa_args, fused=True, train=True),
    case("beyond_gqa_repeat_interleave", _gqa_repeat_interleave, _gqa_args, fused=True),
    case("beyond_sdpa_enable_gqa", _sdpa_gqa, _gqa_args, fused=True),
    case("beyond_sdpa_bool_row_masked_whole", _sdpa_masked, qkv_and(_bool_row_masked_whole), fused=True),
    case("beyond_sdpa_additive_row_masked_whole", _sdpa_masked, qkv_and(_row_masked_whole), fused=True),
    case("beyond_bmm3_mask3_no_view", lambda *a: _bmm3_mask3_view4(*a).flatten(0, 1), qkv_and(_rn(B * H, S, S)), fused=True),
    case("beyond_bmm3_mask3_view4_batch_1", _bmm3_mask3_view4, qkv_and(_rn(H, S, S), shape=(1, H, S, D)), fused=True),
    case("beyond_softmax_over_queries", _softmax_over_queries, qkv()),
    case("beyond_bf16", _fusable, BF16, fused=True),
    case("beyond_bf16_upcast_by_hand", _upcast, BF16, fused=True),
    case("beyond_f16_upcast_by_hand", _upcast, F16, fused=True),
    case("beyond_bf16_upcast_f32_mask", _upcast_masked, lambda: (*BF16(), torch.randn(B, 1, S, S)), fused=True),
    case("beyond_bf16_sdpa_causal", _sdpa_causal, BF16, fused=True),
    case("beyond_f16_sdpa_causal", _sdpa_causal, F16, fused=True),
    # what fxdsl gets wrong: see the module's docstring
    case("beyond_bool_mask_added", _fusable_masked, qkv_and(_bool_mask), fused=True),
    case("beyond_bool_zeros_added", _bool_zeros_added_fusable, qkv(), fused=True),
    case("beyond_mask_added_with_alpha", _added_alpha, qkv_and(_rn(B, 1, S, S))),
    case("beyond_scalar_added", _added_scalar, qkv()),
    case("beyond_int_mask_added", _fusable_masked, qkv_and(lambda: torch.randint(-3, 3, (B, 1, S, S)))),
    case("beyond_row_masked_whole", _fusable_masked, qkv_and(_row_masked_whole), fused=True),
    case("beyond_left_padded_causal", _left_padded_causal, qkv(), fused=True),
    case("beyond_bmm3_mask3_view4", _bmm3_mask3_view4, qkv_and(_rn(B * H, S, S))),
    case("beyond_bmm3_mask4_out3", _bmm3_mask4_out3, qkv_and(_rn(B, H, S, S))),
]  # fmt: skip


CASES = SCALED_AFTER + DROPOUT + MASKS + STRIDES + BEYOND


# --------------------------------------------------------------------------
# the comparison


def _op_names(plan: Any) -> set[str]:
    return {op.name for op in plan.imported.module.walk()}


def _check_plans(c: AttentionCase, plans: list[Any]) -> None:
    """Every operator ran in fxdsl; a `fused` row's attention is one
    `graph.attention`."""
    assert plans, "fxdsl compiled no graph"
    for plan in plans:
        if c.options.get("fallback_random"):
            left = [t for t, why, _ in plan.fallbacks.values() if "random" not in why]
            assert not left, plan.report()
        else:
            assert plan.compiled == plan.total, plan.report()
    if c.fused:
        assert any("graph.attention" in _op_names(p) for p in plans), [
            p.report() for p in plans
        ]


def _options(c: AttentionCase) -> dict[str, Any]:
    return {**OPTIONS, **c.options}


@pytest.mark.parametrize("c", CASES)
def test_matches_eager(c: AttentionCase) -> None:
    """Under `torch.no_grad()`, as inference; each call's arguments made
    from `SEED` (what the function draws after them, under
    `fallback_random`, is then eager's too)."""
    plans: list[Any] = []
    with recording_plans(plans):
        compare_with_eager(c, SEED, options=_options(c), grad=False, lowp=LOWP)
    _check_plans(c, plans)


def _with_grads(c: AttentionCase, fn: Callable[..., Any]) -> tuple[Any, list[Any]]:
    args = tuple(fresh(c.make, SEED))
    for x in args:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            x.requires_grad_(True)
    out = fn(*args)
    sum(leaf.float().sum() for leaf in pytree.tree_leaves(out)).backward()
    grads = [getattr(x, "grad", None) for x in args]  # None: not a float tensor
    return out, grads


TRAINED = [p for p in CASES if p.values[0].train]


@pytest.mark.parametrize("c", TRAINED)
def test_gradients_match_eager(c: AttentionCase) -> None:
    """The suite's `check_train`: output and every input's gradient."""
    want, want_grads = _with_grads(c, c.fn)
    plans: list[Any] = []
    with recording_plans(plans):
        compiled = torch.compile(c.fn, backend="fxdsl", options=_options(c))
        got, got_grads = _with_grads(c, compiled)
    assert_same(got, want, F32, "output", lowp=LOWP)
    assert_same(got_grads, want_grads, F32, "gradient", lowp=LOWP)
    _check_plans(c, plans)


def test_case_names_are_unique() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))
