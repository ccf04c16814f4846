"""OpInfo's samples through a training step: the `grad` level of
`fxdsl.testing.opinfo` (`--levels grad`).

Each sample is taken as OpInfo makes it for its autograd tests
(`sample_inputs(..., requires_grad=True)`: the tensors the op
differentiates are leaves that require grad) and goes through
`torch.compile(backend="fxdsl", fullgraph=True)`; a fixed weighted sum of
the differentiable float outputs (after the sample's
`output_process_fn_grad`, as torch's gradient tests reduce them) is the
loss, and `torch.autograd.grad` gives the inputs' gradients, which
AOTAutograd's backward graph, compiled by the backend, computes. They are
compared with eager's gradients: within `RTOL`/`ATOL` of eager's, or (per
element) within `MULTIPLIER` times eager's own distance to the float64
gradient (`TOLERANCE`: the few ops whose gradient is ill-conditioned on
OpInfo's samples); a 16-bit gradient where eager's is NaN or inf and
float64's finite, within tolerance of float64's. `--dtype bfloat16` (or
`float16`) takes the 16-bit samples, judged by `LOW_PRECISION`. The outcome:

* `pass`: the gradients match and fxdsl's islands ran every operator of
  the forward and the backward;
* `fallback`: they match, but some operators ran in torch (which, why);
* `n/a`: the op takes no gradient (OpInfo's `supports_autograd`), draws
  random numbers, or no input or output of the sample is differentiable;
* `export`: Dynamo or AOTAutograd failed (torch's own `aot_eager` fails
  too), or eager's backward itself raises;
* `wrong`: a gradient differs; `crash`: fxdsl raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fxdsl.testing.opinfo_compare import (
    ATOL,
    LOW_PRECISION,
    RTOL,
    TIE_ORDER,
    _where_eager_fails,
    flat,
)

F32_EPS = 2.0**-24

MULTIPLIER = 2.0
"""How much further from the float64 gradient than eager's an element may
be (as the forward check's)."""

TOLERANCE = {"logcumsumexp": (2e-3, 1e-5)}
"""Ops whose gradient is ill-conditioned on OpInfo's samples, with the
`(rtol, atol)` against eager they get instead (as Inductor's OpInfo test
overrides tolerances per op): `logcumsumexp`'s sample holds 1e4 among
values near 1, and its gradient is exp(a - b) of two values near 1e4,
which f32 holds to an ulp of 1e-3: any rounding of them moves the gradient
by 0.1 % (eager's lands 0.0008 from float64 on one element, fxdsl's scan,
which adds in another order, 0.003: 1.5 ulp of the exponent)."""


TIES = frozenset({*TIE_ORDER, "msort"})
"""Ops that route each output's gradient to the position it came from:
among equal input values (a bf16 sample of 8000 values is full of them)
which position an unstable sort or a top-k names is not defined, so the
input's gradient is compared as a multiset per input value (`_by_value`)."""


def check_grad(case: Any) -> tuple[str, str]:
    """`(outcome, detail)` of one sample (an `opinfo.Case` made with
    `requires_grad=True`) through a compiled training step."""
    import torch

    from fxdsl.testing.hf_suite import Outcome, counting_plans
    from fxdsl.testing.opinfo_eager import (
        _first_line,
        _raised_by_fxdsl,
        _random,
        _unseeded,
    )
    from fxdsl.testing.torch_models import function_module

    inputs = [t for t in case.tensors if t.requires_grad]
    if not inputs:
        return ("n/a", "no input takes a gradient")
    with _unseeded():
        try:
            if _random(case):
                return ("n/a", "a random op: its values (and gradients) vary")
            expected = _gradients(case, case.call, case.tensors)
        except Exception as error:  # noqa: BLE001 - torch's failure, not ours
            return ("export", f"eager: {_first_line(error)}")
        if expected is None:
            return ("n/a", "no differentiable float output")
        counted = Outcome()
        torch._dynamo.reset()
        try:
            compiled = torch.compile(
                function_module(case.call), backend="fxdsl", fullgraph=True
            )
            with counting_plans(counted):
                got = _gradients(case, compiled, case.tensors)
        except Exception as error:  # noqa: BLE001 - sorted by where it was raised
            if _raised_by_fxdsl(error) and _runs_in_torch(case):
                return ("crash", f"{type(error).__name__}: {_first_line(error)}")
            return ("export", _first_line(error))
        finally:
            torch._dynamo.reset()
        if got is None:  # no differentiable output: fxdsl's, or AOTAutograd's?
            return _no_gradient(case)
    why = _differs(case, expected, got)
    if why:
        return ("wrong", why)
    if counted.in_torch:
        return ("fallback", counted.summary())
    return ("pass", "")


def _no_gradient(case: Any) -> tuple[str, str]:
    """The outcome of a sample whose compiled output carries no gradient
    where eager's does: torch's own when `aot_eager` (AOTAutograd without
    fxdsl) does the same (a strided `norm(x, 0)`), else a wrong answer."""
    import torch

    from fxdsl.testing.torch_models import function_module

    torch._dynamo.reset()
    try:
        compiled = torch.compile(
            function_module(case.call), backend="aot_eager", fullgraph=True
        )
        reference = _gradients(case, compiled, case.tensors)
    except Exception:  # noqa: BLE001 - torch's failure, not ours
        reference = None
    finally:
        torch._dynamo.reset()
    if reference is None:
        return ("export", "torch.compile drops the gradient (aot_eager too)")
    return ("wrong", "the compiled output carries no gradient; eager's does")


def _gradients(case: Any, call: Any, tensors: Sequence[Any]) -> list[Any] | None:
    """The gradients of `tensors`' grad-requiring leaves of a fixed weighted
    sum of `call(*tensors)`'s differentiable outputs (zeros for an input
    the loss does not reach); None when no output is differentiable."""
    import torch

    outputs = call(*tensors)
    if case.grad_process is not None:
        outputs = case.grad_process(outputs)
    reached = [
        o
        for o in flat(outputs)
        if isinstance(o, torch.Tensor) and o.requires_grad and o.grad_fn is not None
    ]
    if not reached:
        return None
    generator = torch.Generator().manual_seed(0)
    loss = 0
    for output in reached:
        real = torch.view_as_real(output) if output.is_complex() else output
        weight = torch.randn(real.shape, generator=generator, dtype=torch.float64)
        if real.is_floating_point() and case.dtype in LOW_PRECISION:
            # the sample's dtype first: the float64 reference then weighs
            # the same numbers (a bf16-rounded weight is 0.4 % off, which a
            # matrix exponential's gradient turns into 3 %)
            weight = weight.to(getattr(torch, case.dtype))
        loss = loss + (real * weight.to(real.dtype)).sum()
    inputs = [t for t in tensors if t.requires_grad]
    found = torch.autograd.grad(loss, inputs, allow_unused=True)
    return [
        torch.zeros_like(t) if g is None else g.detach()
        for g, t in zip(found, inputs, strict=True)
    ]


def _runs_in_torch(case: Any) -> bool:
    """Whether the training step runs through torch's own `aot_eager`
    (else the failure is torch's, not fxdsl's)."""
    import torch

    from fxdsl.testing.torch_models import function_module

    torch._dynamo.reset()
    try:
        compiled = torch.compile(
            function_module(case.call), backend="aot_eager", fullgraph=True
        )
        _gradients(case, compiled, case.tensors)
    except Exception:  # noqa: BLE001 - torch's failure
        return False
    finally:
        torch._dynamo.reset()
    return True


def _differs(case: Any, expected: list[Any], got: list[Any]) -> str | None:
    """Why the compiled gradients are not eager's: per element, within
    `RTOL`/`ATOL` (a 16-bit dtype: `LOW_PRECISION`'s) of eager's, or within
    `MULTIPLIER` times eager's distance to the float64 gradient."""
    import numpy as np

    rtol, atol = LOW_PRECISION.get(case.dtype, TOLERANCE.get(case.op, (RTOL, ATOL)))
    eps = {"bfloat16": 2.0**-8, "float16": 2.0**-11}.get(case.dtype, F32_EPS)
    wide: list[Any] | None = None
    for i, (want, have) in enumerate(zip(expected, got, strict=True)):
        if want.shape != have.shape or want.dtype != have.dtype:
            return (
                f"gradient {i}: {have.dtype}{tuple(have.shape)}, "
                f"torch {want.dtype}{tuple(want.shape)}"
            )
        w = _numpy(want)
        h = _numpy(have)
        tied = case.op in TIES and i == 0 and want.shape == case.tensors[0].shape
        if tied:
            w, h = _by_value(case.tensors[0], w), _by_value(case.tensors[0], h)
        ok = np.isclose(h, w, rtol=rtol, atol=atol, equal_nan=True)
        if ok.all():
            continue
        if wide is None:
            wide = _float64_gradients(case)
        if wide is not None and not tied:  # (a tied one is in another order)
            reference = _numpy(wide[i])
            bound = MULTIPLIER * np.abs(w - reference) + 2 * eps * np.abs(reference)
            bound += atol
            with np.errstate(invalid="ignore"):
                ok |= np.abs(h - reference) <= bound
            if case.dtype in LOW_PRECISION:  # eager's 16-bit NaN, float64's finite
                ok |= _where_eager_fails(h, w, reference, rtol, atol, case.dtype)
        if not ok.all():
            worst = np.nanmax(np.abs(h - w))
            bad = int((~ok).sum())
            return (
                f"gradient {i}: {bad} of {ok.size} values differ (max abs {worst:.3g})"
            )
    return None


def _by_value(source: Any, gradient: Any) -> Any:
    """`gradient` ordered by the source's value, then by itself: the same
    for two gradients that give tied positions each other's values."""
    import numpy as np

    values = _numpy(source.detach()).reshape(-1)
    flat_gradient = gradient.reshape(-1)
    return flat_gradient[np.lexsort((flat_gradient, values))]


def _float64_gradients(case: Any) -> list[Any] | None:
    """Eager's gradients with the float inputs in float64, or None."""

    wide = [
        t.detach().double().requires_grad_(t.requires_grad)
        if t.is_floating_point()
        else t
        for t in case.tensors
    ]
    try:
        return _gradients(case, case.call, wide)
    except Exception:  # noqa: BLE001 - no float64 kernel: eager alone judges
        return None


def _numpy(tensor: Any) -> Any:
    import torch

    if tensor.is_complex():
        return tensor.resolve_conj().to(torch.complex128).numpy()
    return tensor.to(torch.float64).numpy()
