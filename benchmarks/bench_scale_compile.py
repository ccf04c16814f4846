"""Compile time of a ~20k-op module from text to CUDA C, phase by phase.

    .venv/bin/python benchmarks/bench_scale_compile.py [--blocks 660]
        [--repeat 3] [--no-generic] [--out benchmarks/results/FILE.md]

The module is `gpt2_stack(blocks)` (GPT-2 small dims, B=1, T=64; 660 blocks
are 19,801 graph ops). Each repetition times, on fresh objects:

* print: the traced module to text (custom syntax, what `fxdsl-opt` prints);
* parse: `fxdsl.parse` of that text (the parser and `verify_ssa`);
* pipeline: `fxdsl.apply(GPU_PIPELINE)` on the parsed module;
* emission: the CUDA C printer on the result (what `-t cuda` prints).

End to end is parse + pipeline + emission: text in, CUDA C out (a one-block
run first, untimed, imports what the pipeline imports on demand). The parsed
module must print back to the same text (byte for byte) or the run stops.
Unless `--no-generic`, the generic form is timed too (print and parse), to
compare it with the custom syntax. Medians of `--repeat`, in wall clock
(with its spread) and in CPU seconds of this process, which a shared machine
disturbs less. Not a timed test: run it by hand and commit the table.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import platform
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TypeVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from fxdsl.api import apply, parse
from fxdsl.frontends.models import gpt2_stack
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.pipeline import GPU_PIPELINE

Result = TypeVar("Result")


def timed(run: Callable[[], Result]) -> tuple[tuple[float, float], Result]:
    """((wall seconds, CPU seconds) of `run()`, its result), after collecting
    the last phase's garbage so that this phase does not pay for it."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return (time.perf_counter() - wall, time.process_time() - cpu), result


def print_module(module: ModuleOp, generic: bool = False) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


def count_graph_ops(module: ModuleOp) -> int:
    return sum(1 for op in module.walk() if op.name.startswith("graph."))


def one_run(module: ModuleOp, generic: bool) -> dict[str, tuple[float, float]]:
    """The (wall, CPU) seconds of each phase, once."""
    times: dict[str, tuple[float, float]] = {}
    times["print"], text = timed(lambda: print_module(module))
    times["parse"], parsed = timed(lambda: parse(text))
    if print_module(parsed) != text:
        raise SystemExit("the parsed module does not print back to the same text")
    times["pipeline"], lowered = timed(lambda: apply(parsed, GPU_PIPELINE))
    times["emission"], _ = timed(lambda: kernel_source(lowered))
    phases = [times["parse"], times["pipeline"], times["emission"]]
    times["end to end"] = (sum(t[0] for t in phases), sum(t[1] for t in phases))
    if generic:
        times["print generic"], text = timed(lambda: print_module(module, True))
        times["parse generic"], _ = timed(lambda: parse(text))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=660)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-generic", action="store_true")
    parser.add_argument("--out", help="also write the Markdown table here")
    args = parser.parse_args()

    one_run(gpt2_stack(1), generic=False)  # imports the passes: not timed
    module = gpt2_stack(args.blocks)
    ops = count_graph_ops(module)
    load = os.getloadavg()[0]
    runs = [one_run(module, not args.no_generic) for _ in range(args.repeat)]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Compile time at scale, {now}: `gpt2_stack({args.blocks})` = {ops} graph "
        f"ops, text to CUDA C with `GPU_PIPELINE`, CPU ({platform.machine()}, "
        f"{os.cpu_count()} cores, shared), Python {platform.python_version()}. "
        f"Median of {args.repeat}, wall clock (min-max beside it) and CPU time "
        f"of this process (less sensitive to the machine's other load). Load "
        f"average (1 min) at start / end: {load:.1f} / {os.getloadavg()[0]:.1f}.",
        "",
        "| phase | wall s | wall min-max s | CPU s | CPU ms per graph op |",
        "|---|---:|---:|---:|---:|",
    ]
    for phase in runs[0]:
        wall = [run[phase][0] for run in runs]
        cpu = statistics.median(run[phase][1] for run in runs)
        lines.append(
            f"| {phase} | {statistics.median(wall):.2f} | {min(wall):.2f}-"
            f"{max(wall):.2f} | {cpu:.2f} | {cpu / ops * 1e3:.3f} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as out:
            out.write(table + "\n")


if __name__ == "__main__":
    main()
