"""Host-side cost of compiling and calling a GPT-2 stack (no GPU needed).

    .venv/bin/python benchmarks/bench_host.py [--blocks 1,12] [--repeat 5]
        [--calls 300]

1. Lowering: `GPU_PIPELINE` plus the launch plan, best of `--repeat`, with
   and without the leading `graph-dedup` (the compile-time goal: 12 blocks
   within 1.5x of 1 block).
2. Per call: the Python cost of `CudaExecutor.__call__` on the 12-block plan
   with no-op launchers and GEMMs, so what is left is the guard, the buffer
   list and the step loop. With CuPy and a GPU the inputs are device arrays;
   without, a numpy stand-in for CuPy (its `device_address` is slower than
   CuPy's, so the numbers are an upper bound).

Not a timed test: it prints numbers for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types
from typing import Any

from _timing import WALL_CLOCK, best_time

from fxdsl.api import apply
from fxdsl.bench.variants import without_pass
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import random_inputs
from fxdsl.lowering.launch_plan import build_launch_plan
from fxdsl.lowering.pipeline import GPU_PIPELINE

SHAPE = {"B": 1, "T": 64, "D": 768, "heads": 12}


def lowering_seconds(blocks: int, pipeline: str, repeat: int) -> float:
    module = gpt2_stack(blocks, **SHAPE)

    def lower(clone: Any) -> Any:
        return build_launch_plan(apply(clone, pipeline))

    best, _, _ = best_time(module.clone, lower, repeat, WALL_CLOCK)
    return best


def _numpy_cupy() -> types.ModuleType:
    import numpy as np

    cp = types.ModuleType("cupy")
    for name in ("zeros", "empty", "asarray", "ascontiguousarray", "matmul",
                 "ndarray", "uint32", "float32", "lib"):  # fmt: skip
        setattr(cp, name, getattr(np, name))
    cp.asnumpy = np.asarray
    return cp


def call_seconds(blocks: int, calls: int) -> tuple[float, int, str]:
    """(seconds per call, steps, what ran) of the executor's host logic."""
    try:
        import cupy  # type: ignore[import-not-found]

        cupy.cuda.runtime.getDeviceCount()
        where = "CuPy device arrays"
    except Exception:  # noqa: BLE001 - no GPU: the stand-in
        cupy = sys.modules["cupy"] = _numpy_cupy()
        where = "numpy stand-in for CuPy"
    from fxdsl.runtime.cuda_executor import CudaExecutor, lower_for_cuda

    # no-op GEMMs: `_gemm` is patched below, so no f32 GEMM may be bound to
    # cuBLAS when the executor is built (it would be on a GPU)
    os.environ["FXDSL_CUBLAS"] = "0"
    module = gpt2_stack(blocks, B=1, T=8, D=16, heads=2)
    _, plan = lower_for_cuda(module)
    executor = CudaExecutor(plan, {k: lambda *_: None for k in plan.kernels})
    executor._gemm = lambda *_: None  # type: ignore[method-assign]
    inputs = [cupy.asarray(a) for a in random_inputs(module)]
    for _ in range(20):
        executor(*inputs)
    start = time.perf_counter()
    for _ in range(calls):
        executor(*inputs)
    return (time.perf_counter() - start) / calls, len(plan.steps), where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", default="1,12")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    sizes = [int(n) for n in args.blocks.split(",")]
    without_dedup = without_pass(GPU_PIPELINE, "graph-dedup")
    print("lowering (pipeline + launch plan), best of", args.repeat)
    for label, pipeline in (("default", GPU_PIPELINE), ("no dedup", without_dedup)):
        times = {n: lowering_seconds(n, pipeline, args.repeat) for n in sizes}
        shown = "  ".join(f"{n} blocks {t:.3f} s" for n, t in times.items())
        ratio = times[sizes[-1]] / times[sizes[0]]
        print(f"  {label:9} {shown}  ratio {ratio:.2f}")
    seconds, steps, where = call_seconds(max(sizes), args.calls)
    print(
        f"per call ({where}, {max(sizes)} blocks, {steps} steps): "
        f"{seconds * 1e6:.1f} us, {seconds / steps * 1e6:.2f} us per step"
    )


if __name__ == "__main__":
    main()
