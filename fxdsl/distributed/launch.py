"""Start a pipeline under `torchrun` from one process, and the ranks' side.

    outputs = launch(staged, [input_ids], n_microbatches=4, schedule="1f1b")

`launch` checks the inputs first (before any rank starts), writes the staged
module, its weights and the inputs to a work folder, and runs
`torchrun --nproc-per-node=<stages> -m fxdsl.distributed.worker <folder>`
on a free localhost port in a new process group: on a timeout, an error or
an interrupt the whole group is killed, so no rank outlives the call. Each
rank (`worker`) parses the module, joins the process group (gloo on the
CPU, NCCL on the GPU) and calls `run_pipeline`; the last rank writes the
outputs and the step times back to the folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fxdsl.distributed.pipeline import check_inputs, check_schedule, run_pipeline
from fxdsl.distributed.stages import StagedProgram

Array = np.ndarray[Any, Any]


class LaunchError(RuntimeError):
    """The ranks failed or timed out; the message holds their output's tail."""


@dataclass
class PipelineRun:
    outputs: tuple[Array, ...]
    step_seconds: list[float]
    """Wall time of each schedule step on the last rank."""


def free_port() -> int:
    """A localhost TCP port nothing listens on (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def launch(
    staged: StagedProgram,
    inputs: Sequence[Any],
    n_microbatches: int,
    schedule: str = "gpipe",
    backend: str = "cpu",
    timeout: float = 300.0,
    repeat: int = 1,
) -> PipelineRun:
    """Run `staged` on one rank per stage (see the module docstring); returns
    the outputs as numpy arrays. Raises PipelineInputError before starting
    anything, LaunchError when a rank fails or the run exceeds `timeout`."""
    check_inputs(staged, inputs, n_microbatches)
    check_schedule(schedule, n_microbatches, staged.num_stages)
    from fxdsl.frontends.torch_export import to_numpy
    from fxdsl.tools.weights import save_weights

    with tempfile.TemporaryDirectory(prefix="fxdsl-pipeline-") as folder:
        work = Path(folder)
        (work / "program.mlir").write_text(str(staged.module))
        names, arrays = list(staged.weights), list(staged.weights.values())
        save_weights(work / "weights.npz", names, arrays)
        np.savez(work / "inputs.npz", *(to_numpy(x) for x in inputs))
        options = {"n_microbatches": n_microbatches, "schedule": schedule,
                   "backend": backend, "repeat": repeat}  # fmt: skip
        (work / "options.json").write_text(json.dumps(options))
        _torchrun(work, staged.num_stages, timeout)
        with np.load(work / "outputs.npz") as saved:
            outputs = tuple(saved[f"arr_{i}"] for i in range(len(saved.files)))
        steps = json.loads((work / "steps.json").read_text())
    return PipelineRun(outputs, steps)


def _torchrun(work: Path, ranks: int, timeout: float) -> None:
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nnodes=1",
        f"--nproc-per-node={ranks}", "--master-addr=127.0.0.1",
        f"--master-port={free_port()}", "-m", "fxdsl.distributed.worker", str(work),
    ]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    log = (work / "ranks.log").open("w+")
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        _kill_group(process)
        log.seek(0)
        tail = log.read()[-4000:]
        log.close()
    if code is None:
        raise LaunchError(f"the pipeline ran past {timeout:.0f} s; killed\n{tail}")
    if code != 0:
        raise LaunchError(f"torchrun exited with {code}\n{tail}")


def _kill_group(process: subprocess.Popen[Any]) -> None:
    """Kill torchrun and every rank it started (they share its session)."""
    with contextlib.suppress(ProcessLookupError):  # the group has already exited
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def worker(work: Path) -> None:
    """One rank: run the pipeline in `work` (written by `launch`)."""
    import torch.distributed as dist

    from fxdsl.api import parse
    from fxdsl.tools.weights import load_weights

    options = json.loads((work / "options.json").read_text())
    staged = StagedProgram(
        parse((work / "program.mlir").read_text()),
        load_weights(work / "weights.npz"),
        None,
    )
    with np.load(work / "inputs.npz") as saved:
        inputs = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    backend = options["backend"]
    if backend == "cuda":
        import torch

        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))  # a GPU per rank
    dist.init_process_group("nccl" if backend == "cuda" else "gloo")
    try:
        steps: list[float] = []
        outputs = run_pipeline(
            staged,
            inputs,
            options["n_microbatches"],
            options["schedule"],
            backend,
            repeat=options["repeat"],
            step_seconds=steps,
        )
        if outputs is not None:
            np.savez(work / "outputs.npz", *(o.cpu().numpy() for o in outputs))
            (work / "steps.json").write_text(json.dumps(steps))
    finally:
        dist.destroy_process_group()
