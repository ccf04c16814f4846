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

from fxdsl.testing.hf_suite import (  # noqa: E402
    Outcome,
    compile_and_check,
    counting_plans,
)
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


ROIS = [
    [0, 1.0, 1.5, 6.2, 8.0],  # inside, fractional corners
    [1, -2.0, -1.0, 3.0, 4.0],  # past the top-left edge: samples below -1 count 0
    [1, 0.3, 0.2, 0.5, 0.4],  # smaller than a pixel (widened unless aligned)
    [0, 8.0, 5.0, 30.0, 20.0],  # past the bottom-right edge
    [1, 11.5, 9.5, 13.0, 12.0],  # in the last row and column
]
"""Boxes (batch index, x1, y1, x2, y2) on a 2x3x10x12 feature map, each
reaching a branch of torchvision's CPU kernel."""


@pytest.mark.parametrize("scale", [1.0, 0.5])
@pytest.mark.parametrize("sampling_ratio", [1, 2, 3])
@pytest.mark.parametrize("aligned", [False, True])
def test_roi_align_compiles_and_matches_eager(
    aligned: bool, sampling_ratio: int, scale: float
) -> None:
    from torchvision.ops import roi_align

    def pool(x: torch.Tensor, rois: torch.Tensor) -> torch.Tensor:
        return roi_align(
            x, rois, (3, 4), scale, sampling_ratio=sampling_ratio, aligned=aligned
        )

    torch.manual_seed(0)
    x, rois = torch.randn(2, 3, 10, 12), torch.tensor(ROIS)
    outcome = Outcome()
    with counting_plans(outcome):
        got = torch.compile(pool, backend="fxdsl", fullgraph=True)(x, rois)
    torch.testing.assert_close(got, pool(x, rois), rtol=1e-5, atol=2e-6)
    assert outcome.share == 100.0, outcome.summary()


def test_roi_align_with_adaptive_sampling_runs_in_torch() -> None:
    """sampling_ratio <= 0 takes ceil(roi size / bins) samples per roi, a
    count the boxes' values decide: the node runs in torch, the answer is
    eager's."""
    from torchvision.ops import roi_align

    def pool(x: torch.Tensor, rois: torch.Tensor) -> torch.Tensor:
        return roi_align(x, rois, 2, 1.0, sampling_ratio=-1) * 2  # (a 1-op island)

    x, rois = torch.randn(2, 3, 10, 12), torch.tensor(ROIS)
    outcome = Outcome()
    with counting_plans(outcome):
        got = torch.compile(pool, backend="fxdsl")(x, rois)
    torch.testing.assert_close(got, pool(x, rois))
    assert "torchvision.roi_align.default" in outcome.in_torch, outcome.summary()
    reason = outcome.reasons["torchvision.roi_align.default"]
    assert "sampling_ratio=-1" in reason, reason
