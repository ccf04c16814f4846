"""PyTorch's TIMM benchmark suite (`fxdsl.testing.timm_suite`: the model
list of `benchmarks/dynamo/timm_models_list.txt`, random weights, each
model's own input size) through `torch.compile(backend="fxdsl")` on the
CPU: inference in f32, bf16 and f16, and a training step of
`timm_suite.TRAINED`, checked as the dynamo benchmark runner checks
accuracy (`torch._dynamo.utils.same` against the model in float64), with
every operator compiled.

timm needs torchvision, which does not load beside the main environment's
CPU torch: these tests carry the `timm` marker and run in an environment of
their own (`make test-timm`, which CI runs)."""

from __future__ import annotations

import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("timm")

from fxdsl.testing.hf_suite import compile_and_check  # noqa: E402
from fxdsl.testing.timm_suite import OVERFLOWS, SUITE, TRAINED, build  # noqa: E402

pytestmark = [pytest.mark.timm, pytest.mark.usefixtures("fresh_dynamo")]

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
TOLERANCE = {"f32": 1e-4, "bf16": 1e-3, "f16": 1e-3}
"""The dynamo runner's: 1e-4 in float32, 1e-3 in bf16 and f16."""


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", SUITE)
def test_timm_model(name: str, dtype: str) -> None:
    model, inputs = build(name, DTYPES[dtype])
    overflows = (name, dtype) in OVERFLOWS
    if overflows:  # the reason listed must stay true: eager's output is NaN
        with torch.no_grad():
            assert torch.isnan(model(**inputs)).all()
    outcome = compile_and_check(
        model, inputs, tol=TOLERANCE[dtype], equal_nan=overflows
    )
    assert outcome.accurate, f"{name} in {dtype} differs from eager"
    assert outcome.share == 100.0, outcome.summary()


@pytest.mark.parametrize("name", TRAINED)
def test_timm_model_trains(name: str) -> None:
    """One f32 training step (batch norm in training mode, dropout off): the
    loss and every gradient as eager's, every operator compiled (BEiT's
    position-bias gradient is a `graph.index_add`)."""
    model, inputs = build(name)
    outcome = compile_and_check(model, inputs, train=True)
    assert outcome.accurate, f"{name}'s training step differs from eager"
    assert outcome.share == 100.0, outcome.summary()
