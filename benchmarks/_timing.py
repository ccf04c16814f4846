"""What the pass benchmarks share: workloads of about N ops and best-of timing.

The scripts run as `python benchmarks/bench_<pass>.py`, which puts this folder
first on `sys.path`, so they import this module as `_timing`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

from xdsl.dialects.builtin import ModuleOp

from fxdsl.frontends.models import gpt2_stack
from fxdsl.testing import random_graph

Subject = TypeVar("Subject")
Result = TypeVar("Result")

# CPU seconds of this process: varies less than wall time on a shared machine.
CPU_CLOCK = time.process_time
WALL_CLOCK = time.perf_counter


def count_graph_ops(module: ModuleOp) -> int:
    """The `graph.*` ops in `module`, nested ones included."""
    return sum(1 for op in module.walk() if op.name.startswith("graph."))


def random_workload(size: int) -> ModuleOp:
    """A `fxdsl.testing.random_graph` program of exactly `size` ops."""
    return random_graph(0, min_ops=size, max_ops=size)


def gpt2_workload(size: int) -> ModuleOp:
    """A GPT-2 stack with small dims and as many blocks as give about `size`
    graph ops."""
    per_block = count_graph_ops(gpt2_stack(1, T=8, D=32, heads=4, final_ln=False))
    blocks = max(1, round(size / per_block))
    return gpt2_stack(blocks, T=8, D=32, heads=4, final_ln=False)


def timed(
    run: Callable[[], Result], clock: Callable[[], float] = CPU_CLOCK
) -> tuple[float, Result]:
    """(seconds `run()` took on `clock`, what it returned)."""
    start = clock()
    result = run()
    return clock() - start, result


def best_time(
    setup: Callable[[], Subject],
    run: Callable[[Subject], Result],
    repeat: int,
    clock: Callable[[], float] = CPU_CLOCK,
    freeze_heap: bool = False,
) -> tuple[float, Subject, Result]:
    """Best seconds of `run(setup())` over `repeat` fresh subjects (only `run`
    is timed), with the last subject and what `run` returned on it.

    Garbage is collected before each run so that one run does not pay for the
    last one's; `freeze_heap` also moves everything alive before the run out
    of the cyclic GC's sight (`gc.freeze()`), whose full collections otherwise
    scan the whole heap and make big graphs look slower than the pass is.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    best = float("inf")
    last: tuple[Subject, Result] | None = None
    for _ in range(repeat):
        # drop the previous subject first: a bigger heap slows the GC down
        last = None
        subject = setup()
        gc.collect()
        if freeze_heap:
            gc.freeze()
        try:
            start = clock()
            result = run(subject)
            seconds = clock() - start
        finally:
            gc.unfreeze()
        best = min(best, seconds)
        last = (subject, result)
    assert last is not None
    return best, *last
