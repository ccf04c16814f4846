"""Run a staged program with `torch.distributed.pipelining`, one stage a rank.

`run_pipeline` is what every rank calls once the process group is up (under
`torchrun`, or `fxdsl.distributed.launch`): it checks the inputs, builds its
rank's `PipelineStage` and runs the schedule forward only (no loss: an
inference schedule). Rank 0 feeds the whole batch, which the schedule splits
into micro-batches along dim 0; the last rank gets the merged outputs.

The inputs are checked before the schedule starts, on every rank alike, and
by the launcher before any rank starts: inside the schedule a wrong shape
crashes one rank and leaves the others waiting for it forever.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from fxdsl.distributed.stages import StagedProgram
from fxdsl.ir.dtypes import numpy_dtype

SCHEDULES = ("gpipe", "1f1b")
"""`ScheduleGPipe` and `Schedule1F1B`; without a loss both run forward only."""


class PipelineInputError(ValueError):
    """Inputs a pipeline cannot run on; raised before any rank communicates."""


def _dtype_name(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(dtype, "is_floating_point"):  # torch
        return str(dtype).removeprefix("torch.")
    return str(np.asarray(value).dtype)


def check_batch(batch: int, n_microbatches: int, where: str = "") -> None:
    if batch % n_microbatches:
        raise PipelineInputError(
            f"{where}{': ' if where else ''}batch {batch} is not divisible by "
            f"{n_microbatches} micro-batches"
        )


def check_inputs(
    staged: StagedProgram, inputs: Sequence[Any], n_microbatches: int
) -> None:
    """Raise PipelineInputError unless `inputs` (torch tensors or arrays) are
    the first stage's inputs for `n_microbatches` micro-batches stacked along
    dim 0, and `n_microbatches` is a positive integer."""
    if isinstance(n_microbatches, bool) or not isinstance(n_microbatches, int):
        raise PipelineInputError(
            f"n_microbatches must be an integer, got {n_microbatches!r}"
        )
    if n_microbatches < 1:
        raise PipelineInputError(f"n_microbatches must be >= 1, got {n_microbatches}")
    types = staged.input_types(0)
    if len(inputs) != len(types):
        raise PipelineInputError(
            f"the program takes {len(types)} inputs, got {len(inputs)}"
        )
    for index, (value, typ) in enumerate(zip(inputs, types)):
        micro = tuple(typ.get_shape())
        shape = tuple(value.shape)
        where = f"input {index} ({typ} a micro-batch)"
        if not shape or not micro:
            raise PipelineInputError(
                f"{where}: the pipeline splits inputs along dim 0; a scalar has none"
            )
        check_batch(shape[0], n_microbatches, where)
        expected = (micro[0] * n_microbatches, *micro[1:])
        if shape != expected:
            raise PipelineInputError(
                f"{where}: expected shape {expected} for {n_microbatches} "
                f"micro-batches, got {shape}"
            )
        want = np.dtype(numpy_dtype(typ.element_type)).name
        got = _dtype_name(value)
        if got != want:
            raise PipelineInputError(f"{where}: expected dtype {want}, got {got}")


def check_schedule(schedule: str, n_microbatches: int = 0, stages: int = 0) -> None:
    """An unknown schedule, or 1F1B with fewer micro-batches than stages
    (torch's Schedule1F1B refuses that on every rank at once)."""
    if schedule not in SCHEDULES:
        raise PipelineInputError(
            f"unknown schedule '{schedule}' (expected one of {', '.join(SCHEDULES)})"
        )
    if schedule == "1f1b" and n_microbatches < stages:
        raise PipelineInputError(
            f"1f1b needs at least as many micro-batches as stages: "
            f"{n_microbatches} micro-batches, {stages} stages (gpipe takes fewer)"
        )


def run_pipeline(
    staged: StagedProgram,
    inputs: Sequence[Any],
    n_microbatches: int,
    schedule: str = "gpipe",
    backend: str = "cpu",
    group: Any = None,
    repeat: int = 1,
    step_seconds: list[float] | None = None,
) -> tuple[Any, ...] | None:
    """Run `staged` on this rank's stage (rank r runs stage r; the group must
    have one rank per stage). `inputs` (the whole batch) matter on rank 0 only
    but are checked everywhere. Returns the outputs (torch tensors) on the
    last rank, None on the others. `repeat` runs the schedule that many times
    (benchmarks), returning the last outputs; with `step_seconds`, each run
    starts at a barrier of the group and its wall time is appended there."""
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import Schedule1F1B, ScheduleGPipe

    check_inputs(staged, inputs, n_microbatches)
    check_schedule(schedule, n_microbatches, staged.num_stages)
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    if world != staged.num_stages:
        raise PipelineInputError(
            f"{staged.num_stages} stages need {staged.num_stages} ranks, "
            f"the process group has {world}"
        )
    stage = staged.torch_stage(rank, backend, group=group)
    kind = ScheduleGPipe if schedule == "gpipe" else Schedule1F1B
    runner = kind(stage, n_microbatches)
    device = stage.device
    tensors = [
        (x if isinstance(x, torch.Tensor) else torch.from_numpy(np.asarray(x))).to(
            device
        )
        for x in inputs
    ]
    outputs = None
    with torch.no_grad():
        for _ in range(repeat):
            if step_seconds is not None:
                dist.barrier(group)
            start = time.perf_counter()
            outputs = runner.step(*tensors) if rank == 0 else runner.step()
            if step_seconds is not None:
                step_seconds.append(time.perf_counter() - start)
    if rank != world - 1:
        return None
    return outputs if isinstance(outputs, tuple | list) else (outputs,)
