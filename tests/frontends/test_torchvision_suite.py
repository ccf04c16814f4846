"""TorchBench's torchvision models (`fxdsl.testing.torchvision_suite`:
classifiers from AlexNet to MaxViT, and segmentation, video, optical-flow
and detection models; random weights, small inputs) through
`torch.compile(backend="fxdsl")` on the CPU, checked as the dynamo benchmark
runner checks accuracy (`torch._dynamo.utils.same` against the model in
float64): classifiers in f32 and bf16 with every operator compiled, a
training step of `TRAINED`, and the other models in f32 with only the
operators `IN_TORCH` names left to torch.

torchvision does not load beside the main environment's CPU torch: these
tests carry the `timm` marker and run in the TIMM suite's environment
(`make test-timm`, which CI runs)."""

from __future__ import annotations

import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("torchvision")

from fxdsl.testing.hf_suite import compile_and_check  # noqa: E402
from fxdsl.testing.torchvision_suite import (  # noqa: E402
    IN_TORCH,
    OTHERS,
    SUITE,
    TRAINED,
    build,
)

pytestmark = [pytest.mark.timm, pytest.mark.usefixtures("fresh_dynamo")]

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
TOLERANCE = {"f32": 1e-4, "bf16": 1e-3}
"""The dynamo runner's: 1e-4 in float32, 1e-3 in bf16."""


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(SUITE))
def test_torchvision_classifier(name: str, dtype: str) -> None:
    model, inputs = build(name, DTYPES[dtype])
    outcome = compile_and_check(model, inputs, tol=TOLERANCE[dtype])
    assert outcome.accurate, f"{name} in {dtype} differs from eager"
    assert outcome.share == 100.0, outcome.summary()


@pytest.mark.parametrize("name", TRAINED)
def test_torchvision_classifier_trains(name: str) -> None:
    """One f32 training step (batch norm in training mode, dropout off):
    the loss and every gradient as eager's, every operator compiled."""
    model, inputs = build(name)
    outcome = compile_and_check(model, inputs, train=True)
    assert outcome.accurate, f"{name}'s training step differs from eager"
    assert outcome.share == 100.0, outcome.summary()


@pytest.mark.parametrize("name", OTHERS)
def test_torchvision_model(name: str) -> None:
    """Segmentation, video, optical flow and detection in f32: eager's
    outputs, and in torch only what `IN_TORCH` lists for the model."""
    model, inputs = build(name)
    outcome = compile_and_check(model, inputs, tol=TOLERANCE["f32"])
    assert outcome.accurate, f"{name} differs from eager"
    assert set(outcome.in_torch) == IN_TORCH.get(name, set()), outcome.summary()
