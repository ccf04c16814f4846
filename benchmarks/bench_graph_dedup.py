"""graph-dedup pass time on stacks of N GPT-2 blocks (N = 12, 24, 48, 96).

    .venv/bin/python benchmarks/bench_graph_dedup.py [--sizes 12,24,48,96]
        [--repeat 3] [--T 64] [--D 768] [--heads 12]

Builds each stack with the tracer (`fxdsl.frontends.models.gpt2_stack`), runs
`deduplicate` on a fresh copy `--repeat` times and prints the best time, the
time per op and the ratio to the previous size: near 2.0 per doubling means
linear (quadratic would approach 4.0). Not a timed test.
"""

from __future__ import annotations

import argparse

from _timing import WALL_CLOCK, best_time

from fxdsl.frontends.models import gpt2_stack
from fxdsl.testing import clone_module
from fxdsl.transforms.graph_dedup import deduplicate


def bench(
    n_blocks: int, repeat: int, T: int, D: int, heads: int
) -> tuple[int, float, int]:
    """(ops in the stack, best pass time in s, calls made)."""
    original = gpt2_stack(n_blocks, T=T, D=D, heads=heads)
    n_ops = sum(1 for _ in original.walk())
    best, _, replaced = best_time(
        lambda: clone_module(original), deduplicate, repeat, WALL_CLOCK
    )
    calls = sum(len(regions) for regions in replaced.values())
    return n_ops, best, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="12,24,48,96")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--T", type=int, default=64)
    parser.add_argument("--D", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    args = parser.parse_args()
    header = ("blocks", "ops", "calls", "pass ms", "us/op", "x prev")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (6, 6, 5, 9, 7, 6))))
    previous = None
    for n in (int(s) for s in args.sizes.split(",")):
        n_ops, seconds, calls = bench(n, args.repeat, args.T, args.D, args.heads)
        ratio = f"{seconds / previous:6.2f}" if previous else f"{'-':>6}"
        print(f"{n:>6} {n_ops:>6} {calls:>5} {seconds * 1e3:>9.1f} "
              f"{seconds / n_ops * 1e6:>7.1f} {ratio}")  # fmt: skip
        previous = seconds


if __name__ == "__main__":
    main()
