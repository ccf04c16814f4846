"""Torch's own decompositions of ATen ops the table has no mapping for.

An fx node whose op has no handler in `aten_ops.ATEN` but has an entry in
`torch.export.default_decompositions()` (torch's core-ATen decomposition
table plus every CompositeImplicitAutograd op: exactly what
`run_decompositions()` applies), or else in `torch._decomp.
decomposition_table`, or else has a CompositeImplicitAutograd kernel (an
op the export left whole), is imported as that decomposition: it is
traced with `make_fx` on the node's own fake values into a small ATen graph,
whose nodes the importer then imports one by one like the program's (a node
of it without a mapping decomposes in turn). So the default export graph and
the core-ATen graph accept the same programs, and every op torch can
decompose is covered without a handler of its own.

The trace is functionalized (torch's Python functionalization, the one
`run_decompositions()` uses, which also reaches into the composite kernels
of CompositeImplicitAutograd ops): its in-place ops become ops with
results, and a decomposition that writes into one of its inputs (batch
norm's running statistics, `index_add_`'s `self`) returns the input's new
value as well: its graph's output is `(result, updates)`, `updates` the
new values of the inputs named by `Decomposed.updated`. The importer makes
them the new values of those inputs (`torch_importer`), so the program
stays value-semantic.

A traced decomposition is cached by op and argument signature (shapes,
dtypes, strides and the non-tensor arguments): a model's layers trace each
op once; each use imports a fresh copy of the graph.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fxdsl.frontends import aten_foreach
from fxdsl.frontends.aten_distance_backward import DECOMPOSITIONS as DISTANCE_BACKWARD
from fxdsl.frontends.aten_embedding_bag import DECOMPOSITIONS as EMBEDDING_BAG
from fxdsl.frontends.aten_grid_sampler_backward import (
    DECOMPOSITIONS as GRID_SAMPLER_BACKWARD,
)
from fxdsl.frontends.aten_grouped_mm import DECOMPOSITIONS as GROUPED_MM
from fxdsl.frontends.aten_masked_scatter_backward import (
    DECOMPOSITIONS as MASKED_SCATTER_BACKWARD,
)
from fxdsl.frontends.aten_ops import UnsupportedNode
from fxdsl.frontends.aten_quantized import DECOMPOSITIONS as QUANTIZED
from fxdsl.frontends.aten_segment_reduce_backward import (
    DECOMPOSITIONS as SEGMENT_REDUCE_BACKWARD,
)
from fxdsl.frontends.aten_transformer_fast_path import (
    DECOMPOSITIONS as TRANSFORMER_FAST_PATH,
)
from fxdsl.frontends.traced_vjp import traced_vjp


@functools.cache
def _tables() -> tuple[Any, ...]:
    import torch
    from torch._decomp import decomposition_table

    return (torch.export.default_decompositions(), decomposition_table)


def _linear_cross_entropy(
    input: Any,
    linear_weight: Any,
    target: Any,
    linear_bias: Any,
    weight: Any,
    *options: Any,
) -> Any:
    """`torch_nn._linear_cross_entropy_batch_chunked` (and its
    `_no_reduction` twin, which takes no reduction or label smoothing) as
    the loss it computes: `cross_entropy(linear(...))`, unchunked (chunks
    save memory in torch; a graph's fusion decides its own). The scalar op
    also returns the gradients of the loss it is asked for (`compute_*_grad`,
    its last three options; its backward scales them by the upstream
    gradient): autograd's, traced with the loss, in the input's type;
    empty where not asked for."""
    import torch

    F = torch.nn.functional
    if isinstance(options[0], int):  # _no_reduction: ignore_index first
        logits = F.linear(input, linear_weight, linear_bias)
        return F.cross_entropy(
            logits, target, weight, ignore_index=options[0], reduction="none"
        )
    reduction, ignore_index, label_smoothing = options[:3]
    asked = [bool(flag) for flag in options[-3:]]  # input, weight, bias

    def loss_of(x: Any, w: Any, b: Any) -> Any:
        return F.cross_entropy(
            F.linear(x, w, b),
            target,
            weight,
            ignore_index=ignore_index,
            reduction=reduction,
            label_smoothing=label_smoothing,
        )

    loss, found = traced_vjp(loss_of, (input, linear_weight, linear_bias), asked)
    empty = [(0, 0), (0, 0), (0,)]
    grads = []
    for grad, flag, shape in zip(found, asked, empty, strict=True):
        if not flag:
            grads.append(input.new_empty(shape))
        elif grad is None:  # a bias gradient asked for without a bias
            grads.append(input.new_zeros(linear_weight.shape[:-1]))
        else:
            grads.append(grad.to(input.dtype))
    return (loss, *grads)


def _embedding_renorm(
    weight: Any, indices: Any, max_norm: float, norm_type: float
) -> Any:
    """`embedding_renorm` (`F.embedding(..., max_norm=...)`'s write into its
    table) as its new value: each row the indices name whose `norm_type`
    norm exceeds `max_norm` scaled by `max_norm / (norm + 1e-7)`, as torch's
    kernel scales it (the norm in the table's type; the scale in f32 where
    torch's is a double rounded to f32 at the multiply); other rows as they
    are. Which rows are named is an index_add of ones."""
    import torch

    flat = indices.reshape(-1)
    hits = torch.zeros(weight.shape[0], device=weight.device).index_add(
        0, flat, torch.ones(flat.shape, device=weight.device)
    )
    norm = torch.linalg.vector_norm(weight, norm_type, dim=1, keepdim=True)
    scale = max_norm / (norm.float() + 1e-7)
    scaled = (weight.float() * scale).to(weight.dtype)
    renormed = (hits > 0).unsqueeze(1) & (norm > max_norm)
    return torch.where(renormed, scaled, weight)


OWN: dict[str, Callable[..., Any]] = {
    "aten.embedding_renorm.default": _embedding_renorm,
    "torch_nn._linear_cross_entropy_batch_chunked.default": _linear_cross_entropy,
    "torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default": (
        _linear_cross_entropy
    ),
    **GROUPED_MM,
    **TRANSFORMER_FAST_PATH,
    **QUANTIZED,
    **EMBEDDING_BAG,
    **GRID_SAMPLER_BACKWARD,
    **DISTANCE_BACKWARD,
    **MASKED_SCATTER_BACKWARD,
    **SEGMENT_REDUCE_BACKWARD,
}
"""fxdsl's decompositions of ops torch gives none for (`embedding_renorm`,
custom ops whose
kernel is Python torch cannot trace into, mixture-of-experts grouped
matmuls: `aten_grouped_mm`, `torch.nn`'s Transformer fast path:
`aten_transformer_fast_path`, PT2E's quantize/dequantize ops:
`aten_quantized`; `embedding_bag` in training: `aten_embedding_bag`; the
gradient of `grid_sample`: `aten_grid_sampler_backward`; those of
`cdist` and `pdist`: `aten_distance_backward`; of `masked_scatter`'s
source: `aten_masked_scatter_backward`; of `segment_reduce`:
`aten_segment_reduce_backward`), by overload name."""


WRONG = frozenset({"aten.multilabel_margin_loss_forward.default"})
"""Ops whose decomposition in torch gives another answer than their kernel,
so fxdsl never uses it (the op runs in torch): `multilabel_margin_loss`'s
counts the target slots after the -1 end marker as class 0 (torch 2.13;
pytorch/pytorch#141017)."""


def decomposition(target: Any) -> Any:
    """Torch's decomposition of the OpOverload `target`, or None: the one
    `run_decompositions()` applies, else any in `torch._decomp`'s table
    (Inductor's: `upsample_bilinear2d`, `index_select`, ...; some of these
    reach `prims` ops, which have no mapping), else fxdsl's own (`OWN`, and
    the `_foreach_` ops per element: `aten_foreach`)."""
    import torch

    if not isinstance(target, torch._ops.OpOverload) or str(target) in WRONG:
        return None
    if str(target) in OWN:
        return OWN[str(target)]
    if (foreach := aten_foreach.decomposition(target)) is not None:
        return foreach
    functional = _functional(target)
    if functional is not None and (found := decomposition(functional)) is not None:
        # the result of an in-place op is its written value: the functional
        # op's (torch's own decomposition adds a `copy_` back into the input)
        return found
    for table in _tables():
        if target in table:
            return table[target]
    # a CompositeImplicitAutograd op (`atleast_1d`, `view_as`) that the
    # tables leave out is its own composite kernel
    if torch._C._dispatch_has_kernel_for_dispatch_key(
        target.name(), torch._C.DispatchKey.CompositeImplicitAutograd
    ):
        return target.decompose
    return None


def _functional(target: Any) -> Any:
    """The functional overload of an in-place ATen op (`clamp_min_.Tensor`:
    `clamp_min.Tensor`), or None."""
    import torch

    name = target._schema.name
    base = name.removeprefix("aten::")
    if base == name or not base.endswith("_") or base.startswith("_"):
        return None
    packet = getattr(torch.ops.aten, base[:-1], None)
    return getattr(packet, target._overloadname, None) if packet else None


@dataclass
class Decomposed:
    """A node's decomposition: `graph` (a fresh copy for this use; its
    output is `(result, updates)`), the fx nodes whose values its
    placeholders take, in order, the module whose attributes its `get_attr`
    nodes read, and the positions in `inputs` of the inputs it writes, one
    per value of `updates`."""

    graph: Any
    inputs: list[Any]
    module: Any
    updated: tuple[int, ...] = ()


FIXED_POINT_RESAMPLING = (
    "upsample_bilinear2d",
    "upsample_bicubic2d",
    "upsample_linear1d",
    "upsample_trilinear3d",
    "_upsample_bilinear2d_aa",
    "_upsample_bicubic2d_aa",
)
"""Interpolating resizes whose uint8 kernel in torch computes in fixed
point (weights in integers, its own rounding): a float decomposition
rounds elsewhere in one element in six, so uint8 ones stay in torch."""


def _check_integer_resampling(node: Any) -> None:
    import torch

    name = getattr(node.target, "_schema", None)
    base = name.name.removeprefix("aten::") if name is not None else ""
    value = node.meta.get("val")
    if (
        base in FIXED_POINT_RESAMPLING
        and isinstance(value, torch.Tensor)
        and not value.is_floating_point()
    ):
        raise UnsupportedNode(
            f"{base} of {value.dtype} (torch's fixed-point kernel; a float "
            "decomposition rounds differently)"
        )


def decompose(node: Any, value_of: Callable[[Any], Any]) -> Decomposed | None:
    """`node` (a call_function fx node) traced through torch's decomposition,
    or None when torch has none for its op. An argument node with a tensor
    `meta["val"]` becomes a placeholder; any other's value (a folded
    scalar) is `value_of(node)`, traced as a constant."""
    import torch
    import torch.utils._pytree as pytree

    if decomposition(node.target) is None:
        return None
    _check_integer_resampling(node)

    def resolve(leaf: Any) -> Any:
        if isinstance(leaf, torch.fx.Node) and not isinstance(
            leaf.meta.get("val"), torch.Tensor
        ):
            return value_of(leaf)
        return leaf

    leaves, spec = pytree.tree_flatten((_plain(node.args), _plain(node.kwargs)))
    leaves = [resolve(leaf) for leaf in leaves]
    inputs = [leaf for leaf in leaves if isinstance(leaf, torch.fx.Node)]
    key = (
        str(node.target),
        str(spec),
        tuple(_signature(leaf) for leaf in leaves),
    )
    module, updated = _traced(key, node.target, tuple(leaves), spec)
    graph = torch.fx.Graph()
    output = graph.graph_copy(module.graph, {})
    graph.output(output)
    return Decomposed(graph, inputs, module, updated)


def _plain(value: Any) -> Any:
    """fx's immutable argument lists and dicts as plain ones: a
    decomposition may edit its arguments (`_unsafe_masked_index` its list
    of indices)."""
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        items = [_plain(v) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _signature(leaf: Any) -> Any:
    import torch

    if isinstance(leaf, torch.fx.Node):
        value = leaf.meta["val"]
        return ("tensor", tuple(value.shape), str(value.dtype), tuple(value.stride()))
    return repr(leaf)


_CACHE: dict[Any, tuple[Any, tuple[int, ...]]] = {}


def _functionalized(call: Callable[..., Any], updated: list[int]) -> Callable[..., Any]:
    """`call` under torch's Python functionalization, returning `(result,
    updates)`: the new values of the inputs it wrote, whose positions it
    appends to `updated`. A call that changes an input's shape or strides
    (`resize_`) is an UnsupportedNode: a value's type is fixed."""
    import torch
    import torch.utils._pytree as pytree
    from torch._subclasses.functional_tensor import (
        FunctionalTensor,
        FunctionalTensorMode,
    )

    def value(tensor: Any) -> Any:
        torch._sync(tensor)
        return torch._from_functional_tensor(tensor.elem)

    def run(*tensors: Any) -> Any:
        # the C++ functionalization below this mode must not see the calls
        # twice (what torch's own `dispatch_functionalize` does)
        above = torch._C._ExcludeDispatchKeyGuard(
            torch._C.DispatchKeySet(torch._C.DispatchKey.Functionalize)
        )
        with above, FunctionalTensorMode():
            inputs = [FunctionalTensor.to_functional(t) for t in tensors]
            result = pytree.tree_map_only(FunctionalTensor, value, call(*inputs))
            updates = []
            for position, tensor in enumerate(inputs):
                torch._sync(tensor)
                if torch._functionalize_has_metadata_mutation(tensor.elem):
                    raise UnsupportedNode(
                        f"it changes the shape or strides of its input {position}"
                    )
                if torch._functionalize_has_data_mutation(tensor.elem):
                    updated.append(position)
                    updates.append(value(tensor))
            return result, tuple(updates)

    return run


def _traced(
    key: Any, target: Any, leaves: tuple[Any, ...], spec: Any
) -> tuple[Any, tuple[int, ...]]:
    """The GraphModule of `target`'s decomposition on these arguments (fx
    nodes stand for tensors: their placeholders come in order), and the
    positions of the tensor arguments it writes (`_functionalized`)."""
    if key in _CACHE:
        return _CACHE[key]
    import torch
    import torch.utils._pytree as pytree
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.utils._python_dispatch import _disable_current_modes

    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.fx.Node)]
    run = decomposition(target)

    def call(*tensors: Any) -> Any:
        filled = list(leaves)
        for position, tensor in zip(positions, tensors, strict=True):
            filled[position] = tensor
        args, kwargs = pytree.tree_unflatten(filled, spec)
        return run(*args, **kwargs)

    # Real example tensors (make_fx fakes them itself), outside every
    # dispatch mode the caller runs under: AOTAutograd calls the backend in
    # a fake mode, and runs a graph with a custom op under a mode of its own
    # that, above the trace's functionalization, made every op of a
    # decomposition traced then (a shape-generic graph specialised at run
    # time) refuse its FunctionalTensors.
    with _disable_current_modes():
        examples = []
        for position in positions:
            value = leaves[position].meta["val"]
            examples.append(
                torch.empty_strided(
                    tuple(value.shape), tuple(value.stride()), dtype=value.dtype
                )
            )
        # functionalized: a decomposition's in-place ops (`add_`) become
        # ops with results, which is all the importer's SSA values can be
        # and outside Dynamo's tracing context: make_fx would add its symbols
        # to Dynamo's shape env (Longformer's guards then failed, IndexError)
        updated: list[int] = []
        traced = _functionalized(call, updated)
        try:
            # without oneDNN: torch's LSTM decomposition would pick its
            # oneDNN layer op (`mkldnn_rnn_layer`), which has no mapping
            with torch._guards.tracing(None), torch.backends.mkldnn.flags(False):
                module = make_fx(traced, tracing_mode="fake")(*examples)
        except UnsupportedNode as error:
            raise UnsupportedNode(
                f"{target} has no graph-dialect mapping, and torch's decomposition "
                f"of it does not import: {error}"
            ) from None
        except Exception as error:  # noqa: BLE001 - any failure of torch's tracing
            module = _with_effects(call, examples, error)
            if module is None:
                first = (str(error).strip().splitlines() or [type(error).__name__])[0]
                raise UnsupportedNode(
                    f"{target} has no graph-dialect mapping, and torch's "
                    "decomposition of it does not trace here "
                    f"({type(error).__name__}: {first[:160]})"
                ) from None
            updated.clear()
    _CACHE[key] = (module, tuple(updated))
    return _CACHE[key]


def _with_effects(
    call: Callable[..., Any], examples: list[Any], error: Exception
) -> Any:
    """The trace of a decomposition with an effectful op (linear algebra's
    `_linalg_check_errors`), which torch's Python functionalization refuses
    outside an export (it wants an effect token): traced by the C++
    functionalization instead, writing none of its inputs (the check writes
    nothing). None for any other failure."""
    import torch
    from torch.func import functionalize
    from torch.fx.experimental.proxy_tensor import make_fx

    if "token for effect" not in str(error):
        return None
    try:
        with torch._guards.tracing(None):
            return make_fx(
                functionalize(lambda *tensors: (call(*tensors), ())),
                tracing_mode="fake",
            )(*examples)
    except Exception:  # noqa: BLE001 - the first failure is the one reported
        return None
