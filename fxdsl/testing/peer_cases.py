"""The shared harness of the tests that port PyTorch's own test suites
(tests/frontends/test_*_peer_cases.py).

Each of those files runs a table of small cases through fxdsl and compares
the results with torch eager. What they do alike lives here: a case row and
its constructor, arguments made afresh from a seed, the comparison of
outputs and arguments with eager's (optionally: an output that is a view
in eager must be the same view here), dims marked dynamic before each
compiled call, and what the backend logged. What is particular to one suite
stays in its file. torch is imported on first use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import warnings
from collections.abc import Callable, Iterator
from typing import Any

WHOLE_GRAPH_IN_TORCH = "this graph runs in torch"
"""What the backend logs when it leaves a whole graph to torch."""

Make = Callable[[], Any]
"""A factory of a case's arguments (called afresh for each run)."""


@dataclasses.dataclass(frozen=True)
class Case:
    """One row of a table: `fn` compared with eager on `make()`'s arguments."""

    fn: Callable[..., Any]
    make: Make
    tol: dict[str, float]  # for floats; empty: torch.testing's defaults
    dynamo: dict[str, Any]  # torch._dynamo.config patches around the compiled calls
    dynamic: dict[int, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    """An argument's position -> the dims `mark_dynamic` marks before each
    compiled call (none: Dynamo's defaults)."""


def case(
    name: str,
    fn: Callable[..., Any],
    make: Make,
    *,
    atol: float | None = None,
    rtol: float | None = None,
    dynamo: dict[str, Any] | None = None,
    dynamic: dict[int, tuple[int, ...]] | None = None,
    xfail: str | None = None,
) -> Any:
    """A `Case` as a `pytest.param` whose id is `name`; `xfail`: the reason
    of a strict xfail mark."""
    import pytest

    tol = {} if atol is None else {"atol": atol, "rtol": rtol}
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    row = Case(fn, make, tol, dynamo or {}, dynamic or {})
    return pytest.param(row, id=name, marks=marks)


def fresh(make: Make, seed: int) -> Any:
    """`make()` with torch's global generator seeded first: the same values
    for eager's call and the compiled one's."""
    import torch

    torch.manual_seed(seed)
    return make()


def tensor_leaves(tree: Any) -> list[Any]:
    """The tensor leaves of a pytree, in torch's flattening order."""
    import torch
    import torch.utils._pytree as pytree

    return [x for x in pytree.tree_leaves(tree) if isinstance(x, torch.Tensor)]


def assert_tensor(
    got: Any,
    want: Any,
    tol: dict[str, float],
    what: str,
    *,
    strides: bool = False,
    lowp: dict[str, float] | None = None,
) -> None:
    """`got` is a tensor of `want`'s dtype and values: integers and booleans
    exactly, floats within `tol` (NaNs equal), float16/bfloat16 within at
    least `lowp` where given. `strides`: those of a non-empty tensor's dims
    of more than one element must match too."""
    import torch

    assert isinstance(got, torch.Tensor), f"{what}: {type(got).__name__}, not a tensor"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if not (want.is_floating_point() or want.is_complex()):
        tol = {"atol": 0, "rtol": 0}
    elif lowp is not None and want.dtype in (torch.float16, torch.bfloat16):
        tol = {k: max(tol.get(k, 0.0), least) for k, least in lowp.items()}
    if want.is_floating_point() and want.dtype.itemsize == 1:  # float8
        got, want = got.float(), want.float()
    torch.testing.assert_close(
        got.detach(), want.detach(), equal_nan=True, msg=lambda m: f"{what}: {m}", **tol
    )
    if (
        strides
        and want.numel()
        and any(
            n > 1 and a != b
            for n, a, b in zip(want.shape, got.stride(), want.stride(), strict=True)
        )
    ):
        raise AssertionError(f"{what}: strides {got.stride()}, eager's {want.stride()}")


def _storage(t: Any) -> int | None:
    import torch

    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return None
    return t.untyped_storage().data_ptr()


def _alias_map(outs: list[Any], args: list[Any]) -> dict[int, tuple[str, int]]:
    """For each output leaf that shares storage with an argument leaf (or an
    earlier output leaf): which one, as ("arg", i) or ("out", i)."""
    found: dict[int, tuple[str, int]] = {}
    for i, t in enumerate(outs):
        ptr = _storage(t)
        if ptr is None:
            continue
        for j, a in enumerate(args):
            if _storage(a) == ptr:
                found[i] = ("arg", j)
                break
        else:
            for j in range(i):
                if _storage(outs[j]) == ptr:
                    found[i] = ("out", j)
                    break
    return found


def assert_aliases(
    got: list[Any],
    want: list[Any],
    got_args: list[Any],
    want_args: list[Any],
    what: str,
) -> None:
    """Each leaf of `want` that shares storage with one of `want_args`
    (or with an earlier leaf of `want`) is the same view in `got`: the same
    shape, strides and storage offset, sharing storage with the leaf of
    `got_args` (or of `got`) at the same place."""
    got_alias = _alias_map(got, got_args)
    for i, target in _alias_map(want, want_args).items():
        g, w = got[i], want[i]
        layout = (tuple(g.shape), g.stride(), g.storage_offset())
        want_layout = (tuple(w.shape), w.stride(), w.storage_offset())
        assert layout == want_layout, (
            f"{what}[{i}]: a view of {target} in eager, (shape, strides, offset) "
            f"{layout}, eager's {want_layout}"
        )
        assert got_alias.get(i) == target, (
            f"{what}[{i}]: a view of {target} in eager, here of {got_alias.get(i)}"
        )


def assert_same(
    got: Any,
    want: Any,
    tol: dict[str, float],
    what: str,
    *,
    aliases: tuple[Any, Any] | None = None,
    **check: Any,
) -> None:
    """`got` has `want`'s pytree structure and leaves: tensors as
    `assert_tensor` (given `check`'s options) compares them, modules by
    their parameters and buffers, anything else equal. `aliases`: the
    arguments of the calls that gave `got` and `want`; a leaf that is a
    view of one of eager's (or of an earlier leaf) must be the same view
    here (`assert_aliases`)."""
    import torch
    import torch.utils._pytree as pytree

    got_leaves, got_spec = pytree.tree_flatten(got)
    want_leaves, want_spec = pytree.tree_flatten(want)
    assert got_spec == want_spec, f"{what}: structure {got_spec} != {want_spec}"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        if isinstance(w, torch.Tensor):
            assert_tensor(g, w, tol, f"{what}[{i}]", **check)
        elif isinstance(w, torch.nn.Module):
            state = (dict(g.state_dict()), dict(w.state_dict()))
            assert_same(*state, tol, f"{what}[{i}] state", **check)
        else:
            assert g == w, f"{what}[{i}]: {g!r} != {w!r}"
    if aliases is not None:
        got_args, want_args = (pytree.tree_leaves(a) for a in aliases)
        assert_aliases(got_leaves, want_leaves, got_args, want_args, what)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def backend_log() -> Iterator[list[str]]:
    """The messages fxdsl's `torch.compile` backend logs inside the block."""
    logger = logging.getLogger("fxdsl.torch_compile")
    handler = _Records()
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


def compare_with_eager(
    c: Case,
    seed: int,
    *,
    backend: str = "fxdsl",
    options: dict[str, Any] | None = None,
    grad: bool = True,
    aliases: bool = False,
    **check: Any,
) -> list[str]:
    """`c.fn` compiled with `backend` and called twice (the second call
    reuses the compiled graph, `c.dynamic`'s dims marked dynamic before
    each), each call's output and arguments afterwards compared with one
    eager call's, all on arguments made afresh from `seed`; returns what
    the backend logged. `grad=False`: all under `torch.no_grad()`;
    `aliases`: an output that is a view of an argument or of an earlier
    output in eager must be the same view here (`assert_aliases`); `check`:
    `assert_tensor`'s options."""
    import torch

    with contextlib.nullcontext() if grad else torch.no_grad():
        want_args = tuple(fresh(c.make, seed))
        want = c.fn(*want_args)
        compiled = torch.compile(c.fn, backend=backend, options=options)
        with backend_log() as log, torch._dynamo.config.patch(**c.dynamo):
            for call in ("first call", "second call"):
                args = tuple(fresh(c.make, seed))
                for i, dims in c.dynamic.items():
                    torch._dynamo.mark_dynamic(args[i], dims)
                got = compiled(*args)
                views = (args, want_args) if aliases else None
                assert_same(got, want, c.tol, f"{call}: output", aliases=views, **check)
                assert_same(args, want_args, c.tol, f"{call}: argument", **check)
    return log


def warn_whole_graphs(messages: list[str]) -> None:
    """A warning (`pytest -rw` lists them) naming the graphs the backend left
    to torch whole: the case passed, but fxdsl did not run it."""
    whole = [m for m in messages if WHOLE_GRAPH_IN_TORCH in m]
    if whole:
        warnings.warn("; ".join(whole), stacklevel=2)
