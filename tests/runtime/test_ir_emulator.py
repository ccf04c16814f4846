"""The IR emulator faults where a GPU would: an access outside its
allocation, or a vector access not aligned to its width. numpy alone would
wrap a negative index and clip a slice, so without these checks a lowering
bug that crashes (or corrupts memory) on the device passes on the CPU."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr

from fxdsl.api import apply, parse
from fxdsl.runtime.ir_emulator import Emulator, MemoryFault

SOURCE = """
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = graph.exp %x : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
"""


def lowered():
    return apply(parse(SOURCE), "convert-graph-to-gpu")


def first(module, kind):
    return next(op for op in module.walk() if isinstance(op, kind))


def shift_index(op, by: int) -> None:
    """Add `by` to the last index operand of a load or store."""
    index = op.operands[-1]
    shift = arith.ConstantOp(IntegerAttr(by, IndexType()))
    moved = arith.AddiOp(index, shift)
    op.parent_block().insert_ops_before([shift, moved], op)
    op.operands[-1] = moved.result


def test_unchanged_kernel_runs() -> None:
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    (y,) = Emulator(lowered()).run("f", x)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


@pytest.mark.parametrize(
    ("kind", "by", "message"),
    [
        (vector.LoadOp, 1, "misaligned"),
        (vector.StoreOp, 2, "misaligned"),
        (vector.LoadOp, 32, "of an allocation of 32"),
        (vector.StoreOp, -4, "accesses elements [-4, 0)"),
    ],
)
def test_bad_vector_access_faults(kind, by: int, message: str) -> None:
    module = lowered()
    shift_index(first(module, kind), by)
    x = np.ones((4, 8), np.float32)
    with pytest.raises(
        MemoryFault, match=message.replace("[", r"\[").replace(")", r"\)")
    ):
        Emulator(module).run("f", x)


def test_scalar_access_out_of_bounds_faults() -> None:
    """A 4x6 tensor is not vectorised: scalar loads, one past the end."""
    module = apply(parse(SOURCE.replace("4x8", "4x6")), "convert-graph-to-gpu")
    shift_index(first(module, memref.LoadOp), 24)
    with pytest.raises(MemoryFault, match="allocation of 24"):
        Emulator(module).run("f", np.ones((4, 6), np.float32))
