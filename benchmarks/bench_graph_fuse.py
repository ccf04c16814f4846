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
from collections.abc import Callable

from _timing import count_graph_ops, gpt2_workload, random_workload, timed
from fxdsl.ir.graph import FusionGroupOp
from xdsl.dialects.builtin import ModuleOp

import fxdsl


def measure(
    build: Callable[[int], ModuleOp], size: int, prepare: str | None
) -> tuple[int, float, float, int]:
    """(ops, seconds of `prepare`, seconds of graph-fuse, groups formed)."""
    module = build(size)
    ops = count_graph_ops(module)
    before = 0.0
    if prepare:
        before, _ = timed(lambda: fxdsl.apply(module, prepare))
    seconds, _ = timed(lambda: fxdsl.apply(module, "graph-fuse"))
    groups = sum(isinstance(op, FusionGroupOp) for op in module.walk())
    return ops, before, seconds, groups


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
