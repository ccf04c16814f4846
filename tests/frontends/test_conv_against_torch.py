"""Convolution, pooling and batch norm (`fxdsl.ops`, the reference
interpreter) against torch itself on the CPU: random shapes and window
parameters from hypothesis, where torch and fxdsl must agree on the output
or both reject the parameters, plus the edge cases conv nets hit (depthwise,
1x1, stride = kernel, dilation with padding, ceil_mode windows that reach
into the padding). torch is an optional extra: skipped where it is missing,
a failure under CI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fxdsl
from fxdsl import ops, trace
from fxdsl.testing.optional import need
from fxdsl.testing.strategies import pool_windows

torch = need("torch")
F = torch.nn.functional
Array = np.ndarray[Any, Any]
TOLERANCE = 1e-5
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def run(fn: Callable[..., Any], *inputs: Array) -> Array:
    """`fn` traced on `inputs`' shapes and dtypes, run on the reference."""
    (output,) = fxdsl.run(trace(fn, *inputs), *inputs)
    return output


def agree(ours: Callable[..., Any], theirs: Callable[..., Any], *inputs: Array) -> None:
    """Same values, or both reject the parameters (fxdsl with a ValueError
    naming the op, torch with a RuntimeError)."""
    try:
        want = theirs(*(torch.from_numpy(x) for x in inputs)).numpy()
    except RuntimeError:
        with pytest.raises(ValueError, match=r"graph\.\w+: "):
            run(ours, *inputs)
        return
    got = run(ours, *inputs)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOLERANCE, atol=TOLERANCE)


def randn(rng: np.random.Generator, *shape: int) -> Array:
    return rng.standard_normal(shape).astype(np.float32)


small = st.integers(1, 3)


@st.composite
def convolutions(draw: st.DrawFn) -> dict[str, Any]:
    rank = draw(st.sampled_from([1, 2]))
    groups = draw(st.sampled_from([1, 2, 3]))
    per_dim = lambda values: [draw(values) for _ in range(rank)]
    return {
        "rank": rank,
        "batch": draw(st.integers(1, 2)),
        "groups": groups,
        "in_channels": groups * draw(small),
        "out_channels": groups * draw(small),
        "kernel": per_dim(st.integers(1, 4)),
        "stride": per_dim(small),
        "padding": per_dim(st.integers(0, 2)),
        "dilation": per_dim(small),
        # sometimes smaller than the dilated kernel: both must reject it
        "size": per_dim(st.integers(1, 10)),
        "bias": draw(st.booleans()),
        "seed": draw(st.integers(0, 2**16)),
    }


@SETTINGS
@given(case=convolutions())
def test_convolution_matches_torch(case: dict[str, Any]) -> None:
    rng = np.random.default_rng(case["seed"])
    x = randn(rng, case["batch"], case["in_channels"], *case["size"])
    w = randn(
        rng,
        case["out_channels"],
        case["in_channels"] // case["groups"],
        *case["kernel"],
    )
    b = randn(rng, case["out_channels"])
    window = (case["stride"], case["padding"], case["dilation"], case["groups"])
    ours, theirs = (
        (ops.conv1d, F.conv1d) if case["rank"] == 1 else (ops.conv2d, F.conv2d)
    )
    if case["bias"]:
        agree(
            lambda x, w, b: ours(x, w, b, *window),
            lambda x, w, b: theirs(x, w, b, *window),
            x,
            w,
            b,
        )
    else:
        agree(
            lambda x, w: ours(x, w, None, *window),
            lambda x, w: theirs(x, w, None, *window),
            x,
            w,
        )


CONV_EDGES = {
    # name: (input shape, weight shape, stride, padding, dilation, groups)
    "depthwise": ((2, 8, 9, 9), (8, 1, 3, 3), 1, 1, 1, 8),
    "depthwise-strided": ((1, 6, 10, 7), (12, 1, 5, 5), 2, 2, 1, 6),
    "pointwise-1x1": ((2, 16, 5, 5), (24, 16, 1, 1), 1, 0, 1, 1),
    "pointwise-strided": ((1, 8, 9, 9), (16, 8, 1, 1), 2, 0, 1, 1),
    "stride-equals-kernel": ((2, 3, 16, 16), (8, 3, 4, 4), 4, 0, 1, 1),
    "dilated-padded": ((1, 4, 11, 11), (4, 4, 3, 3), 1, 2, 2, 1),
    "kernel-equals-input": ((1, 4, 5, 5), (3, 4, 5, 5), 1, 0, 1, 1),
    "asymmetric-window": ((1, 4, 9, 12), (6, 2, 3, 5), (2, 3), (1, 2), (2, 1), 2),
    "conv1d-whisper": ((1, 16, 32), (8, 16, 3), 2, 1, 1, 1),
}


