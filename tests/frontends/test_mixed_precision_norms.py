"""Norms with a 16-bit input and f32 parameters (a model whose norms were
kept in f32, as mixed-precision recipes and Hugging Face's
`_keep_in_fp32_modules` leave them): torch's kernels take them and compute
in f32, rounding the result once. Through the backend they compile (before,
`layer_norm` and eval-mode `batch_norm` went to torch, the graph ops
refusing mixed operand types), and the result equals eager's to the last
bit (an element in 64 may round the other way: the f32 sums run in
another order); the gradients are within 16-bit rounding of float64's.
(Not as close as eager's: torch.compile's fake kernel types the saved
mean and 1/std of a CPU layer norm as the 16-bit input, where the eager
kernel keeps them in f32, so a compiled backward reads them rounded, as
Inductor's does.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
F = torch.nn.functional
_G = torch.Generator().manual_seed(0)
WEIGHT, BIAS = torch.randn(8, generator=_G), torch.randn(8, generator=_G)
MEAN, VAR = torch.randn(8, generator=_G), torch.rand(8, generator=_G) + 0.5

NORMS: dict[str, Callable[[Any], Any]] = {
    "layer_norm": lambda x: F.layer_norm(x, (8,), WEIGHT, BIAS),
    "layer_norm, weight only": lambda x: F.layer_norm(x, (8,), WEIGHT),
    "batch_norm, eval": lambda x: F.batch_norm(
        x.transpose(1, 3), MEAN, VAR, WEIGHT, BIAS, False
    ),
}


def _input(dtype: Any) -> Any:
    return torch.randn(2, 5, 6, 8, generator=torch.Generator().manual_seed(1)).to(dtype)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("norm", list(NORMS))
def test_a_16_bit_input_with_f32_parameters_compiles_and_equals_eager(
    norm: str, dtype: Any
) -> None:
    x = _input(dtype)
    want = NORMS[norm](x)
    outcome = Outcome()
    with counting_plans(outcome):
        got = torch.compile(NORMS[norm], backend="fxdsl")(x)
    assert got.dtype == want.dtype == dtype
    torch.testing.assert_close(got, want, rtol=torch.finfo(dtype).eps, atol=0.0)
    assert int((got != want).sum()) <= want.numel() // 64
    assert outcome.compiled == outcome.total, outcome.summary()


def _gradients(x: Any, weight: Any, compile: bool = False) -> list[Any]:
    x, weight = x.detach().requires_grad_(True), weight.detach().requires_grad_(True)

    def loss(x: Any, weight: Any) -> Any:
        bias = BIAS.to(weight.dtype)
        return (F.layer_norm(x, (8,), weight, bias).double() ** 2).sum()

    (torch.compile(loss, backend="fxdsl") if compile else loss)(x, weight).backward()
    return [x.grad.double(), weight.grad.double()]


def test_the_gradients_of_a_mixed_layer_norm_compile_and_are_close() -> None:
    x = _input(torch.bfloat16)
    exact = _gradients(x.double(), WEIGHT.double())
    outcome = Outcome()
    with counting_plans(outcome):
        got = _gradients(x, WEIGHT, compile=True)
    assert outcome.compiled == outcome.total, outcome.summary()
    for g, want in zip(got, exact):
        scale = float(want.abs().max())
        torch.testing.assert_close(g, want, rtol=2e-2, atol=2e-2 * scale)


def test_from_torch_takes_a_mixed_layer_norm() -> None:
    x = _input(torch.bfloat16)
    fn = NORMS["layer_norm"]
    program = from_torch(function_module(fn), (x,))
    (got,) = program.run(x)
    assert torch.equal(torch.from_numpy(got.astype("float32")).bfloat16(), fn(x))


def test_a_bf16_layer_norm_saves_its_statistics_rounded_once() -> None:
    """native_layer_norm's mean and 1/std (what its backward reads) are
    computed in f32 and rounded once, as torch's kernel rounds them: on
    OpInfo's bf16 sample a bf16 sqrt before the reciprocal put 1/std an
    ulp off (0.24805 for 0.24902), and the input's gradient 13 % off on
    one element."""
    x = torch.tensor(
        [4.9375, 5.78125, -3.96875, 3.265625, -3.890625, 2.828125],
        dtype=torch.bfloat16,
    ).view(1, 2, 3)

    def norm(x: Any) -> Any:
        return torch.ops.aten.native_layer_norm(x, [1, 2, 3], None, None, 0.5)

    want = norm(x)
    got = torch.compile(norm, backend="fxdsl")(x)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=0, atol=0)
    assert float(want[2]) == 0.2490234375

    leaf = x.clone().requires_grad_(True)
    weight = torch.tensor([0.5, -1.0, 2.0, 1.5, -0.25, 1.0]).view(1, 2, 3)

    def loss(x: Any) -> Any:
        return (F.layer_norm(x, [1, 2, 3], eps=0.5).float() * weight).sum()

    loss(leaf).backward()
    grad, leaf.grad = leaf.grad, None
    torch.compile(loss, backend="fxdsl")(leaf).backward()
    torch.testing.assert_close(leaf.grad, grad, rtol=0, atol=0)
