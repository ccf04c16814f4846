"""What the torch importer asks of single fx nodes, and its error: whether
a node draws random numbers, mutates a shared value or is a view, its dtypes
and static shapes, its module-stack frames, the kind of an attention mask,
and its source line for messages (`TorchImportError` names it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute

from fxdsl.frontends import aten_complex, aten_ops
from fxdsl.frontends.aten_ops import (
    UnsupportedNode,
    cast_to,
    graph_dtype,
    target_name,
)
from fxdsl.ir.graph import ELEMENT_TYPES, ScopeFrame
from fxdsl.ir.utils import erase_unused
from fxdsl.tracing.tracer import Tensor, TensorSpec

MAX_DECOMPOSITION_DEPTH = 16
"""Torch decompositions inside decompositions, at most (`_decomposed`)."""

NO_OPS = frozenset({"aten._assert_tensor_metadata.default", "aten._assert_async.msg"})
"""Nodes with no result that inference drops."""

SHAPE_ONLY = frozenset(
    f"aten.{name}"
    for name in (
        "zeros_like.default",
        "ones_like.default",
        "empty_like.default",
        "full_like.default",
        "new_zeros.default",
        "new_ones.default",
        "new_empty.default",
        "new_full.default",
    )
)
"""Ops whose value depends only on their input's shape and dtype: they fold
even when that input does not."""

MASK_ARGUMENTS = {
    "aten.scaled_dot_product_attention.default": (3, "attn_mask"),
    # training's attention and its backward (`aten_attention_grad`)
    "aten._scaled_dot_product_flash_attention_for_cpu.default": (-1, "attn_mask"),
    "aten._scaled_dot_product_flash_attention_for_cpu_backward.default": (
        -1,
        "attn_mask",
    ),
    # the CUDA kernels' forwards (`aten_attention_grad`)
    "aten._scaled_dot_product_efficient_attention.default": (3, "attn_bias"),
    "aten._scaled_dot_product_cudnn_attention.default": (3, "attn_bias"),
}
"""Arguments that are attention masks: folded, they are read as a pattern."""

_CALL_INDEX = re.compile(r"@(\d+)$")


class TorchImportError(Exception):
    """A program the importer cannot take; the message names the ATen op,
    the node and its source line. `node` is the fx node's name where one
    node is at fault (the torch.compile backend then leaves that node to
    torch and imports the rest)."""

    def __init__(self, message: str, node: str | None = None) -> None:
        super().__init__(message)
        self.node = node


def _mutates_a_shared_value(node: Any) -> bool:
    """Whether `node` (an in-place op of a decomposition, which the importer
    reads as an op with a result) writes a value that another node reads
    too. make_fx already routes later reads of the written tensor itself
    through `node`; what is left is a view's base (or another view of it),
    which would see the old value."""
    schema = getattr(node.target, "_schema", None)
    if schema is None or not schema.is_mutable:
        return False
    for argument, value in zip(schema.arguments, node.args):
        if argument.alias_info is None or not argument.alias_info.is_write:
            continue
        reader = node
        while hasattr(value, "users"):
            if any(user is not reader for user in value.users):
                return True
            if not _is_view(value):
                break
            reader, value = value, value.args[0]
    return False


def written_arguments(node: Any) -> list[int]:
    """The positions of the arguments `node`'s op writes, as its schema says
    (`Tensor(a!)`): `[0]` for `add_`, none for a functional op (and for the
    ops that write without saying so: `batch_norm` in training)."""
    schema = getattr(node.target, "_schema", None)
    if schema is None or not schema.is_mutable:
        return []
    return [
        i
        for i, argument in enumerate(schema.arguments)
        if argument.alias_info is not None and argument.alias_info.is_write
    ]


def read_after(value: Any, node: Any) -> bool:
    """Whether a node after `node` in its graph reads `value` (the old
    tensor, once `node` has written a new one into it)."""
    readers = set(value.users)
    later = node.next
    while later.op != "root":
        if later in readers:
            return True
        later = later.next
    return False


def _is_view(node: Any) -> bool:
    """Whether `node`'s op returns a view of its first argument (or, for an
    in-place op, the argument itself: `_returns_written`)."""
    schema = getattr(node.target, "_schema", None)
    return bool(schema is not None and schema.returns and schema.returns[0].alias_info)


def _returns_written(node: Any) -> bool:
    """Whether `node` is an in-place op whose result is the tensor it wrote
    (`add_` returns `self`, `Tensor(a!)`): the same tensor, not a view."""
    schema = getattr(getattr(node, "target", None), "_schema", None)
    if schema is None or not schema.returns:
        return False
    alias = schema.returns[0].alias_info
    return bool(alias is not None and alias.is_write)


WHOLE_ALIASES = ("aten.detach.default", "aten.alias.default")
"""View ops whose result is all of their input, element for element: a
write into one is a write into the input (`embedding(max_norm=)` renorms
`weight.detach()` in place)."""


def written_tensor(node: Any) -> Any:
    """The tensor `node` is: through in-place results (`x.add_(1)` is x) and
    whole aliases (`x.detach()`)."""
    while getattr(node, "op", None) == "call_function" and (
        _returns_written(node) or target_name(node.target) in WHOLE_ALIASES
    ):
        node = node.args[0]
    return node


class _NotDecomposed(UnsupportedNode):
    """A node of a decomposition did not import (the innermost one's
    message reaches the user, not one per level of decomposition)."""


def _as_torch_says(result: Any, node: Any) -> Any:
    """A node's imported result in torch's dtype; UnsupportedNode when its
    shape is not torch's."""
    if not isinstance(result, Tensor):
        return result
    value = node.meta.get("val")
    result = cast_to(result, graph_dtype(value.dtype))
    shape = tuple(int(d) for d in value.shape)
    if tuple(result.shape) != shape:
        raise UnsupportedNode(f"imported as shape {result.shape}, torch says {shape}")
    return result


