"""Time `graph-fuse` (and `graph-decompose,graph-fuse`) on growing graphs.

    .venv/bin/python benchmarks/bench_graph_fuse.py [--sizes 1000 5000 20000]

Workloads: `fxdsl.testing.random_graph` programs of exactly N ops (mixed
elementwise, reductions, views, matmuls, concat/split) and GPT-2 stacks with
small dims, as many blocks as give about N ops (run through graph-decompose
first, timed apart). Prints seconds, microseconds per op and groups formed;
the per-op cost should stay about flat (linear growth). Building the graph is
not timed; times are CPU seconds of this process (`time.process_time`), which
varies less than wall time on a shared machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl.dialects.graph import FusionGroupOp
from fxdsl.frontends.models import gpt2_stack
from fxdsl.testing import random_graph


def count_ops(module: ModuleOp) -> int:
    return sum(1 for op in module.walk() if op.name.startswith("graph."))


def random_workload(size: int) -> ModuleOp:
    return random_graph(0, min_ops=size, max_ops=size)


def gpt2_workload(size: int) -> ModuleOp:
    per_block = count_ops(gpt2_stack(1, T=8, D=32, heads=4, final_ln=False))
    blocks = max(1, round(size / per_block))
    return gpt2_stack(blocks, T=8, D=32, heads=4, final_ln=False)


def measure(
    build: Callable[[int], ModuleOp], size: int, prepare: str | None
) -> tuple[int, float, float, int]:
    """(ops, seconds of `prepare`, seconds of graph-fuse, groups formed)."""
    module = build(size)
    ops = count_ops(module)
    start = time.process_time()
    if prepare:
        fxdsl.apply(module, prepare)
    middle = time.process_time()
    fxdsl.apply(module, "graph-fuse")
    end = time.process_time()
    groups = sum(isinstance(op, FusionGroupOp) for op in module.walk())
    return ops, middle - start, end - middle, groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    args = parser.parse_args()
    workloads = [
        ("random", random_workload, None),
        ("gpt2", gpt2_workload, "graph-decompose"),
    ]
    print(
        f"{'workload':<8} {'ops':>7} {'decompose s':>11} {'fuse s':>8} "
        f"{'fuse us/op':>10} {'groups':>7}"
    )
    for name, build, prepare in workloads:
        for size in args.sizes:
            ops, before, seconds, groups = measure(build, size, prepare)
            print(
                f"{name:<8} {ops:>7} {before:>11.3f} {seconds:>8.3f} "
                f"{seconds / ops * 1e6:>10.1f} {groups:>7}",
                flush=True,
            )


if __name__ == "__main__":
    main()
