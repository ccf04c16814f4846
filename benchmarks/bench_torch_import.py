"""Import time of HF GPT-2 at 2, 12 and 48 layers (torch.export → graph IR).

    .venv/bin/python benchmarks/bench_torch_import.py [--layers 2,12,48]
        [--repeat 3] [--decompose] [--out benchmarks/results/FILE.md]

For each depth: the time of `torch.export.export` (torch's, for scale), and
of `fxdsl.from_exported_program` on that export (fxdsl's: folding the mask
subgraph, mapping every node, building and verifying the IR), best of
`--repeat`, plus the graph ops imported, the time per layer and the ratio of
per-layer times to the smallest depth (near 1.0 means linear in layers).
Not a timed test: run it by hand and commit the table.
"""

from __future__ import annotations

import argparse
import time

from _timing import WALL_CLOCK, count_graph_ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", default="2,12,48")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--decompose", action="store_true", help="core ATen")
    parser.add_argument("--out", help="also write the table here (markdown)")
    args = parser.parse_args()

    import torch

    from fxdsl.frontends.torch_export import from_exported_program
    from fxdsl.testing.torch_models import gpt2

    rows = [
        "| layers | export s | import s | graph ops | import ms/layer | ratio |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    first = None
    for layers in (int(n) for n in args.layers.split(",")):
        model, inputs, kwargs = gpt2(layers=layers, batch=1, length=64, width=64)
        start = WALL_CLOCK()
        program = torch.export.export(model, inputs, kwargs, strict=False)
        if args.decompose:
            program = program.run_decompositions()
        exported = WALL_CLOCK() - start
        best, ops = float("inf"), 0
        for _ in range(args.repeat):
            start = WALL_CLOCK()
            imported = from_exported_program(program)
            best = min(best, WALL_CLOCK() - start)
            ops = count_graph_ops(imported.module)
        per_layer = 1e3 * best / layers
        first = first or per_layer
        rows.append(
            f"| {layers} | {exported:.2f} | {best:.3f} | {ops} | {per_layer:.1f} "
            f"| {per_layer / first:.2f} |"
        )
        print(rows[-1], flush=True)
    level = "core ATen" if args.decompose else "default"
    header = (
        f"GPT-2 (HF, n_embd 64, 4 heads, B=1, T=64), {level} export, "
        f"{time.strftime('%Y-%m-%d')}, best of {args.repeat}"
    )
    text = "\n".join([header, "", *rows]) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as stream:
            stream.write(text)


if __name__ == "__main__":
    main()
