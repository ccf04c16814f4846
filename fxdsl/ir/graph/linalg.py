"""Dense linear algebra: the factorisations (`cholesky`, `lu`, `qr`,
`geqrf`, `svd`, `eigh`) and `triangular_solve`.

The family is kept small on purpose: each op is one LAPACK/cuSOLVER routine,
and the importer composes the rest of torch's linear algebra from them and
from matmuls (a solve is `lu` and two triangular solves, a determinant
follows from `lu`'s diagonal and pivots, `pinv` and the nuclear norm from
`svd`). Every op takes f32 matrices in the last two dims and is batched over
the leading ones; none fuses (the fusion passes treat them as opaque).

Results are torch's where torch's are unique: `cholesky`'s L, `lu`'s packed
factors and pivots (partial pivoting on the largest magnitude, LAPACK's
`getrf`), `qr` with LAPACK's Householder signs (`geqrf`, R's diagonal may be
negative), singular values and eigenvalues (ascending for `eigh`, descending
for `svd`). Singular vectors and eigenvectors are unique only up to a sign
per vector (torch's documentation says so and its own CPU and CUDA results
differ in it); the reference takes LAPACK's, as torch's CPU path does.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
)

from fxdsl.ir import shape_rules as rules
from fxdsl.ir.graph.base import GraphOp, dtype_of, f32, i32, shape_of, tensor
from fxdsl.ir.shape_rules import Shape, ShapeError
from fxdsl.ir.syntax import UNIT

_FLAGS = ("upper", "right", "unitriangular", "complete", "full_matrices")
"""The unit-flag properties of the family."""


def _flags(**flags: bool) -> dict[str, Attribute]:
    return {name: UnitAttr() for name, on in flags.items() if on}


class LinalgOp(GraphOp):
    """Base of the family: f32 operands of rank >= 2 (matrices in the last
    two dims); `SQUARE` ops also need square matrices."""

    PROP_KINDS: ClassVar[dict[str, str]] = dict.fromkeys(_FLAGS, UNIT)
    SQUARE: ClassVar[bool] = True

    def verify_operands(self) -> None:
        super().verify_operands()
        self._check()

    def _check(self) -> None:
        # also asked by type inference, which runs before the verifier does
        for operand in self.operands:
            if dtype_of(operand) != f32:
                raise ShapeError(f"expects f32 matrices, got {operand.type}")
            if len(shape_of(operand)) < 2:
                raise ShapeError(f"expects rank >= 2 (matrices), got {operand.type}")
        matrix = shape_of(self.operands[0])
        if self.SQUARE and matrix[-1] != matrix[-2]:
            raise ShapeError(f"expects square matrices, got {self.operands[0].type}")

    def flag(self, name: str) -> bool:
        """Whether unit property `name` is set."""
        return name in self.properties

    def matrix(self) -> Shape:
        """The first operand's shape, once the family's checks hold."""
        self._check()
        return shape_of(self.operands[0])


@irdl_op_definition
class CholeskyOp(LinalgOp):
    """The lower Cholesky factor L of symmetric positive-definite matrices,
    `a = L @ L^T` (only a's lower triangle is read); the reference fails on a
    matrix that is not positive definite, as torch.linalg.cholesky does.

    %l = graph.cholesky %a : tensor<2x4x4xf32>
    """

    name = "graph.cholesky"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue):
        self._build(operands=[input], result_types=[input.type])

    def infer_result_types(self) -> list[Attribute]:
        return [self.input.type]


@irdl_op_definition
class TriangularSolveOp(LinalgOp):
    """`x` with `a @ x = b` (`right`: `x @ a = b`) for triangular `a`: the
    lower triangle of a, or its upper one with `upper`; `unitriangular` takes
    a's diagonal as ones. Batch dims broadcast (torch.linalg.solve_triangular).

    %x = graph.triangular_solve %a, %b upper : (tensor<4x4xf32>,
           tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
    """

    name = "graph.triangular_solve"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    upper = opt_prop_def(UnitAttr)
    right = opt_prop_def(UnitAttr)
    unitriangular = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        upper: bool = False,
        right: bool = False,
        unitriangular: bool = False,
    ):
        self._build(
            operands=[a, b],
            result_types=[b.type],
            properties=_flags(upper=upper, right=right, unitriangular=unitriangular),
        )

    def infer_result_types(self) -> list[Attribute]:
        a, b = self.matrix(), shape_of(self.b)
        n = a[-1]
        along = b[-1] if self.flag("right") else b[-2]
        if along != n:
            side = "columns" if self.flag("right") else "rows"
            raise ShapeError(
                f"b {self.b.type} has {along} {side}, a {self.a.type} is {n}x{n}"
            )
        batch = rules.broadcast_shapes(a[:-2], b[:-2])
        return [tensor((*batch, *b[-2:]), f32)]


@irdl_op_definition
class LuOp(LinalgOp):
    """LU factorisation with partial pivoting of (m, n) matrices, as
    torch.linalg.lu_factor and torch.linalg.lu: the packed factors (L's
    strict lower part with its unit diagonal implied, and U), the 1-based i32
    pivots (row i was swapped with row pivots[i] - 1, in order), and the
    (m, m) permutation matrix P with `a = P @ L @ U`.

    %lu, %pivots, %p = graph.lu %a : (tensor<4x4xf32>)
                         -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4x4xf32>)
    """

    name = "graph.lu"
    SQUARE: ClassVar[bool] = False
    input = operand_def(TensorType)
    lu = result_def(TensorType)
    pivots = result_def(TensorType)
    permutation = result_def(TensorType)

    def __init__(self, input: SSAValue):
        self._build(operands=[input], result_types=[input.type] * 3)

    def infer_result_types(self) -> list[Attribute]:
        *batch, m, n = self.matrix()
        return [
            self.input.type,
            tensor((*batch, min(m, n)), i32),
            tensor((*batch, m, m), f32),
        ]


@irdl_op_definition
class QrOp(LinalgOp):
    """Householder QR of (m, n) matrices, `a = Q @ R`, as torch.linalg.qr:
    reduced (Q (m, k), R (k, n), k = min(m, n)) or with `complete` (Q (m, m),
    R (m, n)). Signs are LAPACK's (`geqrf`): R's diagonal may be negative.

    %q, %r = graph.qr %a : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3x3xf32>)
    """

    name = "graph.qr"
    SQUARE: ClassVar[bool] = False
    input = operand_def(TensorType)
    complete = opt_prop_def(UnitAttr)
    q = result_def(TensorType)
    r = result_def(TensorType)

    def __init__(self, input: SSAValue, complete: bool = False):
        self._build(
            operands=[input],
            result_types=[input.type] * 2,
            properties=_flags(complete=complete),
        )

    def infer_result_types(self) -> list[Attribute]:
        *batch, m, n = self.matrix()
        k = m if self.flag("complete") else min(m, n)
        return [tensor((*batch, m, k), f32), tensor((*batch, k, n), f32)]


@irdl_op_definition
class GeqrfOp(LinalgOp):
    """QR as LAPACK's `geqrf` stores it, as torch.geqrf: R on and above the
    diagonal, the Householder vectors below it (each with an implied 1 on
    the diagonal) and their scales `tau` (k = min(m, n)), so that
    `Q = H_0 ... H_{k-1}`, `H_i = I - tau_i v_i v_i^T`.

    %a, %tau = graph.geqrf %x : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)
    """

    name = "graph.geqrf"
    SQUARE: ClassVar[bool] = False
    input = operand_def(TensorType)
    packed = result_def(TensorType)
    tau = result_def(TensorType)

    def __init__(self, input: SSAValue):
        self._build(operands=[input], result_types=[input.type] * 2)

    def infer_result_types(self) -> list[Attribute]:
        *batch, m, n = self.matrix()
        return [self.input.type, tensor((*batch, min(m, n)), f32)]


@irdl_op_definition
class SvdOp(LinalgOp):
    """Singular value decomposition of (m, n) matrices, `a = U diag(S) Vh`, as
    torch.linalg.svd: S descending, U (m, k) and Vh (k, n) with k = min(m, n),
    or (m, m) and (n, n) with `full_matrices`. Each singular vector pair is
    unique only up to its sign (see the module doc).

    %u, %s, %vh = graph.svd %a : (tensor<5x3xf32>)
                    -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3x3xf32>)
    """

    name = "graph.svd"
    SQUARE: ClassVar[bool] = False
    input = operand_def(TensorType)
    full_matrices = opt_prop_def(UnitAttr)
    u = result_def(TensorType)
    s = result_def(TensorType)
    vh = result_def(TensorType)

    def __init__(self, input: SSAValue, full_matrices: bool = False):
        self._build(
            operands=[input],
            result_types=[input.type] * 3,
            properties=_flags(full_matrices=full_matrices),
        )

    def infer_result_types(self) -> list[Attribute]:
        *batch, m, n = self.matrix()
        k = min(m, n)
        full = self.flag("full_matrices")
        return [
            tensor((*batch, m, m if full else k), f32),
            tensor((*batch, k), f32),
            tensor((*batch, n if full else k, n), f32),
        ]


@irdl_op_definition
class EighOp(LinalgOp):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric
    matrices, from their lower triangle (torch.linalg.eigh with UPLO "L"; the
    importer transposes for "U"). Each eigenvector is unique only up to its
    sign (see the module doc).

    %w, %v = graph.eigh %a : (tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4x4xf32>)
    """

    name = "graph.eigh"
    input = operand_def(TensorType)
    eigenvalues = result_def(TensorType)
    eigenvectors = result_def(TensorType)

    def __init__(self, input: SSAValue):
        self._build(operands=[input], result_types=[input.type] * 2)

    def infer_result_types(self) -> list[Attribute]:
        *batch, n, _ = self.matrix()
        return [tensor((*batch, n), f32), self.input.type]


LINALG_OPS: tuple[type[LinalgOp], ...] = (
    CholeskyOp,
    TriangularSolveOp,
    LuOp,
    QrOp,
    GeqrfOp,
    SvdOp,
    EighOp,
)
"""The family, in `GRAPH_OPS` order."""
