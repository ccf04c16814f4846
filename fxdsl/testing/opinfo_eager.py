"""How the OpInfo harness (`fxdsl.testing.opinfo`, `opinfo_grad`) runs
torch: OpInfo's random ops called plainly (`_unseeded`), whether an op
draws random numbers (`_random`), whether a failure passed through fxdsl's
code (`_raised_by_fxdsl`), and an error's first line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fxdsl.testing.opinfo_compare import flat

DRAWS = 8
"""Calls that must show a random op's values varying: a draw of few values
(`randint(10, ())`, one of ten) repeats between two calls by chance."""


def _random(case: Any) -> bool:
    """Whether the op draws random numbers (some of `DRAWS` eager calls
    differ from the first)."""
    import torch

    first = flat(case.call(*case.tensors))
    for _ in range(DRAWS - 1):
        again = flat(case.call(*case.tensors))
        if any(
            isinstance(a, torch.Tensor) and not _same_tensor(a.detach(), b.detach())
            for a, b in zip(first, again)
        ):
            return True
    return False


def _same_tensor(a: Any, b: Any) -> bool:
    """`_same` of two torch tensors (any dtype)."""
    import torch

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.allclose(a, b, rtol=0, atol=0, equal_nan=True))
    return bool(torch.equal(a, b))


@contextmanager
def _unseeded() -> Iterator[None]:
    """OpInfo calls its random ops through `wrapper_set_seed` (a fixed seed:
    two eager calls agree), which Dynamo refuses to trace; the backend check
    calls them plainly, random as a user's calls are."""
    from torch.testing._internal import common_methods_invocations as db

    seeded = db.wrapper_set_seed
    db.wrapper_set_seed = lambda op, *args, **kwargs: op(*args, **kwargs)
    try:
        yield
    finally:
        db.wrapper_set_seed = seeded


def _raised_by_fxdsl(error: BaseException) -> bool:
    """Whether `error` (or what caused it) passed through fxdsl's code
    outside this harness: a backend failure, or an fxdsl frame."""
    import torch

    package = Path(__file__).resolve().parents[1]
    harness = Path(__file__).resolve().parent
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, torch._dynamo.exc.BackendCompilerFailed):
            return True
        frame = seen.__traceback__
        while frame is not None:
            path = Path(frame.tb_frame.f_code.co_filename).resolve()
            if path.is_relative_to(package) and not path.is_relative_to(harness):
                return True
            frame = frame.tb_next
        seen = seen.__cause__ or seen.__context__
    return False


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__
