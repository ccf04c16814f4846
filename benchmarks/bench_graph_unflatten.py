"""graph-unflatten / graph-flatten time on random scoped graphs and GPT-2.

    .venv/bin/python benchmarks/bench_graph_unflatten.py [--sizes 2500,5000,10000,20000]
        [--repeat 3] [--gpt2 12,24,48]

Random graphs come from `fxdsl.testing.random_graph(seed, scoped=True)`
(module calls nested up to 3 deep, repeated blocks); GPT-2 stacks from the
tracer. Prints the best time of each pass, the time per op and the ratio to
the previous size: near 2.0 per doubling means linear. Not a timed test.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from _timing import WALL_CLOCK, best_time
from xdsl.dialects.builtin import ModuleOp

from fxdsl.testing import clone_module, random_graph
from fxdsl.transforms.graph_unflatten import flatten, unflatten


def best_of_copies(
    original: ModuleOp, run: Callable[[ModuleOp], object], repeat: int
) -> float:
    """Best wall seconds of `run` on `repeat` fresh copies of `original`."""
    return best_time(lambda: clone_module(original), run, repeat, WALL_CLOCK)[0]


def report(label: str, graphs: list[tuple[str, ModuleOp]], repeat: int) -> None:
    print(f"{label:>14} {'ops':>7} {'unflatten s':>12} {'us/op':>7} {'ratio':>6}"
          f" {'flatten s':>10} {'funcs':>6}")  # fmt: skip
    previous = None
    for name, module in graphs:
        n_ops = sum(1 for _ in module.walk())
        t_unflatten = best_of_copies(module, unflatten, repeat)
        unflat = unflatten(clone_module(module))
        t_flatten = best_of_copies(unflat, flatten, repeat)
        n_funcs = len(list(unflat.ops))
        ratio = "" if previous is None else f"{t_unflatten / previous:.2f}"
        previous = t_unflatten
        print(f"{name:>14} {n_ops:>7} {t_unflatten:>12.3f} "
              f"{1e6 * t_unflatten / n_ops:>7.1f} {ratio:>6} {t_flatten:>10.3f} "
              f"{n_funcs:>6}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2500,5000,10000,20000")
    parser.add_argument("--gpt2", default="12,24,48")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    randoms = [
        (f"random {n}", random_graph(0, min_ops=n, max_ops=n, scoped=True))
        for n in sizes
    ]
    report("graph", randoms, args.repeat)
    if args.gpt2:
        from fxdsl.frontends.models import gpt2_stack

        stacks = [
            (f"gpt2 x{n}", gpt2_stack(n, T=64, D=768, heads=12))
            for n in (int(s) for s in args.gpt2.split(","))
        ]
        report("graph", stacks, args.repeat)


if __name__ == "__main__":
    main()
