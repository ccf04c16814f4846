"""Pipeline throughput on the CPU (gloo) against micro-batch count, beside
the single-process run.

    python benchmarks/bench_pipeline.py [--layers 4] [--width 128] [--length 64]
        [--batch 16] [--microbatches 1,2,4,8,16] [--ranks 2,4] [--steps 5]

A GPT-2 of `--layers` layers (HF, seeded weights) is imported once per
micro-batch size (batch / micro-batches; shapes are static) and cut into
one stage per rank by `graph-pipeline-stages`; each row launches the ranks
under torchrun (`fxdsl.distributed.launch`), runs `--steps` schedule steps
of the whole batch and reports the best and the median step on the last
rank (every step starts at a barrier; on a small shared VM the spread is
large, hence both). `single` is the uncut program compiled for the CPU in
this process, the same micro-batches one after another. Every process runs
numpy on one thread (OMP_NUM_THREADS=1), so a row's speed-up is what
overlapping stages buys, not more threads. Every pipeline's outputs are
checked equal to the single-process ones before its row is printed.

Not a timed test: it prints a Markdown table for benchmarks/results/.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ["OMP_NUM_THREADS"] = "1"  # before numpy starts its thread pool

import numpy as np

import fxdsl
from fxdsl.distributed import launch, stage_program
from fxdsl.testing.torch_models import gpt2


def _single(
    program: object, chunks: list[object], steps: int
) -> tuple[list[float], list]:
    run = fxdsl.compile(program.module, backend="cpu")  # type: ignore[attr-defined]
    weights = program.weights  # type: ignore[attr-defined]
    times, outputs = [], []
    for _ in range(steps):
        start = time.perf_counter()
        outputs = [run(*weights, c.numpy())[0] for c in chunks]  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
    return times, [np.concatenate(outputs)]


def _row(ranks: object, schedule: str, m: int, times: list[float], batch: int,
         single: float) -> str:  # fmt: skip
    best, median = min(times), float(np.median(times))
    return (f"| {ranks} | {schedule} | {m} | {best * 1e3:.1f} | {median * 1e3:.1f} "
            f"| {batch / best:.0f} | {single / best:.2f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--length", type=int, default=64)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--microbatches", default="1,2,4,8,16")
    parser.add_argument("--ranks", default="2,4")
    parser.add_argument("--schedules", default="gpipe,1f1b")
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    import torch

    ids = torch.randint(0, 128, (args.batch, args.length),
                        generator=torch.Generator().manual_seed(0))  # fmt: skip
    print(
        f"GPT-2 (HF, {args.layers} layers, n_embd {args.width}, 4 heads, "
        f"T={args.length}), batch {args.batch}, CPU {platform.processor() or ''} "
        f"{os.cpu_count()} cores, gloo, numpy on 1 thread a process, best of "
        f"{args.steps} steps; speed-up: best against best\n"
    )
    print("| ranks | schedule | micro-batches | best ms | median ms | samples/s "
          "(best) | vs single |")  # fmt: skip
    print("|---:|---|---:|---:|---:|---:|---:|")
    for m in (int(x) for x in args.microbatches.split(",")):
        example = gpt2(layers=args.layers, batch=args.batch // m,
                       length=args.length, width=args.width)  # fmt: skip
        program = fxdsl.from_torch(*example)
        times, expected = _single(program, list(ids.chunk(m)), args.steps)
        single = min(times)
        print(_row(1, "single", m, times, args.batch, single), flush=True)
        for ranks in (int(x) for x in args.ranks.split(",")):
            staged = stage_program(program.module, program.weights, ranks)
            for schedule in args.schedules.split(","):
                if schedule == "1f1b" and m < ranks:
                    continue  # torch's 1F1B needs a micro-batch per stage
                run = launch(staged, [ids], m, schedule, repeat=args.steps)
                assert np.array_equal(run.outputs[0], expected[0]), "outputs differ"
                row = _row(ranks, schedule, m, run.step_seconds, args.batch, single)
                print(row, flush=True)


if __name__ == "__main__":
    main()
