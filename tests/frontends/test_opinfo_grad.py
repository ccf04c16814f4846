"""Every OpInfo op with autograd through a training step compiled by the
fxdsl backend (`fxdsl.testing.opinfo_grad`, the `grad` level of
`python -m fxdsl.testing.opinfo`): the first samples (`SAMPLES`) OpInfo
makes for its gradient tests in float32 and bfloat16, its inputs' gradients against
eager's, held against `opinfo_expected_grad.py` (dtype -> op -> why part
of its training step runs in torch).

The slow test fails when an op
- gives a wrong gradient or crashes (never listed: always a bug);
- leaves operators to torch and the table does not list it (a regression);
- is listed and now runs whole in fxdsl (the table only shrinks).

On a 2-core machine the 702 ops took about 2 minutes a sample in one
process (most ops compile two small graphs, forward and backward): about
8 minutes for both dtypes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("expecttest")  # torch's test package imports it

from fxdsl.testing import opinfo, opinfo_grad  # noqa: E402
from fxdsl.testing.modules import load_file  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

SAMPLES = {"float32": 3, "bfloat16": 1}
"""OpInfo samples per op and dtype: float32's third sample of `linalg.det`
(the first non-symmetric matrix) found the transposed gradient."""


DTYPES = tuple(SAMPLES)


def expected_fallbacks(dtype: str) -> dict[str, str]:
    """`opinfo_expected_grad.EXPECTED[dtype]` (a data file beside this test)."""
    table = load_file(Path(__file__).with_name("opinfo_expected_grad.py")).EXPECTED
    return table[dtype]


def disagreements(
    results: dict[str, tuple[str, str]], expected: dict[str, str]
) -> list[str]:
    """Where `results` (op -> (outcome, detail)) and the table disagree."""
    problems: list[str] = []
    for name, (outcome, detail) in sorted(results.items()):
        listed = expected.get(name)
        if outcome in ("wrong", "crash"):
            problems.append(f"{name}: {outcome}: {detail}")
        elif outcome == "fallback" and listed is None:
            problems.append(f"{name}: runs partly in torch, not in the table: {detail}")
        elif outcome != "fallback" and listed is not None:
            problems.append(f"{name}: {outcome} now: delete its table entry")
    problems.extend(
        f"{name}: listed, but not an op run here"
        for name in sorted(set(expected) - set(results))
    )
    return problems


def test_the_table_check_fails_every_way() -> None:
    expected = {"a": "why", "gone": "why"}
    results = {
        "a": ("pass", ""),
        "b": ("fallback", "1 of 2 operators ran in torch"),
        "c": ("wrong", "gradient 0"),
        "d": ("n/a", "no autograd"),
    }
    assert disagreements(results, expected) == [
        "a: pass now: delete its table entry",
        "b: runs partly in torch, not in the table: 1 of 2 operators ran in torch",
        "c: wrong: gradient 0",
        "gone: listed, but not an op run here",
    ]
    assert disagreements({"a": ("fallback", "x")}, {"a": "why"}) == []


def _case(call: Any, *tensors: Any) -> opinfo.Case:
    return opinfo.Case("probe", 0, call, tensors)


def test_a_step_fxdsl_runs_whole_passes_and_one_left_to_torch_is_named() -> None:
    x = torch.randn(3, 4, requires_grad=True)
    assert opinfo_grad.check_grad(_case(lambda t: (t.sin() * t).cumsum(1), x)) == (
        "pass",
        "",
    )
    # a data-dependent shape stays in torch
    y = torch.randn(3, 4, requires_grad=True)
    outcome, detail = opinfo_grad.check_grad(_case(lambda t: t[t > 0] * 2, y))
    assert outcome == "fallback"
    assert "index" in detail


def test_nothing_to_differentiate_is_not_applicable() -> None:
    x = torch.randn(3)
    assert opinfo_grad.check_grad(_case(torch.sin, x))[0] == "n/a"
    y = torch.randn(3, requires_grad=True)
    assert opinfo_grad.check_grad(_case(lambda t: t.argmax(), y))[0] == "n/a"


def test_a_gradient_is_judged_against_eager_and_float64() -> None:
    """Within RTOL of eager's passes; off by more fails, unless it is as
    close to the float64 gradient as eager's own is."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    case = _case(lambda t: t * t, x)
    eager = opinfo_grad._gradients(case, case.call, case.tensors)
    assert eager is not None
    assert opinfo_grad._differs(case, eager, [eager[0] * (1 + 1e-6)]) is None
    why = opinfo_grad._differs(case, eager, [eager[0] + 0.01])
    assert why is not None
    assert "3 of 3 values differ" in why
    shape = opinfo_grad._differs(case, eager, [torch.zeros(2)])
    assert shape is not None
    assert "torch torch.float32(3,)" in shape


@pytest.mark.slow
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_opinfo_op_trains_as_the_table_says(
    dtype: str, capsys: pytest.CaptureFixture[str]
) -> None:
    results: dict[str, tuple[str, str]] = {}
    for op in opinfo.op_db():
        found = opinfo.check_op(op, SAMPLES[dtype], [opinfo.GRAD], dtype)
        if found:
            results[opinfo.op_name(op)] = found[opinfo.GRAD]
    with capsys.disabled():
        rate = opinfo.rates({n: {opinfo.GRAD: r} for n, r in results.items()})
        for key, value in rate.items():
            print(
                f"\nOpInfo {dtype} ({SAMPLES[dtype]} samples) pass rate {key}: {100 * value:.1f} %"
            )
    problems = disagreements(results, expected_fallbacks(dtype))
    assert not problems, "\n".join(problems)
