"""Pipelines of a 4-layer GPT-2 on 2 and 4 gloo ranks (CPU backend), equal
to the single-process run; the input errors raised before any rank starts;
the launcher's timeout and cleanup; the command line.

Each run goes through `fxdsl.distributed.launch`, which starts torchrun in
its own process group on a free port, bounds it with a timeout and kills the
whole group afterwards. torch and transformers are the `fxdsl[torch]` extra:
these tests skip where they are missing, except under CI (where a missing
one fails)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import fxdsl  # noqa: E402
from fxdsl.distributed import (  # noqa: E402
    LaunchError,
    PipelineInputError,
    launch,
    stage_program,
)
from fxdsl.distributed.__main__ import single_process  # noqa: E402
from fxdsl.testing.torch_models import gpt2  # noqa: E402

launch_module = importlib.import_module("fxdsl.distributed.launch")

MICRO_BATCH = 2
MICROBATCHES = 4
TIMEOUT = 240.0
"""Seconds a whole launch may take (torchrun, imports, the run) before it is
killed; a 4-rank run takes about 25 s here."""


@pytest.fixture(scope="module")
def program() -> Any:
    return fxdsl.from_torch(*gpt2(layers=4, batch=MICRO_BATCH))


@pytest.fixture(scope="module")
def ids() -> Any:
    generator = torch.Generator().manual_seed(0)
    return torch.randint(0, 128, (MICRO_BATCH * MICROBATCHES, 8), generator=generator)


@pytest.mark.parametrize(
    ("ranks", "schedule"), [(2, "gpipe"), (2, "1f1b"), (4, "1f1b"), (4, "gpipe")]
)
def test_ranks_equal_the_single_process_run(
    program: Any, ids: Any, ranks: int, schedule: str
) -> None:
    staged = stage_program(program.module, program.weights, ranks)
    assert staged.num_stages == ranks
    run = launch(staged, [ids], MICROBATCHES, schedule, timeout=TIMEOUT)
    expected = single_process(program, [ids], MICROBATCHES)
    assert len(run.outputs) == len(expected) == 1
    assert run.outputs[0].shape == (MICRO_BATCH * MICROBATCHES, 8, 128)
    np.testing.assert_array_equal(run.outputs[0], expected[0])
    # a different input gives a different output: the comparison can fail
    assert not np.array_equal(run.outputs[0][0], run.outputs[0][1])


@pytest.fixture
def no_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the launcher gets as far as starting torchrun."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("torchrun was started")

    monkeypatch.setattr(launch_module, "_torchrun", refuse)


@pytest.mark.parametrize(
    ("shape", "dtype", "n", "message"),
    [
        ((7, 8), "int64", 4, r"batch 7 is not divisible by 4 micro-batches"),
        (
            (8, 9),
            "int64",
            4,
            r"expected shape \(8, 8\) for 4 micro-batches, got \(8, 9\)",
        ),
        (
            (6, 8),
            "int64",
            2,
            r"expected shape \(4, 8\) for 2 micro-batches, got \(6, 8\)",
        ),
        ((8, 8), "int32", 4, r"expected dtype int64, got int32"),
        ((8, 8), "float32", 4, r"expected dtype int64, got float32"),
        ((8, 8), "int64", 0, r"n_microbatches must be >= 1, got 0"),
    ],
)
def test_bad_inputs_fail_before_any_rank_starts(
    program: Any, no_ranks: None, shape: Any, dtype: str, n: int, message: str
) -> None:
    staged = stage_program(program.module, program.weights, 2)
    inputs = [torch.zeros(shape, dtype=getattr(torch, dtype))]
    with pytest.raises(PipelineInputError, match=message):
        launch(staged, inputs, n, "gpipe")


def test_wrong_input_count_and_schedule_fail_before_any_rank_starts(
    program: Any, ids: Any, no_ranks: None
) -> None:
    staged = stage_program(program.module, program.weights, 2)
    with pytest.raises(PipelineInputError, match="takes 1 inputs, got 2"):
        launch(staged, [ids, ids], MICROBATCHES)
    with pytest.raises(PipelineInputError, match="unknown schedule 'zb'"):
        launch(staged, [ids], MICROBATCHES, "zb")
    with pytest.raises(PipelineInputError, match="1f1b needs at least as many"):
        launch(staged, [ids[:2]], 1, "1f1b")


def test_timeout_kills_every_rank(
    program: Any, ids: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[subprocess.Popen[Any]] = []
    popen = subprocess.Popen

    def recording(*args: Any, **kwargs: Any) -> subprocess.Popen[Any]:
        started.append(popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(launch_module.subprocess, "Popen", recording)
    staged = stage_program(program.module, program.weights, 2)
    begin = time.monotonic()
    with pytest.raises(LaunchError, match="ran past 2 s; killed"):
        launch(staged, [ids], MICROBATCHES, timeout=2.0)
    assert time.monotonic() - begin < 30
    (process,) = started
    assert process.returncode is not None
    assert _group_gone(process.pid), "a rank outlived the launch"


def _group_gone(group: int) -> bool:
    """True once no process is left in process group `group` (killed ranks
    are reaped by init a moment later)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fxdsl.distributed", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT + 60,
        check=False,
    )


def test_cli_runs_and_checks_against_the_single_process_run() -> None:
    result = _cli("--layers", "4", "--stages", "2", "--batch", "6",
                  "--microbatches", "3", "--schedule", "1f1b", "--check")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "outputs equal the single-process run" in result.stdout
    assert result.stdout.count("predicted") == 3  # two stages and the balance


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--batch", "7", "--microbatches", "4"], "batch 7 is not divisible by 4"),
        (["--model", "nope"], "unknown model 'nope'"),
        (["--schedule", "1f1b", "--stages", "4", "--microbatches", "2"], "1f1b needs"),
        (["--stages", "0"], "must be >= 1"),
        (["--stages", "900"], "900 stages asked, but @forward has only"),
        (["--cuts", "transformer.h.9"], "no op is in scope 'transformer.h.9'"),
    ],
)
def test_cli_errors(args: list[str], message: str) -> None:
    result = _cli(*args)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert "stage 0" not in result.stdout  # nothing ran


@pytest.fixture
def one_rank_group(tmp_path: Any) -> Any:
    """A gloo process group of this process alone (a file store, no port)."""
    import torch.distributed as dist

    store = dist.FileStore(str(tmp_path / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_run_pipeline_in_this_process(
    program: Any, ids: Any, one_rank_group: Any
) -> None:
    """`run_pipeline` itself, on a group of one rank: one stage runs; two
    stages are refused before any communication."""
    from fxdsl.distributed import run_pipeline

    staged = stage_program(program.module, program.weights, 1)
    steps: list[float] = []
    outputs = run_pipeline(staged, [ids], MICROBATCHES, repeat=2, step_seconds=steps)
    assert outputs is not None
    assert len(steps) == 2
    expected = single_process(program, [ids], MICROBATCHES)
    np.testing.assert_array_equal(outputs[0].numpy(), expected[0])
    two = stage_program(program.module, program.weights, 2)
    with pytest.raises(
        PipelineInputError, match="2 stages need 2 ranks, the process group has 1"
    ):
        run_pipeline(two, [ids], MICROBATCHES)
