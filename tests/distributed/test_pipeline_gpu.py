"""The pipeline on GPUs: every stage of a 4-layer GPT-2 compiled for CUDA in
one process, on a side stream with work queued before and after (the stages
must run in order on torch's current stream), and, where there are two GPUs
or more, the ranks with NCCL. Both need a GPU (`gpu` marker: skipped
without one)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import fxdsl  # noqa: E402
from fxdsl.distributed import launch, stage_program  # noqa: E402
from fxdsl.testing.torch_models import gpt2  # noqa: E402


@pytest.fixture(scope="module")
def program() -> Any:
    return fxdsl.from_torch(*gpt2(layers=4, batch=2))


@pytest.mark.gpu
@pytest.mark.parametrize("stages", [2, 4])
def test_all_stages_on_one_gpu_follow_torchs_stream(program: Any, stages: int) -> None:
    staged = stage_program(program.module, program.weights, stages)
    modules = [staged.stage_module(i, backend="cuda") for i in range(stages)]
    ids = torch.randint(0, 128, (2, 8), generator=torch.Generator().manual_seed(0))
    side = torch.cuda.Stream()
    with torch.no_grad(), torch.cuda.stream(side):
        # a long copy queued before: a stage that ran on another stream
        # would read its input before this is done
        x = ids.cuda().repeat(4096, 1)[:2].clone()
        for module in modules:
            x = module(x)
        logits = x * 1.0  # queued after
    side.synchronize()
    (expected,) = program.run(ids)
    np.testing.assert_allclose(logits.cpu().numpy(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
def test_nccl_ranks_equal_the_reference(program: Any) -> None:
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    stages = min(4, torch.cuda.device_count())
    staged = stage_program(program.module, program.weights, stages)
    ids = torch.randint(0, 128, (8, 8), generator=torch.Generator().manual_seed(0))
    run = launch(staged, [ids], 4, "gpipe", backend="cuda", timeout=300)
    expected = np.concatenate([program.run(c)[0] for c in ids.chunk(4)])
    np.testing.assert_allclose(run.outputs[0], expected, rtol=1e-4, atol=1e-4)
