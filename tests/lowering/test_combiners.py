"""Reduction combiners (`fxdsl.lowering.combiners`), over i1 above all: max
and min of booleans (`any`/`all` after graph-decompose) as row reductions
(block-wide `gpu.all_reduce`), short column reductions (unrolled per output
element) and serial ones, checked on the IR emulator against the reference
and compiled by nvcc. Before one table served both the kernel builder and the
CUDA printer, max over i1 started from the integer identity -1 (printed
`bool v = true;`, always true) and a row reduction had no `bool` identity in
the printer (KeyError)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, f32, i1

from fxdsl.api import apply, parse
from fxdsl.interpreters.run import run_reference
from fxdsl.lowering.combiners import COMBINERS, combiner, identity
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.runtime.ir_emulator import Emulator
from fxdsl.testing.nvcc import compile_ptx

# name -> (input shape, dims, result shape)
SHAPES: dict[str, tuple[tuple[int, ...], list[int], tuple[int, ...]]] = {
    "row": ((4, 300), [1], (4,)),  # block reduction over 300
    "short_column": ((3, 5), [0], (5,)),  # unrolled, 3 per output
    "column": ((40, 6), [0], (6,)),  # serial loop per output
    "row_short": ((4, 8), [1], (4,)),
}


def _program(op: str, shape: str) -> str:
    dims_in, dims, dims_out = SHAPES[shape]
    t = f"tensor<{'x'.join(map(str, dims_in))}xi1>"
    k = f"tensor<{'x'.join(map(str, dims_out))}xi1>"
    return (
        f"func.func @{op}_{shape}(%x: {t}) -> {k} {{\n"
        f"  %y = graph.{op} %x dims {dims} : ({t}) -> {k}\n"
        f"  func.return %y : {k}\n}}\n"
    )


def _masks(shape: tuple[int, ...]) -> list[np.ndarray]:
    """All false, all true, and one odd element per row and per column."""
    odd = np.zeros(shape, bool)
    odd[np.arange(min(shape)), np.arange(min(shape))] = True
    return [np.zeros(shape, bool), np.ones(shape, bool), odd, ~odd]


PROGRAMS = {
    f"{op}_{shape}": _program(op, shape)
    for op in ("max", "min", "any", "all")
    for shape in SHAPES
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_boolean_reductions_on_the_emulator(name: str) -> None:
    text = PROGRAMS[name]
    lowered = apply(parse(text), "graph-decompose,graph-fuse,convert-graph-to-gpu")
    shape = SHAPES[name.split("_", 1)[1]][0]
    for mask in _masks(shape):
        (want,) = run_reference(parse(text), mask)
        (got,) = Emulator(lowered).run(name, mask)
        np.testing.assert_array_equal(got, want, err_msg=f"{name} on\n{mask}")


@pytest.mark.nvcc
def test_boolean_reductions_compile(tmp_path: Path) -> None:
    text = "".join(PROGRAMS.values())
    lowered = apply(parse(text), "graph-decompose,graph-fuse,convert-graph-to-gpu")
    source = kernel_source(lowered)
    # i1 partials cross the block as i32 (warp shuffles move 32-bit values)
    assert "fx_block_reduce_max_int" in source
    assert "fx_block_reduce_min_int" in source
    compile_ptx(source, tmp_path, "bool")


def test_identities_are_identities() -> None:
    """identity(kind) combined with any x is x, per domain (checked with the
    Python meaning of each combiner op)."""
    meaning = {
        arith.AddfOp: lambda a, b: a + b, arith.AddiOp: lambda a, b: a + b,
        arith.MaximumfOp: max, arith.MaxSIOp: max,
        arith.MinimumfOp: min, arith.MinSIOp: min,
        arith.OrIOp: lambda a, b: a or b, arith.AndIOp: lambda a, b: a and b,
    }  # fmt: skip
    samples = {f32: [-3.5, 0.0, 7.0], IntegerType(32): [-(2**31), 0, 2**31 - 1],
               i1: [False, True]}  # fmt: skip
    for (kind, _), _combiner in COMBINERS.items():
        for typ, values in samples.items():
            try:
                op = combiner(kind, typ).op
            except KeyError:
                continue
            start = identity(kind, typ)
            for x in values:
                assert meaning[op](start, x) == x, (kind, typ, x)
