"""`module_call`: run a function as a call of a module, and record its call
signature for `graph-unflatten` (torch.export's
`preserve_module_call_signature`): stable names (`graph.name`) for the
call's tensor inputs and outputs, the signature under the call name in the
module attribute `graph.call_signatures`.

Above the tracer: naming values and calls is the call-signature analysis's
(`fxdsl.transforms.call_signatures`, `scope_tree`), which the tracer itself
does not need.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from xdsl.ir import Operation, SSAValue

from fxdsl.ir.graph import ScopeFrame, SignatureAttr
from fxdsl.ir.utils import unique_name
from fxdsl.tracing.ops import Tensor
from fxdsl.tracing.trace_state import TraceState, active_state, scope
from fxdsl.transforms.call_signatures import set_value_name, value_name
from fxdsl.transforms.scope_tree import call_name, scope_frames

ResultT = TypeVar("ResultT")


def module_call(
    fqn: str,
    type_name: str,
    fn: Callable[..., ResultT],
    *args: Any,
    preserve_signature: bool = False,
) -> ResultT:
    """`fn(*args)` as a call of module `fqn` of type `type_name` (inside
    `scope(fqn, type_name)`); returns what `fn` returns.

    With `preserve_signature=True` the call's interface is recorded for
    `graph-unflatten`: the tensor arguments are its inputs, named after
    `fn`'s parameters (`xs0`, `xs1`... for a sequence or `*xs`), the returned
    tensors its outputs, named `out0`, `out1`... (or by the keys of a
    returned dict or the fields of a named tuple). A value that already has a
    name keeps it; new names are made unique (`x_1`). The signature is stored
    under the call name (`fqn`, `fqn@1`, ...) in the module attribute
    `graph.call_signatures`. A call that emits no op records nothing (there is
    no module function to make). An output that is neither an input nor
    computed inside the call is a ValueError.
    """
    state = active_state("fxdsl.module_call")
    emitted = state.emitted
    with scope(fqn, type_name):
        frames = tuple(state.frames)
        returned = fn(*args)
    if not preserve_signature or state.emitted == emitted:
        return returned
    inputs = _tensors(_parameter_labels(fn, args), state, "input")
    outputs = _tensors(_returned_labels(returned), state, "output")
    passed = {tensor.value for _, tensor in inputs}
    for label, tensor in outputs:
        if tensor.value not in passed and not _made_inside(tensor.value, frames):
            raise ValueError(
                f"fxdsl.module_call({fqn!r}): output {label!r} is neither an input "
                "nor computed inside the call"
            )
    signature = (
        tuple(_value_name(state, t.value, label) for label, t in inputs),
        tuple(_value_name(state, t.value, label) for label, t in outputs),
    )
    _, index, _ = frames[-1]
    state.signatures[call_name(fqn, index)] = SignatureAttr(signature)
    return returned


def _made_inside(value: SSAValue, frames: tuple[ScopeFrame, ...]) -> bool:
    owner = value.owner
    return isinstance(owner, Operation) and scope_frames(owner)[: len(frames)] == frames


def _parameter_labels(
    fn: Callable[..., Any], args: tuple[Any, ...]
) -> list[tuple[str, Any]]:
    try:
        bound: dict[str, Any] = dict(inspect.signature(fn).bind(*args).arguments)
    except (TypeError, ValueError):  # no signature, or args that do not fit
        bound = {f"in{i}": arg for i, arg in enumerate(args)}
    labelled: list[tuple[str, Any]] = []
    for label, value in bound.items():
        if isinstance(value, (tuple, list)):
            items = cast("Sequence[Any]", value)
            labelled.extend((f"{label}{i}", item) for i, item in enumerate(items))
        else:
            labelled.append((label, value))
    return labelled


def _returned_labels(returned: Any) -> list[tuple[str, Any]]:
    if isinstance(returned, dict):
        mapping = cast("dict[Any, Any]", returned)
        return [(str(key), value) for key, value in mapping.items()]
    fields = getattr(returned, "_fields", None)
    if isinstance(returned, tuple) and fields is not None:
        values = cast("tuple[Any, ...]", returned)
        return list(zip(cast("tuple[str, ...]", fields), values))
    if isinstance(returned, (tuple, list)):
        items = cast("Sequence[Any]", returned)
        return [(f"out{i}", item) for i, item in enumerate(items)]
    return [("out0", returned)]


def _tensors(
    pairs: list[tuple[str, Any]], state: TraceState, what: str
) -> list[tuple[str, Tensor]]:
    # Other Python values (flags, sizes) are not part of a signature.
    tensors = [(label, v) for label, v in pairs if isinstance(v, Tensor)]
    for label, tensor in tensors:
        tensor.check_trace(state, f"fxdsl.module_call: {what} {label!r}")
    return tensors


def _value_name(state: TraceState, value: SSAValue, label: str) -> str:
    """The value's name; a fresh one made from `label` if it has none."""
    if value in state.arg_names:
        return state.arg_names[value]
    if isinstance(value.owner, Operation) and (existing := value_name(value)):
        return existing
    name = unique_name(label, state.names)
    state.names.add(name)
    if isinstance(value.owner, Operation):
        set_value_name(value, name)
    else:
        state.arg_names[value] = name
    return name
