"""Time `graph-split` and `graph-partition` on growing graphs.

    .venv/bin/python benchmarks/bench_graph_partition.py [--sizes 1000 10000]

Workloads: `fxdsl.testing.random_graph` programs of exactly N ops and GPT-2
stacks with small dims (as many blocks as give about N ops).

* split/stages: 4 pipeline stages (contiguous quarters of the program);
* split/chunks: a partition per 50 consecutive ops (N/50 partitions);
* split/cyclic: round-robin over 3 partitions, which is cyclic on these
  programs: the time to find and name the cycle;
* partition/func, partition/group: `graph-partition` with every elementwise
  and view op supported (reductions, matmul, softmax... are not).

Only the pass is timed (no parsing, building or verifying), as process CPU
time, best of `--repeat` runs. Prints seconds and microseconds per op twice:
as is, and with the heap that existed before the pass frozen out of Python's
cyclic GC (`gc.freeze()`): full collections scan the whole heap, so on big
graphs the first column grows with the heap even where the pass's own work
per op stays flat (the second column).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial

from _timing import best_time, count_graph_ops, gpt2_workload, random_workload
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.parsing import make_context
from fxdsl.transforms.graph_partition import GraphPartitionPass
from fxdsl.transforms.graph_split import PARTITION, GraphSplitPass
from fxdsl.transforms.outlining import is_constant

SUPPORTED = (
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
    "silu", "erf", "sin", "cos", "reciprocal", "add", "sub", "mul", "div", "pow",
    "maximum", "minimum", "select", "reshape", "transpose", "broadcast_to", "slice",
)  # fmt: skip


def assign(module: ModuleOp, partition_of: Callable[[int, int], int]) -> None:
    main = next(f for f in module.ops if isinstance(f, func.FuncOp))
    ops = [op for op in main.body.block.ops if not is_constant(op)][:-1]
    for index, op in enumerate(ops):
        op.attributes[PARTITION] = IntegerAttr(partition_of(index, len(ops)), i64)


SPLITS: dict[str, Callable[[int, int], int]] = {
    "stages": lambda i, n: 4 * i // n,
    "chunks": lambda i, n: i // 50,
    "cyclic": lambda i, n: i % 3,
}


def apply_pass(subject: tuple[ModuleOp, ModulePass]) -> str:
    """Run the pass; a failure (the cyclic split) is an outcome, not an error."""
    module, pass_ = subject
    try:
        pass_.apply(make_context(), module)
    except PassFailedException as error:
        return "error: " + str(error).split("partitions ")[-1][:30]
    funcs = sum(1 for f in module.ops if isinstance(f, func.FuncOp)) - 1
    return f"{funcs} funcs"


def timed(
    build: Callable[[], ModuleOp],
    make_pass: Callable[[ModuleOp], ModulePass],
    repeat: int,
    freeze: bool,
) -> tuple[int, float, str]:
    """(ops, best CPU seconds, what the pass made) over `repeat` fresh runs."""

    ops = 0

    def setup() -> tuple[ModuleOp, ModulePass]:
        nonlocal ops
        module = build()
        ops = count_graph_ops(module)
        return module, make_pass(module)

    best, (module, _), outcome = best_time(
        setup, apply_pass, repeat, freeze_heap=freeze
    )
    groups = sum(op.name == "graph.fusion_group" for op in module.walk())
    outcome += f", {groups} groups" if groups else ""
    return ops, best, outcome


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Time graph-split and graph-partition."
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    workloads = [("random", random_workload), ("gpt2", gpt2_workload)]
    cases: list[tuple[str, Callable[[ModuleOp], ModulePass]]] = [
        *(
            (f"split/{name}", lambda m, f=f: (assign(m, f), GraphSplitPass())[1])
            for name, f in SPLITS.items()
        ),
        ("partition/func", lambda m: GraphPartitionPass(ops=SUPPORTED)),
        (
            "partition/group",
            lambda m: GraphPartitionPass(ops=SUPPORTED, outline="group"),
        ),
    ]
    print(
        f"{'workload':<8} {'case':<16} {'ops':>6} {'s':>6} {'us/op':>6} "
        f"{'s(gc-frozen)':>12} {'us/op':>6}  result"
    )
    for name, build in workloads:
        for case, make_pass in cases:
            for size in args.sizes:
                runs = [
                    timed(partial(build, size), make_pass, args.repeat, freeze)
                    for freeze in (False, True)
                ]
                (ops, plain, outcome), (_, frozen, _) = runs
                print(
                    f"{name:<8} {case:<16} {ops:>6} {plain:>6.3f} "
                    f"{1e6 * plain / ops:>6.1f} {frozen:>12.3f} "
                    f"{1e6 * frozen / ops:>6.1f}  {outcome}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
