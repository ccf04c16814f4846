"""The qkv bias folded into `graph.attention` (graph-fuse-attention's second
pattern, fxdsl/transforms/attention_bias.py) and graph-fuse's attention
kernels (a prologue on q, an epilogue on the result): folded where the
algebra allows, left alone elsewhere, numerics kept."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl.frontends.models import causal_attention, gpt2_stack
from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import trace

FOLD = "graph-fuse-attention{min-rows=1}"
FOLD_AND_FUSE = FOLD + ",graph-fuse"


def ops_of(module: ModuleOp, op_type: type) -> list:
    return [op for op in module.walk() if isinstance(op, op_type)]


def groups_with_attention(module: ModuleOp) -> list[graph.FusionGroupOp]:
    return [
        group
        for group in ops_of(module, graph.FusionGroupOp)
        if ops_of(group, graph.AttentionOp)
    ]


def projected(bias_shape: tuple[int, ...], B: int = 2, T: int = 5, heads: int = 2):
    """GPT-2's attention on `x + bias` (x: (B, T, 3D)), traced."""
    D = 4 * heads
    rng = np.random.default_rng(0)
    x = rng.standard_normal((B, T, 3 * D)).astype(np.float32)
    bias = rng.standard_normal(bias_shape).astype(np.float32)
    return trace(lambda x, b: causal_attention(x + b, heads), x, bias)


def test_gpt2_block_bias_becomes_prologue_and_epilogue() -> None:
    """In a GPT-2 block the qkv bias add disappears: q's bias is added in
    the attention group, k's is gone, v's is added to its output."""
    before = gpt2_stack(1, B=2, T=6, D=16, heads=2)
    after = fxdsl.apply(clone_module(before), "graph-decompose," + FOLD_AND_FUSE)
    (group,) = groups_with_attention(after)
    inner = [op.name for op in group.body.block.ops]
    assert inner == ["graph.add", "graph.attention", "graph.add", "graph.yield"]
    attention = ops_of(group, graph.AttentionOp)[0]
    assert isinstance(attention.query.owner, graph.AddOp)
    assert not isinstance(attention.key.owner, graph.AddOp)  # the k bias dropped
    qkv_adds = [
        op for op in ops_of(after, graph.AddOp) if shape_of(op.result)[-1] == 48
    ]
    assert qkv_adds == []  # no add over the whole (B, T, 3D) projection
    assert_same_numerics(before, after, rtol=1e-5, atol=1e-5)


def test_bf16_block_folds_through_the_widened_product() -> None:
    """In bf16 the qkv linear is decomposed to round once (product in f32,
    bias in f32, one cast); the fold narrows that product and still leaves
    no add over the whole projection, and no f32 product feeds q, k, v."""
    before = fxdsl.parse(
        str(gpt2_stack(1, B=2, T=6, D=16, heads=2)).replace("f32", "bf16")
    )
    decomposed = fxdsl.apply(clone_module(before), "graph-decompose")
    assert any(op.is_widened for op in ops_of(decomposed, graph.MatmulOp))
    after = fxdsl.apply(clone_module(before), "graph-decompose," + FOLD_AND_FUSE)
    (group,) = groups_with_attention(after)
    inner = [op.name for op in group.body.block.ops]
    assert inner == ["graph.add", "graph.attention", "graph.add", "graph.yield"]
    widths = [shape_of(op.result)[-1] for op in ops_of(after, graph.AddOp)]
    assert 48 not in widths  # no add over the whole (B, T, 3D) projection
    qkv = [op for op in ops_of(after, graph.MatmulOp) if shape_of(op.result)[-1] == 48]
    assert [op.is_widened for op in qkv] == [False]
    assert_same_numerics(before, after, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize(
    ("bias_shape", "folds"),
    [
        ((24,), True),  # per feature: GPT-2's
        ((), True),  # a scalar
        ((1, 1, 24), True),
        ((5, 1), False),  # per token: differs between key rows
        ((2, 5, 24), False),  # full-shaped
    ],
)
def test_fold_only_where_the_bias_is_the_same_for_every_key(
    bias_shape: tuple[int, ...], folds: bool
) -> None:
    before = fxdsl.apply(projected(bias_shape), FOLD)
    after = fxdsl.apply(clone_module(before), FOLD)  # folded now (or not)
    unfolded = fxdsl.apply(
        projected(bias_shape), "graph-fuse-attention{min-rows=1 fold-bias=false}"
    )
    full_adds = [
        op for op in ops_of(after, graph.AddOp) if shape_of(op.result) == (2, 5, 24)
    ]
    assert (not full_adds) == folds
    assert len(ops_of(unfolded, graph.AddOp)) == 1  # fold-bias=false: as it was
    reference = projected(bias_shape)
    for module in (after, unfolded):
        assert_same_numerics(reference, module, rtol=1e-5, atol=1e-5)


def test_k_prologue_and_reductions_stay_out_of_the_attention_kernel() -> None:
    """graph-fuse's attention rule: an op on k or v would be recomputed per
    (query, key) pair, a reduction has another iteration space, a value of
    the prologue read elsewhere would need storing: none joins."""

    def model(q, k, v):  # type: ignore[no-untyped-def]
        q1 = q * 2.0
        out = ops.scaled_dot_product_attention(q1, k + 1.0, v, is_causal=True)
        return ops.softmax(out, dim=-1), q1

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, 6, 4)).astype(np.float32) for _ in range(3))
    before = trace(model, q, k, v)
    after = fxdsl.apply(clone_module(before), "graph-fuse")
    for group in ops_of(after, graph.FusionGroupOp):
        assert not ops_of(group, graph.AttentionOp), str(group)
    assert_same_numerics(before, after)


