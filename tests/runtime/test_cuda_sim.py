"""cuda-sim (`fxdsl.runtime.cuda_sim`): the CUDA C that `-t cuda` prints,
compiled by g++ with ASan/UBSan against our header of CUDA built-ins and run
on host threads over each launch's real grid and block, equals the reference
interpreter on every lowering case and on small GPT-2 stacks. Hand-written
kernels check the header's deadlock, sanitizer and shuffle semantics; a
deliberately broken printer line must make the harness fail.

Each program is compiled once per run (and cached on disk by source hash).
The last test prints how many kernels and programs ran.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from fxdsl.api import apply, parse
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import entry_function, random_inputs, run_reference
from fxdsl.lowering import cuda_printer
from fxdsl.lowering.launch_plan import Launch, build_launch_plan
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.cuda_sim import (
    CudaSimEmulator,
    CudaSimError,
    Worker,
    build,
    build_module,
)
from fxdsl.testing.modules import load_file
from fxdsl.testing.numerics import SUMMING, assert_matches_reference, case_tolerance

pytestmark = pytest.mark.cxx

cases = load_file(Path(__file__).parents[1] / "lowering" / "cases.py")

THEMES = {
    **cases.THEMES,
    "resident_rows": lambda: cases.reduction_cases(rows=(2, 1), inner=1280),
    "reduction": lambda: cases.reduction_cases(rows=(2, 1)),
}
FUSED_ATTENTION = GPU_PIPELINE.replace(
    "graph-fuse-attention", "graph-fuse-attention{min-rows=1}"
)
RAN = {"programs": 0, "functions": 0, "launches": 0, "kernels": set[str]()}


def check(reference: ModuleOp, sim: CudaSimEmulator, name: str) -> None:
    """Function `name` on random inputs: cuda-sim equals the reference, and
    it launched what the launch plan says (kernel, grid, block)."""
    inputs = random_inputs(reference, entry=name, seed=0)
    start = len(sim.worker.launched)
    tolerance = case_tolerance(name, (*SUMMING, "gpt"))
    assert_matches_reference(
        reference, name, inputs, lambda *a: sim.run(name, *a), tolerance, "cuda-sim"
    )
    launched = sim.worker.launched[start:]
    plan = build_launch_plan(sim.module, name)
    assert launched == [
        (s.kernel, s.grid, s.block) for s in plan.steps if isinstance(s, Launch)
    ]
    RAN["functions"] += 1
    RAN["launches"] += len(launched)
    RAN["kernels"] |= {kernel for kernel, _, _ in launched}


def simulate(
    lowered: ModuleOp, sanitizers: str = "address,undefined"
) -> Iterator[CudaSimEmulator]:
    sim = CudaSimEmulator(lowered, sanitizers)
    RAN["programs"] += 1
    try:
        yield sim
    finally:
        sim.close()


@pytest.fixture(scope="module")
def theme_programs() -> None:
    """Compile every theme's program at once (g++ in parallel, into the disk
    cache) rather than one after the other as the tests reach them."""
    modules = [
        apply(parse(cases.module(THEMES[theme]())), "convert-graph-to-gpu")
        for theme in sorted(THEMES)
    ]
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        list(pool.map(build_module, modules))


@pytest.mark.usefixtures("theme_programs")
@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_lowering_case_matches_the_reference(theme: str) -> None:
    programs = THEMES[theme]()
    text = cases.module(programs)
    reference = parse(text)
    for sim in simulate(apply(parse(text), "convert-graph-to-gpu")):
        for name in programs:
            check(reference, sim, name)


@pytest.mark.parametrize(
    ("pipeline", "dims"),
    [
        ("convert-graph-to-gpu", {"T": 8, "D": 32, "heads": 2}),
        (GPU_PIPELINE, {"T": 8, "D": 32, "heads": 2}),
        # every attention fused; T=13: a partial row tile
        (FUSED_ATTENTION, {"T": 13, "D": 24, "heads": 2}),
    ],
    ids=["unfused", "default", "fused_attention"],
)
def test_gpt2_stack_matches_the_reference(pipeline: str, dims: dict[str, int]) -> None:
    reference = gpt2_stack(2, B=1, **dims)
    lowered = apply(reference.clone(), pipeline)
    name = next(iter(f.sym_name.data for f in reference.body.block.ops))
    for sim in simulate(lowered):
        check(reference, sim, f"{name}")
    if pipeline == FUSED_ATTENTION:
        assert any(k.endswith("_attention") for k in RAN["kernels"])


def test_random_graphs_through_the_default_pipeline() -> None:
    """Random graphs of the shared strategy (all float dtypes), each lowered
    by GPU_PIPELINE and run as one program."""
    from hypothesis import HealthCheck, given, settings

    from fxdsl.testing import graphs

    ran: list[int] = []

    @settings(
        max_examples=4,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(graphs(max_ops=12, dtypes=("f32", "f16", "bf16")))
    def run(module: ModuleOp) -> None:
        lowered = apply(module.clone(), GPU_PIPELINE)
        name = entry_function(module).sym_name.data
        for sim in simulate(lowered):
            check(module, sim, name)
        ran.append(1)

    run()
    assert ran


WRAPS = """
func.func @f(%x: tensor<8xTYPE>, %y: tensor<8xTYPE>) -> (tensor<8xTYPE>, tensor<8xTYPE>, tensor<8xTYPE>, tensor<8xTYPE>) {
  %a = graph.add %x, %y : tensor<8xTYPE>
  %s = graph.sub %x, %y : tensor<8xTYPE>
  %m = graph.mul %x, %y : tensor<8xTYPE>
  %n = graph.neg %x : tensor<8xTYPE>
  func.return %a, %s, %m, %n : tensor<8xTYPE>, tensor<8xTYPE>, tensor<8xTYPE>, tensor<8xTYPE>
}
"""


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_overflow_wraps_as_in_torch(dtype: type) -> None:
    """add, sub, mul and neg of the largest and smallest integers wrap
    around (two's complement), as torch's do: the printed C computes them
    unsigned, where signed overflow would be undefined (and UBSan fails)."""
    info = np.iinfo(dtype)
    x = np.array([info.max, info.min, 5, -7, 2**30, info.min, 123456789, -1], dtype)
    y = np.array([1, 1, info.max, info.min, 3, -1, 99, info.min], dtype)
    text = WRAPS.replace("TYPE", "i32" if dtype is np.int32 else "i64")
    with np.errstate(over="ignore"):
        want = [x + y, x - y, x * y, -x]
    assert run_reference(parse(text), x, y, entry="f")[0].dtype == dtype
    for sim in simulate(apply(parse(text), GPU_PIPELINE)):
        got = sim.run("f", x, y)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_cuda_sim_backend() -> None:
    """`fxdsl.compile(..., backend="cuda-sim")` runs the CUDA backend's
    lowering on cuda-sim and checks its inputs as the other backends do."""
    import fxdsl

    reference = gpt2_stack(1, B=1, T=4, D=32, heads=2)
    run = fxdsl.compile(reference, backend="cuda-sim")
    inputs = random_inputs(reference, seed=1)
    (got,) = run(*inputs)
    (want,) = run_reference(reference, *inputs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert len(run.plan.kernels) >= 4
    with pytest.raises(ValueError, match="input"):
        run(*inputs[1:])
    run.close()


# --- the header's semantics, on hand-written kernels ------------------------

HAND_WRITTEN = r"""
extern "C" __global__ void warp_sum(const float* __restrict__ x,
                                    float* __restrict__ out) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __shared__ float partial[32];
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + partial[1];
}
extern "C" __global__ void skips_barrier(float* __restrict__ out) {
  if (threadIdx.x != 0) __syncthreads();
  out[threadIdx.x] = 1.0f;
}
extern "C" __global__ void spins(const int* __restrict__ flag) {
  if (threadIdx.x == 0) {
    while (*(volatile const int*)flag == 0) {}
  } else {
    __syncthreads();
  }
}
extern "C" __global__ void past_the_end(float* __restrict__ out) {
  out[blockIdx.x * blockDim.x + threadIdx.x + 1] = 2.0f;
}
extern "C" __global__ void misaligned(float* __restrict__ out) {
  *reinterpret_cast<float4*>(&out[1]) = make_float4(1.f, 2.f, 3.f, 4.f);
}
extern "C" __global__ void uninitialised_shared(float* __restrict__ out) {
  __shared__ float slot[64];
  out[threadIdx.x] = slot[threadIdx.x];
}
"""
KERNELS = ["warp_sum", "skips_barrier", "spins", "past_the_end", "misaligned",
           "uninitialised_shared"]  # fmt: skip


@pytest.fixture(scope="module")
def hand_written() -> Path:
    return build(HAND_WRITTEN, KERNELS)


def test_shuffles_and_shared_memory(hand_written: Path) -> None:
    x = np.arange(3 * 64, dtype=np.float32)
    out = np.zeros(3, np.float32)
    worker = Worker(hand_written)
    worker.launch("warp_sum", (3, 1, 1), (64, 1, 1), [x, out])
    worker.close()
    np.testing.assert_array_equal(out, x.reshape(3, 64).sum(axis=1))


def test_a_thread_that_skips_a_barrier_is_a_deadlock(hand_written: Path) -> None:
    with pytest.raises(CudaSimError, match=r"deadlock: .*returned"):
        Worker(hand_written).launch(
            "skips_barrier", (1, 1, 1), (64, 1, 1), [np.zeros(64, np.float32)]
        )


def test_a_barrier_not_all_threads_reach_times_out(hand_written: Path) -> None:
    worker = Worker(hand_written, timeout=0.5)
    with pytest.raises(
        CudaSimError, match=r"deadlock: 63 of 64 threads reached __syncthreads"
    ):
        worker.launch("spins", (1, 1, 1), (64, 1, 1), [np.zeros(1, np.int32)])


@pytest.mark.parametrize(
    ("kernel", "size", "message"),
    [
        ("past_the_end", 64, "AddressSanitizer: heap-buffer-overflow"),
        ("misaligned", 8, "misaligned address .* for type 'struct float4'"),
    ],
)
def test_sanitizers_catch_bad_accesses(
    hand_written: Path, kernel: str, size: int, message: str
) -> None:
    with pytest.raises(CudaSimError, match=message):
        Worker(hand_written).launch(
            kernel, (1, 1, 1), (min(size, 64), 1, 1), [np.zeros(size, np.float32)]
        )


def test_shared_memory_starts_poisoned(hand_written: Path) -> None:
    out = np.zeros(64, np.float32)
    Worker(hand_written).launch("uninitialised_shared", (2, 1, 1), (64, 1, 1), [out])
    assert np.isnan(out).all()


# --- a broken printer is caught ----------------------------------------------

SOFTMAX = """func.func @f(%x: tensor<3x300xf32>) -> tensor<3x300xf32> {
  %y = graph.softmax %x dim 1 : tensor<3x300xf32>
  func.return %y : tensor<3x300xf32>
}"""


BARRIER = "if (lane == 0) partial[warp] = v;\n  __syncthreads();"
BROKEN_PRINTER = {
    # the warp reduction skips its last shuffle: wrong sums (ASan build)
    "warp_shuffle_lane_loop": (
        "for (int o = 16; o > 0; o >>= 1)",
        "for (int o = 16; o > 1; o >>= 1)",
        "address,undefined",
        (AssertionError, "cuda-sim @f"),
    ),
    # the block reduction reads `partial` unordered after its write: a data
    # race that ThreadSanitizer reports whatever the threads' timing
    "dropped_barrier": (
        BARRIER,
        "if (lane == 0) partial[warp] = v;",
        "thread",
        (CudaSimError, "ThreadSanitizer: data race"),
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_PRINTER))
def test_a_broken_printer_line_fails_the_harness(
    monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    line, broken, sanitizers, (error, message) = BROKEN_PRINTER[case]
    original = cuda_printer.block_reduce_helper

    def broken_helper(kind: str, typ: object) -> str:
        text = original(kind, typ)  # type: ignore[arg-type]
        assert line in text, "the printer changed: update this test's line"
        return text.replace(line, broken)

    monkeypatch.setattr(cuda_printer, "block_reduce_helper", broken_helper)
    lowered = apply(parse(SOFTMAX), "convert-graph-to-gpu")
    for sim in simulate(lowered, sanitizers):
        with pytest.raises(error, match=message):
            check(parse(SOFTMAX), sim, "f")


def test_the_unbroken_printer_has_no_data_race() -> None:
    """The same softmax and the fused attention GPT-2 stack under
    ThreadSanitizer: the printer's barriers order every shared access."""
    for sim in simulate(apply(parse(SOFTMAX), "convert-graph-to-gpu"), "thread"):
        check(parse(SOFTMAX), sim, "f")
    reference = gpt2_stack(1, B=1, T=13, D=24, heads=2)
    name = next(iter(f.sym_name.data for f in reference.body.block.ops))
    for sim in simulate(apply(reference.clone(), FUSED_ATTENTION), "thread"):
        check(reference, sim, name)


def test_zz_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs last in this module: the counts of what the harness ran."""
    if RAN["programs"] == 0:
        pytest.skip("no program ran (selected alone)")
    with capsys.disabled():
        print(
            f"\ncuda-sim ran {len(RAN['kernels'])} distinct kernels in "
            f"{RAN['launches']} launches, {RAN['functions']} functions of "
            f"{RAN['programs']} compiled programs (ASan+UBSan, some TSan)"
        )
    assert RAN["launches"] >= len(RAN["kernels"]) > 0
