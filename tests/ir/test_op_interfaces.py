"""The op interfaces of the graph dialect: the facts passes ask the ops
(`ReductionLike`, `ConstantLike`) instead of keeping tuples of op classes."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import f32, i1
from xdsl.ir import Operation
from xdsl.traits import ConstantLike
from xdsl.utils.test_value import create_ssa_value

from fxdsl.ir import graph
from fxdsl.lowering.value_rules import VALUE_RULES
from fxdsl.transforms.fusibility import FUSIBILITY, Fusibility

REDUCTIONS = [op for op in graph.GRAPH_OPS if issubclass(op, graph.ReductionLike)]


def _reduction(cls: type[Operation], keepdim: bool) -> graph.ReductionLike:
    """`cls` over a (2, 3, 4) input, reducing dim 2 (and 0 for reductions
    with a `dims` list); layer_norm normalises the trailing dim."""
    dtype = i1 if issubclass(cls, graph.BoolOperands) else f32
    x = create_ssa_value(graph.tensor((2, 3, 4), dtype))
    if issubclass(cls, graph.ReductionOp):
        return cls(x, [2, 0], keepdim)
    if issubclass(cls, graph.SoftmaxLikeOp):
        return cls(x, 2)
    assert cls is graph.LayerNormOp
    w = create_ssa_value(graph.tensor((4,), f32))
    return graph.LayerNormOp(x, w, w)


def test_the_reductions_are_the_ones_fusion_and_lowering_know() -> None:
    names = {op.name for op in REDUCTIONS}
    assert names == {
        "graph.sum", "graph.mean", "graph.max", "graph.min", "graph.any",
        "graph.all", "graph.var", "graph.softmax", "graph.log_softmax",
        "graph.layer_norm",
    }  # fmt: skip
    # any/all have no kernel: graph-decompose makes them max/min first
    fused = {op for op, kind in FUSIBILITY.items() if kind is Fusibility.REDUCTION}
    assert {op.name for op in fused} == names - {"graph.any", "graph.all"}


@pytest.mark.parametrize("cls", REDUCTIONS, ids=lambda op: op.name)
@pytest.mark.parametrize("keepdim", [False, True])
def test_every_reduction_answers_its_dims(cls: type[Operation], keepdim: bool) -> None:
    op = _reduction(cls, keepdim)
    if isinstance(op, graph.ReductionOp):
        assert op.reduced_dims() == (0, 2)
        assert op.keeps_reduced_dims() is keepdim
    else:
        assert op.reduced_dims() == (2,)
        assert op.keeps_reduced_dims()


def test_empty_dims_reduce_every_dim() -> None:
    x = create_ssa_value(graph.tensor((2, 3), f32))
    assert graph.SumOp(x, []).reduced_dims() == (0, 1)


def test_every_constant_carries_the_trait() -> None:
    """The ops that fusion, constant folding and kernel wrapping treat as
    constants are exactly the graph ops with `ConstantLike`."""
    constants = {op for op in graph.GRAPH_OPS if op.has_trait(ConstantLike)}
    assert constants == {graph.ConstantOp, graph.FullOp}
    fused = {op for op, kind in FUSIBILITY.items() if kind is Fusibility.CONSTANT}
    assert fused == constants
    # a kernel computes each of them in place
    assert constants <= set(VALUE_RULES)
    x = create_ssa_value(graph.tensor((2,), f32))
    assert graph.is_graph_constant(graph.FullOp((2,), 1.0))
    assert not graph.is_graph_constant(graph.ExpOp(x))


def _names(ops: tuple[type[Operation], ...]) -> set[str]:
    return {op.name for op in ops}


def test_every_kind_of_view_is_asked_of_the_trait() -> None:
    """Each pass's kind of view is the `ViewLike` ops with one flag: the sets
    the passes kept by hand before."""
    from fxdsl.interpreters.run import _INDEX_PRESERVING  # pyright: ignore
    from fxdsl.ir.layout import HOST_VIEW_OPS
    from fxdsl.lowering.graph_bufferize import COPY_VIEWS
    from fxdsl.transforms import attention_bias, op_cost

    strided = {"graph.reshape", "graph.transpose", "graph.slice", "graph.split"}
    assert _names(graph.view_ops()) == strided | {"graph.broadcast_to", "graph.concat"}
    assert _names(HOST_VIEW_OPS) == strided | {"graph.broadcast_to"}
    assert _names(attention_bias.VIEWS) == strided
    assert _names(COPY_VIEWS) == {"graph.reshape", "graph.transpose"}
    assert _names(op_cost.VIEWS) == {"graph.reshape"}
    fused = {op for op, kind in FUSIBILITY.items() if kind is Fusibility.VIEW}
    # a draw fuses as a view too: each reader computes its element's Philox
    views = _names(graph.view_ops()) - {"graph.split"}
    assert _names(tuple(fused)) == views | {"graph.random"}
    assert set(_INDEX_PRESERVING) == {*graph.view_ops(), graph.CastOp}


def test_a_fold_names_its_combiner_and_starts_from_its_identity() -> None:
    """sum/max/min/any/all are one fold each (the lowering emits the
    combiner from its identity, asked of the op); the others are made of
    several folds, and the lowering has a rule for each of those."""
    from fxdsl.lowering.reductions import RULES

    folds = {op.name: op.COMBINER for op in REDUCTIONS if op.COMBINER is not None}
    assert folds == {
        "graph.sum": "add", "graph.max": "max", "graph.min": "min",
        "graph.any": "max", "graph.all": "min",
    }  # fmt: skip
    assert set(RULES) == {op for op in REDUCTIONS if op.COMBINER is None}
    for cls in REDUCTIONS:
        op = _reduction(cls, False)
        if cls.COMBINER is None:
            with pytest.raises(ValueError, match="not one fold"):
                op.identity()
            continue
        start = op.identity()
        assert start == cls.COMBINER.identity(graph.dtype_of(op.operands[0]))
    assert _reduction(graph.AnyOp, False).identity() is False
    assert _reduction(graph.AllOp, False).identity() is True
    assert _reduction(graph.MaxOp, False).identity() == float("-inf")


@pytest.mark.parametrize("dtype", [f32, graph.bf16, graph.i32, graph.i64, i1])
@pytest.mark.parametrize("combiner", list(graph.Combiner))
def test_combiner_identities_leave_every_value_alone(
    combiner: graph.Combiner, dtype: object
) -> None:
    """identity combined with x is x, for extreme values of each type."""
    combine = {"add": lambda a, b: a + b, "max": max, "min": min}[combiner]
    if dtype == i1:
        if combiner is graph.Combiner.ADD:
            with pytest.raises(ValueError, match="no sum over i1"):
                combiner.identity(dtype)
            return
        values: list[object] = [False, True]
    elif dtype in (graph.i32, graph.i64):
        width = dtype.width.data  # type: ignore[attr-defined]
        values = [-(2 ** (width - 1)), -1, 0, 2 ** (width - 1) - 1]
    else:
        values = [float("-inf"), -3.5, 0.0, 7.0, float("inf")]
    start = combiner.identity(dtype)  # type: ignore[arg-type]
    for x in values:
        assert combine(start, x) == x, (combiner, dtype, x)


def test_any_and_all_become_the_plain_fold_of_their_combiner() -> None:
    from fxdsl.transforms.graph_decompose import BOOLEAN_REDUCTIONS

    assert {graph.AnyOp: graph.MaxOp, graph.AllOp: graph.MinOp} == BOOLEAN_REDUCTIONS
    assert [graph.fold_op(c) for c in graph.Combiner] == [
        graph.SumOp, graph.MaxOp, graph.MinOp
    ]  # fmt: skip
