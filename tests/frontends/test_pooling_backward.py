"""Training through average pooling (`aten_pooling_backward`): the
backward graph of `torch.compile(backend="fxdsl")` compiles
`avg_pool2d_backward` (padding counted or not, `ceil_mode`'s extra windows,
a divisor override, uneven windows), `avg_pool3d_backward` and
`_adaptive_avg_pool2d_backward`, and the input's gradient is autograd's."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
F = torch.nn.functional

POOLS = {
    "3x3 stride 1 (Inception)": lambda x: F.avg_pool2d(x, 3, 1, 1),
    "padding not counted": lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
    "ceil_mode": lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    "ceil_mode, padding not counted": lambda x: F.avg_pool2d(
        x, 3, 2, 1, ceil_mode=True, count_include_pad=False
    ),
    "uneven window, divisor override": lambda x: F.avg_pool2d(
        x, (2, 3), (2, 1), (1, 0), divisor_override=4
    ),
    "adaptive": lambda x: F.adaptive_avg_pool2d(x, (3, 4)),
    "adaptive, overlapping windows": lambda x: F.adaptive_avg_pool2d(x, 5),
    "3-D, ceil_mode": lambda x: F.avg_pool3d(
        torch.stack([x, x * 2, -x], 2), 3, 2, 1, ceil_mode=True
    ),
}


def _input_gradients(pool: Any, dtype: Any) -> tuple[Any, Any, Outcome]:
    torch.manual_seed(0)
    x = torch.randn(2, 3, 7, 9, dtype=dtype, requires_grad=True)

    def loss(x: Any) -> Any:
        y = pool(x * 1.5).tanh()
        return (y * torch.linspace(1.0, 2.0, y.shape[-1], dtype=dtype)).sum()

    loss(x).backward()
    want, x.grad = x.grad, None
    outcome = Outcome()
    with counting_plans(outcome):
        torch.compile(loss, backend="fxdsl")(x).backward()
    return want, x.grad, outcome


@pytest.mark.parametrize("pool", list(POOLS))
def test_average_pooling_backward_compiles(pool: str) -> None:
    want, got, outcome = _input_gradients(POOLS[pool], torch.float32)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert outcome.compiled == outcome.total, outcome.summary()


@pytest.mark.parametrize("pool", ["ceil_mode, padding not counted", "adaptive"])
def test_bf16_gradients_are_spread_in_f32(pool: str) -> None:
    want, got, outcome = _input_gradients(POOLS[pool], torch.bfloat16)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
    assert outcome.compiled == outcome.total, outcome.summary()
