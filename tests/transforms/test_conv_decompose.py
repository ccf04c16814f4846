"""graph-decompose on conv nets (`fxdsl.transforms.conv_decompose`): no conv,
pooling or batch norm survives, and the decomposition computes what the
reference computes for the op (itself checked against torch in
tests/frontends/test_conv_against_torch.py), on random window parameters
from hypothesis and on the edge cases conv nets hit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl import ops, trace
from fxdsl.ir import graph
from fxdsl.testing import assert_same_numerics, clone_module
from fxdsl.testing.strategies import pool_windows

Array = np.ndarray[Any, Any]
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
CONV_NET_OPS = (
    graph.ConvOp,
    graph.Pool2dOp,
    graph.AdaptiveAvgPool2dOp,
    graph.BatchNormOp,
)


def count(module: ModuleOp, op_type: type | tuple[type, ...]) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def decomposed(fn: Callable[..., Any], *shapes: tuple[int, ...]) -> ModuleOp:
    """`fn` traced on f32 inputs of `shapes` and decomposed, checked against
    the traced module on random inputs; hypothesis rejects parameters the
    op itself rejects."""
    inputs = [np.zeros(shape, np.float32) for shape in shapes]
    try:
        before = trace(fn, *inputs)
    except ValueError:
        reject()
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    after.verify()
    assert count(before, CONV_NET_OPS) >= 1
    assert count(after, CONV_NET_OPS) == 0
    # im2col and the taps sum in another order than the reference's matmul
    assert_same_numerics(before, after, rtol=1e-5, atol=1e-5)
    return after


small = st.integers(1, 3)


@SETTINGS
@given(
    rank=st.sampled_from([1, 2]),
    batch=st.integers(1, 2),
    groups=st.sampled_from([1, 2, 3]),
    per_group=st.tuples(small, small),
    window=st.lists(
        st.tuples(
            st.integers(1, 4), small, st.integers(0, 2), small, st.integers(1, 9)
        ),
        min_size=2,
        max_size=2,
    ),
    bias=st.booleans(),
)
def test_convolution_numerics(
    rank: int,
    batch: int,
    groups: int,
    per_group: tuple[int, int],
    window: list[tuple[int, int, int, int, int]],
    bias: bool,
) -> None:
    """Any conv: kernel, stride, padding, dilation and size per spatial dim."""
    kernel, stride, padding, dilation, size = (list(v)[:rank] for v in zip(*window))
    channels, out = groups * per_group[0], groups * per_group[1]
    conv = ops.conv1d if rank == 1 else ops.conv2d
    shapes = [(batch, channels, *size), (out, per_group[0], *kernel)]
    args = (stride, padding, dilation, groups)
    if bias:
        decomposed(lambda x, w, b: conv(x, w, b, *args), *shapes, (out,))
    else:
        decomposed(lambda x, w: conv(x, w, None, *args), *shapes)


CONV_EDGES = {
    # name: (input, weight, stride, padding, dilation, groups, what it becomes)
    "depthwise": ((2, 8, 9, 9), (8, 1, 3, 3), 1, 1, 1, 8, "taps"),
    "depthwise-strided": ((1, 6, 10, 7), (6, 1, 5, 5), 2, 2, 1, 6, "taps"),
    "channel-multiplier": ((1, 3, 6, 6), (6, 1, 3, 3), 1, 1, 1, 3, "gemm"),
    "pointwise-1x1": ((2, 16, 5, 5), (24, 16, 1, 1), 1, 0, 1, 1, "patches"),
    "pointwise-strided": ((1, 8, 9, 9), (16, 8, 1, 1), 2, 0, 1, 1, "gemm"),
    "stride-equals-kernel": ((2, 3, 16, 16), (8, 3, 4, 4), 4, 0, 1, 1, "patches"),
    "patches-with-remainder": ((1, 3, 18, 17), (8, 3, 4, 4), 4, 0, 1, 1, "patches"),
    "dilated-padded": ((1, 4, 11, 11), (4, 4, 3, 3), 1, 2, 2, 1, "gemm"),
    "kernel-equals-input": ((1, 4, 5, 5), (3, 4, 5, 5), 1, 0, 1, 1, "patches"),
    "grouped-asymmetric": ((1, 4, 9, 12), (6, 2, 3, 5), (2, 3), (1, 2), (2, 1), 2, "gemm"),
    "conv1d-whisper": ((1, 16, 32), (8, 16, 3), 2, 1, 1, 1, "gemm"),
    "conv1d-depthwise": ((1, 4, 10), (4, 1, 3), 1, 1, 1, 4, "taps"),
    "in-padding-only": ((1, 2, 1), (3, 2, 1), 2, 1, 1, 1, "zeros"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CONV_EDGES))
def test_convolution_edge_cases(name: str) -> None:
    """Each conv takes the route its parameters call for: one matmul (GEMM,
    patches) or none (taps), a bias add in every case."""
    shape, weight, stride, padding, dilation, groups, route = CONV_EDGES[name]
    conv = ops.conv1d if len(shape) == 3 else ops.conv2d
    args = (stride, padding, dilation, groups)
    after = decomposed(
        lambda x, w, b: conv(x, w, b, *args), shape, weight, (weight[0],)
    )
    assert count(after, graph.MatmulOp) == (0 if route in ("taps", "zeros") else 1)
    # patches are a reshape and a transpose: no padding, no taps to stack
    if route == "patches":
        assert count(after, graph.ConcatOp) == 0
        assert count(after, graph.SliceOp) == ("remainder" in name)
    adds = [op for op in after.walk() if isinstance(op, graph.AddOp)]
    assert adds
    assert graph.shape_of(adds[-1].rhs) == (weight[0], *[1] * (len(shape) - 2))


def test_taps_that_read_only_padding_drop() -> None:
    """A 5x5 depthwise conv (padding 2) on a 1x1 map reads one input element
    per output: one tap, no padding; a 3x3 max pool likewise."""
    after = decomposed(
        lambda x, w: ops.conv2d(x, w, None, 1, 2, 1, 4), (1, 4, 1, 1), (4, 1, 5, 5)
    )
    assert count(after, graph.MulOp) == 1
    assert count(after, graph.ConcatOp) == count(after, graph.AddOp) == 0
    after = decomposed(lambda x: ops.max_pool2d(x, 3, 2, 1), (1, 4, 1, 1))
    assert count(after, graph.MaximumOp) == count(after, graph.ConcatOp) == 0


@SETTINGS
@given(case=pool_windows())
def test_max_pool2d_numerics(case: dict[str, Any]) -> None:
    window = (case["kernel"], case["stride"], case["padding"], case["dilation"])
    ceil = case["ceil_mode"]
    after = decomposed(
        lambda x: ops.max_pool2d(x, *window, ceil_mode=ceil), case["shape"]
    )
    assert count(after, graph.MatmulOp) == 0


@SETTINGS
@given(case=pool_windows())
def test_avg_pool2d_numerics(case: dict[str, Any]) -> None:
    window = (case["kernel"], case["stride"], case["padding"], case["ceil_mode"])
    include = case["count_include_pad"]
    after = decomposed(
        lambda x: ops.avg_pool2d(x, *window, count_include_pad=include), case["shape"]
    )
    assert count(after, graph.MatmulOp) == 0


@pytest.mark.parametrize("include_pad", [True, False])
@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "ceil"),
    [
        ((1, 4, 16, 16), 3, 2, 1, False),  # the ResNet stem's
        ((1, 2, 5, 5), 2, 2, 1, True),  # a ceil window that starts in padding
        ((1, 2, 7, 6), 3, 2, 1, True),  # a partial ceil window
        ((2, 3, 4, 4), 4, 4, 0, False),  # kernel = input
    ],
)
def test_pool_edge_cases(
    shape: tuple[int, ...],
    kernel: int,
    stride: int,
    padding: int,
    ceil: bool,
    include_pad: bool,
) -> None:
    window = (kernel, stride, padding)
    decomposed(lambda x: ops.max_pool2d(x, *window, ceil_mode=ceil), shape)
    decomposed(
        lambda x: ops.avg_pool2d(
            x, *window, ceil_mode=ceil, count_include_pad=include_pad
        ),
        shape,
    )


@pytest.mark.parametrize(("divisor", "divides"), [(1, False), (3, True)])
def test_avg_pool2d_divisor_override(divisor: int, divides: bool) -> None:
    """divisor_override divides every window (1: none, a sum of taps)."""
    after = decomposed(
        lambda x: ops.avg_pool2d(x, 3, 2, 1, True, False, divisor), (1, 2, 7, 6)
    )
    assert count(after, graph.DivOp) == divides


@pytest.mark.parametrize(
    ("shape", "size", "matmuls"),
    [
        ((1, 3, 8, 6), (4, 3), 0),  # divides: a mean over reshaped windows
        ((2, 2, 4, 4), (1, 1), 0),
        ((1, 3, 7, 5), (3, 2), 2),  # overlapping windows: averaging matmuls
        ((1, 2, 6, 5), (6, 2), 2),
    ],
)
def test_adaptive_avg_pool2d(
    shape: tuple[int, ...], size: tuple[int, int], matmuls: int
) -> None:
    after = decomposed(lambda x: ops.adaptive_avg_pool2d(x, size), shape)
    assert count(after, graph.MatmulOp) == matmuls
    assert count(after, graph.MeanOp) == 1 - matmuls // 2


@pytest.mark.parametrize("shape", [(4, 6), (2, 6, 5), (2, 6, 3, 4)])
def test_batch_norm_is_elementwise(shape: tuple[int, ...]) -> None:
    """BatchNorm1d on (N, C) and (N, C, L), BatchNorm2d: x * a + b with the
    parameters reshaped to broadcast over dim 1; nothing but elementwise ops
    and reshapes."""
    c = (shape[1],)

    def norm(x: Any, m: Any, v: Any, w: Any, b: Any) -> Any:
        return ops.batch_norm(x, m, v, w, b, eps=1e-3)

    inputs = [np.zeros(s, np.float32) for s in (shape, c, c, c, c)]
    before = trace(norm, *inputs)
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    kinds = {op.name for op in after.walk() if isinstance(op, graph.GraphOp)}
    assert kinds <= {
        "graph.reshape", "graph.full", "graph.add", "graph.rsqrt", "graph.mul",
        "graph.sub",
    }  # fmt: skip
    # random variances are negative half the time: make them variances
    for seed in (0, 1):
        from fxdsl.interpreters.run import random_inputs, run_reference

        args = random_inputs(before, seed=seed)
        args[2] = np.abs(args[2])
        (want,) = run_reference(before, *args)
        (got,) = run_reference(after, *args)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


PROVENANCE = """
func.func @f(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>)
    -> tensor<1x3x2x2xf32> {
  %c = graph.conv2d %x, %w, %b dilation [1, 1] groups 1 padding [1, 1]
         stride [2, 2] {scope = #graph.scope<("conv1", 0, "Conv2d")>}
         : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>)
         -> tensor<1x3x2x2xf32>
  %p = graph.max_pool2d %c dilation [1, 1] kernel [2, 2] padding [1, 1]
         stride [2, 2] {scope = #graph.scope<("pool", 0, "MaxPool2d")>}
         : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  func.return %p : tensor<1x3x2x2xf32>
}
"""


def test_provenance_is_kept() -> None:
    before = fxdsl.parse(PROVENANCE)
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    new = [op for op in after.walk() if isinstance(op, graph.GraphOp)]
    assert len(new) > 20
    assert all("scope" in op.attributes for op in new)
    assert_same_numerics(before, after)


BF16_CASES = {
    "avg_pool2d": (lambda x: ops.avg_pool2d(x, 3, 1, 1), [(1, 3, 9, 9)]),
    "depthwise": (
        lambda x, w, b: ops.conv2d(x, w, b, padding=1, groups=4),
        [(1, 4, 6, 6), (4, 1, 3, 3), (4,)],
    ),
    "batch_norm": (
        lambda x, m, v, w, b: ops.batch_norm(x, m, v, w, b, eps=1e-3),
        [(2, 3, 4, 4), (3,), (3,), (3,), (3,)],
    ),
    "adaptive": (lambda x: ops.adaptive_avg_pool2d(x, (3, 2)), [(1, 3, 7, 5)]),
}


@pytest.mark.parametrize("name", sorted(BF16_CASES))
def test_bf16_decompositions_round_once(name: str) -> None:
    """A bf16 pool, depthwise conv, batch norm or adaptive pool decomposed
    computes in f32 and rounds once at its end, as the op itself (and
    torch's kernel) does: its values are the op's own, within one bf16 ulp
    (f32 sums in another order), where rounding after every tap's add is
    off by several. The IR shows the f32 casts."""
    from fxdsl.interpreters.run import random_inputs, run_reference
    from fxdsl.tracing.tracer import TensorSpec

    fn, shapes = BF16_CASES[name]
    before = trace(fn, *(TensorSpec(tuple(s), "bf16") for s in shapes))
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(after, CONV_NET_OPS) == 0
    casts = [op for op in after.walk() if isinstance(op, graph.CastOp)]
    widening = [c for c in casts if str(graph.dtype_of(c.results[0])) == "f32"]
    narrowing = [c for c in casts if str(graph.dtype_of(c.results[0])) == "bf16"]
    assert widening  # computed in f32
    assert len(narrowing) == 1  # rounded once, at the end
    for seed in (0, 1):
        args = random_inputs(before, seed=seed)
        if name == "batch_norm":
            args[2] = np.abs(args[2])  # variances
        (want,) = run_reference(before, *args)
        (got,) = run_reference(after, *args)
        ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(want), 2.0**-8))) - 7)
        assert np.max(np.abs(got - want) / ulp) <= 1.0


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_16_bit_conv_bias_rounds_once(dtype: str, groups: int) -> None:
    """A 16-bit conv with a bias decomposes to a GEMM whose product stays
    f32 for the bias: the result equals the op's own (rounded once) bit for
    bit. Inputs on a 1/64 grid make every f32 sum exact, and the bias
    cancels the product's 16-bit rounding, so a rounded product gives 0
    where the op gives the bits that rounding loses."""
    from fxdsl.interpreters.run import run_reference
    from fxdsl.ir.dtypes import round_to_bf16
    from fxdsl.tracing.tracer import TensorSpec

    rng = np.random.default_rng(0)
    x = rng.integers(-64, 65, (2, 4, 5, 5)) / 64
    w = rng.integers(-64, 65, (6, 4 // groups, 3, 3)) / 64
    rounding = round_to_bf16 if dtype == "bf16" else (lambda a: a.astype(np.float16))
    held = np.float32 if dtype == "bf16" else np.float16  # how numpy holds it
    bare = trace(
        lambda x, w: ops.conv2d(x, w, None, padding=1, groups=groups),
        TensorSpec(x.shape, dtype),
        TensorSpec(w.shape, dtype),
    )
    (product,) = run_reference(bare, x.astype(held), w.astype(held))
    biased = trace(
        lambda x, w, b: ops.conv2d(x, w, b, padding=1, groups=groups),
        *(TensorSpec(s, dtype) for s in (x.shape, w.shape, (6,))),
    )
    # one bias per channel: minus the rounded product at one position
    bias = -np.asarray(rounding(np.asarray(product[0, :, 2, 2], np.float32)))
    args = [x.astype(held), w.astype(held), bias.astype(held)]
    (want,) = run_reference(biased, *args)
    after = fxdsl.apply(clone_module(biased), "graph-decompose")
    (got,) = run_reference(after, *args)
    assert np.count_nonzero(want[0, :, 2, 2]) > 0  # the lost bits show
    np.testing.assert_array_equal(
        np.asarray(got, np.float64), np.asarray(want, np.float64)
    )


@pytest.mark.parametrize("groups", [1, 4])
def test_16_bit_conv_with_f32_sums_decomposes_without_rounding(groups: int) -> None:
    """A bf16 conv declaring an f32 result (a transposed conv's phase, whose
    bias comes later) decomposes to an f32-result GEMM (or f32 taps) and
    no narrowing cast: the op's own values."""
    from fxdsl.tracing.tracer import TensorSpec

    before = trace(
        lambda x, w: ops.conv2d(x, w, None, padding=1, groups=groups, dtype="f32"),
        TensorSpec((2, 4, 5, 5), "bf16"),
        TensorSpec((4, 4 // groups, 3, 3), "bf16"),
    )
    after = fxdsl.apply(clone_module(before), "graph-decompose")
    assert count(after, CONV_NET_OPS) == 0
    casts = [op for op in after.walk() if isinstance(op, graph.CastOp)]
    narrowing = [
        c
        for c in casts
        if str(graph.dtype_of(c.input)) == "f32"
        and str(graph.dtype_of(c.results[0])) == "bf16"
    ]
    assert not narrowing
    matmuls = [op for op in after.walk() if isinstance(op, graph.MatmulOp)]
    assert all(op.is_widened for op in matmuls)
    assert_same_numerics(before, after, rtol=1e-6, atol=1e-6)
