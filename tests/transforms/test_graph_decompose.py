"""graph-decompose: no linear survives, numerics kept, provenance kept."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl.frontends.models import gpt2_block
from fxdsl.ir import graph
from fxdsl.testing import assert_same_numerics, clone_module, graphs

LINEARS = """
func.func @f(%x: tensor<2x3x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>,
             %v: tensor<8xf32>)
    -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<5xf32>) {
  %0 = graph.linear %x, %w, %b {scope = #graph.scope<("fc", 0, "Linear")>}
         : (tensor<2x3x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %1 = graph.linear %x, %w : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  %2 = graph.linear %v, %w, %b
         : (tensor<8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return %0, %1, %2 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<5xf32>
}
"""


def count(module: ModuleOp, op_type: type) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def test_linear_decomposed() -> None:
    before = fxdsl.parse(LINEARS)
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(after, graph.LinearOp) == 0
    assert count(after, graph.MatmulOp) == 3
    assert count(after, graph.TransposeOp) == 3
    assert count(after, graph.AddOp) == 2  # the bias-free linear has no add
    scoped = [op for op in after.walk() if "scope" in op.attributes]
    names = [op.name for op in scoped]
    assert names == ["graph.transpose", "graph.matmul", "graph.add"]
    assert_same_numerics(before, after)


def test_gpt2_block_decomposed() -> None:
    before = gpt2_block(T=8, D=32, heads=4)
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(before, graph.LinearOp) == 4
    assert count(after, graph.LinearOp) == 0
    # layer_norm, softmax and gelu are not decomposed (fusible as they are)
    for kept in (graph.LayerNormOp, graph.SoftmaxOp, graph.GeluOp):
        assert count(after, kept) == count(before, kept) > 0
    assert_same_numerics(before, after, seeds=(0,), rtol=1e-4, atol=1e-5)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_ops=25))
def test_random_decompose_numerics(module: ModuleOp) -> None:
    after = fxdsl.apply(clone_module(module), "graph-decompose,graph-fuse")
    after.verify()
    assert count(after, graph.LinearOp) == 0
    assert_same_numerics(module, after, seeds=(0,))


BOOLEAN_REDUCTIONS = """
func.func @f(%m: tensor<3x40xi1>) -> (tensor<3xi1>, tensor<1x1xi1>) {
  %0 = graph.any %m dims [1] {scope = #graph.scope<("mask", 0, "Mask")>}
         : (tensor<3x40xi1>) -> tensor<3xi1>
  %1 = graph.all %m dims [] keepdim : (tensor<3x40xi1>) -> tensor<1x1xi1>
  func.return %0, %1 : tensor<3xi1>, tensor<1x1xi1>
}
"""


def test_any_all_become_max_min() -> None:
    before = fxdsl.parse(BOOLEAN_REDUCTIONS)
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(after, graph.AnyOp) == count(after, graph.AllOp) == 0
    assert count(after, graph.MaxOp) == count(after, graph.MinOp) == 1
    (scoped,) = [op for op in after.walk() if "scope" in op.attributes]
    assert isinstance(scoped, graph.MaxOp)
    rows = np.zeros((3, 40), bool)
    rows[1, 7] = True
    rows[2, :] = True
    for mask in (rows, ~rows, np.ones((3, 40), bool)):
        want = fxdsl.run(before, mask)
        got = fxdsl.run(after, mask)
        for w, g in zip(want, got, strict=True):
            np.testing.assert_array_equal(w, g, strict=True)
    assert_same_numerics(before, after)


def test_arange_becomes_a_constant() -> None:
    before = fxdsl.parse("""
    func.func @f() -> (tensor<4xi64>, tensor<3xbf16>) {
      %0 = graph.arange start 7.0 step -2.0 : tensor<4xi64>
      %1 = graph.arange start 0.1 step 0.3 : tensor<3xbf16>
      func.return %0, %1 : tensor<4xi64>, tensor<3xbf16>
    }""")
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(after, graph.ArangeOp) == 0
    assert count(after, graph.ConstantOp) == 2
    ints, _ = fxdsl.run(after)
    np.testing.assert_array_equal(ints, [7, 5, 3, 1], strict=True)
    for want, got in zip(fxdsl.run(before), fxdsl.run(after), strict=True):
        np.testing.assert_array_equal(want, got, strict=True)


def test_cumsum_becomes_a_masked_sum_that_fuses() -> None:
    before = fxdsl.parse("""
    func.func @f(%x: tensor<3x40xf32>, %i: tensor<2x9x3xi64>)
        -> (tensor<3x40xf32>, tensor<2x9x3xi64>) {
      %0 = graph.cumsum %x dim 1 : tensor<3x40xf32>
      %1 = graph.cumsum %i dim 1 : tensor<2x9x3xi64>
      func.return %0, %1 : tensor<3x40xf32>, tensor<2x9x3xi64>
    }""")
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(after, graph.CumsumOp) == 0
    assert count(after, graph.SumOp) == 2
    x = np.arange(120, dtype=np.float32).reshape(3, 40) / 7
    i = np.arange(-27, 27).reshape(2, 9, 3)
    got = fxdsl.run(after, x, i)
    np.testing.assert_allclose(got[0], np.cumsum(x, axis=1), rtol=1e-6)
    np.testing.assert_array_equal(got[1], np.cumsum(i, axis=1), strict=True)
    # the mask, the select and the sum become one kernel per cumsum
    fused = fxdsl.apply(clone_module(after), "graph-fuse")
    assert count(fused, graph.FusionGroupOp) == 2
    assert all(
        isinstance(op.parent_op(), graph.FusionGroupOp)
        for op in fused.walk()
        if isinstance(op, graph.SelectOp | graph.LeOp)
    )


def test_masked_attention_decomposed_below_attention_min_rows() -> None:
    """graph-decompose splits a masked attention with fewer query rows than
    `attention-min-rows` into ops that fuse, and keeps one with as many
    (the fused kernel takes its mask); an unmasked one always stays.
    graph-fuse groups a masked attention with its query's prologue like an
    unmasked one."""
    from fxdsl.transforms.fusibility import Fusibility, classify

    text = """
    func.func @f(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>,
                 %m: tensor<4x6xi1>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
      %e = graph.exp %q : tensor<2x4x8xf32>
      %o = graph.attention %e, %k, %v, %m scale 0.5
             : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<4x6xi1>)
             -> tensor<2x4x3xf32>
      %e2 = graph.exp %q : tensor<2x4x8xf32>
      %p = graph.attention %e2, %k, %v scale 0.5
             : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>)
             -> tensor<2x4x3xf32>
      func.return %o, %p : tensor<2x4x3xf32>, tensor<2x4x3xf32>
    }"""
    before = fxdsl.parse(text)
    masked, plain = [op for op in before.walk() if isinstance(op, graph.AttentionOp)]
    assert classify(masked) is classify(plain) is Fusibility.ATTENTION
    fused = fxdsl.apply(clone_module(before), "graph-fuse")
    grouped = [
        op
        for op in fused.walk()
        if isinstance(op, graph.AttentionOp)
        and isinstance(op.parent_op(), graph.FusionGroupOp)
    ]
    assert len(grouped) == 2
    assert grouped[0].mask is not None
    kept = fxdsl.apply(clone_module(before), "graph-decompose{attention-min-rows=8}")
    assert count(kept, graph.AttentionOp) == 2  # 2 x 4 query rows: 8
    after = fxdsl.apply(clone_module(before), "graph-decompose{attention-min-rows=9}")
    attentions = [op for op in after.walk() if isinstance(op, graph.AttentionOp)]
    assert [op.mask for op in attentions] == [None]
    assert count(after, graph.SoftmaxOp) == 1
    rng = np.random.default_rng(0)
    mask = rng.random((4, 6)) > 0.5
    mask[2] = False  # a query row without keys: zeros, as torch
    inputs = [
        rng.standard_normal(s).astype(np.float32)
        for s in [(2, 4, 8), (2, 6, 8), (2, 6, 3)]
    ]
    want, got = fxdsl.run(before, *inputs, mask), fxdsl.run(after, *inputs, mask)
    assert not want[0][:, 2].any()
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
