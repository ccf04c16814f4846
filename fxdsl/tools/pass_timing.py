"""`fxdsl-opt --time-passes`: wall time of parsing, each pass and printing.

Reported on stderr as mlir-opt reports it, so that stdout stays the IR
(`fxdsl-opt f.mlir -p graph-fuse --time-passes > out.mlir` parses back).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

_RULE = "===" + "-" * 73 + "==="


class PassTiming:
    """Seconds per step, summed over the chunks of a split input; a pass
    that appears twice in the pipeline is two steps, as in mlir-opt."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def measure(self, step: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(step, time.perf_counter() - start)

    def add(self, step: str, seconds: float) -> None:
        self.seconds[step] = self.seconds.get(step, 0.0) + seconds

    def report(self) -> str:
        total = sum(self.seconds.values())
        lines = [
            _RULE,
            "... Execution time report ...".center(len(_RULE)).rstrip(),
            _RULE,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for step, seconds in [*self.seconds.items(), ("Total", total)]:
            share = 100.0 * seconds / total if total else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {step}")
        return "\n".join(lines) + "\n"


def pass_steps(names: list[str]) -> list[str]:
    """Step names for the passes of a pipeline: `cse`, and `cse #2` for a
    pass's second appearance."""
    seen: dict[str, int] = {}
    steps: list[str] = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        steps.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return steps
