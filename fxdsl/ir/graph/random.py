"""Random numbers: `graph.random`, a counter-based generator, and the
Philox4x32-10 constants its reference and its kernels share.

The op stays pure: its values are a function of its `seed` operand alone
(`[key, offset]`, a `tensor<2xi64>`), so a compiled program draws new
numbers on each call when its caller passes a new seed, and equal seeds give
equal numbers on every backend (the reference, the IR emulator, a GPU).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def

from fxdsl.ir.graph.base import (
    FLOAT_TYPES,
    GraphOp,
    bf16,
    dtype_of,
    f16,
    f32,
    i64,
    shape_of,
    tensor,
)
from fxdsl.ir.shape_rules import ShapeError

PHILOX_ROUNDS = 10
PHILOX_M = (0xD2511F53, 0xCD9E8D57)
"""The round multipliers of words 0 and 2 (Salmon et al., SC'11)."""
PHILOX_W = (0x9E3779B9, 0xBB67AE85)
"""The key's increments between rounds (the golden ratio, sqrt(3) - 1)."""
WORD = 0xFFFFFFFF

UNIFORM_BITS: dict[Attribute, int] = {f32: 24, f16: 11, bf16: 8}
"""Random bits in a uniform of each float type: `(x0 >> (32 - bits)) *
2**-bits` is exact in that type and below 1."""

DISTRIBUTIONS = ("uniform", "normal", "bits")


@irdl_op_definition
class RandomOp(GraphOp):
    """Random numbers of the result's shape, from Philox4x32-10.

    The `seed` operand is `[key, offset]` (i64). The element at row-major
    linear index `i` is a function of `(key, offset, i)` alone: Philox with
    key `(key lo, key hi)` (32-bit halves) on counter `(i lo, i hi, offset
    lo, offset hi)` gives words `x0..x3`, and `distribution` turns them
    into a value:

    - `"uniform"` (float result), in `[0, 1)`: `(x0 >> (32 - b)) * 2**-b`,
      `b` = 24 (f32), 11 (f16), 8 (bf16): exact in the result type;
    - `"normal"` (float result), standard normal by Box-Muller in f32:
      `u1 = ((x0 >> 8) + 1) * 2**-24` (in (0, 1]), `u2 = (x1 >> 8) *
      2**-24`, `sqrt(-2 log u1) * cos(2 pi u2)`, then rounded;
    - `"bits"` (i64 result): `x0`, uniform over `[0, 2**32)`.

        %u = graph.random %seed distribution "uniform"
            : (tensor<2xi64>) -> tensor<4x8xf32>
    """

    name = "graph.random"
    PROP_KINDS: ClassVar[dict[str, str]] = {"distribution": "str"}
    seed = operand_def(TensorType)
    distribution = prop_def(StringAttr)
    result = result_def(TensorType)

    def __init__(self, seed: SSAValue, distribution: str, result_type: Attribute):
        super().__init__(
            operands=[seed],
            result_types=[result_type],
            properties={"distribution": StringAttr(distribution)},
        )

    @staticmethod
    def of(
        seed: SSAValue, distribution: str, shape: Sequence[int], dtype: Attribute
    ) -> RandomOp:
        return RandomOp(seed, distribution, tensor(shape, dtype))

    @property
    def kind(self) -> str:
        return self.distribution.data

    def verify_operands(self) -> None:
        super().verify_operands()
        if dtype_of(self.seed) != i64 or shape_of(self.seed) != (2,):
            raise ShapeError(
                f"seed must be tensor<2xi64> ([key, offset]), got {self.seed.type}"
            )

    def infer_result_types(self) -> list[Attribute]:
        kind, dtype = self.kind, dtype_of(self.result)
        if kind not in DISTRIBUTIONS:
            raise ShapeError(
                f'distribution must be one of {", ".join(DISTRIBUTIONS)}, got "{kind}"'
            )
        if kind == "bits" and dtype != i64:
            raise ShapeError(f'"bits" gives an i64 tensor, got {self.result.type}')
        if kind != "bits" and dtype not in FLOAT_TYPES:
            raise ShapeError(f'"{kind}" gives a float tensor, got {self.result.type}')
        return [self.result.type]
