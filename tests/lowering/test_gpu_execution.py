"""End to end on a GPU (pytest marker `gpu`; skipped without one): lowered
programs run through CuPy and equal the reference interpreter.

Tolerances: f32 rtol/atol 1e-4 (different summation order, fast math
functions), GEMMs 1e-3 (TF32 may be enabled by CuPy), f16/bf16 2e-2.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import fxdsl
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import random_inputs, run_reference

pytestmark = pytest.mark.gpu

_spec = importlib.util.spec_from_file_location(
    "cases", Path(__file__).with_name("cases.py")
)
assert _spec is not None
assert _spec.loader is not None
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


def compare(module, name: str, tol: float) -> None:
    from fxdsl.runtime.cuda_executor import compile_cuda

    inputs = random_inputs(module, entry=name)
    expected = run_reference(module, *inputs, entry=name)
    run = compile_cuda(module, entry=name)
    actual = [np.asarray(a.get()) for a in run(*inputs)]
    for want, got in zip(expected, actual):
        np.testing.assert_allclose(
            got.astype(np.float64), np.asarray(want).astype(np.float64),
            rtol=tol, atol=tol, err_msg=name,
        )  # fmt: skip


@pytest.mark.parametrize("theme", sorted(cases.THEMES))
def test_cases_on_gpu(theme: str) -> None:
    programs = cases.THEMES[theme]()
    module = fxdsl.parse(cases.module(programs))
    for name in programs:
        compare(module, name, 2e-2 if "f16" in name else 1e-4)


def test_gpt2_block_on_gpu() -> None:
    module = fxdsl.parse(
        (Path(__file__).parents[2] / "examples/gpt2_block.mlir").read_text()
    )
    compare(module, "gpt2_block", 1e-3)


def test_gpt2_stack_on_gpu() -> None:
    module = gpt2_stack(12, B=1, T=64, D=768, heads=12)
    name = next(iter(f.sym_name.data for f in module.body.block.ops))
    compare(module, name, 2e-3)


def test_wrong_input_shape_names_the_argument() -> None:
    from fxdsl.runtime.cuda_executor import compile_cuda

    module = fxdsl.parse(cases.module(cases.unary_cases()))
    run = compile_cuda(module, entry="exp_f32")
    with pytest.raises(
        ValueError, match=r"argument 0 of @exp_f32: expected \(4, 40\) f32"
    ):
        run(np.zeros((4, 41), np.float32))
