"""The FX transformation guide's Transformer examples, on the graph dialect."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

import fxdsl
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.ir import graph
from fxdsl.rewrite import Transformer, ops_in_order
from fxdsl.testing import assert_same_numerics, graphs

TWO_ADDS = """
func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = graph.add %x, %y : tensor<4x8xf32>
  %b = graph.add %a, %y {scope = #graph.scope<("blk", 0, "Block")>} : tensor<4x8xf32>
  %c = graph.tanh %b : tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}
"""


def body(module: ModuleOp) -> str:
    """The printed ops of the first function, one per line, stripped."""
    lines = str(module).splitlines()
    return "\n".join(line.strip() for line in lines[2:-2])


def names(module: ModuleOp) -> list[str]:
    return [op.name for op in ops_in_order(module)]


class AddToMul(Transformer):
    def add(self, op: Operation, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.emit(graph.MulOp(lhs, rhs))


def test_replace_add_with_mul_one_to_one() -> None:
    module = fxdsl.parse(TWO_ADDS)
    original = str(module)
    result = AddToMul().transform(module)
    assert str(module) == original, "the input module must be left untouched"
    scope = '{scope = #graph.scope<("blk", 0, "Block")>}'
    assert body(result).splitlines() == [
        "%a = graph.mul %x, %y : tensor<4x8xf32>",
        f"%b = graph.mul %a, %y {scope} : tensor<4x8xf32>",
        "%c = graph.tanh %b : tensor<4x8xf32>",
        "func.return %c : tensor<4x8xf32>",
    ]
    x, y = random_inputs(module)
    (out,) = run_reference(result, x, y)
    np.testing.assert_allclose(out, np.tanh(x * y * y), rtol=1e-5, atol=1e-6)


class ReluAfterAdd(Transformer):
    def add(self, op: Operation, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        (added,) = self.keep(op)
        return self.emit(graph.ReluOp(added))


def test_insert_relu_after_every_add() -> None:
    # Not meaning-preserving: check the exact IR (the scoped add's relu
    # inherits its scope).
    result = ReluAfterAdd().transform(fxdsl.parse(TWO_ADDS))
    t, scope = "tensor<4x8xf32>", '{scope = #graph.scope<("blk", 0, "Block")>}'
    assert body(result).splitlines() == [
        f"%a = graph.add %x, %y : {t}",
        f"%a_1 = graph.relu %a : {t}",
        f"%b = graph.add %a_1, %y {scope} : {t}",
        f"%b_1 = graph.relu %b {scope} : {t}",
        f"%c = graph.tanh %b_1 : {t}",
        f"func.return %c : {t}",
    ]


class AddAsSubOfNegation(Transformer):
    """a + b == a - (b * -1): one add becomes a full, a mul and a sub."""

    def add(self, op: Operation, lhs: SSAValue, rhs: SSAValue) -> object:
        a, b = self.tensor(lhs), self.tensor(rhs)
        return fxdsl.ops.sub(a, fxdsl.ops.mul(b, -1.0))


def test_add_to_mul_and_sub_one_to_many() -> None:
    module = fxdsl.parse(TWO_ADDS)
    result = AddAsSubOfNegation().transform(module)
    assert names(result).count("graph.add") == 0
    assert names(result).count("graph.mul") == 2
    assert names(result).count("graph.sub") == 2
    scoped = [op for op in ops_in_order(result) if "scope" in op.attributes]
    # mul, its scalar full and sub of the scoped add keep the provenance.
    assert sorted(op.name for op in scoped) == ["graph.full", "graph.mul", "graph.sub"]
    assert_same_numerics(module, result)


IDENTITIES = """
func.func @f(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %one = graph.full value 1.0 : tensor<f32>
  %a = graph.mul %x, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b = graph.reshape %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = graph.exp %b : tensor<4x8xf32>
  %d = graph.reshape %c : (tensor<4x8xf32>) -> tensor<32xf32>
  func.return %d : tensor<32xf32>
}
"""


def is_fill(value: SSAValue, fill: float) -> bool:
    owner = value.owner
    return isinstance(owner, graph.FullOp) and owner.value.value.data == fill


class DropIdentities(Transformer):
    """Remove `reshape` to the same type and `mul` by a full of 1."""

    def reshape(self, op: graph.ReshapeOp, x: SSAValue) -> SSAValue | None:
        return x if x.type == op.result.type else None

    def mul(self, op: graph.MulOp, lhs: SSAValue, rhs: SSAValue) -> SSAValue | None:
        return lhs if is_fill(rhs, 1.0) and lhs.type == op.result.type else None


def test_remove_identity_ops_one_to_none() -> None:
    module = fxdsl.parse(IDENTITIES)
    result = DropIdentities().transform(module)
    # The full is dead now but not the transformer's business (dce's).
    assert names(result) == ["graph.full", "graph.exp", "graph.reshape", "func.return"]
    assert_same_numerics(module, result)


SCALAR_OPERANDS = """
func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.full value 2.0 : tensor<f32>
  %a = graph.mul %x, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b = graph.sub %two, %a : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = graph.add %b, %y : tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}