@pytest.mark.parametrize("name", list(CONV_EDGES))
def test_convolution_edge_cases(name: str) -> None:
    shape, weight_shape, stride, padding, dilation, groups = CONV_EDGES[name]
    rng = np.random.default_rng(len(name))
    x, w = randn(rng, *shape), randn(rng, *weight_shape)
    b = randn(rng, weight_shape[0])
    ours, theirs = (ops.conv1d, F.conv1d) if len(shape) == 3 else (ops.conv2d, F.conv2d)
    window = (stride, padding, dilation, groups)
    agree(
        lambda x, w, b: ours(x, w, b, *window),
        lambda x, w, b: theirs(x, w, b, *window),
        x,
        w,
        b,
    )


@SETTINGS
@given(case=pool_windows())
def test_max_pool2d_matches_torch(case: dict[str, Any]) -> None:
    x = randn(np.random.default_rng(case["seed"]), *case["shape"])
    window = (case["kernel"], case["stride"], case["padding"], case["dilation"])
    ceil = case["ceil_mode"]
    agree(
        lambda x: ops.max_pool2d(x, *window, ceil_mode=ceil),
        lambda x: F.max_pool2d(x, *window, ceil_mode=ceil),
        x,
    )


@SETTINGS
@given(case=pool_windows())
def test_avg_pool2d_matches_torch(case: dict[str, Any]) -> None:
    x = randn(np.random.default_rng(case["seed"]), *case["shape"])
    window = (case["kernel"], case["stride"], case["padding"], case["ceil_mode"])
    include = case["count_include_pad"]
    agree(
        lambda x: ops.avg_pool2d(x, *window, count_include_pad=include),
        lambda x: F.avg_pool2d(x, *window, count_include_pad=include),
        x,
    )


POOL_EDGES = {
    # name: (input shape, kernel, stride, padding, ceil_mode)
    "resnet-stem": ((1, 4, 32, 32), 3, 2, 1, False),
    "ceil-last-window-in-padding": ((1, 2, 5, 5), 2, 2, 1, True),
    "ceil-partial-window": ((1, 2, 7, 6), 3, 2, 1, True),
    "ceil-stride-1": ((1, 2, 6, 6), 3, 1, 1, True),
    "kernel-equals-input": ((2, 3, 4, 4), 4, 4, 0, False),
}


@pytest.mark.parametrize("include_pad", [True, False])
@pytest.mark.parametrize("name", list(POOL_EDGES))
def test_pool_edge_cases(name: str, include_pad: bool) -> None:
    shape, kernel, stride, padding, ceil = POOL_EDGES[name]
    x = randn(np.random.default_rng(len(name)), *shape)
    agree(
        lambda x: ops.avg_pool2d(x, kernel, stride, padding, ceil, include_pad),
        lambda x: F.avg_pool2d(x, kernel, stride, padding, ceil, include_pad),
        x,
    )
    agree(
        lambda x: ops.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil),
        lambda x: F.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil),
        x,
    )


def test_max_pool2d_propagates_nan_and_never_picks_padding() -> None:
    x = -np.ones((1, 1, 4, 4), np.float32) * 5
    x[0, 0, 1, 1] = np.nan
    agree(lambda x: ops.max_pool2d(x, 3, 2, 1), lambda x: F.max_pool2d(x, 3, 2, 1), x)


@SETTINGS
@given(
    size=st.tuples(st.integers(1, 9), st.integers(1, 9)),
    out=st.tuples(st.integers(1, 9), st.integers(1, 9)),
    seed=st.integers(0, 2**16),
)
def test_adaptive_avg_pool2d_matches_torch(
    size: tuple[int, int], out: tuple[int, int], seed: int
) -> None:
    x = randn(np.random.default_rng(seed), 2, 3, *size)
    agree(
        lambda x: ops.adaptive_avg_pool2d(x, out),
        lambda x: F.adaptive_avg_pool2d(x, out),
        x,
    )


@SETTINGS
@given(
    shape=st.lists(st.integers(1, 5), min_size=2, max_size=4),
    eps=st.sampled_from([1e-5, 1e-3, 0.1]),
    affine=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_batch_norm_matches_torch(
    shape: list[int], eps: float, affine: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    channels = shape[1]
    x, mean = randn(rng, *shape), randn(rng, channels)
    var = rng.uniform(0.01, 3.0, channels).astype(np.float32)
    w, b = randn(rng, channels), randn(rng, channels)
    if affine:
        agree(
            lambda x, m, v, w, b: ops.batch_norm(x, m, v, w, b, eps),
            lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, False, 0.1, eps),
            x,
            mean,
            var,
            w,
            b,
        )
    else:
        agree(
            lambda x, m, v: ops.batch_norm(x, m, v, eps=eps),
            lambda x, m, v: F.batch_norm(x, m, v, None, None, False, 0.1, eps),
            x,
            mean,
            var,
        )
