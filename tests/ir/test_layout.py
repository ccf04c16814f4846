"""Strided layouts of views, checked against numpy's own strides."""

from __future__ import annotations

import numpy as np
import pytest

from fxdsl.api import parse
from fxdsl.ir.layout import Layout, collapse, matmul_operand, view_layouts


def numpy_layout(array: np.ndarray, base: np.ndarray) -> Layout:
    """The Layout (in elements) of a numpy view of `base`."""
    item = array.itemsize
    offset = (
        array.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    ) // item
    return Layout(array.shape, tuple(s // item for s in array.strides), offset)


def first_op(text: str):
    module = parse(text)
    return next(op for op in module.walk() if op.name.startswith("graph."))


def same(a: Layout, b: Layout) -> bool:
    """Equal up to the strides of size-1 dims (which never move)."""
    keep = [n != 1 for n in a.shape]
    pick = lambda l: tuple(s for s, k in zip(l.strides, keep) if k)
    return a.shape == b.shape and a.offset == b.offset and pick(a) == pick(b)


@pytest.mark.parametrize(
    ("op_text", "make"),
    [
        ("graph.reshape %x : (tensor<2x3x8xf32>) -> tensor<6x8xf32>", lambda a: a.reshape(6, 8)),
        ("graph.reshape %x : (tensor<2x3x8xf32>) -> tensor<2x3x2x4xf32>", lambda a: a.reshape(2, 3, 2, 4)),
        ("graph.transpose %x perm [2, 0, 1] : (tensor<2x3x8xf32>) -> tensor<8x2x3xf32>", lambda a: a.transpose(2, 0, 1)),
        ("graph.slice %x start [1, 0, 2] limit [2, 3, 8] step [1, 2, 3] : (tensor<2x3x8xf32>) -> tensor<1x2x2xf32>", lambda a: a[1:2, 0:3:2, 2:8:3]),
        ("graph.broadcast_to %x : (tensor<2x3x8xf32>) -> tensor<4x2x3x8xf32>", lambda a: np.broadcast_to(a, (4, 2, 3, 8))),
    ],
)  # fmt: skip
def test_view_layout_matches_numpy(op_text: str, make) -> None:
    op = first_op(
        f"func.func @f(%x: tensor<2x3x8xf32>) {{\n %y = {op_text}\n func.return\n}}"
    )
    base = np.arange(48, dtype=np.float32).reshape(2, 3, 8)
    (layout,) = view_layouts(op, Layout.dense((2, 3, 8)))  # type: ignore[misc]
    assert same(layout, numpy_layout(make(base), base))


def test_split_offsets() -> None:
    op = first_op(
        "func.func @f(%x: tensor<4x6xf32>) {\n %a, %b = graph.split %x dim 1 sizes [2, 4]"
        " : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x4xf32>)\n func.return\n}"
    )
    first, second = view_layouts(op, Layout.dense((4, 6)))  # type: ignore[misc]
    assert (first.offset, second.offset) == (0, 2)
    assert first.strides == second.strides == (6, 1)


def test_reshape_of_transposed_buffer_needs_a_copy() -> None:
    op = first_op(
        "func.func @f(%x: tensor<8x4xf32>) {\n %y = graph.reshape %x"
        " : (tensor<8x4xf32>) -> tensor<32xf32>\n func.return\n}"
    )
    transposed = Layout((8, 4), (1, 8))
    assert view_layouts(op, transposed) is None
    # ...but splitting a dim of the same buffer is still a view
    split = first_op(
        "func.func @f(%x: tensor<8x4xf32>) {\n %y = graph.reshape %x"
        " : (tensor<8x4xf32>) -> tensor<2x4x4xf32>\n func.return\n}"
    )
    assert view_layouts(split, transposed) == [Layout((2, 4, 4), (4, 1, 8))]


def test_collapse_and_matmul_operands() -> None:
    assert collapse(Layout((2, 3, 4), (12, 4, 1)), 0, 2) == Layout((6, 4), (4, 1))
    assert collapse(Layout((2, 3, 4), (4, 8, 1)), 0, 2) is None
    # a transposed 2-D weight broadcast over a batch of 5: batch stride 0
    weight_t = Layout((8, 3), (1, 8))
    assert matmul_operand(weight_t, (5,), lhs=False) == Layout((5, 8, 3), (0, 1, 8))
    # 1-D lhs is a row vector
    assert matmul_operand(Layout.dense((8,)), (), lhs=True) == Layout(
        (1, 1, 8), (0, 8, 1)
    )
    # neither dim contiguous: cuBLAS cannot read it
    assert matmul_operand(Layout((4, 4), (8, 2)), (), lhs=True) is None
    # identity layouts print as plain memrefs
    assert Layout((1, 4), (0, 1)).is_identity
    assert not Layout((4, 4), (1, 4)).is_identity
