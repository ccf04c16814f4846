"""Training through pooling and padding: the backward graph of
`torch.compile(backend="fxdsl")` compiles every pooling gradient and the
input's gradient is autograd's:

* average pooling (`aten_pooling_backward`): `avg_pool2d_backward`
  (padding counted or not, `ceil_mode`'s extra windows, a divisor override,
  uneven windows), `avg_pool3d_backward`, `_adaptive_avg_pool2d/3d_backward`;
* max pooling (`aten_max_pool_backward`): strided windows 1-D to 3-D
  (overlapping, dilated, `ceil_mode`), adaptive and fractional windows;
* replication padding (`aten_pad_backward`), 1-D to 3-D, cropping too."""

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
    "3-D adaptive": lambda x: F.adaptive_avg_pool3d(_volume(x), (2, 3, 4)),
}


def _volume(x: Any) -> Any:
    """(N, C, 3, H, W) from (N, C, H, W), the depth slices unlike."""
    return torch.stack([x, x.flip(-1) * 2, -x], 2)


SAMPLES = torch.rand(2, 3, 3, generator=torch.Generator().manual_seed(0))
"""A fractional pool's window samples, the same for eager and compiled."""

MAX_POOLS = {
    "3x3 stride 2 (ResNet's stem)": lambda x: F.max_pool2d(x, 3, 2, 1),
    "overlapping windows (stride 1)": lambda x: F.max_pool2d(x, 3, 1, 1),
    "ceil_mode, dilation": lambda x: F.max_pool2d(x, 2, 2, 1, 2, ceil_mode=True),
    "uneven window": lambda x: F.max_pool2d(x, (2, 3), (1, 2), (1, 0)),
    "1-D": lambda x: F.max_pool1d(x.flatten(2), 4, 3, 2),
    "3-D, ceil_mode": lambda x: F.max_pool3d(_volume(x), 2, 2, 1, ceil_mode=True),
    "adaptive": lambda x: F.adaptive_max_pool2d(x, (3, 4)),
    "adaptive, overlapping windows": lambda x: F.adaptive_max_pool2d(x, 5),
    "3-D adaptive": lambda x: F.adaptive_max_pool3d(_volume(x), (2, 2, 3)),
    "fractional": lambda x: F.fractional_max_pool2d(
        x, 2, output_size=(4, 5), _random_samples=SAMPLES[..., :2]
    ),
    "3-D fractional": lambda x: F.fractional_max_pool3d(
        _volume(x), (1, 2, 2), output_size=(2, 4, 5), _random_samples=SAMPLES
    ),
}

PADS = {
    "1-D": lambda x: F.pad(x.flatten(2), (3, 1), mode="replicate"),
    "2-D": lambda x: F.pad(x, (2, 4, 5, 1), mode="replicate"),
    "2-D, cropping": lambda x: F.pad(x, (-2, 3, 1, -3), mode="replicate"),
    # OpInfo's replicate_negative: a crop on one side past what the other
    # side pads: the output repeats the last input position only
    "2-D, cropped whole": lambda x: F.pad(x, (-9, 5, 2, -5), mode="replicate"),
    "3-D": lambda x: F.pad(_volume(x), (1, 2, 0, 3, 2, 2), mode="replicate"),
    "one element wide": lambda x: F.pad(x[:, :, 0, :1], (2, 3), mode="replicate"),
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


@pytest.mark.parametrize("pool", list(MAX_POOLS))
def test_max_pooling_backward_compiles(pool: str) -> None:
    want, got, outcome = _input_gradients(MAX_POOLS[pool], torch.float32)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert outcome.compiled == outcome.total, outcome.summary()


def test_max_pooling_adds_the_gradients_of_one_element_picked_twice() -> None:
    """A constant plane: every overlapping window picks its first element,
    so one input gets several outputs' gradients, and only the winners any."""
    x = torch.zeros(1, 1, 5, 5, requires_grad=True)

    def loss(x: Any) -> Any:
        y = F.max_pool2d(x + 1.0, 3, 1, 1)
        return (y * torch.arange(25.0).reshape(1, 1, 5, 5)).sum()

    loss(x).backward()
    want, x.grad = x.grad, None
    torch.compile(loss, backend="fxdsl")(x).backward()
    torch.testing.assert_close(x.grad, want, rtol=0, atol=0)
    assert int((want != 0).sum()) < 25  # some inputs won no window


@pytest.mark.parametrize("pad", list(PADS))
def test_replication_padding_backward_compiles(pad: str) -> None:
    want, got, outcome = _input_gradients(PADS[pad], torch.float32)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert outcome.compiled == outcome.total, outcome.summary()


@pytest.mark.parametrize(
    "case",
    [("max", "3x3 stride 2 (ResNet's stem)"), ("max", "adaptive"), ("pad", "2-D")],
)
def test_bf16_max_pool_and_pad_gradients(case: tuple[str, str]) -> None:
    table = MAX_POOLS if case[0] == "max" else PADS
    want, got, outcome = _input_gradients(table[case[1]], torch.bfloat16)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
    assert outcome.compiled == outcome.total, outcome.summary()
