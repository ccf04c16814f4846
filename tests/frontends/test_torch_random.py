"""Random ops through the PyTorch bridge: fxdsl generates no random numbers,
so a node that draws them (torch tags its op `nondeterministic_seeded`:
dropout in training, attention dropout, rand, randint, normal, bernoulli)
runs in torch under `torch.compile(backend="fxdsl")` and is an error for
`from_torch`; it never folds into a constant and never becomes the identity.
The statistics of dropout through the backend match torch's within sampling
error (5 standard deviations)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.torch_export import TorchImportError, from_torch  # noqa: E402

F = torch.nn.functional
pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _backend(fn: Callable[..., Any]) -> Callable[..., Any]:
    return torch.compile(fn, backend="fxdsl", options={"device": "cpu"})


def _assert_dropout_statistics(y: Any, kept_value: float, p: float, units: int) -> None:
    """`y` holds 0 or `kept_value` only, and the share of zeros is p within
    sampling error over `units` independent draws."""
    values = y.detach().flatten()
    zero = values == 0
    assert torch.allclose(values[~zero], torch.tensor(kept_value))
    share = zero.float().mean().item()
    assert abs(share - p) < 5 * math.sqrt(p * (1 - p) / units), share


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_dropout_in_training_through_the_backend(p: float) -> None:
    x = torch.full((200, 200), 3.0)
    compiled = _backend(lambda x: F.dropout(x * 1.0, p, training=True) + 0.0)
    y = compiled(x)
    _assert_dropout_statistics(y, 3.0 / (1 - p), p, x.numel())
    assert not torch.equal(y, compiled(x))  # a new mask each call


def test_dropout_in_training_keeps_its_gradient() -> None:
    x = torch.full((100, 100), 2.0, requires_grad=True)
    y = _backend(lambda x: F.dropout(x * 1.0, 0.5, training=True).sum())(x)
    y.backward()
    grad = x.grad.flatten()
    # the gradient is the mask the forward drew, scaled: 0 or 1 / (1 - p)
    _assert_dropout_statistics(grad, 2.0, 0.5, grad.numel())
    assert y.item() == pytest.approx(2.0 * 2.0 * (grad != 0).sum().item())


def test_dropout2d_in_training_drops_whole_channels() -> None:
    x = torch.ones(40, 50, 3, 3)
    y = _backend(lambda x: F.dropout2d(x + 0.0, 0.5, training=True))(x)
    channels = y.reshape(40 * 50, 9)
    assert bool(((channels == 0).all(1) | (channels == 2).all(1)).all())
    _assert_dropout_statistics(channels[:, 0], 2.0, 0.5, 40 * 50)


def _attention_with_dropout(q: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, q, v, dropout_p=0.25)


@pytest.mark.parametrize("training", [False, True], ids=["decomposed", "whole"])
def test_attention_dropout_through_the_backend(training: bool) -> None:
    """With q = k = 0 every key gets 1/S; with v the identity the output is
    the dropped-out probabilities: 0 or 1/(S(1 - p)). Inference decomposes
    SDPA (its dropout becomes `native_dropout`); training keeps it whole."""
    s = 64
    q = torch.zeros(4, 8, s, s, requires_grad=training)
    v = torch.eye(s).expand(4, 8, s, s).contiguous()
    with torch.set_grad_enabled(training):
        y = _backend(_attention_with_dropout)(q, v)
    _assert_dropout_statistics(y, 1 / (s * 0.75), 0.25, y.numel())


class _Dropouts(torch.nn.Module):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x: Any) -> Any:
        if self.kind == "dropout":
            return F.dropout(x * 2, 0.5, training=True) + 1
        if self.kind == "dropout2d":
            return F.dropout2d(x * 2, 0.5, training=True) + 1
        return F.scaled_dot_product_attention(x, x, x, dropout_p=0.5) + 1


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("kind", ["dropout", "dropout2d", "attention"])
def test_exported_dropout_in_training_is_an_error(kind: str, decompose: bool) -> None:
    x = torch.ones(2, 3, 4, 4)
    with pytest.raises(TorchImportError, match="draws random numbers"):
        from_torch(_Dropouts(kind), (x,), decompose=decompose)


def test_dropout_in_eval_still_vanishes() -> None:
    class Model(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return F.dropout(x * 2, 0.5, training=False) + F.dropout2d(x, 0.3, False)

    for decompose in (False, True):
        program = from_torch(Model(), (torch.ones(2, 3, 4, 4),), decompose=decompose)
        assert "graph.mul" in str(program.module)
        (y,) = program.run(torch.ones(2, 3, 4, 4))
        assert (y == 3).all()


RANDOM_OPS = {
    "rand": lambda x: x + torch.rand(256),
    "randn": lambda x: x + torch.randn(256),
    "randint": lambda x: x + torch.randint(0, 1 << 20, (256,)),
    "normal": lambda x: x + torch.normal(0.0, 1.0, size=(256,)),
    "bernoulli": lambda x: x + torch.bernoulli(torch.full((256,), 0.5)),
    "rand_like": lambda x: x + torch.rand_like(x),
}


@pytest.mark.parametrize("name", list(RANDOM_OPS))
def test_random_ops_differ_between_calls(name: str) -> None:
    """Random ops with no tensor input would fold (they depend on no input):
    they are never folded, so each call draws anew."""
    compiled = _backend(RANDOM_OPS[name])
    x = torch.zeros(256)
    first, second = compiled(x), compiled(x)
    assert not torch.equal(first, second)


@pytest.mark.parametrize("name", ["randint", "normal", "rand"])
def test_exported_random_ops_are_an_error_not_a_constant(name: str) -> None:
    class Model(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return RANDOM_OPS[name](x)

    with pytest.raises(TorchImportError, match="draws random numbers"):
        from_torch(Model(), (torch.zeros(256),))
