"""`python -m fxdsl.distributed`: run a test model as a pipeline under torchrun.

    python -m fxdsl.distributed --model gpt2 --layers 4 --stages 2 \\
        --batch 8 --microbatches 4 --schedule 1f1b --check

Imports the model at the micro-batch size (shapes are static), cuts it into
`--stages` stages (`--cuts` names scopes instead), prints the plan, starts
one rank per stage with gloo (`--backend cuda`: NCCL) and prints the step
times. `--check` compares the outputs with the single-process run of the
uncut program (the reference interpreter, one micro-batch at a time) and
fails unless they are equal; `--out FILE.npz` saves them. Bad options and
inputs are one `error:` line and exit status 1, before any rank starts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.utils.exceptions import PassFailedException

from fxdsl.distributed.launch import LaunchError, launch
from fxdsl.distributed.pipeline import (
    SCHEDULES,
    PipelineInputError,
    check_batch,
    check_schedule,
)
from fxdsl.distributed.stages import StagedProgram, stage_program


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m fxdsl.distributed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--model", default="gpt2", help="fxdsl.testing.torch_models")
    parser.add_argument("--layers", type=int, default=4, help="gpt2 only")
    parser.add_argument("--length", type=int, default=8)
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--cuts", default="", help="scope names, comma-separated")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--microbatches", type=int, default=4)
    parser.add_argument("--schedule", default="gpipe", choices=SCHEDULES)
    parser.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--out", default=None)
    return parser.parse_args(argv)


def _import(args: argparse.Namespace, micro_batch: int) -> Any:
    import fxdsl
    from fxdsl.testing.torch_models import MODELS

    if args.model not in MODELS:
        raise PipelineInputError(
            f"unknown model '{args.model}' (known: {', '.join(MODELS)})"
        )
    options: dict[str, Any] = {"batch": micro_batch, "length": args.length}
    if args.model == "gpt2":
        options["layers"] = args.layers
    return fxdsl.from_torch(*MODELS[args.model](**options))


def random_inputs(staged: StagedProgram, batch: int, seed: int) -> list[Any]:
    """Inputs of the first stage at batch size `batch`: token ids in [0, 128)
    for integer inputs, standard normal values for float ones."""
    import torch

    from fxdsl.distributed.stages import example

    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for typ in staged.input_types(0):
        like = example(typ)
        shape = (batch, *like.shape[1:])
        if like.is_floating_point():
            inputs.append(torch.randn(shape, generator=generator, dtype=like.dtype))
        else:
            inputs.append(torch.randint(0, 128, shape, generator=generator))
    return inputs


def single_process(program: Any, inputs: list[Any], n: int) -> list[Any]:
    """The uncut program, one micro-batch at a time, outputs concatenated."""
    chunks = [program.run(*(x.chunk(n)[i] for x in inputs)) for i in range(n)]
    return [np.concatenate(parts) for parts in zip(*chunks)]


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        check_schedule(args.schedule, args.microbatches, args.stages)
        if args.stages < 1 or args.microbatches < 1 or args.batch < 1:
            raise PipelineInputError(
                "--stages, --microbatches and --batch must be >= 1"
            )
        check_batch(args.batch, args.microbatches)
        program = _import(args, args.batch // args.microbatches)
        cuts = tuple(c for c in args.cuts.split(",") if c)
        staged = stage_program(program.module, program.weights, args.stages, cuts)
        inputs = random_inputs(staged, args.batch, args.seed)
        _print_plan(staged)
        run = launch(
            staged,
            inputs,
            args.microbatches,
            args.schedule,
            args.backend,
            timeout=args.timeout,
            repeat=args.repeat,
        )
    except (PipelineInputError, LaunchError, PassFailedException, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    best = min(run.step_seconds)
    print(
        f"{args.schedule}: {args.stages} ranks, {args.microbatches} micro-batches: "
        f"best step {best * 1e3:.1f} ms, {args.batch / best:.1f} samples/s"
    )
    if args.out:
        np.savez(args.out, *run.outputs)
    if args.check:
        expected = single_process(program, inputs, args.microbatches)
        equal = all(np.array_equal(a, b) for a, b in zip(run.outputs, expected))
        print("outputs equal the single-process run" if equal else "outputs DIFFER")
        return 0 if equal else 1
    return 0


def _print_plan(staged: StagedProgram) -> None:
    plan = staged.plan
    assert plan is not None
    for index, (start, time) in enumerate(zip(plan.starts, plan.times)):
        print(f"stage {index}: from op {start}, predicted {time * 1e6:.2f} us")
    print(f"predicted balance (max/mean): {plan.balance:.3f}")


if __name__ == "__main__":
    sys.exit(main())
