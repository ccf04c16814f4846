"""Training through convolutions: `aten.convolution_backward`
(`aten_conv_backward`) in the backward graph of `torch.compile(backend=
"fxdsl")` compiles, for plain, grouped, depthwise, strided, dilated and
transposed convolutions of 1 to 3 spatial dims, with and without the
input's gradient; the gradients are autograd's. A node left to torch that
returns None for a gradient not asked for runs in torch alone, not the
whole graph with it."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

CASES = {
    "conv1d": (torch.nn.Conv1d, 8, 8, 3, {"padding": 1}, (7,)),
    "depthwise conv1d (ConvBERT)": (
        torch.nn.Conv1d, 8, 8, 9, {"padding": 4, "groups": 8}, (11,)
    ),
    "grouped strided conv2d": (
        torch.nn.Conv2d, 4, 6, 3, {"stride": 2, "padding": 1, "groups": 2}, (9, 8)
    ),
    "dilated conv2d, rows left unread": (
        torch.nn.Conv2d, 3, 4, 2, {"stride": 3, "dilation": 2}, (10, 9)
    ),
    "conv3d": (torch.nn.Conv3d, 2, 3, 2, {"padding": 1}, (4, 5, 3)),
    "transposed conv2d": (
        torch.nn.ConvTranspose2d,
        4, 6, 3,
        {"stride": 2, "padding": 1, "groups": 2, "output_padding": 1},
        (5, 4),
    ),
    "dilated transposed conv1d": (
        torch.nn.ConvTranspose1d,
        4, 2, 4,
        {"stride": 3, "padding": 2, "dilation": 2, "output_padding": 1},
        (6,),
    ),
    # output_padding past the stride (allowed below the dilation): the
    # input gradient's conv reads a row past the input (OpInfo's sample)
    "transposed conv2d, output_padding past the stride": (
        torch.nn.ConvTranspose2d,
        2, 4, (4, 5),
        {"stride": (3, 2), "padding": (1, 2), "output_padding": (2, 3),
         "groups": 2, "dilation": 4},
        (4, 4),
    ),
}  # fmt: skip


def _gradients(
    case: str, input_grad: bool, options: dict[str, Any] | None = None
) -> tuple[list[Any], list[Any], Outcome]:
    """Autograd's gradients of a conv layer's weight, bias (and input) and
    the backend's, with the backend's partition of both graphs."""
    cls, cin, cout, kernel, kwargs, size = CASES[case]
    torch.manual_seed(0)
    conv = cls(cin, cout, kernel, **kwargs)
    x = torch.randn(2, cin, *size, requires_grad=input_grad)

    def layer(x: Any) -> Any:
        return (conv(x * 1.5).tanh() * 2).sum()

    def gradients() -> list[Any]:
        found = [conv.weight.grad, conv.bias.grad] + ([x.grad] if input_grad else [])
        conv.weight.grad = conv.bias.grad = x.grad = None
        return found

    layer(x).backward()
    want = gradients()
    outcome = Outcome()
    compiled = torch.compile(layer, backend="fxdsl", options=options or {})
    with counting_plans(outcome):
        compiled(x).backward()
    return want, gradients(), outcome


@pytest.mark.parametrize(
    "input_grad", [False, True], ids=["no-input-grad", "input-grad"]
)
@pytest.mark.parametrize("case", list(CASES))
def test_convolution_backward_compiles(case: str, input_grad: bool) -> None:
    want, got, outcome = _gradients(case, input_grad)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    assert outcome.compiled == outcome.total, outcome.summary()


def test_a_gradient_left_to_torch_may_be_none() -> None:
    """Left to torch, `convolution_backward` of an input that needs no
    gradient returns None for it: that node runs in torch, the rest of the
    backward graph in fxdsl (it took the whole graph to torch)."""
    options = {"torch_executed_ops": {"aten.convolution_backward.default"}}
    want, got, outcome = _gradients("conv1d", False, options)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    assert not outcome.refused, outcome.refused
    assert dict(outcome.in_torch) == {"aten.convolution_backward.default": 1}