def _keep(mask: Any) -> Any:
    """Which scores a mask keeps: an i1 mask itself, an additive one's 0s."""
    import torch

    return mask if mask.dtype == torch.bool else mask == 0


def _mask_pattern(mask: Any) -> str:
    """What a folded attention mask (..., T, S) is, from the cheapest form:
    "none" when every key is kept; "causal" for the causal pattern (key s
    kept for query t iff s <= t, in every batch); "keys" when every query
    row keeps the same keys (BERT's padding: a (..., 1, S) mask), "causal
    keys" when it is the causal pattern and such a per-key mask (a padded
    decoder batch); else "operand". An additive mask counts when it holds
    only 0 and -inf (anything else shifts scores: "operand")."""
    import torch

    keep = _keep(mask)
    if mask.dtype != torch.bool and not bool((keep | torch.isneginf(mask)).all()):
        return "operand"
    if bool(keep.all()):
        return "none"
    t, s = keep.shape[-2:]
    causal = torch.ones(t, s, dtype=torch.bool).tril()
    if bool((keep == causal).all()):
        return "causal"
    if bool((keep == keep[..., :1, :]).all()):
        return "keys"
    # causal: the last row sees every key the causal pattern allows at all
    if t <= s and bool((keep == (causal & keep[..., -1:, :])).all()):
        return "causal keys"
    return "operand"


def draws_random(node: Any) -> bool:
    """Whether `node` draws random numbers: its op carries torch's
    `nondeterministic_seeded` tag (rand, randint, normal, bernoulli,
    dropout, attention, ...) and its arguments make it draw
    (`aten_ops.draws_random`). Such a node never folds, and never imports:
    a graph op of it would be the same numbers on every call."""
    import torch

    if torch.Tag.nondeterministic_seeded not in getattr(node.target, "tags", ()):
        return False
    return aten_ops.draws_random(target_name(node.target), node.args, node.kwargs)


DATA_DEPENDENT_REASON = (
    "a size or number read from a tensor's values (nonzero, a boolean "
    "mask, .item()), which only torch computes with"
)
"""Why a node `data_dependent` finds runs in torch (fallback mode)."""