"""


class ScalarToTensor(Transformer):
    """Rank-0 `full` operands of binary ops become fulls of the op's own
    result shape (op-local information), so no operand needs broadcasting."""

    def call_op(self, op: Operation, operands: list[SSAValue]) -> object:
        if not isinstance(op, graph.BinaryOp):
            return self.keep(op)
        shape = graph.shape_of(op.result)
        for index, operand in enumerate(operands):
            owner = operand.owner
            if isinstance(owner, graph.FullOp) and graph.shape_of(operand) != shape:
                fill = owner.value.value.data
                full = self.emit(graph.FullOp(shape, fill, graph.dtype_of(operand)))
                op.operands[index] = full
        return self.keep(op)


def test_scalar_to_tensor_operand_rewrite() -> None:
    module = fxdsl.parse(SCALAR_OPERANDS)
    result = ScalarToTensor().transform(module)
    binaries = [op for op in ops_in_order(result) if isinstance(op, graph.BinaryOp)]
    assert len(binaries) == 3
    for op in binaries:
        assert all(operand.type == op.result.type for operand in op.operands)
    assert names(result) == [
        "graph.full",
        "graph.full",
        "graph.mul",
        "graph.full",
        "graph.sub",
        "graph.add",
        "func.return",
    ]
    assert_same_numerics(module, result)


SPLIT = """
func.func @f(%x: tensor<6x4xf32>) -> (tensor<2x4xf32>, tensor<4x4xf32>) {
  %a, %b = graph.split %x dim 0 sizes [2, 4]
      : (tensor<6x4xf32>) -> (tensor<2x4xf32>, tensor<4x4xf32>)
  %c = graph.neg %b : tensor<4x4xf32>
  func.return %a, %c : tensor<2x4xf32>, tensor<4x4xf32>
}
"""


class SplitToSlices(Transformer):
    """A multi-result op returns a tuple: split becomes one slice per piece."""

    def split(self, op: graph.SplitOp, x: SSAValue) -> tuple[object, ...]:
        dim, start, pieces = op.dim.value.data, 0, []
        shape = list(graph.shape_of(x))
        for size in op.sizes.get_values():
            begin = [0] * len(shape)
            limit = list(shape)
            begin[dim], limit[dim] = start, start + size
            pieces.append(fxdsl.ops.slice(self.tensor(x), begin, limit))
            start += size
        return tuple(pieces)


def test_multi_result_op_returns_a_tuple() -> None:
    module = fxdsl.parse(SPLIT)
    result = SplitToSlices().transform(module)
    assert names(result) == ["graph.slice", "graph.slice", "graph.neg", "func.return"]
    assert_same_numerics(module, result)


class Recorder(Transformer):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def call_op(self, op: Operation, operands: list[SSAValue]) -> object:
        self.seen.append(op.name)
        return super().call_op(op, operands)


def test_generic_call_op_sees_every_op_in_order_and_keeps_them() -> None:
    module = fxdsl.parse(SCALAR_OPERANDS)
    recorder = Recorder()
    result = recorder.transform(module)
    assert recorder.seen == ["graph.full", "graph.mul", "graph.sub", "graph.add"]
    assert str(result) == str(module)


class WrongArity(Transformer):
    def split(self, op: Operation, x: SSAValue) -> SSAValue:
        return x


class InvalidOp(Transformer):
    def neg(self, op: Operation, x: SSAValue) -> SSAValue:
        wrong = TensorType(graph.f16, [4, 4])
        return self.emit(graph.NegOp.create(operands=[x], result_types=[wrong]))


class WrongType(Transformer):
    def neg(self, op: Operation, x: SSAValue) -> SSAValue:
        return self.emit(graph.SumOp(x, [0]))


@pytest.mark.parametrize(
    ("transformer", "message"),
    [
        (WrongArity(), "returned 1 value(s) for 2 result(s)"),
        (WrongType(), "a value of type tensor<4xf32> for a result of type"),
        (InvalidOp(), "InvalidOp: op emitted for graph.neg is invalid: graph.neg"),
    ],
)
def test_bad_rewrites_are_clear_errors(transformer: Transformer, message: str) -> None:
    module = fxdsl.parse(SPLIT)
    with pytest.raises(
        ValueError, match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        transformer.transform(module)
    assert str(module) == str(fxdsl.parse(SPLIT))


# --------------------------------------------------------------------------- #
# Random graphs (fxdsl.testing): identity and meaning-preserving rewrites
# --------------------------------------------------------------------------- #


@settings(max_examples=25, deadline=None)
@given(graphs(scoped=True))
def test_random_graphs_keep_everything_by_default(module: ModuleOp) -> None:
    assert str(Transformer().transform(module)) == str(module)


@settings(max_examples=25, deadline=None)
@given(graphs(scoped=True))
def test_random_graphs_one_to_many_preserves_numerics(module: ModuleOp) -> None:
    adds = [op for op in ops_in_order(module) if isinstance(op, graph.AddOp)]
    result = AddAsSubOfNegation().transform(module)
    assert "graph.add" not in names(result)
    assert names(result).count("graph.sub") == names(module).count("graph.sub") + len(
        adds
    )
    # Every op the rewrite emitted carries the scope of the add it replaced.
    scoped_before = sum("scope" in op.attributes for op in ops_in_order(module))
    scoped_after = sum("scope" in op.attributes for op in ops_in_order(result))
    scoped_adds = sum("scope" in op.attributes for op in adds)
    assert scoped_after == scoped_before + 2 * scoped_adds
    assert_same_numerics(module, result)
