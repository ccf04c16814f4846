"""Pipeline parallelism on `torch.distributed.pipelining` (see docs/distributed.md).

`stage_program` cuts a program into stages (`graph-pipeline-stages`),
`run_pipeline` runs this rank's stage under an initialised process group,
`launch` starts one rank per stage under `torchrun` from one process, and
`python -m fxdsl.distributed` does that from the command line. torch is
imported only when a stage is built or run.
"""

from fxdsl.distributed.launch import LaunchError, PipelineRun, launch
from fxdsl.distributed.pipeline import (
    SCHEDULES,
    PipelineInputError,
    check_inputs,
    run_pipeline,
)
from fxdsl.distributed.stages import StagedProgram, stage_program

__all__ = [
    "SCHEDULES",
    "LaunchError",
    "PipelineInputError",
    "PipelineRun",
    "StagedProgram",
    "check_inputs",
    "launch",
    "run_pipeline",
    "stage_program",
]