def test_epilogue_reading_the_prologue_stays_out() -> None:
    def model(q, k, v):  # type: ignore[no-untyped-def]
        q1 = q * 2.0
        return ops.scaled_dot_product_attention(q1, k, v) + q1

    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3))
    before = trace(model, q, k, v)
    after = fxdsl.apply(clone_module(before), "graph-fuse")
    (group,) = groups_with_attention(after)
    # the add joins as the epilogue (it is visited first); then the mul
    # cannot join as the prologue, since the add reads it
    names = [op.name for op in group.body.block.ops]
    assert names == ["graph.attention", "graph.add", "graph.yield"]
    assert_same_numerics(before, after)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([(12,), (), (4, 1), (1, 12)]),
    st.integers(1, 3),
    st.integers(1, 6),
    st.booleans(),
)
def test_random_projections_keep_numerics(
    bias_shape: tuple[int, ...], B: int, T: int, transpose_heads: bool
) -> None:
    """Bias shapes (folding or not), batch and sequence sizes, heads split
    with or without a transpose, through the pass and graph-fuse."""
    if len(bias_shape) == 2 and bias_shape[0] == 4:
        bias_shape = (T, 1)
    heads, d = (2, 2) if transpose_heads else (1, 4)
    rng = np.random.default_rng(B * 10 + T)
    x = rng.standard_normal((B, T, 12)).astype(np.float32)
    bias = rng.standard_normal(bias_shape).astype(np.float32)

    def model(x, b):  # type: ignore[no-untyped-def]
        q, k, v = ops.split(x + b, [4, 4, 4], dim=-1)
        if transpose_heads:
            q, k, v = (t.reshape(B, T, heads, d).permute(0, 2, 1, 3) for t in (q, k, v))
        return ops.scaled_dot_product_attention(q, k, v, is_causal=T > 2)

    before = trace(model, x, bias)
    after = fxdsl.apply(clone_module(before), FOLD_AND_FUSE)
    after.verify()
    assert_same_numerics(before, after, rtol=1e-5, atol=1e-5)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_ops=25))
def test_random_graphs_keep_numerics(module: ModuleOp) -> None:
    """The shared strategy builds packed, biased q/k/v projections too."""
    after = fxdsl.apply(clone_module(module), FOLD_AND_FUSE)
    after.verify()
    assert_same_numerics(module, after, seeds=(0,))


def test_thousands_of_ops_fold_and_fuse_fast() -> None:
    """100 decomposed GPT-2 blocks (about 4000 ops): every block's bias
    folds and its attention kernel gets the prologue and epilogue;
    near-linear (about 1 s here), deterministic."""
    module = fxdsl.apply(gpt2_stack(100, B=1, T=4, D=8, heads=2), "graph-decompose")
    start = time.perf_counter()
    first = fxdsl.apply(clone_module(module), FOLD_AND_FUSE)
    elapsed = time.perf_counter() - start
    assert sum(1 for _ in first.walk()) > 4000
    groups = groups_with_attention(first)
    assert len(groups) == 100
    assert all(
        len(list(g.body.block.ops)) == 4 for g in groups
    )  # add, attention, add, yield
    assert str(first) == str(fxdsl.apply(clone_module(module), FOLD_AND_FUSE))
    assert elapsed < 30, f"{elapsed:.1f}s"


def test_bad_fold_bias_is_an_error() -> None:
    from xdsl.context import Context
    from xdsl.utils.exceptions import PassFailedException

    from fxdsl.transforms.graph_fuse_attention import GraphFuseAttentionPass

    bad = GraphFuseAttentionPass(fold_bias="yes")  # type: ignore[arg-type]
    with pytest.raises(PassFailedException, match="fold-bias must be true or false"):
        bad.apply(Context(), projected((24,)))


@pytest.mark.parametrize("boolean", [True, False])
def test_fold_keeps_the_mask(boolean: bool) -> None:
    """A masked attention on views of a bias add of q and k: the bias folds
    and the new attention keeps the mask operand (the mask is no q, k or v).
    A v bias does not fold with a mask: a row with every key masked (random
    i1 masks have some) gives 0, where `P v + b_v` would give `b_v`."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 12)).astype(np.float32)
    bias = rng.standard_normal((12,)).astype(np.float32)
    if boolean:
        mask = rng.random((5, 5)) > 0.3
    else:
        mask = rng.standard_normal((2, 1, 5)).astype(np.float32)

    def fn(x, b, m):  # type: ignore[no-untyped-def]
        q, k, v = ops.split(x, 4, dim=-1)
        q, k = ops.split(ops.concat([q, k], -1) + b[:8], 4, dim=-1)
        return ops.scaled_dot_product_attention(q, k, v, attn_mask=m)

    def fn_v(x, b, m):  # type: ignore[no-untyped-def]
        q, k, v = ops.split(x + b, 4, dim=-1)
        return ops.scaled_dot_product_attention(q, k, v, attn_mask=m)

    before = trace(fn, x, bias, mask)
    after = fxdsl.apply(clone_module(before), FOLD)
    (attention,) = ops_of(after, graph.AttentionOp)
    assert attention.mask is not None
    assert attention.mask == entry_args(after)[2]
    assert not any(shape_of(a.result) == (2, 5, 8) for a in ops_of(after, graph.AddOp))
    assert_same_numerics(before, after, rtol=1e-5, atol=1e-5)
    with_v = trace(fn_v, x, bias, mask)
    kept = fxdsl.apply(clone_module(with_v), FOLD)
    assert any(shape_of(a.result) == (2, 5, 12) for a in ops_of(kept, graph.AddOp))
    assert_same_numerics(with_v, kept, rtol=1e-5, atol=1e-5)


def entry_args(module: ModuleOp) -> list:
    return list(next(iter(module.body.ops)).body.block.args)  # type: ignore[attr-defined]
