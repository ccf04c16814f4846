"""Compile time of HF GPT-2 at 1, 12 and 48 layers: fxdsl's torch.compile
backend, lowering to CUDA C (and PTX), beside Inductor, on the CPU.

    .venv/bin/python benchmarks/bench_compile_time.py [--layers 1,12,48]
        [--repeat 2] [--no-inductor] [--inductor-repeat 1]
        [--inductor-max-layers N] [--out benchmarks/results/FILE.md]

For each depth, in one process, inference under `torch.no_grad()`:

* Dynamo + AOTAutograd capture: the first call of `torch.compile` with a
  backend that only records the ATen graph (AOTAutograd with the core-ATen
  decompositions that `fxdsl_backend` uses for inference). This is what
  torch does before it calls any compiler, fxdsl's or Inductor's.
* fxdsl's own compile of each captured graph, the steps of
  `compile_aten_graph` with CUDA C instead of a runner:
  `torch_islands.plan` (import and partition), then for each island
  `fxdsl.apply(GPU_PIPELINE)` and the CUDA C printer (what `-t cuda`
  prints), and, when `nvcc` is on PATH, `nvcc -ptx -arch=sm_90` on that C.
* Inductor: the first call of `torch.compile(model)` with fresh caches (an
  empty cache folder, in-memory caches cleared, FX graph cache off), whole,
  and less the capture time above (Inductor's own share, roughly: it
  captures with its own decompositions).

Capture and fxdsl are best of `--repeat`; Inductor is best of
`--inductor-repeat` (once by default: it is slow). One untimed warm-up
(the smallest depth through capture and fxdsl, a small function through
Inductor) comes first, so that the first depth does not pay for importing
torch's and fxdsl's modules. Not a timed test: run it by hand and commit the table.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _timing import WALL_CLOCK, best_time, timed

MIN_BLOCK_SIZE = 5
"""The backend's default `min_block_size`."""

NVCC_COMMAND = ("nvcc", "-ptx", "-arch=sm_90")


@dataclass
class Depth:
    """One depth's measurements (seconds) and what fxdsl compiled."""

    layers: int
    capture: float
    partition: float
    lowering: float
    nvcc: float | None
    graphs: int
    islands: int
    island_nodes: int
    fallbacks: int
    kernels: int
    cuda_bytes: int
    inductor: float | str | None = None

    @property
    def fxdsl(self) -> float:
        return self.partition + self.lowering


def recording_backend(graphs: list[Any]) -> Callable[..., Any]:
    """A Dynamo backend that appends each ATen graph to `graphs` and runs it
    as it is (AOTAutograd's boxed convention)."""
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    def record(gm: Any, example_inputs: list[Any]) -> Callable[..., Any]:
        from torch._functorch.aot_autograd import make_boxed_func

        graphs.append(gm)
        return make_boxed_func(gm.forward)

    # fxdsl_backend's decompositions for inference (training drops SDPA's)
    return aot_autograd(fw_compiler=record, decompositions=core_aten_decompositions())


def capture(model: Any, args: Any, kwargs: Any, repeat: int) -> tuple[float, list]:
    """Best first-call seconds of `torch.compile` with the recording backend,
    and the ATen graphs of the last call."""
    import torch

    graphs: list[Any] = []

    def fresh() -> Any:
        torch._dynamo.reset()
        graphs.clear()
        return torch.compile(model, backend=recording_backend(graphs))

    with torch.no_grad():
        seconds, _, _ = best_time(
            fresh, lambda compiled: compiled(*args, **kwargs), repeat, WALL_CLOCK
        )
    return seconds, list(graphs)


def island_modules(plans: list[Any]) -> list[Any]:
    """Each island of each plan alone in a module (fresh clones)."""
    from xdsl.dialects import func

    from fxdsl.frontends.torch_compile import _island_module

    modules = []
    for partitioned in plans:
        functions = {
            op.sym_name.data: op
            for op in partitioned.imported.module.body.block.ops
            if isinstance(op, func.FuncOp)
        }
        modules += [_island_module(functions[name]) for name in partitioned.islands]
    return modules


