"""Recognise decomposed ATen patterns again, so both IR levels import alike.

`run_decompositions()` takes apart what the graph dialect keeps whole:
`aten.linear` becomes `permute` + `addmm` (or `view` + `mm` + `view` for
batched inputs), `silu` becomes `x * sigmoid(x)`, `hardsigmoid` and
`hardswish` become `clamp(x + 3, 0, 6) / 6` (times x), and
`scaled_dot_product_attention` becomes two `bmm`s around a `_softmax`, with
q and kᵀ each multiplied by √scale and a guard that zeroes fully masked
rows. `recognise` finds these shapes in the fx graph and returns, for the
node that ends each one, a `Pattern`: the nodes it reads and how to build
the whole op. The importer then imports only what outputs need, so the
pattern's inner nodes never reach the IR.

The guard (`where(¬any(scores ≠ -inf), 0, softmax)`) only changes rows whose
every key is masked; the importer's folded masks leave each row a key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fxdsl.frontends.aten_ops import attention, target_name
from fxdsl.frontends.aten_registry import HALF_DTYPES, TORCH_DTYPES
from fxdsl.ir import graph
from fxdsl.tracing import ops

VIEWS = frozenset(
    {
        "aten.view.default",
        "aten._unsafe_view.default",
        "aten.reshape.default",
        "aten.expand.default",
        "aten.clone.default",
        "aten.alias.default",
    }
)
"""Ops that keep element order: a pattern looks through them."""
RESHAPES = ("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")


@dataclass
class Pattern:
    """`build(*values of inputs)` emits the recognised op."""

    inputs: list[Any]
    build: Callable[..., Any]
    masks: set[int] = field(default_factory=set[int])
    """Indices of inputs that are attention masks (read as a pattern when
    folded)."""
    nan_rows: int | None = None
    """Index of an additive mask under a plain softmax: a query row whose
    every key it masks (-inf) is NaN in eager, where `graph.attention`
    gives zeros (SDPA's rule); the importer puts the NaNs back."""


def _target(node: Any) -> str:
    if getattr(node, "op", None) != "call_function":
        return ""
    return target_name(node.target)


def _through_views(node: Any) -> Any:
    while _target(node) in VIEWS:
        node = node.args[0]
    return node


def _view_source(node: Any, shape: tuple[int, ...]) -> Any:
    """The earliest node of shape `shape` that `node` is a view chain of
    (GQA's head repeat and bmm's batch flattening are such chains), or None."""
    found = node if _shape(node) == shape else None
    while _target(node) in VIEWS:
        node = node.args[0]
        if _shape(node) == shape:
            found = node
    return found


def _is_tensor_node(node: Any) -> bool:
    """Whether `node` is an fx node whose value is a tensor (not the SymInt
    of an `.item()`)."""
    return hasattr(getattr(node, "meta", {}).get("val"), "shape")


def _shape(node: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in node.meta["val"].shape)


def _scalar_factor(node: Any) -> tuple[Any, float]:
    """(x, c) for `x * c` with a Python scalar c, else (node, 1.0)."""
    if _target(node) in ("aten.mul.Scalar", "aten.mul.Tensor"):
        x, c = node.args[:2]
        if isinstance(c, int | float) and not isinstance(c, bool):
            return x, float(c)
    return node, 1.0


def _is_transpose_of_last_two(node: Any) -> bool:
    target = _target(node)
    rank = len(_shape(node))
    if target == "aten.permute.default":
        perm = [p % rank for p in node.args[1]]
        return perm == [*range(rank - 2), rank - 1, rank - 2]
    if target == "aten.transpose.int":
        return sorted(d % rank for d in node.args[1:3]) == [rank - 2, rank - 1]
    return target == "aten.t.default" and rank == 2


# --------------------------------------------------------------------------- #
# linear: x @ Wᵀ (+ b) as [view] addmm, [view] mm [view], or bmm over views
# --------------------------------------------------------------------------- #


def _product(node: Any, lhs: Any, wt: Any) -> tuple[Any, Any] | None:
    """(x, W) when `lhs @ wt` computes `node` as `x @ Wᵀ` (`lhs` a view of
    x, `wt` a transposed 2-D W, perhaps broadcast over a batch)."""
    wt = _through_views(wt)
    if len(_shape(wt)) != 2 or not _is_transpose_of_last_two(wt):
        return None
    weight = wt.args[0]
    x = _view_source(lhs, (*_shape(node)[:-1], _shape(weight)[1]))
    return None if x is None else (x, weight)


def _linear(node: Any) -> Pattern | None:
    target, bias = _target(node), None
    if target == "aten.add.Tensor" and all(_is_tensor_node(a) for a in node.args[:2]):
        node_inner, bias = node.args[:2]
        if len(_shape(bias)) != 1:
            return None
    else:
        node_inner = node
    inner = _through_views(node_inner)
    if _target(inner) == "aten.addmm.default" and bias is None:
        if inner.kwargs.get("beta", 1) != 1 or inner.kwargs.get("alpha", 1) != 1:
            return None
        bias, lhs, wt = inner.args[:3]
    elif _target(inner) in (
        "aten.mm.default",
        "aten.bmm.default",
        "aten.matmul.default",
    ):
        lhs, wt = inner.args[:2]
    else:
        return None
    found = _product(node, lhs, wt)
    if found is None or (bias is not None and len(_shape(bias)) != 1):
        return None
    inputs = [*found] + ([bias] if bias is not None else [])
    return Pattern(inputs, lambda x, w, b=None: ops.linear(x, w, b))


# --------------------------------------------------------------------------- #
# silu: x * sigmoid(x)
# --------------------------------------------------------------------------- #


def _silu(node: Any) -> Pattern | None:
    if _target(node) != "aten.mul.Tensor":
        return None
    lhs, rhs = node.args[:2]
    for x, gate in ((lhs, rhs), (rhs, lhs)):
        if _target(gate) == "aten.sigmoid.default" and gate.args[0] is x:
            return Pattern([x], ops.silu)
    return None


# --------------------------------------------------------------------------- #
# hardsigmoid: clamp(x + 3, 0, 6) / 6; hardswish: x * clamp(x + 3, 0, 6) / 6
# --------------------------------------------------------------------------- #


def _relu6_of_x_plus_3(node: Any) -> Any:
    """x for `clamp(clamp(x + 3, 0), None, 6)`, the core form's middle."""
    if _target(node) != "aten.clamp.default" or tuple(node.args[1:]) != (None, 6):
        return None
    lower = node.args[0]
    if _target(lower) != "aten.clamp.default" or tuple(lower.args[1:]) != (0,):
        return None
    shifted = lower.args[0]
    if _target(shifted) != "aten.add.Tensor" or shifted.args[1] != 3:
        return None
    return shifted.args[0]


def _hard_activation(node: Any) -> Pattern | None:
    if _target(node) != "aten.div.Tensor" or node.args[1] != 6:
        return None
    numerator = node.args[0]
    x = _relu6_of_x_plus_3(numerator)
    if x is not None:
        return Pattern([x], ops.hardsigmoid)
    if _target(numerator) != "aten.mul.Tensor":
        return None
    lhs, rhs = numerator.args[:2]
    if _relu6_of_x_plus_3(rhs) is lhs:
        return Pattern([lhs], ops.hardswish)
    return None


# --------------------------------------------------------------------------- #
# attention: bmm(softmax(bmm(q·a, kᵀ·b) [+ mask]) [guarded], v)
# --------------------------------------------------------------------------- #


def _unguarded(node: Any) -> Any:
    """The softmax under SDPA's fully-masked-row guard, if there is one."""
    if _target(node) == "aten.where.self":
        _, zeros, probs = node.args[:3]
        if _target(zeros) in (
            "aten.full_like.default",
            "aten.zeros_like.default",
        ) and _target(probs) in ("aten._softmax.default", "aten.softmax.int"):
            return probs
    return node


_PRODUCTS = ("aten.bmm.default", "aten.matmul.default")


def _scores_and_mask(add: Any) -> tuple[Any, Any]:
    """(scores, mask) of `scores + mask` in either order, the mask a tensor
    node added with alpha 1 (a Python number shifts every score alike);
    (None, None) otherwise."""
    if add.kwargs.get("alpha", 1) != 1:
        return None, None
    for scores, mask in (add.args[:2], add.args[1::-1]):
        if _target(_through_views(scores)) in _PRODUCTS and _is_tensor_node(mask):
            return scores, mask
    return None, None


def _is_float(node: Any) -> bool:
    return bool(getattr(node.meta["val"].dtype, "is_floating_point", False))


def _attention(node: Any) -> Pattern | None:
    bmm = _through_views(node)
    if _target(bmm) not in _PRODUCTS:
        return None
    softmax = _through_views(bmm.args[0])
    probs = _unguarded(softmax)
    if _target(probs) not in ("aten._softmax.default", "aten.softmax.int"):
        return None
    scores = probs.args[0]
    if probs.args[1] % len(_shape(scores)) != len(_shape(scores)) - 1:
        return None
    mask = None
    if _target(scores) == "aten.add.Tensor":
        scores, mask = _scores_and_mask(scores)
        if scores is None:
            return None
    qk = _through_views(scores)
    if _target(qk) not in ("aten.bmm.default", "aten.matmul.default"):
        return None
    q, q_factor = _scalar_factor(_through_views(qk.args[0]))
    kt, k_factor = _scalar_factor(_through_views(qk.args[1]))
    if not _is_transpose_of_last_two(kt):
        return None
    *batch, t, dv = _shape(node)
    s, d = _shape(scores)[-1], _shape(q)[-1]
    q = _view_source(q, (*batch, t, d))
    k = _view_source(kt.args[0], (*batch, s, d))
    v = _view_source(bmm.args[1], (*batch, s, dv))
    if q is None or k is None or v is None:
        return None
    if mask is not None and (
        len(_shape(scores)) != len(batch) + 2 or len(_shape(mask)) > len(batch) + 2
    ):
        return None  # a mask of the flattened scores (bmm's 3-d batch)
    scale = q_factor * k_factor
    inputs = [q, k, v] + ([mask] if mask is not None else [])
    narrow = _cast_back_to(node)
    if narrow is None:
        build = lambda q, k, v, m=None: attention(q, k, v, m, False, scale)
    else:
        build = lambda q, k, v, m=None: _narrow_attention(q, k, v, m, scale, narrow)
    # A float mask is SDPA's additive one; a bool or integer tensor added
    # to the scores is a number (True adds 1), not SDPA's keep-mask: cast.
    additive = mask is not None and _is_float(mask)
    if mask is not None and not additive:
        to = TORCH_DTYPES[str(scores.meta["val"].dtype)]
        wrapped = build
        build = lambda q, k, v, m: wrapped(q, k, v, ops.cast(m, to))
    guarded = probs is not softmax
    return Pattern(
        inputs,
        build,
        masks={3} if additive else set(),
        nan_rows=3 if additive and not guarded else None,
    )


_CASTS = ("aten._to_copy.default", "prims.convert_element_type.default")


def _cast_back_to(node: Any) -> str | None:
    """The 16-bit type (bf16, f16) every user of `node` (f32) casts it to,
    else None: the end of torch's math decomposition of a 16-bit SDPA,
    which computes in f32 the attention eager runs on 16-bit operands."""
    users = list(node.users)
    if str(node.meta["val"].dtype) != "torch.float32" or not users:
        return None
    casts = [u for u in users if _target(u) in _CASTS]
    if len(casts) != len(users):
        return None
    # (only a cast's meta is read: another user, `output`, may have none)
    types = {TORCH_DTYPES.get(str(u.meta["val"].dtype)) for u in casts}
    if len(types) != 1:
        return None
    (name,) = types
    return name if name in HALF_DTYPES else None


_VIEW_OPS = (graph.ReshapeOp, graph.BroadcastToOp, graph.TransposeOp)


def _narrowed(x: Any, dtype: str) -> Any:
    """`x` (f32) as the same views of the `dtype` tensor it was cast from,
    or None when it is not such views of one cast."""
    views: list[Any] = []
    value = x.value
    while isinstance(value.owner, _VIEW_OPS):
        views.append(value.owner)
        value = value.owner.operands[0]
    cast = value.owner
    if not isinstance(cast, graph.CastOp) or str(graph.dtype_of(cast.input)) != dtype:
        return None
    y = ops.wrap(cast.input)
    for view in reversed(views):
        shape = list(graph.shape_of(view.results[0]))
        if isinstance(view, graph.ReshapeOp):
            y = ops.reshape(y, shape)
        elif isinstance(view, graph.BroadcastToOp):
            y = ops.broadcast_to(y, shape)
        else:
            y = ops.transpose(y, list(view.perm.get_values()))
    return y


def _narrow_attention(
    q: Any, k: Any, v: Any, mask: Any, scale: float, dtype: str
) -> Any:
    """The decomposed 16-bit SDPA (f32 on upcast q, k, v, cast back) as the
    attention on the 16-bit operands, as eager's kernels (and fxdsl's
    tensor-core kernel) compute it, cast to f32 as the graph expects (the
    cast back that follows folds away, `cast_to`). Where an operand is not
    views of such an upcast, the f32 attention as it was."""
    narrow = [_narrowed(x, dtype) for x in (q, k, v)]
    if any(x is None for x in narrow):
        return attention(q, k, v, mask, False, scale)
    return ops.cast(attention(*narrow, mask, False, scale), "f32")


RECOGNISERS = (_attention, _linear, _silu, _hard_activation)


def recognise(graph: Any, is_folded: Callable[[Any], bool]) -> dict[Any, Pattern]:
    """The patterns of `graph`, by the node that ends each (folded nodes are
    left to folding)."""
    found: dict[Any, Pattern] = {}
    for node in graph.nodes:
        if node.op != "call_function" or is_folded(node):
            continue
        for recogniser in RECOGNISERS:
            pattern = recogniser(node)
            if pattern is not None:
                found[node] = pattern
                break
    return found
