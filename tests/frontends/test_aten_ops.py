"""Handlers of the ATen table (`fxdsl/frontends/aten_ops.py`) whose
arguments change the result, imported at both IR levels (`from_torch` and
`decompose=True`) and run on the reference against torch eager: the variants
of var/std (dims, keepdim, correction, unbiased) and `_safe_softmax` on a row
with no finite score."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.torch_export import from_torch  # noqa: E402


class _Fn(torch.nn.Module):
    def __init__(self, fn: Callable[[Any], Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: Any) -> Any:
        return self.fn(x)


def _assert_imports_as_torch(fn: Callable[[Any], Any], x: Any, decompose: bool) -> None:
    want = fn(x)
    (got,) = from_torch(_Fn(fn), (x,), decompose=decompose).run(x)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


VARIANCES = {
    "var keepdim": lambda x: torch.var(x, dim=1, keepdim=True),
    "std keepdim": lambda x: torch.std(x, dim=(0, 2), keepdim=True),
    "var unbiased=False keepdim": lambda x: torch.var(x, 1, False, True),
    "std unbiased=False": lambda x: torch.std(x, -1, unbiased=False),
    "var correction=0 keepdim": lambda x: torch.var(x, 2, correction=0, keepdim=True),
    "std correction=2": lambda x: torch.std(x, 1, correction=2),
    "var correction=None": lambda x: torch.var(x, 1, correction=None),
    "var all": lambda x: torch.var(x),
    "std all keepdim": lambda x: torch.std(x, None, keepdim=True),
    "tensor.var": lambda x: x.var(-1, keepdim=True) + x.std(0, keepdim=True).sum(),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(VARIANCES))
def test_var_and_std_variants_match_torch(name: str, decompose: bool) -> None:
    x = torch.randn(3, 5, 7, generator=torch.Generator().manual_seed(1))
    _assert_imports_as_torch(VARIANCES[name], x, decompose)


def _safe_softmax(x: Any) -> Any:
    return torch.ops.aten._safe_softmax.default(x, -1)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_safe_softmax_of_a_row_without_a_finite_score_is_zero(decompose: bool) -> None:
    x = torch.randn(2, 3, 6, generator=torch.Generator().manual_seed(2))
    x[0, 1] = -torch.inf  # every score masked: 0, where softmax gives NaN
    x[1, 2, :4] = -torch.inf  # partly masked: an ordinary softmax
    _assert_imports_as_torch(_safe_softmax, x, decompose)
    assert bool((_safe_softmax(x)[0, 1] == 0).all())
