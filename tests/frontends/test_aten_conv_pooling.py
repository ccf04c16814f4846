"""The importer's N-D and transposed convolutions (`fxdsl.frontends.aten_conv`)
and its pooling beyond the dialect's 2-D ops (`fxdsl.frontends.aten_pooling`):
3-D and adaptive pooling, max pooling's indices, divisor_override; and
`bilinear` (`aten._trilinear`) and `embedding_bag`
(`fxdsl.frontends.aten_compute`). Each case imports at both IR levels and
matches torch eager on the reference interpreter (values and indices, dtypes
included); a few also go through the GPU pipeline on the IR emulator, which
runs what the decomposition and the kernels make of them, and their CUDA C
through `nvcc -ptx -arch=sm_90` and cuda-sim.

torch is the `fxdsl[torch]` extra: skipped where missing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from xdsl.dialects import gpu

from fxdsl.testing.optional import need

torch = need("torch")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import (  # noqa: E402
    from_torch,
    to_numpy,
)
from fxdsl.ir import graph  # noqa: E402
from fxdsl.lowering.cuda_printer import kernel_source  # noqa: E402
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.strategies import pool_windows  # noqa: E402

F = torch.nn.functional
LEVELS = ("default", "core")


def _inputs(*shapes: tuple[int, ...]) -> tuple[Any, ...]:
    generator = torch.Generator().manual_seed(0)
    return tuple(torch.randn(*s, generator=generator) for s in shapes)


class _Call(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


CASES: dict[str, tuple[Callable[..., Any], tuple[tuple[int, ...], ...]]] = {
    # convolutions: N-D folds depth taps into channels, transposed ones
    # spread and pad the input
    "conv3d-grouped-strided-dilated": (
        lambda x, w, b: F.conv3d(x, w, b, (2, 1, 1), (1, 0, 2), (1, 2, 1), 2),
        ((2, 4, 7, 8, 9), (6, 2, 3, 2, 3), (6,)),
    ),
    "conv3d-unbatched": (
        lambda x, w: F.conv3d(x, w, None, 1, 1), ((4, 5, 6, 7), (3, 4, 2, 3, 3))
    ),
    "conv3d-same": (
        lambda x, w: F.conv3d(x, w, padding="same"), ((1, 2, 5, 6, 7), (3, 2, 3, 3, 1))
    ),
    # even kernels: torch pads the odd one more on the right (was refused)
    "conv2d-same-even-kernel": (
        lambda x, w: F.conv2d(x, w, padding="same"), ((2, 3, 6, 7), (4, 3, 2, 4))
    ),
    "conv3d-same-unbatched-dilated": (
        lambda x, w: F.conv3d(x, w, padding="same", dilation=(1, 3, 1)),
        ((2, 5, 6, 7), (3, 2, 1, 2, 4)),
    ),
    "conv_transpose1d": (
        lambda x, w, b: F.conv_transpose1d(x, w, b, 2, 1, 1),
        ((2, 4, 7), (4, 3, 3), (3,)),
    ),
    "conv_transpose2d-grouped-dilated": (
        lambda x, w, b: F.conv_transpose2d(x, w, b, (2, 3), (1, 0), (1, 2), 2, (1, 2)),
        ((2, 4, 5, 6), (4, 3, 3, 2), (6,)),
    ),
    "conv_transpose2d-unbatched": (
        lambda x, w: F.conv_transpose2d(x, w, None, 1, 2), ((4, 5, 6), (4, 3, 3, 3))
    ),
    "conv_transpose2d-padding-past-kernel": (
        lambda x, w: F.conv_transpose2d(x, w, None, 3, 3), ((1, 2, 3, 4), (2, 2, 2, 2))
    ),
    "conv_transpose3d": (
        lambda x, w: F.conv_transpose3d(x, w, None, 2, 1, 1, 1, (1, 1, 2)),
        ((1, 2, 3, 4, 5), (2, 2, 3, 2, 3)),
    ),
    # undilated and strided: one stride-1 conv per output phase
    "conv_transpose2d-upsample": (
        lambda x, w, b: F.conv_transpose2d(x, w, b, 2, 1, groups=2),
        ((2, 4, 5, 6), (4, 3, 4, 4), (6,)),
    ),
    "conv_transpose3d-phases": (
        lambda x, w: F.conv_transpose3d(x, w, None, (2, 1, 3), (1, 0, 2), (1, 0, 1)),
        ((1, 2, 3, 4, 5), (2, 3, 3, 2, 2)),
    ),
    "conv_transpose1d-kernel-below-stride": (
        lambda x, w, b: F.conv_transpose1d(x, w, b, 3, 0, 2), ((2, 3, 4), (3, 2, 2), (2,))
    ),
    # max pooling's indices: flat positions in H x W
    "max_pool2d-indices": (
        lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), ((2, 3, 9, 8),)
    ),
    "max_pool2d-indices-dilated-ceil": (
        lambda x: F.max_pool2d(
            x, (2, 3), (2, 1), (1, 1), (2, 1), ceil_mode=True, return_indices=True
        ),
        ((2, 3, 9, 8),),
    ),
    "max_pool2d-indices-unbatched": (
        lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), ((3, 9, 8),)
    ),
    "max_pool1d-indices": (
        lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True), ((2, 3, 9),)
    ),
    "adaptive_max_pool2d": (
        lambda x: F.adaptive_max_pool2d(x, (3, 5), return_indices=True),
        ((2, 3, 7, 8),),
    ),
    "adaptive_max_pool1d": (
        lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), ((2, 3, 7),)
    ),
    # average pooling: divisor_override, 3-D as two 2-D pools
    "avg_pool2d-divisor_override": (
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, divisor_override=2),
        ((2, 3, 9, 8),),
    ),
    # torch takes any nonzero divisor (OpInfo's bf16 samples have -2)
    "avg_pool2d-negative-divisor_override": (
        lambda x: F.avg_pool2d(x, 2, divisor_override=-2), ((1, 1, 4, 4),)
    ),
    "avg_pool3d-ceil-exclude-pad": (
        lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        ((2, 3, 7, 9, 8),),
    ),
    "avg_pool3d-divisor_override-unbatched": (
        lambda x: F.avg_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), divisor_override=3),
        ((3, 7, 9, 8),),
    ),
    "adaptive_avg_pool3d": (
        lambda x: F.adaptive_avg_pool3d(x, (3, 2, 5)), ((2, 3, 7, 9, 8),)
    ),
    # gradients: max pooling's added at the indices (per tap, placed by
    # interleaving and shifting; adaptive windows compare every pair),
    # replication padding's summed over each border
    "max_pool2d-backward": (
        lambda x, g: torch.ops.aten.max_pool2d_with_indices_backward(
            g, x, [3, 3], [2, 2], [1, 1], [1, 1], False,
            F.max_pool2d(x, 3, 2, 1, return_indices=True)[1],
        ),
        ((2, 3, 7, 9), (2, 3, 4, 5)),
    ),
    "max_pool3d-backward": (
        lambda x, g: torch.ops.aten.max_pool3d_with_indices_backward(
            g, x, [2, 2, 2], [2, 1, 2], [1, 0, 1], [1, 2, 1], True,
            F.max_pool3d(x, 2, (2, 1, 2), (1, 0, 1), (1, 2, 1), True, True)[1],
        ),
        ((1, 2, 5, 6, 7), (1, 2, 3, 4, 4)),
    ),
    "adaptive_max_pool3d": (
        lambda x: F.adaptive_max_pool3d(x, (2, 3, 4), True), ((2, 3, 5, 6, 7),)
    ),
    "adaptive_max_pool2d-backward": (
        lambda x, g: torch.ops.aten.adaptive_max_pool2d_backward(
            g, x, F.adaptive_max_pool2d(x, (3, 4), True)[1]
        ),
        ((2, 3, 7, 9), (2, 3, 3, 4)),
    ),
    "replication_pad2d-backward": (
        lambda g, x: torch.ops.aten.replication_pad2d_backward(g, x, [2, -1, 1, 3]),
        ((2, 3, 8, 7), (2, 3, 4, 6)),
    ),
    # bilinear: aten._trilinear, a broadcast product summed
    "bilinear": (
        lambda a, b, w, bias: F.bilinear(a, b, w, bias), ((4, 3), (4, 5), (2, 3, 5), (2,))
    ),
    "bilinear-batched": (
        lambda a, b, w: F.bilinear(a, b, w), ((2, 4, 3), (2, 4, 5), (6, 3, 5))
    ),
}  # fmt: skip

BAG_INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
BAG_OFFSETS = torch.tensor([0, 4, 4, 7])  # bag 1 is empty
BAGS: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "sum": (lambda w, i, o: F.embedding_bag(i, w, o, mode="sum"), ()),
    "mean-padding_idx": (
        lambda w, i, o: F.embedding_bag(i, w, o, mode="mean", padding_idx=2), ()
    ),
    "max": (lambda w, i, o: F.embedding_bag(i, w, o, mode="max"), ()),
    # a negative padding_idx counts from the end (row 9 of 10); it was
    # compared with the indices as -1, so row 9 was summed in
    "sum-negative-padding_idx": (
        lambda w, i, o: F.embedding_bag(i, w, o, mode="sum", padding_idx=-1), ()
    ),
    "max-include_last_offset": (
        lambda w, i, o: F.embedding_bag(
            i, w, torch.cat([o, o.new_tensor([9])]), mode="max",
            include_last_offset=True,
        ),
        (),
    ),
    "sum-per_sample_weights": (
        lambda w, i, o, p: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
        _inputs((10,)),
    ),
    "2-d-indices": (
        lambda w, i, o: F.embedding_bag(i.reshape(2, 5), w, mode="mean"), ()
    ),
}  # fmt: skip


def _assert_matches(got: Any, want: Any) -> None:
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        expected = w.numpy()
        assert np.asarray(g).dtype == expected.dtype
        np.testing.assert_allclose(g, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(CASES))
def test_reference_matches_eager(name: str, level: str) -> None:
    fn, shapes = CASES[name]
    args = _inputs(*shapes)
    program = from_torch(_Call(fn).eval(), args, decompose=level == "core")
    _assert_matches(program.run(*args), fn(*args))


def test_ties_and_minus_infinity_pick_torch_s_index() -> None:
    """A later equal element never wins (torch compares strictly); a window
    of -inf names its first element inside the input, not the padding."""
    x = torch.zeros(1, 1, 4, 5)
    x[0, 0, :2] = -torch.inf
    fn = CASES["max_pool2d-indices"][0]
    program = from_torch(_Call(fn).eval(), (x,))
    _assert_matches(program.run(x), fn(x))


@settings(max_examples=15, deadline=None)
@given(case=pool_windows(), nans=st.booleans())
def test_max_pool_indices_on_random_windows(case: dict[str, Any], nans: bool) -> None:
    """Any window torch takes (kernel, stride, padding, dilation,
    ceil_mode), some inputs with NaNs (torch's index is the last NaN's) and
    ties (rounded values: the first of equal maxima)."""
    x = torch.randn(*case["shape"], generator=torch.Generator().manual_seed(0))
    x = torch.round(x * 2)
    if nans:
        x[x > 1.5] = torch.nan

    def fn(t: Any) -> Any:
        return F.max_pool2d(
            t,
            case["kernel"],
            case["stride"],
            case["padding"],
            case["dilation"],
            case["ceil_mode"],
            return_indices=True,
        )

    try:
        want = fn(x)
    except RuntimeError:
        reject()  # a window torch rejects
    program = from_torch(_Call(fn).eval(), (x,))
    got = program.run(x)
    np.testing.assert_array_equal(got[1], want[1].numpy())
    np.testing.assert_array_equal(got[0], want[0].numpy())


def test_transposed_convolution_is_a_convolution() -> None:
    """The imported graph holds a plain conv2d (stride 1, no padding) of the
    spread input, and no op of a graph form the dialect lacks."""
    fn, shapes = CASES["conv_transpose2d-grouped-dilated"]
    program = from_torch(_Call(fn).eval(), _inputs(*shapes))
    (conv,) = [op for op in program.module.walk() if isinstance(op, graph.Conv2dOp)]
    assert conv.stride_list == (1, 1)
    assert conv.padding_list == (0, 0)
    assert conv.dilation_list == (1, 2)
    assert conv.group_count == 2


@settings(max_examples=12, deadline=None)
@given(
    rank=st.sampled_from([1, 2, 3]),
    groups=st.sampled_from([1, 2]),
    window=st.lists(
        st.tuples(st.integers(1, 5), st.integers(1, 4), st.integers(1, 3)),
        min_size=3,
        max_size=3,
    ),
    padding=st.integers(0, 3),
    dilation=st.sampled_from([1, 2]),
    extra=st.integers(0, 2),
)
def test_transposed_convolution_on_random_windows(
    rank: int,
    groups: int,
    window: list[tuple[int, int, int]],
    padding: int,
    dilation: int,
    extra: int,
) -> None:
    """Sizes, kernels, strides per dim, padding past the kernel, dilation,
    output_padding below the stride, groups: the phase and the spread forms
    against torch."""
    size, kernel, stride = (list(v)[:rank] for v in zip(*window))
    output_padding = [min(extra, max(s, dilation) - 1) for s in stride]
    conv = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][rank - 1]

    def fn(x: Any, w: Any) -> Any:
        return conv(x, w, None, stride, padding, output_padding, groups, dilation)

    x, w = _inputs((1, 2 * groups, *size), (2 * groups, 2, *kernel))
    try:
        want = fn(x, w)
    except RuntimeError:
        reject()  # an output size below one, which torch rejects
    if 0 in want.shape:
        reject()
    program = from_torch(_Call(fn).eval(), (x, w))
    _assert_matches(program.run(x, w), want)


def test_strided_transposed_convolution_convolves_each_phase() -> None:
    """A 4x4, stride-2 transposed conv (an upsampling layer): four stride-1
    convs of the input itself by 2x2 taps each, no spread input."""
    fn, shapes = CASES["conv_transpose2d-upsample"]
    program = from_torch(_Call(fn).eval(), _inputs(*shapes))
    convs = [op for op in program.module.walk() if isinstance(op, graph.Conv2dOp)]
    assert len(convs) == 4
    for conv in convs:
        assert graph.shape_of(conv.input) == shapes[0]
        assert graph.shape_of(conv.weight) == (6, 2, 2, 2)
        assert conv.stride_list == (1, 1)


def test_conv3d_is_one_conv2d() -> None:
    fn, shapes = CASES["conv3d-grouped-strided-dilated"]
    program = from_torch(_Call(fn).eval(), _inputs(*shapes))
    convs = [op for op in program.module.walk() if isinstance(op, graph.ConvOp)]
    assert [type(op) for op in convs] == [graph.Conv2dOp]
    # (N OD, C KD, H, W) by (O, C/G KD, KH, KW)
    assert graph.shape_of(convs[0].input) == (2 * 4, 4 * 3, 8, 9)
    assert graph.shape_of(convs[0].weight) == (6, 2 * 3, 2, 3)


LOWERED = [
    "conv3d-grouped-strided-dilated",
    "conv_transpose2d-grouped-dilated",
    "conv_transpose2d-upsample",
    "max_pool2d-indices",
    "adaptive_max_pool2d",
    "avg_pool2d-divisor_override",
    "avg_pool3d-ceil-exclude-pad",
    "max_pool2d-backward",
    "replication_pad2d-backward",
]
"""Cases through the GPU pipeline: one per new construction."""


def _lowered(name: str) -> tuple[Any, Any, tuple[Any, ...]]:
    """(the program, its GPU-pipeline module, the inputs) of case `name`."""
    fn, shapes = CASES[name]
    args = _inputs(*shapes)
    program = from_torch(_Call(fn).eval(), args)
    return program, fxdsl.apply(program.module.clone(), GPU_PIPELINE), args


@pytest.mark.parametrize("name", LOWERED)
def test_gpu_pipeline_on_the_emulator_matches_eager(name: str) -> None:
    """Through GPU_PIPELINE (graph-decompose: GEMMs, window kernels) on the
    IR emulator."""
    program, lowered, args = _lowered(name)
    got = Emulator(lowered).run("forward", *program.weights, *map(to_numpy, args))
    _assert_matches(got, CASES[name][0](*args))


@pytest.mark.nvcc
def test_kernels_compile_with_nvcc(tmp_path: Path) -> None:
    """One .entry per gpu.func of each lowered case."""
    from fxdsl.testing.nvcc import compile_ptx

    for name in LOWERED:
        lowered = _lowered(name)[1]
        kernels = [op for op in lowered.walk() if isinstance(op, gpu.FuncOp)]
        ptx = compile_ptx(kernel_source(lowered), tmp_path, name)
        assert ptx.count(".entry") == len(kernels), name


@pytest.mark.cxx
@pytest.mark.parametrize(
    "name",
    [
        "conv_transpose2d-grouped-dilated",
        "conv_transpose2d-upsample",
        "max_pool2d-indices",
        "max_pool2d-backward",
        "replication_pad2d-backward",
    ],
)
def test_kernels_run_on_cuda_sim(name: str) -> None:
    """The CUDA C, compiled for the host and run on cuda-sim (sanitizers
    on), matches eager: the spread input's and the argmax chain's kernels."""
    from fxdsl.runtime.cuda_sim import CudaSimEmulator

    program, lowered, args = _lowered(name)
    sim = CudaSimEmulator(lowered, "address,undefined")
    try:
        got = sim.run("forward", *program.weights, *map(to_numpy, args))
    finally:
        sim.close()
    _assert_matches(got, CASES[name][0](*args))
    assert len(sim.worker.launched) >= 1


def test_max_pool2d_backward_adds_gradients_at_the_indices() -> None:
    """Overlapping windows (stride < kernel) can pick one input element
    twice: its gradient is the sum."""

    def fn(x: Any, grad: Any) -> Any:
        _, index = F.max_pool2d(x, 3, 1, 1, return_indices=True)
        return torch.ops.aten.max_pool2d_with_indices_backward(
            grad, x, [3, 3], [1, 1], [1, 1], [1, 1], False, index
        )

    args = _inputs((2, 3, 5, 4), (2, 3, 5, 4))
    for level in LEVELS:
        program = from_torch(_Call(fn).eval(), args, decompose=level == "core")
        _assert_matches(program.run(*args), fn(*args))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(BAGS))
def test_embedding_bag_matches_eager(name: str, level: str) -> None:
    """Offsets are program inputs: the bags are masks read from them."""
    fn, extra = BAGS[name]
    args = (*_inputs((10, 3)), BAG_INDICES, BAG_OFFSETS, *extra)
    program = from_torch(_Call(fn).eval(), args, decompose=level == "core")
    _assert_matches(program.run(*args), fn(*args))


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_s_other_results_are_torch_s(mode: int) -> None:
    """offset2bag, bag_size and max_indices (what the backward reads) come
    from `aten_embedding_bag`, as torch's kernel gives them."""

    def fn(w: Any, i: Any, o: Any) -> Any:
        return torch.ops.aten._embedding_bag_forward_only(
            w, i, o, False, mode, False, None, False, 2
        )

    args = (*_inputs((10, 3)), BAG_INDICES, BAG_OFFSETS)
    program = from_torch(_Call(fn).eval(), args)
    _assert_matches(program.run(*args), fn(*args))
