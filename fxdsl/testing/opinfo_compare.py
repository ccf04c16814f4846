"""How an OpInfo sample's result is judged against torch eager
(`fxdsl.testing.opinfo`): shapes and dtypes, then values, float32 within
`RTOL`/`ATOL` of eager or as close to float64 as eager, a 16-bit dtype
against eager and float64 (`LOW_PRECISION`);
and the parts of some ops' outputs that are compared (`SIGN_FREE`,
`TIE_ORDER`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

RTOL, ATOL = 1e-4, 1e-5

DTYPES = ("float32", "bfloat16", "float16", "int64", "int32", "uint8", "bool")
"""The sample dtypes the harness takes (`--dtype`): the float ones, and
integer and bool samples (results compared exactly)."""

LOW_PRECISION = {"bfloat16": (1.6e-2, 1e-2), "float16": (1e-3, 1e-3)}
"""`(rtol, atol)` against eager for a 16-bit dtype (torch's `assert_close`
rtol for it; a wider atol). Eager rounds after every op and fxdsl once per
fused chain (as Inductor does), so an element outside these is still a
match when it is as close to the float64 result as eager's is: within
`2 |eager - fp64| + 2 eps |fp64| + atol` (the per-element form of the
Dynamo suite's check against an fp64 reference)."""

EPS = {"bfloat16": 2.0**-8, "float16": 2.0**-11}


SIGN_FREE = ("svd", "linalg.svd", "linalg.eigh")
"""Ops whose singular or eigen vectors are unique only up to a sign each
(torch's CPU and CUDA results differ in it): torch's OpInfo compares them
through each sample's `output_process_fn_grad` (their absolute values, or
`U @ Vh`), and so does this harness, on both sides."""

TIE_ORDER = {
    "sort": (1, 0), "argsort": (0, 0), "topk": (1, 1), "kthvalue": (1, 1),
    "mode": (1, 0),
}  # fmt: skip
"""op -> (which output holds indices, which argument is `dim`): among equal
values an unstable sort or a top-k may give their indices in any order (a
bf16 or integer sample of 8000 values is full of ties), and which of equal
k-th values `kthvalue` (or of the mode's occurrences `mode`) names is not
defined, so, unless the sample asks for `stable=True`, the indices are
compared by the values they pick."""


def picked_values(name: str, sample: Any) -> Callable[[Any], Any]:
    """`Case.process` of a `TIE_ORDER` op: its index output replaced by
    the input's values at those indices (along its `dim`)."""
    import torch

    output, position = TIE_ORDER[name]
    given = sample.kwargs.get("dim", None)
    if given is None:
        given = sample.args[position] if len(sample.args) > position else -1
    source = sample.input

    def picked(out: Any) -> Any:
        parts = list(out) if isinstance(out, tuple | list) else [out]
        index = parts[output]
        dim = given if source.dim() else 0
        reduced = 0 < index.dim() < source.dim()  # kthvalue without keepdim
        if reduced:
            index = index.unsqueeze(dim)
        gathered = torch.gather(source, dim, index) if source.dim() else source
        parts[output] = gathered.squeeze(dim) if reduced else gathered
        return tuple(parts)

    return picked


def flat(value: Any) -> list[Any]:
    from torch.utils import _pytree as pytree

    return pytree.tree_leaves(value)


def compare(
    expected: Any,
    actual: Sequence[Any],
    values: bool = True,
    process: Callable[[Any], Any] | None = None,
    case: Any = None,
) -> str | None:
    """Why `actual` (numpy arrays) differs from torch's `expected`, or None;
    `values=False`: shapes and dtypes only; `process` (`Case.process`): the
    part of both outputs that is compared; `case`: a 16-bit sample's
    outputs are judged as `LOW_PRECISION` says, a float32 element outside
    `RTOL`/`ATOL` of eager's by `_as_close_as_eager`."""
    import numpy as np
    import torch

    if process is not None and (why := compare(expected, actual, values=False)):
        return why
    if process is not None:
        expected, actual = processed(process, expected, actual)
    dtype = case.dtype if case is not None else "float32"
    if values and dtype in LOW_PRECISION and process is None:
        return compare_low(expected, actual, case)
    wanted = [v for v in flat(expected) if isinstance(v, torch.Tensor)]
    if len(wanted) != len(actual):
        return f"{len(actual)} outputs, torch gives {len(wanted)}"
    for i, (want, got) in enumerate(zip(wanted, actual)):
        got = np.asarray(got)
        if tuple(want.shape) != got.shape:
            return f"output {i}: shape {got.shape}, torch {tuple(want.shape)}"
        want_np = (
            want.detach().float().numpy()
            if want.is_floating_point()
            else _resolved(want).numpy()
        )
        if want.is_floating_point() != np.issubdtype(
            got.dtype, np.floating
        ) or want.is_complex() != np.iscomplexobj(got):
            return f"output {i}: dtype {got.dtype}, torch {want.dtype}"
        if not values:
            continue
        if not (want.is_floating_point() or want.is_complex()):
            if not np.array_equal(got, want_np):
                wrong = int(np.sum(got != want_np)) if got.shape else 1
                return f"output {i}: {wrong} of {got.size} integer values differ"
            continue
        ok = np.isclose(got, want_np, rtol=RTOL, atol=ATOL, equal_nan=True)
        if not ok.all() and want.dtype == torch.float32 and case is not None:
            ok |= _as_close_as_eager(got, want_np, case, i)
        if not ok.all():
            wide = np.complex128 if np.iscomplexobj(got) else np.float64
            worst = np.nanmax(np.abs(got.astype(wide) - want_np))
            return f"output {i}: values differ (max abs {worst:.3g})"
    return None


F32_EPS = 2.0**-24


def _as_close_as_eager(got: Any, want: Any, case: Any, index: int) -> Any:
    """Which float32 elements are as close to the float64 result as eager's
    own (`2 |eager - fp64| + 2 eps |fp64| + ATOL`, the Dynamo suite's check
    per element): where eager itself is far from it (a matrix exponential's
    products, a cancelling sum), a result as accurate as eager's is no
    wrong one. All False without a float64 result of the same shape."""
    import numpy as np
    import torch

    wide = [v for v in flat(case.fp64) if isinstance(v, torch.Tensor)]
    if index >= len(wide) or tuple(wide[index].shape) != got.shape:
        return np.zeros(got.shape, dtype=bool)
    reference = wide[index].detach().double().numpy()
    bound = 2 * np.abs(want - reference) + 2 * F32_EPS * np.abs(reference) + ATOL
    got = got.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = np.abs(got - reference) <= bound
    return close | _where_eager_fails(got, want, reference, RTOL, ATOL, "float32")


def _where_eager_fails(
    got: Any, want: Any, reference: Any, rtol: float, atol: float, dtype: str
) -> Any:
    """The elements where eager gives NaN or inf but float64 a finite value
    (torch's 16-bit `matrix_exp` overflows inside) and fxdsl's result is
    within `rtol`/`atol` of that value, or is it rounded to `dtype` (an f16
    result past 65504 is inf): right, though eager is not."""
    import numpy as np
    import torch

    failed = ~np.isfinite(want) & np.isfinite(reference)
    rounded = torch.from_numpy(reference).to(getattr(torch, dtype)).double().numpy()
    with np.errstate(invalid="ignore"):
        right = np.isclose(got, reference, rtol=rtol, atol=atol) | (got == rounded)
    return failed & right


def compare_low(expected: Any, actual: Sequence[Any], case: Any) -> str | None:
    """`compare` of a 16-bit sample: each float element close to eager's
    or to the float64 result (`LOW_PRECISION`); other outputs exactly."""
    import numpy as np
    import torch

    if why := compare(expected, actual, values=False):
        return why
    wanted = [v for v in flat(expected) if isinstance(v, torch.Tensor)]
    reference = case.fp64
    wide = [v for v in flat(reference) if isinstance(v, torch.Tensor)]
    if len(wide) != len(wanted):
        wide = [None] * len(wanted)
    rtol, atol = LOW_PRECISION[case.dtype]
    for i, (want, got, ref) in enumerate(zip(wanted, actual, wide)):
        got = np.asarray(got).astype(np.float64)
        want_np = want.detach().double().numpy()
        if not want.is_floating_point():
            if not np.array_equal(got, want_np, equal_nan=True):
                return f"output {i}: values differ (exactly compared)"
            continue
        ok = np.isclose(got, want_np, rtol=rtol, atol=atol, equal_nan=True)
        if ref is not None and tuple(ref.shape) == got.shape and not ok.all():
            ref_np = ref.detach().double().numpy()
            bound = (
                2 * np.abs(want_np - ref_np) + 2 * EPS[case.dtype] * np.abs(ref_np)
            ) + atol
            with np.errstate(invalid="ignore"):
                ok |= np.abs(got - ref_np) <= bound
            ok |= _where_eager_fails(got, want_np, ref_np, rtol, atol, case.dtype)
        if not ok.all():
            worst = np.nanmax(np.where(ok, 0.0, np.abs(got - want_np)))
            return f"output {i}: values differ (max abs {worst:.3g} from eager)"
    return None


def processed(
    process: Callable[[Any], Any], expected: Any, actual: Sequence[Any]
) -> tuple[Any, list[Any]]:
    """`process` applied to torch's output and to fxdsl's (put in the same
    structure), the latter back as numpy arrays."""
    import torch
    from torch.utils import _pytree as pytree

    leaves, spec = pytree.tree_flatten(expected)
    got = iter(actual)
    filled = [
        torch.from_numpy(next(got).copy()) if isinstance(leaf, torch.Tensor) else leaf
        for leaf in leaves
    ]
    mine = process(pytree.tree_unflatten(filled, spec))
    theirs = process(expected)
    return theirs, arrays(mine)


def dtypes_differ(expected: Any, returned: Any) -> str | None:
    """Why the backend's tensors' dtypes are not eager's, or None."""
    import torch

    wanted = [v.dtype for v in flat(expected) if isinstance(v, torch.Tensor)]
    got = [v.dtype for v in flat(returned) if isinstance(v, torch.Tensor)]
    for i, (want, have) in enumerate(zip(wanted, got)):
        if want != have:
            return f"output {i}: dtype {have}, torch {want}"
    return None


def arrays(returned: Any) -> list[Any]:
    import torch

    return [
        (v.detach().float() if v.dtype == torch.bfloat16 else _resolved(v)).numpy()
        for v in flat(returned)
        if isinstance(v, torch.Tensor)
    ]


def _resolved(tensor: Any) -> Any:
    """A tensor without torch's lazy conjugate or negative bit (a complex
    `conj()` is a view with the bit set, which numpy cannot take)."""
    return tensor.detach().resolve_conj().resolve_neg()
