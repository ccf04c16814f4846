"""The ops the torch.export importer maps ATen onto (`fxdsl.ops`), on the
reference interpreter, against torch itself (CPU, eager): clamp,
hardswish/hardsigmoid, logical ops, any/all, arange, cumsum, advanced
indexing and SDPA with a mask. Torch is an optional extra, so these skip
where it is missing (CI installs it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fxdsl
from fxdsl import ops, trace

torch = pytest.importorskip("torch")
F = torch.nn.functional
Array = np.ndarray[Any, Any]
rng = np.random.default_rng(7)


def run(fn: Callable[..., Any], *inputs: Array) -> list[Array]:
    """`fn` traced on `inputs`' shapes and dtypes, run on the reference."""
    outputs = fxdsl.run(trace(fn, *inputs), *inputs)
    return list(outputs)


def same(got: Array, want: Any, tol: float = 1e-7) -> None:
    expected = want.numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=tol)


SPECIAL = np.array([-np.inf, -4, -3, -1.5, -0.0, 0.0, 1.5, 3, 4, np.inf, np.nan])


def test_clamp_and_hard_activations() -> None:
    x = np.concatenate([SPECIAL, rng.standard_normal(21) * 4]).astype(np.float32)
    i = rng.integers(-9, 9, 32)
    t, ti = torch.from_numpy(x), torch.from_numpy(i)
    got = run(
        lambda x, i: (
            ops.clamp(x, -0.5, 0.7),
            ops.clamp(x, max=0.2),
            ops.clamp(x, 1.0, -1.0),
            ops.clamp(i, min=-3, max=4),
            ops.hardswish(x),
            ops.hardsigmoid(x),
        ),
        x,
        i,
    )
    wants = [
        t.clamp(-0.5, 0.7), t.clamp(max=0.2), t.clamp(1.0, -1.0),
        ti.clamp(-3, 4), F.hardswish(t), F.hardsigmoid(t),
    ]  # fmt: skip
    for g, w in zip(got, wants, strict=True):
        same(g, w)


def test_logical_ops_and_boolean_reductions() -> None:
    a = rng.random((4, 1, 6)) > 0.5
    b = rng.random((5, 6)) > 0.5
    b[0] = True
    b[1] = False
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    got = run(
        lambda a, b: (
            ops.logical_and(a, b),
            ops.logical_or(a, b),
            ops.logical_not(b),
            ops.any(b, -1),
            ops.all(b, [1], keepdim=True),
            ops.any(ops.logical_and(a, b)),
        ),
        a,
        b,
    )
    wants = [
        ta & tb, ta | tb, ~tb, tb.any(-1), tb.all(1, keepdim=True), (ta & tb).any(),
    ]  # fmt: skip
    for g, w in zip(got, wants, strict=True):
        same(g, w)


@pytest.mark.parametrize(
    ("start", "end", "step", "dtype", "torch_dtype"),
    [
        (0, 10, 1, "i64", torch.int64),
        (7, -4, -3, "i32", torch.int32),
        (0.1, 1.0, 0.3, "f32", torch.float32),
        (0, 1, 0.1, "f16", torch.float16),
        (-2, 2.5, 0.25, "bf16", torch.bfloat16),
    ],
)
def test_arange(
    start: float, end: float, step: float, dtype: str, torch_dtype: Any
) -> None:
    (got,) = run(lambda x: ops.arange(start, end, step, dtype), np.zeros(1, np.float32))
    want = torch.arange(start, end, step, dtype=torch_dtype)
    if torch_dtype == torch.bfloat16:
        want = want.float()  # numpy has no bf16: held as rounded float32
    np.testing.assert_array_equal(got, want.numpy(), strict=True)


def test_cumsum() -> None:
    x = rng.standard_normal((3, 7, 5)).astype(np.float32)
    i = rng.integers(-9, 9, (4, 6))
    got = run(
        lambda x, i: (ops.cumsum(x, 1), ops.cumsum(x, -1), ops.cumsum(i, 0)), x, i
    )
    t = torch.from_numpy(x)
    same(got[0], t.cumsum(1))
    same(got[1], t.cumsum(-1))
    np.testing.assert_array_equal(got[2], torch.from_numpy(i).cumsum(0).numpy())


@pytest.mark.parametrize(
    "pattern",
    [
        [1],
        [None, 1],
        [None, 1, 1],
        [1, None, 1],
        [1, None, None, 1],
        [None, 1, None, 1],
        [1, 1, 1, 1],
    ],
    ids=lambda p: "".join("i" if e else "_" for e in p),
)
def test_index_places_dims_as_aten_index(pattern: list[int | None]) -> None:
    """aten.index.Tensor: None keeps a dim; adjacent index tensors replace
    their dims in place, separated ones go first; negative indices wrap."""
    x = rng.standard_normal((4, 6, 5, 3)).astype(np.float32)
    shapes = [(2, 1), (7,), (2, 7), (1, 7)]
    indices = [
        rng.integers(-size, size, shapes[d]).astype(np.int64 if d % 2 else np.int32)
        for d, size in enumerate(x.shape)
        if d < len(pattern) and pattern[d]
    ]

    def fn(x, *tensors):  # type: ignore[no-untyped-def]
        it = iter(tensors)
        return ops.index(x, [next(it) if e else None for e in pattern])

    (got,) = run(fn, x, *indices)
    it = iter(indices)
    torch_indices = [torch.from_numpy(next(it)) if e else None for e in pattern]
    same(got, torch.ops.aten.index.Tensor(torch.from_numpy(x), torch_indices))


@pytest.mark.parametrize("kind", ["bool", "additive"])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_with_a_mask(kind: str, causal: bool) -> None:
    """torch rejects attn_mask with is_causal, so there the mask given to
    torch is ours combined with the causal one by hand."""
    q = rng.standard_normal((2, 3, 5, 8)).astype(np.float32)
    k = rng.standard_normal((2, 3, 7, 8)).astype(np.float32)
    v = rng.standard_normal((2, 3, 7, 4)).astype(np.float32)
    if kind == "bool":
        mask = rng.random((2, 1, 5, 7)) > 0.4
        mask[0, 0, 2] = False  # a row with no key: zeros, as torch
    else:
        mask = rng.standard_normal((5, 7)).astype(np.float32)
        mask[1] = -np.inf
    (got,) = run(
        lambda q, k, v, m: ops.scaled_dot_product_attention(
            q, k, v, attn_mask=m, is_causal=causal
        ),
        q,
        k,
        v,
        mask,
    )
    torch_mask = torch.from_numpy(mask)
    if causal:
        tri = torch.ones(5, 7, dtype=torch.bool).tril()
        if kind == "bool":
            torch_mask = torch_mask & tri
        else:
            torch_mask = torch_mask.masked_fill(~tri, float("-inf"))
    args = (torch.from_numpy(a) for a in (q, k, v))
    # float32 sums in another order: a few ulps
    want = F.scaled_dot_product_attention(*args, attn_mask=torch_mask)
    same(got, want, tol=1e-6)