def lower_to_cuda(modules: list[Any]) -> list[str]:
    """The CUDA C of each island after the GPU pipeline."""
    import fxdsl
    from fxdsl.lowering.cuda_printer import kernel_source
    from fxdsl.lowering.pipeline import GPU_PIPELINE

    return [kernel_source(fxdsl.apply(module, GPU_PIPELINE)) for module in modules]


def nvcc_ptx(sources: list[str], folder: Path) -> None:
    """`nvcc -ptx` on each non-empty source (a failure raises)."""
    for index, source in enumerate(sources):
        if not source.strip():
            continue
        path = folder / f"island_{index}.cu"
        path.write_text(source)
        command = [*NVCC_COMMAND, str(path), "-o", str(path.with_suffix(".ptx"))]
        subprocess.run(command, check=True, capture_output=True)


def measure_fxdsl(layers: int, repeat: int, nvcc: bool) -> Depth:
    """Capture, then fxdsl's phases on the captured graphs."""
    from fxdsl.frontends.torch_islands import plan
    from fxdsl.testing.torch_models import gpt2

    model, args, kwargs = gpt2(layers=layers, batch=1, length=64, width=64)
    captured, graphs = capture(model, args, kwargs, repeat)
    partition, _, plans = best_time(
        lambda: graphs,
        lambda gms: [plan(gm, MIN_BLOCK_SIZE) for gm in gms],
        repeat,
        WALL_CLOCK,
        freeze_heap=True,
    )
    lowering, _, sources = best_time(
        lambda: island_modules(plans),
        lower_to_cuda,
        repeat,
        WALL_CLOCK,
        freeze_heap=True,
    )
    ptx = None
    if nvcc:
        with tempfile.TemporaryDirectory() as folder:
            ptx, _, _ = best_time(
                lambda: Path(folder), lambda f: nvcc_ptx(sources, f), repeat, WALL_CLOCK
            )
    return Depth(
        layers=layers,
        capture=captured,
        partition=partition,
        lowering=lowering,
        nvcc=ptx,
        graphs=len(graphs),
        islands=sum(len(p.islands) for p in plans),
        island_nodes=sum(len(n) for p in plans for n in p.islands.values()),
        fallbacks=sum(len(p.fallbacks) for p in plans),
        kernels=sum(s.count("__global__") for s in sources),
        cuda_bytes=sum(len(s) for s in sources),
    )


def inductor_first_call(model: Any, args: Any, kwargs: Any) -> float:
    """Seconds of the first call of `torch.compile(model)` with fresh caches."""
    import torch
    import torch._inductor.config as config
    from torch._inductor.utils import fresh_cache

    torch._dynamo.reset()
    # a new cache folder and cleared in-memory caches; the FX graph cache
    # would otherwise serve a graph compiled before
    off = {"fx_graph_cache": False} if hasattr(config, "fx_graph_cache") else {}
    with fresh_cache(), config.patch(off), torch.no_grad():
        compiled = torch.compile(model)
        seconds, _ = timed(lambda: compiled(*args, **kwargs), WALL_CLOCK)
    torch._dynamo.reset()
    return seconds


def measure_inductor(layers: int, runs: int) -> float | str:
    """Best of `runs` Inductor first calls, or the error that stopped it."""
    from fxdsl.testing.torch_models import gpt2

    model, args, kwargs = gpt2(layers=layers, batch=1, length=64, width=64)
    try:
        return min(inductor_first_call(model, args, kwargs) for _ in range(runs))
    except Exception as error:  # noqa: BLE001 - reported in the table instead
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return f"failed: {type(error).__name__}: {first}"[:200]


def warm_up(layers: int, inductor: bool, nvcc: bool) -> None:
    """One untimed pass, so that the first depth does not pay for imports."""
    import torch

    measure_fxdsl(layers, 1, nvcc)
    if inductor:
        small = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU())
        # a failing Inductor is reported by measure_inductor
        with contextlib.suppress(Exception):
            inductor_first_call(small, (torch.randn(2, 8),), {})


def seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def table(depths: list[Depth]) -> list[str]:
    first = depths[0]
    rows = [
        "| layers | Dynamo+AOT capture s | fxdsl import+partition s "
        "| fxdsl lowering to CUDA C s | nvcc -ptx s | fxdsl total (b) s "
        f"| fxdsl total / {first.layers}-layer | Inductor first call s "
        "| Inductor minus capture s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d in depths:
        if isinstance(d.inductor, float):
            inductor, own = seconds(d.inductor), seconds(d.inductor - d.capture)
        elif d.inductor is None:
            inductor, own = "not run", "–"
        else:
            inductor, own = d.inductor, "–"
        rows.append(
            f"| {d.layers} | {d.capture:.2f} | {d.partition:.3f} | {d.lowering:.3f} "
            f"| {seconds(d.nvcc)} | {d.fxdsl:.3f} | {d.fxdsl / first.fxdsl:.2f} "
            f"| {inductor} | {own} |"
        )
    return rows


def compiled_table(depths: list[Depth]) -> list[str]:
    rows = [
        "| layers | ATen graphs | islands | fx nodes in islands | nodes in torch "
        "| kernels | CUDA C bytes |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d in depths:
        rows.append(
            f"| {d.layers} | {d.graphs} | {d.islands} | {d.island_nodes} "
            f"| {d.fallbacks} | {d.kernels} | {d.cuda_bytes} |"
        )
    return rows


def header(
    repeat: int, inductor_runs: int, nvcc: str | None, load: tuple[float, float]
) -> str:
    import torch
    import transformers

    from fxdsl.lowering.pipeline import GPU_PIPELINE

    nvcc_text = "not on PATH"
    if nvcc is not None:
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
        release = [ln for ln in version.stdout.splitlines() if "release" in ln]
        nvcc_text = f"`{' '.join(NVCC_COMMAND)}` ({(release or ['?'])[0].strip()})"
    return (
        f"Compile time, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        "HF GPT2LMHeadModel (n_embd 64, 4 heads, vocab 128, B=1, T=64), "
        "inference under torch.no_grad(), CPU "
        f"({platform.processor() or platform.machine()}, "
        f"{_cpu_count()} cores), torch {torch.__version__}, transformers "
        f"{transformers.__version__}. fxdsl: `torch_islands.plan"
        f"(min_block_size={MIN_BLOCK_SIZE})`, then `{GPU_PIPELINE}` and the "
        f"CUDA C printer per island; nvcc: {nvcc_text}. Capture and fxdsl best "
        f"of {repeat}; Inductor (default `torch.compile`, fresh caches, "
        f"fx_graph_cache off) best of {inductor_runs}. Wall clock, after one "
        "untimed warm-up; fxdsl's phases with the heap frozen (`gc.freeze`, as "
        "the pass benchmarks). Load average (1 min) at start / end: "
        f"{load[0]:.1f} / {load[1]:.1f}."
    )


def _cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", default="1,12,48")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--inductor-repeat", type=int, default=1)
    parser.add_argument(
        "--inductor-max-layers",
        type=int,
        help="run Inductor only up to this depth (it is slow)",
    )
    parser.add_argument("--out", help="also write the tables here (markdown)")
    args = parser.parse_args()
    depths_wanted = [int(n) for n in args.layers.split(",")]
    nvcc = shutil.which("nvcc")
    inductor_runs = args.inductor_repeat
    cap = args.inductor_max_layers

    if args.repeat < 1 or args.inductor_repeat < 1:
        parser.error("--repeat and --inductor-repeat must be at least 1")
    load_at_start = os.getloadavg()[0]
    warm_up(min(depths_wanted), not args.no_inductor, nvcc is not None)
    depths = []
    for layers in depths_wanted:
        depth = measure_fxdsl(layers, args.repeat, nvcc is not None)
        if not args.no_inductor and (cap is None or layers <= cap):
            depth.inductor = measure_inductor(layers, inductor_runs)
        depths.append(depth)
        print(table(depths)[-1], flush=True)

    load = (load_at_start, os.getloadavg()[0])
    lines = [header(args.repeat, inductor_runs, nvcc, load), "", *table(depths), ""]
    lines += ["What fxdsl compiled:", "", *compiled_table(depths)]
    if cap is not None and any(d.layers > cap for d in depths):
        lines += ["", f"Inductor was run up to {cap} layers only."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
