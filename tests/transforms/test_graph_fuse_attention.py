"""graph-fuse-attention: GPT-2's attention becomes one op, numerics kept,
the tracer's op matches torch's semantics, options and scale."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

import fxdsl
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import run_reference
from fxdsl.ir import graph
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import trace
from fxdsl.transforms.graph_fuse_attention import MIN_ROWS

FUSE_ALL = "graph-fuse-attention{min-rows=1}"


def count(module: ModuleOp, op_type: type) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def test_gpt2_stack_attention_is_one_op_per_block() -> None:
    before = gpt2_stack(3, B=2, T=8, D=32, heads=4)
    after = fxdsl.apply(clone_module(before), FUSE_ALL)
    assert count(after, graph.AttentionOp) == 3
    assert count(after, graph.SoftmaxOp) == 0
    assert count(after, graph.SelectOp) == 0  # the mask constants are erased
    assert count(after, graph.MatmulOp) == 0  # linears are not decomposed yet
    attention = next(op for op in after.walk() if isinstance(op, graph.AttentionOp))
    assert attention.is_causal
    assert attention.scale_value == pytest.approx(1 / np.sqrt(8))
    assert "scope" in attention.attributes
    assert_same_numerics(before, after, rtol=1e-5, atol=1e-6)


def test_after_decompose_too() -> None:
    """In the default pipeline the pass runs after graph-decompose."""
    before = gpt2_stack(1, B=1, T=8, D=32, heads=2)
    after = fxdsl.apply(clone_module(before), "graph-decompose," + FUSE_ALL)
    assert count(after, graph.AttentionOp) == 1
    assert count(after, graph.MatmulOp) == 4  # the four linears
    assert_same_numerics(before, after)


def test_min_rows_keeps_small_attention_unfused() -> None:
    module = gpt2_stack(1, B=1, T=8, D=32, heads=2)  # 2 heads x 8 rows
    for spec, fused in [
        ("graph-fuse-attention{min-rows=16}", 1),
        ("graph-fuse-attention{min-rows=17}", 0),
        ("graph-fuse-attention", 0),
    ]:
        after = fxdsl.apply(clone_module(module), spec)
        assert count(after, graph.AttentionOp) == fused, spec
    assert MIN_ROWS == 16384


def test_bad_min_rows_is_an_error() -> None:
    module = gpt2_stack(1, B=1, T=4, D=8, heads=2)
    with pytest.raises(
        PassFailedException, match="min-rows must be an integer >= 1, got 0"
    ):
        fxdsl.apply(module, "graph-fuse-attention{min-rows=0}")


def attention_ref(q, k, v, causal, scale):  # type: ignore[no-untyped-def]
    scores = np.einsum("...td,...sd->...ts", q, k) * scale
    if causal:
        t, s = scores.shape[-2:]
        scores = np.where(np.tri(t, s, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_traced_op_matches_torch_semantics(causal: bool, scale: float | None) -> None:
    """`ops.scaled_dot_product_attention` as torch's: default scale
    1/sqrt(d), `is_causal` top-left aligned (query t sees keys <= t)."""
    shapes = [(2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6)]

    def model(q, k, v):  # type: ignore[no-untyped-def]
        return ops.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)

    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    module = trace(model, q, k, v)
    (out,) = run_reference(module, q, k, v)
    want = attention_ref(q, k, v, causal, scale if scale is not None else 0.5)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_ops=25))
def test_random_graphs_keep_numerics(module: ModuleOp) -> None:
    after = fxdsl.apply(clone_module(module), FUSE_ALL + ",graph-fuse")
    after.verify()
    assert_same_numerics(module, after, seeds=(0,))


def test_thousands_of_ops_stay_fast() -> None:
    """100 GPT-2 blocks (about 3000 ops): near-linear, deterministic."""
    module = gpt2_stack(100, B=1, T=4, D=8, heads=2)
    ops_before = sum(1 for _ in module.walk())
    assert ops_before > 2500
    start = time.perf_counter()
    first = fxdsl.apply(clone_module(module), FUSE_ALL)
    elapsed = time.perf_counter() - start
    assert count(first, graph.AttentionOp) == 100
    assert str(first) == str(fxdsl.apply(clone_module(module), FUSE_ALL))
    assert elapsed < 30, f"{elapsed:.1f}s for {ops_before} ops"
