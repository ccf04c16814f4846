"""TorchBench's model families outside the HF, TIMM and torchvision suites
(`fxdsl.testing.torchbench_models`) through `torch.compile(backend=
"fxdsl")`: outputs (and, in a training step, the loss and every gradient)
as the dynamo runner checks them, with every operator compiled. DLRM's
and the flow warp's training steps found the `embedding_bag` and
`grid_sample` gradients that ran in torch."""

from __future__ import annotations

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import compile_and_check  # noqa: E402
from fxdsl.testing.torchbench_models import MODELS, TRAINS  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_dynamo")]

CASES = [(name, False) for name in MODELS] + [(name, True) for name in sorted(TRAINS)]


@pytest.mark.parametrize(
    ("name", "train"), CASES, ids=[f"{n}-{'train' if t else 'infer'}" for n, t in CASES]
)
def test_model_matches_eager_with_every_operator_compiled(
    name: str, train: bool
) -> None:
    torch.manual_seed(0)
    model, inputs = MODELS[name]()
    outcome = compile_and_check(model, inputs, train=train)
    assert outcome.accurate
    assert outcome.compiled == outcome.total, outcome.summary()
    assert outcome.total > 0  # Dynamo handed the backend a graph
