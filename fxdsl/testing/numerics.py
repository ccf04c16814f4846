"""Compare what two modules compute on the reference interpreter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from fxdsl.interpreters.tolerance import close_elements, reorder_slack, summed_terms
from fxdsl.ir.utils import entry_function

Array = np.ndarray[Any, Any]


def clone_module(module: ModuleOp) -> ModuleOp:
    """A deep copy of `module` (run a pass on the copy, keep the original)."""
    return module.clone()


def entry_name(module: ModuleOp, entry: str | None = None) -> str:
    """The name of the function `module` runs (`ir_utils.entry_function`'s
    rule: `entry`, else the first public function with a body)."""
    return entry_function(module, entry).sym_name.data


def assert_outputs_close(
    expected: Sequence[Any],
    actual: Sequence[Any],
    rtol: float = 1e-5,
    atol: float = 1e-6,
    context: str = "",
    terms: int = 0,
) -> None:
    """Same number of outputs, same shapes and dtypes, values within
    `atol + rtol * |expected|` plus the slack of reordering sums of `terms`
    terms (`fxdsl.interpreters.tolerance`); exact for integer and boolean
    outputs; NaNs must sit at the same places."""
    prefix = f"{context}: " if context else ""
    if len(expected) != len(actual):
        raise AssertionError(
            f"{prefix}{len(expected)} outputs expected, got {len(actual)}"
        )
    for index, (want, got) in enumerate(zip(expected, actual)):
        want, got = np.asarray(want), np.asarray(got)
        where = f"{prefix}output {index}"
        if want.shape != got.shape or want.dtype != got.dtype:
            raise AssertionError(
                f"{where}: expected {want.dtype}{list(want.shape)}, "
                f"got {got.dtype}{list(got.shape)}"
            )
        if want.dtype.kind not in "fc":
            mismatched = int(np.count_nonzero(want != got))
            if mismatched:
                raise AssertionError(
                    f"{where}: {mismatched} of {want.size} elements differ (exact)"
                )
            continue
        _check_close(want, got, rtol, atol, where, terms)


def _check_close(
    want: Array, got: Array, rtol: float, atol: float, where: str, terms: int
) -> None:
    want64, got64 = want.astype(np.float64), got.astype(np.float64)
    close = close_elements(got64, want64, rtol, atol, terms)
    if close.all():
        return
    slack = reorder_slack(want64, terms)
    allowed = f"atol={atol}" + (f" + {slack:.3g} for reordered sums" if slack else "")
    with np.errstate(invalid="ignore", divide="ignore"):
        # A NaN on one side only counts as an infinite difference.
        diff = np.nan_to_num(np.abs(got64 - want64), nan=np.inf)
        rel = np.nan_to_num(diff / np.abs(want64), nan=np.inf)
    bad = ~close
    worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), want.shape)
    raise AssertionError(
        f"{where}: {int(bad.sum())} of {want.size} elements differ beyond "
        f"rtol={rtol}, {allowed}; max abs diff {diff[bad].max():.3g}, "
        f"max rel diff {rel[bad].max():.3g}; worst at index "
        f"{tuple(int(i) for i in worst)}: expected {want64[worst]!r}, "
        f"got {got64[worst]!r}"
    )


def assert_same_numerics(
    before: ModuleOp,
    after: ModuleOp,
    seeds: Sequence[int] = (0, 1),
    entry: str | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """Run the entry function of `before` and `after` on the same random inputs
    (one set per seed, made from `before`'s signature) with the reference
    interpreter and assert equal output counts, shapes, dtypes and values
    within tolerance (`assert_outputs_close`, with the reordering slack of
    `before`'s reductions). Neither module is modified. `entry` defaults to the
    first public function of `before` (the same name is run in `after`)."""
    from fxdsl.interpreters.run import random_inputs, run_reference

    name = entry_name(before, entry)
    for seed in seeds:
        inputs = random_inputs(before, entry=name, seed=seed)
        expected = run_reference(before, *[np.copy(x) for x in inputs], entry=name)
        actual = run_reference(after, *[np.copy(x) for x in inputs], entry=name)
        assert_outputs_close(
            expected,
            actual,
            rtol,
            atol,
            context=f"@{name}, seed {seed}",
            terms=summed_terms(before),
        )
