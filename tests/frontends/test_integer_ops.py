"""Integer and bool tensors through the torch.compile backend, compared
with eager exactly (values and dtype), every operator compiled. Found by
OpInfo in int64 (`python -m fxdsl.testing.opinfo --dtype int64`), which
the float sweeps never reached."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fxdsl
from fxdsl import ops, trace
from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

INT64 = torch.iinfo(torch.int64)


def compiled_equals_eager(fn: Callable[..., Any], *args: Any) -> None:
    """`fn(*args)` through the backend: every operator compiled, each
    output equal to eager's, of eager's dtype."""
    outcome = Outcome()
    with torch.no_grad(), counting_plans(outcome):
        got = torch.compile(fn, backend="fxdsl", fullgraph=True)(*args)
    want = fn(*args)
    assert outcome.compiled == outcome.total > 0, outcome.summary()
    pairs = zip(
        torch.utils._pytree.tree_leaves(got),
        torch.utils._pytree.tree_leaves(want),
        strict=True,
    )
    for mine, eager in pairs:
        assert mine.dtype == eager.dtype
        assert torch.equal(mine, eager), (mine, eager)


def _values(n: int, dtype: Any) -> Any:
    """n values of `dtype` with repeats and both of its bounds."""
    info = torch.iinfo(dtype)
    x = torch.randint(-5, 5, (n,), generator=torch.Generator().manual_seed(n))
    x = x.to(dtype)
    x[0], x[n // 2] = info.max, info.min
    return x


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8])
@pytest.mark.parametrize("n", [5, 8000])
def test_sort_of_a_length_that_is_no_power_of_two(n: int, dtype: Any) -> None:
    """The bitonic sort pads to a power of two with the type's largest
    value: as a float64, int64's largest became 2^63, which wrapped to the
    smallest, so the padding sorted first (values and indices wrong)."""
    x = _values(n, dtype)
    compiled_equals_eager(lambda x: torch.sort(x, stable=True), x)
    compiled_equals_eager(lambda x: torch.sort(x, descending=True, stable=True), x)


def test_topk_and_mode_of_int64_bounds() -> None:
    x = _values(37, torch.int64)
    compiled_equals_eager(lambda x: torch.topk(x, 4, largest=False).values, x)
    # which index of the mode eager names is not defined: the value only
    compiled_equals_eager(lambda x: torch.mode(x.reshape(1, 37) % 3).values, x)


def test_scatter_amin_keeps_int64s_largest() -> None:
    x = torch.full((4,), INT64.max)
    src = torch.tensor([INT64.max, 3, INT64.max - 1])
    index = torch.tensor([0, 1, 1])
    compiled_equals_eager(
        lambda x, s, i: x.scatter_reduce(0, i, s, "amin", include_self=False),
        x,
        src,
        index,
    )


def test_a_full_of_int64s_largest_is_exact() -> None:
    """`graph.full` holds a float64; an integer it cannot hold becomes an
    exact constant."""
    x = np.zeros(3, np.int64)
    (got,) = fxdsl.run(trace(lambda x: ops.add(x, INT64.max), x), x)
    assert got.tolist() == [INT64.max] * 3