def data_dependent(node: Any) -> bool:
    """Whether `node`'s value, or a value it reads, has a size or is a
    number that depends on a tensor's values: an unbacked symbol of
    torch's (`u0`: `nonzero`'s length, `.item()` with
    `capture_scalar_outputs`). The graph dialect has static shapes, so in
    fallback mode such a node runs in torch, its result held there, and
    the rest of the graph still compiles (a static-shaped result of one,
    `x[mask].sum()`, reaches islands as any torch result does)."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    if free_unbacked_symbols(node.meta.get("val")):
        return True
    return any(free_unbacked_symbols(n.meta.get("val")) for n in node.all_input_nodes)


def _held_type(value: Any, node: Any) -> TensorType[Attribute]:
    """The IR type of a result of a `data_dependent` node (which only
    torch nodes read): a tensor's, `?` for each size read from values; a
    number's (SymInt, SymFloat, SymBool) as a 0-d tensor of i64, f64, i1.
    The runner holds the value torch returns, a tensor or a Python number."""
    import torch
    from xdsl.dialects.builtin import DYNAMIC_INDEX, Float64Type, IntegerType

    if isinstance(value, torch.SymBool | bool):
        return TensorType(IntegerType(1), [])
    if isinstance(value, torch.SymFloat | float):
        return TensorType(Float64Type(), [])
    if not isinstance(value, torch.Tensor):
        return TensorType(IntegerType(64), [])
    shape = [d if isinstance(d, int) else DYNAMIC_INDEX for d in value.shape]
    # the element type as for a static result (`_torch_type`), then `?`s
    static = _torch_type(SimpleNamespace(shape=(), dtype=value.dtype), node)
    if value.dtype.is_complex:
        shape.append(2)
    return TensorType(static.element_type, shape)


def _torch_type(value: Any, node: Any) -> TensorType[Attribute]:
    """The IR type of a result of a node left to torch; a complex one's is
    its real view's (`aten_complex`: shape + [2], the parts' type)."""
    shape = tuple(int(d) for d in value.shape)
    try:
        if value.dtype.is_complex:
            return TensorSpec((*shape, 2), aten_complex.component(value.dtype)).type
        return TensorSpec(shape, graph_dtype(value.dtype)).type
    except UnsupportedNode as error:
        raise TorchImportError(_describe(node, str(error)), node.name) from None


def _check_graph_dtypes(values: Sequence[Any]) -> None:
    """UnsupportedNode unless every tensor among `values` has a graph
    dialect dtype (a float64 result of a node left to torch has not)."""
    for value in values:
        if isinstance(value, Tensor):
            element_type = value.value.type.element_type  # type: ignore[attr-defined]
            if element_type not in ELEMENT_TYPES:
                raise UnsupportedNode(
                    f"an operand of element type {element_type}, which only torch "
                    "computes with"
                )


def _is_tensor(node: Any) -> bool:
    value = node.meta.get("val")
    return value is not None and hasattr(value, "shape")


def _frames(node: Any) -> tuple[ScopeFrame, ...]:
    """`nn_module_stack` as scope frames, without the root (the function).

    torch.export writes `(fqn, "qualified.Class")`; Dynamo (what the
    torch.compile backend sees) writes `("L['self'].h[0].attn", <class>)`:
    both become `("h.0.attn", call index, "qualified.Class")`."""
    stack = node.meta.get("nn_module_stack") or {}
    frames: list[ScopeFrame] = []
    for key, (fqn, module_type) in stack.items():
        name = _plain_fqn(str(fqn))
        if not name:
            continue
        match = _CALL_INDEX.search(str(key))
        index = int(match.group(1)) if match else 0
        frames.append((name, index, _type_name(module_type)))
    return tuple(frames)


_DYNAMO_ROOT = re.compile(r"^L\['self'\]\.?")
_DYNAMO_ITEM = re.compile(r"\.?_modules\['([^']*)'\]|\['([^']*)'\]|\[(\d+)\]")


def _plain_fqn(fqn: str) -> str:
    """`L['self'].h[0]._modules['attn']` → `h.0.attn` (export's fqns pass)."""
    fqn = _DYNAMO_ROOT.sub("", fqn)
    fqn = _DYNAMO_ITEM.sub(lambda m: "." + next(g for g in m.groups() if g), fqn)
    return fqn.lstrip(".")


def _type_name(module_type: Any) -> str:
    if isinstance(module_type, type):
        return f"{module_type.__module__}.{module_type.__qualname__}"
    return str(module_type)


def _check_static(node: Any) -> None:
    import torch

    value = node.meta.get("val")
    values = value if isinstance(value, list | tuple) else [value]
    for item in values:
        shape = getattr(item, "shape", ())
        # a SymInt torch.export specialised (Dim.AUTO on a dim the program
        # fixes) has a constant expression: that dim is static
        symbolic = [
            d for d in shape if isinstance(d, torch.SymInt) and d.node.expr.free_symbols
        ]
        if not symbolic:
            continue
        # an unbacked symbol (u0) is a size read from a tensor's values
        # (`nonzero`, `tensor_split` at tensor indices): no export option
        # makes it static
        if any(str(d.node.expr).startswith("u") for d in symbolic):
            why = (
                "a size that depends on a tensor's values, which a static-shape "
                "compiler cannot take (pass such sizes as Python ints)"
            )
        else:
            why = "export without dynamic_shapes (or with static ones)"
        raise TorchImportError(
            _describe(
                node,
                f"dynamic shape {tuple(shape)}: fxdsl imports static shapes "
                f"only; {why}",
            )
        )


def _describe(node: Any, message: str) -> str:
    """`message` about `node`, with its op and source line."""
    target = str(node.target) if node.op == "call_function" else node.op
    return f"{target} (node %{node.name}): {message}{_source_line(node)}"


def _source_line(node: Any) -> str:
    trace_text = node.meta.get("stack_trace") or ""
    lines = [line.strip() for line in trace_text.strip().splitlines()]
    for i in range(len(lines) - 1, -1, -1):
        match = re.match(r'File "(.+)", line (\d+)', lines[i])
        if match:
            code = lines[i + 1] if i + 1 < len(lines) else ""
            return f"\n  at {match.group(1)}:{match.group(2)}: {code}"
    return ""


def _erase_unused(module: ModuleOp) -> None:
    """Drop side-effect-free ops whose results nothing uses (what recognised
    patterns and folding left behind)."""
    for function in module.ops:
        for region in function.regions:
            for block in region.blocks:
                erase_unused(block)
