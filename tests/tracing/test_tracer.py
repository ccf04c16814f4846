"""The Python tracer: every op and method builds the right IR."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

import fxdsl
from fxdsl import TensorSpec, ops, scope, trace
from fxdsl.ir.graph import PARAM, SCOPE, ScopeAttr
from fxdsl.tracing.tracer import Tensor

F23 = TensorSpec((2, 3))


def entry(module: ModuleOp) -> func.FuncOp:
    (fn,) = module.body.ops
    assert isinstance(fn, func.FuncOp)
    return fn


def body(module: ModuleOp) -> list[Operation]:
    """The traced ops, without the func.return."""
    return [op for op in entry(module).body.ops if not isinstance(op, func.ReturnOp)]


def names(module: ModuleOp) -> list[str]:
    return [op.name for op in body(module)]


def result_types(module: ModuleOp) -> list[str]:
    return [str(t) for t in entry(module).function_type.outputs.data]


def prop(op: Operation, name: str) -> Any:
    attr = op.properties[name]
    values = getattr(attr, "get_values", None)
    if values is not None:
        return list(values())
    value = getattr(attr, "value", attr)
    return getattr(value, "data", value)


# --------------------------------------------------------------------------- #
# Elementwise ops
# --------------------------------------------------------------------------- #

UNARY = [
    (ops.relu, "graph.relu"), (ops.gelu, "graph.gelu"), (ops.silu, "graph.silu"),
    (ops.sigmoid, "graph.sigmoid"), (ops.tanh, "graph.tanh"), (ops.exp, "graph.exp"),
    (ops.log, "graph.log"), (ops.sqrt, "graph.sqrt"), (ops.rsqrt, "graph.rsqrt"),
    (ops.erf, "graph.erf"), (ops.sin, "graph.sin"), (ops.cos, "graph.cos"),
    (ops.abs, "graph.abs"), (ops.neg, "graph.neg"),
    (ops.reciprocal, "graph.reciprocal"), (lambda x: -x, "graph.neg"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "op_name"), UNARY)
def test_unary_op(fn: Callable[[Tensor], Tensor], op_name: str) -> None:
    module = trace(fn, F23)
    assert names(module) == [op_name]
    assert result_types(module) == ["tensor<2x3xf32>"]


def test_gelu_tanh_and_cast() -> None:
    module = trace(lambda x: (ops.gelu(x, approximate="tanh"), ops.cast(x, "f16")), F23)
    gelu, cast = body(module)
    assert prop(gelu, "approximate") == "tanh"
    assert cast.name == "graph.cast"
    assert result_types(module) == ["tensor<2x3xf32>", "tensor<2x3xf16>"]


BINARY = [
    (ops.add, "graph.add", "f32"), (ops.sub, "graph.sub", "f32"),
    (ops.mul, "graph.mul", "f32"), (ops.div, "graph.div", "f32"),
    (ops.pow, "graph.pow", "f32"), (ops.maximum, "graph.maximum", "f32"),
    (ops.minimum, "graph.minimum", "f32"),
    (ops.eq, "graph.eq", "i1"), (ops.ne, "graph.ne", "i1"), (ops.lt, "graph.lt", "i1"),
    (ops.le, "graph.le", "i1"), (ops.gt, "graph.gt", "i1"), (ops.ge, "graph.ge", "i1"),
    (lambda a, b: a + b, "graph.add", "f32"), (lambda a, b: a - b, "graph.sub", "f32"),
    (lambda a, b: a * b, "graph.mul", "f32"), (lambda a, b: a / b, "graph.div", "f32"),
    (lambda a, b: a**b, "graph.pow", "f32"),
    (lambda a, b: a < b, "graph.lt", "i1"), (lambda a, b: a <= b, "graph.le", "i1"),
    (lambda a, b: a > b, "graph.gt", "i1"), (lambda a, b: a >= b, "graph.ge", "i1"),
    (lambda a, b: a == b, "graph.eq", "i1"), (lambda a, b: a != b, "graph.ne", "i1"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "op_name", "dtype"), BINARY)
def test_binary_op_broadcasts(
    fn: Callable[..., Tensor], op_name: str, dtype: str
) -> None:
    module = trace(fn, TensorSpec((4, 1)), TensorSpec((3,)))
    (op,) = body(module)
    assert op.name == op_name
    assert [str(o.type) for o in op.operands] == ["tensor<4x1xf32>", "tensor<3xf32>"]
    assert result_types(module) == [f"tensor<4x3x{dtype}>"]


def test_python_scalar_becomes_rank0_full_of_tensor_dtype() -> None:
    module = trace(lambda x: (x * 2, 1 - x, x**0.5), F23)
    full_a, mul, full_b, sub, full_c, pow_ = body(module)
    assert [op.name for op in (full_a, full_b, full_c)] == ["graph.full"] * 3
    assert str(full_a.results[0].type) == "tensor<f32>"
    assert (prop(full_a, "value"), prop(full_b, "value"), prop(full_c, "value")) == (
        2.0, 1.0, 0.5,
    )  # fmt: skip
    assert mul.operands[1] is full_a.results[0]
    # A reflected operator keeps the operand order: `1 - x` is sub(full, x).
    assert sub.operands[0] is full_b.results[0]
    assert pow_.name == "graph.pow"


def test_integer_tensor_scalars() -> None:
    module = trace(lambda i: i + 3, TensorSpec((4,), "i64"))
    full, add = body(module)
    assert str(full.results[0].type) == "tensor<i64>"
    assert str(add.results[0].type) == "tensor<4xi64>"
    with pytest.raises(TypeError, match="graph.add: float scalar 1.5 with a i64"):
        trace(lambda i: i + 1.5, TensorSpec((4,), "i64"))
    with pytest.raises(TypeError, match="graph.mul"):
        trace(lambda x: x * "2", F23)


def test_numpy_operand_becomes_constant() -> None:
    module = trace(lambda x: np.ones(3) + x, F23)
    const, add = body(module)
    assert const.name == "graph.constant"
    assert str(const.results[0].type) == "tensor<3xf32>"
    assert add.operands[0] is const.results[0]
    # Arrays follow the scalar rule: no silent float -> int truncation.
    with pytest.raises(TypeError, match=r"graph.add: float array \[1.5 2. \] with"):
        trace(lambda i: i + np.array([1.5, 2.0]), TensorSpec((2,), "i64"))


def test_where_and_select_with_scalar_branch() -> None:
    def fn(x: Tensor) -> tuple[Tensor, Tensor]:
        return ops.where(x > 0, x, -1e9), ops.select(x > 0, 0.0, x)

    module = trace(fn, F23)
    assert names(module) == [
        "graph.full", "graph.gt", "graph.full", "graph.select",
        "graph.full", "graph.gt", "graph.full", "graph.select",
    ]  # fmt: skip
    assert result_types(module) == ["tensor<2x3xf32>"] * 2


def test_where_with_two_scalar_branches_takes_torchs_dtype() -> None:
    def fn(x: Tensor) -> tuple[Tensor, ...]:
        c = x > 0
        return (
            ops.where(c, 1.0, 2),
            ops.where(c, 1, 0),
            ops.where(c, True, False),
            ops.where(c, 1, 2, dtype="i32"),
        )

    module = trace(fn, F23)
    types = ["f32", "i64", "i1", "i32"]
    assert result_types(module) == [f"tensor<2x3x{t}>" for t in types]
    x = np.array([[1, -1, 2], [-2, 0, 3]], np.float32)
    out = fxdsl.run(module, x)
    np.testing.assert_array_equal(out[0], np.where(x > 0, 1.0, 2.0), strict=False)
    np.testing.assert_array_equal(out[1], np.where(x > 0, 1, 0), strict=True)
    np.testing.assert_array_equal(out[2], x > 0, strict=True)
    with pytest.raises(TypeError, match="graph.select: float scalar 0.5 as i64"):
        trace(lambda x: ops.where(x > 0, 0.5, 2, dtype="i64"), F23)


# --------------------------------------------------------------------------- #
# Reductions, normalisations, contractions
# --------------------------------------------------------------------------- #

REDUCTIONS = [
    (lambda x: x.sum(), "graph.sum", [], "tensor<f32>"),
    (lambda x: x.sum(-1), "graph.sum", [2], "tensor<2x3xf32>"),
    (lambda x: x.mean((0, -1), keepdim=True), "graph.mean", [0, 2], "tensor<1x3x1xf32>"),
    (lambda x: x.max(dims=1), "graph.max", [1], "tensor<2x4xf32>"),
    (lambda x: x.min(dims=[-3]), "graph.min", [0], "tensor<3x4xf32>"),
    (lambda x: x.var(-2), "graph.var", [1], "tensor<2x4xf32>"),
    (lambda x: ops.sum(x, 0, keepdim=True), "graph.sum", [0], "tensor<1x3x4xf32>"),
    (lambda x: ops.var(x, None, correction=0), "graph.var", [], "tensor<f32>"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "op_name", "dims", "typ"), REDUCTIONS)
def test_reductions_normalise_dims(
    fn: Callable[[Tensor], Tensor], op_name: str, dims: list[int], typ: str
) -> None:
    module = trace(fn, TensorSpec((2, 3, 4)))
    (op,) = body(module)
    assert (op.name, prop(op, "dims"), result_types(module)) == (op_name, dims, [typ])


def test_var_correction_property() -> None:
    (op,) = body(trace(lambda x: ops.var(x, 1, correction=0), F23))
    assert prop(op, "correction") == 0


def test_reduction_dim_out_of_range_names_op() -> None:
    with pytest.raises(ValueError, match="graph.sum: dim 2 out of range for rank 2"):
        trace(lambda x: x.sum(2), F23)


def test_softmax_layer_norm_matmul_linear() -> None:
    specs = (
        TensorSpec((2, 4, 8)), TensorSpec((8,)), TensorSpec((8,)),
        TensorSpec((8, 5)), TensorSpec((3, 8)), TensorSpec((3,)),
    )  # fmt: skip

    def fn(x: Tensor, g: Tensor, b: Tensor, m: Tensor, w: Tensor, c: Tensor):
        return (
            ops.softmax(x, -1), ops.log_softmax(x, dim=0),
            ops.layer_norm(x, g, b, eps=1e-6), x @ m, ops.matmul(x, m),
            ops.linear(x, w), ops.linear(x, w, c),
        )  # fmt: skip

    module = trace(fn, *specs)
    ops_ = body(module)
    assert [op.name for op in ops_] == [
        "graph.softmax", "graph.log_softmax", "graph.layer_norm", "graph.matmul",
        "graph.matmul", "graph.linear", "graph.linear",
    ]  # fmt: skip
    assert prop(ops_[0], "dim") == 2
    assert prop(ops_[1], "dim") == 0
    assert prop(ops_[2], "eps") == 1e-6
    assert [len(ops_[5].operands), len(ops_[6].operands)] == [2, 3]
    assert result_types(module) == [
        "tensor<2x4x8xf32>", "tensor<2x4x8xf32>", "tensor<2x4x8xf32>",
        "tensor<2x4x5xf32>", "tensor<2x4x5xf32>", "tensor<2x4x3xf32>",
        "tensor<2x4x3xf32>",
    ]  # fmt: skip


# --------------------------------------------------------------------------- #
# Data movement
# --------------------------------------------------------------------------- #

MOVES = [
    (lambda x: x.reshape(4, -1), ["graph.reshape"], "tensor<4x6xf32>"),
    (lambda x: x.reshape((24,)), ["graph.reshape"], "tensor<24xf32>"),
    (lambda x: ops.reshape(x, [-1, 2, 3]), ["graph.reshape"], "tensor<4x2x3xf32>"),
    (lambda x: x.T, ["graph.transpose"], "tensor<4x3x2xf32>"),
    (lambda x: x.transpose(), ["graph.transpose"], "tensor<4x3x2xf32>"),
    (lambda x: x.transpose(-2, -1), ["graph.transpose"], "tensor<2x4x3xf32>"),
    (lambda x: x.transpose(1, 2, 0), ["graph.transpose"], "tensor<3x4x2xf32>"),
    (lambda x: x.permute(2, 0, 1), ["graph.transpose"], "tensor<4x2x3xf32>"),
    (lambda x: ops.permute(x, (-1, 0, 1)), ["graph.transpose"], "tensor<4x2x3xf32>"),
    (lambda x: ops.broadcast_to(x, (5, 2, 3, 4)), ["graph.broadcast_to"],
     "tensor<5x2x3x4xf32>"),
    (lambda x: ops.slice(x, [0, -2, 0], [2, 3, 4], [1, 1, 3]), ["graph.slice"],
     "tensor<2x2x2xf32>"),
    (lambda x: ops.concat([x, x], dim=-1), ["graph.concat"], "tensor<2x3x8xf32>"),
    (lambda x: ops.split(x, [1, 2], dim=1)[1], ["graph.split"], "tensor<2x2x4xf32>"),
    (lambda x: ops.split(x, 3, dim=-1)[1], ["graph.split"], "tensor<2x3x1xf32>"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "op_names", "typ"), MOVES)
def test_data_movement(
    fn: Callable[[Tensor], Tensor], op_names: list[str], typ: str
) -> None:
    module = trace(fn, TensorSpec((2, 3, 4)))
    assert names(module) == op_names
    assert result_types(module) == [typ]


def test_transpose_and_slice_properties() -> None:
    module = trace(
        lambda x: (x.transpose(-2, -1), ops.slice(x, [0, -2, 0], [2, 3, 4], [1, 1, 3])),
        TensorSpec((2, 3, 4)),
    )
    transpose, slice_ = body(module)
    assert prop(transpose, "perm") == [0, 2, 1]
    assert (prop(slice_, "start"), prop(slice_, "limit"), prop(slice_, "step")) == (
        [0, 1, 0], [2, 3, 4], [1, 1, 3],
    )  # fmt: skip


def test_two_dim_transpose_swaps_like_torch() -> None:
    (op,) = body(trace(lambda x: x.transpose(0, 1), F23))
    assert prop(op, "perm") == [1, 0]


def test_split_sizes_and_tuple_result() -> None:
    module = trace(lambda x: ops.split(x, 2, dim=1), TensorSpec((2, 5)))
    (op,) = body(module)
    assert prop(op, "sizes") == [2, 2, 1]
    assert prop(op, "dim") == 1
    assert result_types(module) == [
        "tensor<2x2xf32>",
        "tensor<2x2xf32>",
        "tensor<2x1xf32>",
    ]


def test_gather_and_embedding() -> None:
    module = trace(
        lambda x, i, w: (ops.gather(x, -1, i), ops.embedding(i, w)),
        TensorSpec((4, 8)), TensorSpec((4, 2), "i64"), TensorSpec((10, 16)),
    )  # fmt: skip
    gather, embedding = body(module)
    assert (gather.name, prop(gather, "dim")) == ("graph.gather", 1)
    assert embedding.name == "graph.embedding"
    assert result_types(module) == ["tensor<4x2xf32>", "tensor<4x2x16xf32>"]


def test_constants_and_full() -> None:
    def fn(x: Tensor) -> tuple[Tensor, ...]:
        return (
            ops.constant(np.arange(3.0)), ops.constant(np.array([True, False])),
            ops.constant(np.arange(4, dtype=np.int32).reshape(2, 2)),
            ops.constant([1.0, 2.0], dtype="bf16"), ops.full((2, 2), 7, dtype="i64"),
        )  # fmt: skip

    module = trace(fn, F23)
    assert names(module) == ["graph.constant"] * 4 + ["graph.full"]
    assert result_types(module) == [
        "tensor<3xf32>", "tensor<2xi1>", "tensor<2x2xi32>", "tensor<2xbf16>",
        "tensor<2x2xi64>",
    ]  # fmt: skip


# --------------------------------------------------------------------------- #
# Indexing
# --------------------------------------------------------------------------- #

INDEXING = [
    (lambda x: x[1:3, :, ::2], ["graph.slice"], "tensor<2x3x3xf32>"),
    (lambda x: x[0], ["graph.slice", "graph.reshape"], "tensor<3x6xf32>"),
    (lambda x: x[:, -1], ["graph.slice", "graph.reshape"], "tensor<4x6xf32>"),
    (lambda x: x[..., 1:], ["graph.slice"], "tensor<4x3x5xf32>"),
    (lambda x: x[None, 2:, ..., 0], ["graph.slice", "graph.reshape"], "tensor<1x2x3xf32>"),
    (lambda x: x[:], [], "tensor<4x3x6xf32>"),
    (lambda x: x[...], [], "tensor<4x3x6xf32>"),
    (lambda x: x[:, None], ["graph.reshape"], "tensor<4x1x3x6xf32>"),
    (lambda x: x[3:1], ["graph.slice"], "tensor<0x3x6xf32>"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "op_names", "typ"), INDEXING)
def test_indexing(
    fn: Callable[[Tensor], Tensor], op_names: list[str], typ: str
) -> None:
    module = trace(fn, TensorSpec((4, 3, 6)))
    assert names(module) == op_names
    assert result_types(module) == [typ]


@pytest.mark.parametrize(
    ("key", "error"),
    [(5, IndexError), ((0, 0, 0, 0), IndexError), (slice(None, None, -1), IndexError),
     ((..., ...), IndexError), ("a", TypeError), (1.5, TypeError)],
)  # fmt: skip
def test_bad_indices(key: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        trace(lambda x: x[key], TensorSpec((4, 3, 6)))


def test_indexing_and_transposes_match_numpy() -> None:
    from fxdsl.interpreters.run import run_reference

    def fn(x: Tensor) -> tuple[Tensor, ...]:
        return x[1:3, :, ::2], x[-1, ..., 1], x.transpose(-2, -1), x.T, x[:, None, 1:]

    array = np.arange(72, dtype=np.float32).reshape(4, 3, 6)
    got = run_reference(trace(fn, array), array)
    want = (
        array[1:3, :, ::2], array[-1, ..., 1], array.swapaxes(-2, -1), array.T,
        array[:, None, 1:],
    )  # fmt: skip
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_operators_with_scalars_match_numpy() -> None:
    from fxdsl.interpreters.run import run_reference

    def fn(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
        return (
            1 - x, 2 / y, 2**x, x**2, -x + y * 3, x @ y.T, (x < 0.5) == (y >= 0.25),
            ops.where(x > y, x, 0.0), x.var(-1, keepdim=True), x.max(0),
        )  # fmt: skip

    rng = np.random.default_rng(0)
    x, y = rng.random((3, 4), np.float32), rng.random((3, 4), np.float32) + 0.5
    got = run_reference(trace(fn, x, y), x, y)
    want = (
        1 - x, 2 / y, 2**x, x**2, -x + y * 3, x @ y.T, (x < 0.5) == (y >= 0.25),
        np.where(x > y, x, 0.0), x.var(-1, keepdims=True, ddof=1), x.max(0),
    )  # fmt: skip
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


# --------------------------------------------------------------------------- #
# Scopes
# --------------------------------------------------------------------------- #


def scope_of(op: Operation) -> tuple[tuple[str, int, str], ...] | None:
    attr = op.attributes.get(SCOPE)
    assert attr is None or isinstance(attr, ScopeAttr)
    return None if attr is None else attr.data


def test_scopes_nest_and_count_calls() -> None:
    def fn(x: Tensor) -> Tensor:
        x = ops.relu(x)
        with scope("model", "Model"):
            for _ in range(2):
                with scope("model.layer", "Layer"):
                    x = ops.exp(x)
                    with scope("model.layer.act", "Act"):
                        x = ops.tanh(x)
            x = ops.neg(x)
        return ops.abs(x)

    frames = [scope_of(op) for op in body(trace(fn, F23))]
    model = ("model", 0, "Model")
    assert frames == [
        None,
        (model, ("model.layer", 0, "Layer")),
        (model, ("model.layer", 0, "Layer"), ("model.layer.act", 0, "Act")),
        (model, ("model.layer", 1, "Layer")),
        (model, ("model.layer", 1, "Layer"), ("model.layer.act", 1, "Act")),
        (model,),
        None,
    ]


def test_scope_object_reentered_and_recursive() -> None:
    block = scope("block", "Block")

    def fn(x: Tensor) -> Tensor:
        with block:
            x = ops.exp(x)
            with block:
                x = ops.tanh(x)
        with block:
            x = ops.neg(x)
        return x

    frames = [scope_of(op) for op in body(trace(fn, F23))]
    assert frames == [
        (("block", 0, "Block"),),
        (("block", 0, "Block"), ("block", 1, "Block")),
        (("block", 2, "Block"),),
    ]


def test_call_indices_restart_per_trace_and_scalars_carry_scope() -> None:
    def fn(x: Tensor) -> Tensor:
        with scope("m", "M"):
            return x * 2

    for _ in range(2):
        full, mul = body(trace(fn, F23))
        assert scope_of(full) == scope_of(mul) == (("m", 0, "M"),)


def test_scope_is_popped_on_error_and_needs_a_trace() -> None:
    def fn(x: Tensor) -> Tensor:
        try:
            with scope("bad", "Bad"):
                raise KeyError("boom")
        except KeyError:
            pass
        return ops.exp(x)

    assert scope_of(body(trace(fn, F23))[0]) is None
    with (
        pytest.raises(RuntimeError, match="fxdsl.scope: only valid inside"),
        scope("x", "X"),
    ):
        pass


def test_scope_attribute_round_trips_through_text() -> None:
    def fn(x: Tensor) -> Tensor:
        with scope("a", "A"), scope("a.b", "B"):
            return ops.exp(x)

    module = trace(fn, F23)
    assert str(fxdsl.parse(str(module))) == str(module)


# --------------------------------------------------------------------------- #
# Arguments, results, errors, determinism
# --------------------------------------------------------------------------- #


def test_param_arg_attributes_and_names() -> None:
    module = trace(
        lambda x, w: ops.linear(x, w),
        TensorSpec((2, 3), name="x"),
        TensorSpec((4, 3), param="fc.weight", name="weight"),
        name="layer",
    )
    fn = entry(module)
    assert fn.sym_name.data == "layer"
    assert fn.arg_attrs is not None
    attrs = [d.data for d in fn.arg_attrs.data]
    assert attrs == [{}, {PARAM: StringAttr("fc.weight")}]
    assert [a.name_hint for a in fn.args] == ["x", "weight"]
    assert entry(trace(lambda x: x, F23)).arg_attrs is None


def test_numpy_specs_inputs_returned_and_lambda_name() -> None:
    module = trace(
        lambda a, b, c: (c, a),
        np.zeros((2, 2)),
        np.zeros(3, np.int32),
        np.ones(1, bool),
    )
    fn = entry(module)
    assert fn.sym_name.data == "main"
    assert [str(t) for t in fn.function_type.inputs.data] == [
        "tensor<2x2xf32>", "tensor<3xi32>", "tensor<1xi1>",
    ]  # fmt: skip
    assert result_types(module) == ["tensor<1xi1>", "tensor<2x2xf32>"]
    assert body(module) == []


def test_tensor_metadata_and_python_protocols() -> None:
    seen: dict[str, Any] = {}

    def fn(x: Tensor) -> Tensor:
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, length=len(x))
        seen["hashable"] = {x: 1}[x]
        seen["eq_is_tensor"] = isinstance(x == x, Tensor)
        with pytest.raises(TypeError, match="no truth value"):
            bool(x)
        return x

    trace(fn, TensorSpec((2, 3), "bf16"))
    assert seen == {
        "shape": (2, 3), "dtype": "bf16", "ndim": 2, "length": 2, "hashable": 1,
        "eq_is_tensor": True,
    }  # fmt: skip


ERRORS = [
    (lambda x: x + ops.full((4,), 1.0), ValueError, "graph.add: .*do not broadcast"),
    (lambda x: x @ x, ValueError, "graph.matmul: contracting dims differ"),
    (lambda x: x.reshape(5, -1), ValueError, "graph.reshape: cannot reshape"),
    (lambda x: x.reshape(7), ValueError, "graph.reshape: element count differs"),
    (lambda x: x.permute(0, 0), ValueError, "graph.transpose: perm"),
    (lambda x: ops.linear(x, x.T), ValueError, "graph.linear: input features"),
    (lambda x: ops.layer_norm(x, x, x[0]), ValueError, "graph.layer_norm"),
    (lambda x: ops.softmax(x, 2), ValueError, "graph.softmax: dim 2 out of range"),
    (lambda x: ops.exp(ops.cast(x, "i64")), ValueError, "graph.exp: expects a float"),
    (lambda x: x + ops.cast(x, "f16"), ValueError, "graph.add: element types differ"),
    (lambda x: ops.concat([x, x.T]), ValueError, "graph.concat"),
    (lambda x: ops.split(x, [1, 1], dim=1), ValueError, "graph.split: sizes"),
    (lambda x: ops.gelu(x, "fast"), ValueError, "graph.gelu: approximate"),
    (lambda x: ops.cast(x, "ui16"), TypeError, "unknown dtype 'ui16'"),
    (lambda x: ops.relu([1.0]), TypeError, "graph.relu: expected a Tensor or a"),
    (lambda x: 3, TypeError, "must return tensors"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "error", "message"), ERRORS)
def test_errors_name_the_op(
    fn: Callable[[Tensor], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        trace(fn, F23)


def test_failed_op_leaves_valid_ir_and_no_dangling_uses() -> None:
    def fn(x: Tensor) -> Tensor:
        y = ops.exp(x)
        with pytest.raises(ValueError, match="graph.add"):
            ops.add(y, ops.full((7,), 0.0))
        return y

    module = trace(fn, F23)
    module.verify()
    exp = body(module)[0]
    # Only func.return uses exp's result: the rejected add left no use behind.
    assert [use.operation.name for use in exp.results[0].uses] == ["func.return"]


def test_mixing_traces_is_an_error() -> None:
    leaked: list[Tensor] = []
    trace(lambda x: leaked.append(x) or x, F23)
    with pytest.raises(ValueError, match="graph.add: operand .* different trace"):
        trace(lambda y: y + leaked[0], F23)
    with pytest.raises(
        ValueError, match="returned tensor belongs to a different trace"
    ):
        trace(lambda y: leaked[0], F23)
    with pytest.raises(RuntimeError, match="only valid inside"):
        ops.exp(leaked[0])

    def outer(x: Tensor) -> Tensor:
        with pytest.raises(ValueError, match="different trace"):
            trace(lambda y: y * x, F23)
        return x

    trace(outer, F23)


def test_tracing_is_deterministic_and_reparses() -> None:
    def fn(x: Tensor, w: Tensor) -> tuple[Tensor, Tensor]:
        with scope("m", "M"):
            h = ops.softmax(ops.linear(x, w) * 0.5, -1)
        return h.sum(-1), h[0, 1:]

    specs = (TensorSpec((2, 3)), TensorSpec((4, 3), param="m.w"))
    first, second = str(trace(fn, *specs)), str(trace(fn, *specs))
    assert first == second
    assert str(fxdsl.parse(first)) == first


def test_numpy_arrays_are_constants_where_tensors_are_expected() -> None:
    # the README's first example: layer_norm's weight and bias as numpy arrays
    weight = np.linspace(0.5, 1.5, 3).astype(np.float32)

    def fn(x: Tensor) -> Tensor:
        return ops.layer_norm(x, weight, np.zeros(3))  # float64 becomes f32

    module = trace(fn, F23)
    constants = [op for op in body(module) if op.name == "graph.constant"]
    assert len(constants) == 2
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = fxdsl.run(module, x)
    centered = x - x.mean(1, keepdims=True)
    want = centered / np.sqrt((centered**2).mean(1, keepdims=True) + 1e-5) * weight
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
