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


BITWISE: dict[str, Callable[..., Any]] = {
    "and or xor": lambda x, y: (x & y, x | y, x ^ y),
    "with scalars": lambda x, y: (x & 0xF, 5 | x, 3 ^ y),
    "not": lambda x, y: (~x, torch.bitwise_not(y)),
    "shifts": lambda x, y: (x << y, x >> y, x >> 2, 1 << y),
    "unpacking int4 pairs": lambda x, y: ((x >> 4) & 0xF, x & 0xF),
}


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.int8])
@pytest.mark.parametrize("case", list(BITWISE))
def test_bitwise_ops_on_integers(case: str, dtype: Any) -> None:
    """Before, bitwise ops took only bools: on integers they ran in torch.
    The shift amounts include negative ones and ones past the width."""
    generator = torch.Generator().manual_seed(0)
    low = 0 if dtype == torch.uint8 else -100
    x = torch.randint(low, 100, (64,), generator=generator).to(dtype)
    y = torch.randint(-3, 70, (64,), generator=generator)
    y = y.clamp(min=0).to(dtype) if dtype == torch.uint8 else y.to(dtype)
    compiled_equals_eager(BITWISE[case], x, y)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.uint8])
def test_gcd_and_lcm(dtype: Any) -> None:
    """Before, gcd had no mapping (lcm's decomposition reaches gcd and
    prims.div): both ran in torch. Zeros, signs and Fibonacci neighbours
    (the most remainder steps a pair of the type can take)."""
    generator = torch.Generator().manual_seed(1)
    low = 0 if dtype == torch.uint8 else -60
    x = torch.randint(low, 60, (8, 16), generator=generator).to(dtype)
    y = torch.randint(low, 60, (16,), generator=generator).to(dtype)
    x[0, :4], y[2:5] = 0, 0
    fibonacci = {torch.int64: (7540113804746346429, 4660046610375530309),
                 torch.int32: (1836311903, 1134903170), torch.int16: (28657, 17711),
                 torch.uint8: (233, 144)}[dtype]  # fmt: skip
    x[1, :2], y[:2] = (
        torch.tensor(fibonacci, dtype=dtype),
        torch.tensor(fibonacci[::-1], dtype=dtype),
    )
    compiled_equals_eager(lambda x, y: (torch.gcd(x, y), torch.lcm(x % 7, y % 5)), x, y)


def test_bitwise_ops_on_bools_stay_logical() -> None:
    a = torch.tensor([True, False, True, False])
    b = torch.tensor([True, True, False, False])
    compiled_equals_eager(lambda a, b: (a & b, a | b, a ^ b, ~a), a, b)


SIGNS = (
    torch.tensor([-7, -3, -2, -1, 0, 1, 2, 3, 7]),
    torch.tensor([2, -2, 3, -3, 5, -5, 2, -2, -3]),
)


def test_truncating_division_and_fmod_of_integers() -> None:
    """C's rounding toward zero, where graph.div floors: they differ where
    the signs differ and the division is inexact."""
    compiled_equals_eager(
        lambda x, y: (
            torch.fmod(x, y),
            torch.fmod(x, -3),
            torch.div(x, y, rounding_mode="trunc"),
            torch.div(x, 3, rounding_mode="trunc"),
        ),
        *SIGNS,
    )


def test_integer_pow_with_negative_exponents() -> None:
    """torch gives 0, or +-1 for a base of +-1 (numpy raises; the CUDA
    helper gave 1 for every base)."""
    base = torch.tensor([-3, -1, -1, 0, 1, 2, 5, 2])
    exponent = torch.tensor([-1, -2, -3, -1, -5, -1, 2, 62])
    compiled_equals_eager(lambda b, e: (torch.pow(b, e), 2**e), base, exponent)


def test_float_predicates_and_hardtanh_of_integers() -> None:
    compiled_equals_eager(
        lambda x: (torch.isinf(x), torch.nn.functional.hardtanh(x, -2.5, 1.5)),
        SIGNS[0],
    )


def test_uint8_bilinear_resizing_is_left_to_torch() -> None:
    """torch's uint8 bilinear kernels compute in fixed point; a float
    decomposition rounds one element in six elsewhere (the antialiased
    one's weights even became uint8 zeros). The importer leaves them to
    torch, with the reason, so the numbers are eager's."""
    from fxdsl.frontends.torch_export import TorchImportError, from_torch
    from fxdsl.testing.torch_models import function_module

    x = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)

    def resize(x: Any) -> Any:
        return torch.nn.functional.interpolate(x, size=(5, 13), mode="bilinear")

    with pytest.raises(TorchImportError, match="upsample_bilinear2d of torch.uint8"):
        from_torch(function_module(resize), (x,))

    def antialiased(x: Any) -> Any:
        return torch.ops.aten._upsample_bilinear2d_aa(x, [5, 13], False)

    outcome = Outcome()
    with torch.no_grad(), counting_plans(outcome):
        got = torch.compile(antialiased, backend="fxdsl")(x)
    assert torch.equal(got, antialiased(x))
    assert "aten._upsample_bilinear2d_aa.default" in outcome.in_torch


def test_integer_gemms_truncate_float_alpha_and_beta() -> None:
    """On integer tensors torch truncates a float alpha or beta to an
    integer (0.6 is 0, 2.2 is 2); the import multiplied an i64 tensor by
    the float and was refused (OpInfo addbmm/baddbmm, int64, 20 samples)."""
    bias = torch.arange(6).reshape(2, 3)
    left = torch.arange(16).reshape(2, 2, 4) - 5
    right = torch.arange(24).reshape(2, 4, 3) % 7

    def fn(m: Any, a: Any, b: Any) -> Any:
        return (
            torch.addbmm(m, a, b, beta=0.6, alpha=2.2),
            torch.baddbmm(m, a, b, beta=1.6, alpha=-1.5),
            torch.addmm(m, a[0], b[0], beta=3.9, alpha=0.4),
        )

    compiled_equals_eager(fn, bias, left, right)


def test_a_folded_int64_extreme_stays_exact() -> None:
    """masked.amin fills the masked-out elements with a lifted constant
    tensor holding int64's largest; folded into a `graph.full` through a
    float64 it became int64's smallest (OpInfo int64 at 20 samples)."""
    mask = torch.tensor([[True, False], [False, False]])

    def fn(x: Any) -> Any:
        return (
            torch.masked.amin(x, dim=1, mask=mask),
            torch.masked.amax(x, dim=1, mask=mask),
            torch.masked.argmin(x, dim=1, mask=mask),
        )

    compiled_equals_eager(fn, torch.tensor([[-8, 6], [9, 0]]))


def test_clamp_of_int64_by_a_bound_past_float64_is_exact() -> None:
    """clamp's bounds are float64 attributes: an int64 bound near the
    extremes rounded to 2**63 and the reference overflowed; such bounds
    clamp through exact tensors instead."""
    big = INT64.max

    def fn(x: Any) -> Any:
        return torch.clamp(x, min=-(big - 3), max=big - 11), torch.clamp(x, max=big)

    compiled_equals_eager(fn, torch.tensor([2**62, big, -big, -5]))


def test_add_and_sub_of_a_number_with_alpha_compile() -> None:
    """`torch.add(x, 5, alpha=3)`: other times alpha is two Python numbers,
    which the handler multiplied as graph values and so left to torch."""

    def fn(x: Any) -> Any:
        return torch.add(x, 5, alpha=3), torch.sub(x, 2, alpha=-4) * 2

    compiled_equals_eager(fn, torch.arange(6) - 2)
