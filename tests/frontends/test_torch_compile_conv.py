"""`torch.compile(model, backend="fxdsl")` on a small conv net on the CPU:
every op maps (conv, batch norm, pooling, depthwise conv, adaptive pooling),
the island runs the default graph pipeline (graph-decompose lowers the conv
net to GEMMs, elementwise ops and views) and matches eager. Skips without
torch, except under CI."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
nn = torch.nn

import fxdsl  # noqa: E402
from fxdsl.frontends import torch_compile  # noqa: E402
from fxdsl.ir import graph  # noqa: E402
from fxdsl.runtime.compile import DEFAULT_PIPELINE  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


class SmallConvNet(nn.Module):
    """A ResNet stem, a residual block, a depthwise conv and the head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )  # fmt: skip
        self.conv = nn.Conv2d(8, 8, 3, 1, 1)
        self.depthwise = nn.Conv2d(8, 8, 3, 2, 1, groups=8)
        self.norm = nn.BatchNorm2d(8)
        self.head = nn.Linear(8 * 2 * 3, 5)

    def forward(self, x: Any) -> Any:
        x = self.stem(x)
        x = torch.relu(self.conv(x) + x)
        x = nn.functional.hardswish(self.norm(self.depthwise(x)))
        x = nn.functional.adaptive_avg_pool2d(x, (2, 3))
        return self.head(x.flatten(1))


def _example() -> tuple[Any, Any]:
    torch.manual_seed(0)
    model = SmallConvNet().eval()
    for norm in (model.stem[1], model.norm):
        norm.running_mean.copy_(torch.randn(8) * 0.1)
        norm.running_var.copy_(torch.rand(8) + 0.5)
    return model, torch.randn(2, 3, 24, 24)


def test_conv_net_compiles_on_the_cpu_and_matches_eager(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, x = _example()
    compiled = torch.compile(model, backend="fxdsl", options={"dryrun": True})
    with torch.no_grad():
        got, want = compiled(x), model(x)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    report = capsys.readouterr().out
    numbers = re.search(r"(\d+) operators, (\d+) supported", report)
    assert numbers is not None
    total, supported = map(int, numbers.groups())
    assert supported == total > 10
    assert "1 fxdsl island(s)" in report


def test_conv_net_runs_the_decomposed_graph() -> None:
    """The island's program after the default pipeline has no conv, pooling
    or batch norm left: graph-decompose lowered them."""
    seen: list[Any] = []
    real = torch_compile._compiled

    def spy(module: Any, device: str, settings: Any) -> Any:
        run = real(module, device, settings)
        seen.append(module)
        return run

    torch_compile._compiled = spy  # type: ignore[assignment]
    try:
        model, x = _example()
        with torch.no_grad():
            got = torch.compile(model, backend="fxdsl")(x)
    finally:
        torch_compile._compiled = real  # type: ignore[assignment]
    np.testing.assert_allclose(got.numpy(), model(x).detach().numpy(), atol=1e-5)
    (module,) = seen
    kinds = {type(op) for op in module.walk()}
    assert {graph.Conv2dOp, graph.BatchNormOp, graph.MaxPool2dOp} <= kinds
    lowered = fxdsl.apply(module.clone(), DEFAULT_PIPELINE)
    conv_net_ops = (graph.ConvOp, graph.Pool2dOp, graph.BatchNormOp)
    assert not any(isinstance(op, conv_net_ops) for op in lowered.walk())
    assert any(isinstance(op, graph.MatmulOp) for op in lowered.walk())


class PooledNet(nn.Module):
    """Pooling and depthwise sums, the decompositions that add taps."""

    def __init__(self) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(8, 8, 3, 1, 1, groups=8)
        self.norm = nn.BatchNorm2d(8)

    def forward(self, x: Any) -> Any:
        x = nn.functional.avg_pool2d(x, 3, 1, 1)
        x = self.norm(self.depthwise(x))
        return nn.functional.adaptive_avg_pool2d(x, (3, 5))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("net", ["small", "pooled"])
def test_16_bit_conv_nets_match_eager(net: str, dtype: str) -> None:
    """In bf16/f16 the decomposed convs, pools and batch norms compute in f32
    and round once: the Dynamo suite's check against float64 holds, every
    operator in fxdsl. The pooled net's outputs are eager's within 2 ulps
    (summed in bf16, its taps were 4 % off)."""
    from fxdsl.testing.hf_suite import compile_and_check

    model, x = _example()
    if net == "pooled":
        torch.manual_seed(0)
        model, x = PooledNet().eval(), torch.randn(2, 8, 9, 11)
    half = getattr(torch, dtype)
    model, x = model.to(half), x.to(half)
    outcome = compile_and_check(model, {"x": x})
    assert outcome.accurate
    assert outcome.share == 100.0
    if net == "pooled":
        with torch.no_grad():
            got = torch.compile(model, backend="fxdsl")(x).float().numpy()
            want = model(x).float().numpy()
        bits = 7 if dtype == "bfloat16" else 10
        size = np.maximum(np.abs(want), 2.0**-4)
        ulp = 2.0 ** (np.floor(np.log2(size)) - bits)
        assert np.max(np.abs(got - want) / ulp) <= 2


def test_an_output_padding_eager_refuses_raises_as_in_eager() -> None:
    """output_padding >= stride and dilation: eager raises, and fxdsl
    computed a result anyway; the node now runs in torch, which raises
    eager's error (Inductor's test_unsupported_conv_transpose)."""
    conv = torch.nn.ConvTranspose2d(3, 6, 3, stride=1, padding=1, output_padding=1)
    x = torch.randn(1, 3, 8, 8)
    message = "output padding must be smaller than either stride or dilation"
    with torch.no_grad():
        with pytest.raises(RuntimeError, match=message):
            conv.eval()(x)
        with pytest.raises(RuntimeError, match=message):
            torch.compile(conv.eval(), backend="fxdsl")(x)
