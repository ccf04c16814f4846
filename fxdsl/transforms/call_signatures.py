"""Preserved module call signatures, for `graph-unflatten` and `graph-flatten`.

A value can carry a stable name (`graph.name`, see `fxdsl.ir.graph`):
an op's attribute names its result (a list of names, `""` for none, on a
multi-result op), a function argument's arg attribute names the argument.
Names are unique within a function. The module attribute
`graph.call_signatures = {"enc" = #graph.signature<("x", "m") -> ("y")>}`
lists, by torch.export call name (`fqn`, `fqn@1`, ...), module calls whose
interface must follow the recorded names and order (torch.export's
`preserve_module_call_signature`).

Here: reading and writing names, resolving a signature to values and checking
it against the call's ops before anything is outlined (`resolve_signatures`,
raising `SignatureError`), and rewriting an outlined call to the signature
(`apply_signature`). How the interface reaches the outliner: a *keeper* op, a
member of the call placed at the end of the block, uses every signature input
and output, so the outliner makes unused inputs arguments and makes nested
calls return values the signature needs; `apply_signature` removes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
)
from xdsl.dialects.test import TestOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from fxdsl.ir.graph import CALL_SIGNATURES, NAME, SCOPE, ScopeAttr, SignatureAttr
from fxdsl.ir.utils import arg_attr, location_of, reorder_arguments
from fxdsl.transforms.outlining import Outlined, used_values
from fxdsl.transforms.scope_tree import (
    CallNode,
    call_name,
    module_frame,
    scope_frames,
)


class SignatureError(Exception):
    """A malformed name or signature, or a signature its call does not fit."""


# -- names ------------------------------------------------------------------ #


def result_names(op: Operation) -> list[str]:
    """The names of `op`'s results ("" for unnamed)."""
    attr = op.attributes.get(NAME)
    count = len(op.results)
    if attr is None:
        return [""] * count
    if isinstance(attr, StringAttr) and count == 1:
        return [attr.data]
    if isinstance(attr, ArrayAttr) and len(attr.data) == count:
        items: tuple[Attribute, ...] = attr.data
        if all(isinstance(a, StringAttr) for a in items):
            return [a.data for a in items if isinstance(a, StringAttr)]
    where = location_of(op) or op.name
    raise SignatureError(
        f"{where}: {NAME} of {op.name} must be a string (one result) or a list "
        f"of {count} strings, got {attr}"
    )


def _arg_attrs(function: func.FuncOp) -> list[dict[str, Attribute]]:
    attrs = function.arg_attrs.data if function.arg_attrs is not None else ()
    dicts = [dict(a.data) for a in attrs if isinstance(a, DictionaryAttr)]
    return dicts + [{} for _ in range(len(function.args) - len(dicts))]


def _owning_function(arg: BlockArgument) -> func.FuncOp | None:
    owner = arg.block.parent_op()
    return owner if isinstance(owner, func.FuncOp) else None


def value_name(value: SSAValue) -> str | None:
    """The `graph.name` of a value, if it has one."""
    if isinstance(value, BlockArgument):
        function = _owning_function(value)
        if function is None:
            return None
        return arg_attr(function, value.index, NAME)
    assert isinstance(value.owner, Operation)
    return result_names(value.owner)[value.index] or None


def set_value_name(value: SSAValue, name: str) -> None:
    """Name `value`: an arg attribute, or the op's `graph.name` (kept first
    among its attributes, so that re-created ops print as they were)."""
    if isinstance(value, BlockArgument):
        function = _owning_function(value)
        assert function is not None, "only function arguments can be named"
        attrs = _arg_attrs(function)
        attrs[value.index][NAME] = StringAttr(name)
        function.arg_attrs = ArrayAttr(DictionaryAttr(a) for a in attrs)
        return
    op = value.owner
    assert isinstance(op, Operation)
    names = result_names(op)
    names[value.index] = name
    _set_result_names(op, names)


def _set_result_names(op: Operation, names: list[str]) -> None:
    rest = {k: v for k, v in op.attributes.items() if k != NAME}
    op.attributes.clear()
    if any(names):
        single = len(names) == 1
        op.attributes[NAME] = (
            StringAttr(names[0]) if single else ArrayAttr(StringAttr(n) for n in names)
        )
    op.attributes.update(rest)


def strip_names(block: Block, names: set[str]) -> None:
    """Remove these names from the ops of `block` (they can be restored from
    the module's signatures, and would keep identical calls from sharing)."""
    for op in block.ops:
        current = result_names(op)
        if any(n in names for n in current):
            _set_result_names(op, ["" if n in names else n for n in current])


def named_values(function: func.FuncOp) -> dict[str, SSAValue]:
    """Name -> value for the arguments and top-level ops of `function`."""
    named: dict[str, SSAValue] = {}
    block = function.body.block
    pairs: list[tuple[str | None, SSAValue]] = [(value_name(a), a) for a in block.args]
    for op in block.ops:
        pairs.extend(zip(result_names(op), op.results))
    for name, value in pairs:
        if not name:
            continue
        if name in named:
            raise SignatureError(
                f"value name '{name}' is used twice in @{function.sym_name.data}"
            )
        named[name] = value
    return named


# -- the module attribute ----------------------------------------------------- #


def module_signatures(module: ModuleOp) -> dict[str, SignatureAttr]:
    """The module's `graph.call_signatures`, checked ({} when absent)."""
    attr = module.attributes.get(CALL_SIGNATURES)
    if attr is None:
        return {}
    if isinstance(attr, DictionaryAttr):
        signatures = {
            k: v for k, v in attr.data.items() if isinstance(v, SignatureAttr)
        }
        if len(signatures) == len(attr.data):
            return signatures
    raise SignatureError(
        f"{CALL_SIGNATURES} must map call names to #graph.signature, got {attr}"
    )


def module_call_names(module: ModuleOp) -> set[str]:
    """Call names of the module calls already in `module` (`func.call`s with
    `graph.module`), numbered as `graph-flatten` numbers them."""
    functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    calls = {
        name: [op for op in f.walk() if module_frame(op) is not None]
        for name, f in functions.items()
    }
    targets = {c.callee.string_value() for ops in calls.values() for c in ops}
    found: set[str] = set()

    def visit(name: str, outer: str, counters: dict[str, int], path: set[str]) -> None:
        for call in calls.get(name, ()):
            relative = module_frame(call)[0]  # type: ignore[index]
            fqn = f"{outer}.{relative}" if outer else relative
            index = counters.get(fqn, 0)
            counters[fqn] = index + 1
            found.add(call_name(fqn, index))
            callee = call.callee.string_value()
            if callee not in path:  # a recursive module call is not a tree
                visit(callee, fqn, counters, path | {callee})

    for name in functions:
        if name not in targets:
            visit(name, "", {}, {name})
    return found


# -- before outlining --------------------------------------------------------- #


@dataclass(eq=False)
class Resolved:
    """A call's signature resolved to the values it names."""

    node: CallNode
    signature: SignatureAttr
    inputs: list[SSAValue]
    outputs: list[SSAValue]
    keeper: Operation | None = None


def describe(value: SSAValue) -> str:
    """A value for error messages: its name, or where it comes from."""
    name = value_name(value)
    if name is not None:
        return f"value '{name}'"
    if isinstance(value, BlockArgument):
        return f"argument #{value.index}"
    assert isinstance(value.owner, Operation)
    where = location_of(value.owner)
    return f"the result of {value.owner.name}" + (f" at {where}" if where else "")


def resolve_signatures(
    function: func.FuncOp,
    nodes: Sequence[CallNode],
    signatures: dict[str, SignatureAttr],
    is_weight: Callable[[SSAValue], bool],
) -> list[Resolved]:
    """Resolve the signatures of `nodes` in `function` and check that each
    call's ops fit it: names exist, inputs come from outside, outputs from
    inside (or are inputs), every other value crossing the call's boundary is
    in it (weights excepted)."""
    selected = [n for n in nodes if n.call_name in signatures]
    if not selected:
        return []
    named = named_values(function)
    block = function.body.block
    inside = _ops_inside(block, selected)
    resolved: list[Resolved] = []
    for node in selected:
        signature = signatures[node.call_name]
        where = f"call signature of '{node.call_name}'"

        def lookup(name: str, where: str = where) -> SSAValue:
            if name not in named:
                raise SignatureError(
                    f"{where}: no value named '{name}' in @{function.sym_name.data}"
                )
            return named[name]

        inputs = [lookup(n) for n in signature.inputs]
        outputs = [lookup(n) for n in signature.outputs]
        ops = inside[node]
        members = set(ops)
        for name, value in zip(signature.inputs, inputs):
            if _producer(block, value) in members:
                raise SignatureError(
                    f"{where}: input '{name}' is defined inside the call"
                )
        for name, value in zip(signature.outputs, outputs):
            if _producer(block, value) not in members and value not in inputs:
                raise SignatureError(
                    f"{where}: output '{name}' is defined outside the call and is "
                    "not an input"
                )
        _check_boundary(
            block, ops, members, set(inputs), set(outputs), is_weight, where
        )
        resolved.append(Resolved(node, signature, inputs, outputs))
    return resolved


def _producer(block: Block, value: SSAValue) -> Operation | None:
    if isinstance(value.owner, Operation):
        return block.find_ancestor_op_in_block(value.owner)
    return None


def _ops_inside(
    block: Block, nodes: Iterable[CallNode]
) -> dict[CallNode, list[Operation]]:
    """The ops of each call, its submodules' included, in block order."""
    by_path = {node.path: node for node in nodes}
    inside: dict[CallNode, list[Operation]] = {node: [] for node in by_path.values()}
    for op in block.ops:
        frames = scope_frames(op)
        for depth in range(1, len(frames) + 1):
            node = by_path.get(frames[:depth])
            if node is not None:
                inside[node].append(op)
    return inside


def _check_boundary(
    block: Block,
    ops: list[Operation],
    members: set[Operation],
    inputs: set[SSAValue],
    outputs: set[SSAValue],
    is_weight: Callable[[SSAValue], bool],
    where: str,
) -> None:
    for op in ops:
        for value in used_values(op):
            if _producer(block, value) in members or value in inputs:
                continue
            if not is_weight(value):
                raise SignatureError(
                    f"{where}: {describe(value)} is used inside the call but is not "
                    "a signature input"
                )
        for result in op.results:
            if result in outputs:
                continue
            users = (block.find_ancestor_op_in_block(u.operation) for u in result.uses)
            if any(user not in members for user in users):
                raise SignatureError(
                    f"{where}: {describe(result)} is used outside the call but is "
                    "not a signature output"
                )


def add_keepers(block: Block, resolved: Iterable[Resolved]) -> None:
    """Make every signature value part of its call's interface (see the
    module docstring): one keeper op per call, at the end of the block."""
    terminator = block.last_op
    assert terminator is not None
    for entry in resolved:
        keeper = TestOp([*entry.inputs, *entry.outputs])
        keeper.attributes[SCOPE] = ScopeAttr(entry.node.path)
        block.insert_op_before(keeper, terminator)
        entry.node.members.append(keeper)
        entry.keeper = keeper


# -- after outlining ---------------------------------------------------------- #


def apply_signature(
    outlined: Outlined,
    entry: Resolved,
    order: Sequence[int],
    weight_attrs: Callable[[int], DictionaryAttr],
) -> None:
    """Give the outlined call of `entry` the signature's interface: its
    inputs in order (each its own argument, named `graph.name`), then the
    other arguments (weights) in `order` with `weight_attrs(index)`; its
    outputs in order. Replaces the call op (updating `outlined`)."""
    callee, old_call, keeper = outlined.callee, outlined.op, entry.keeper
    assert callee is not None
    assert keeper is not None
    old = callee.body.block
    n_inputs = len(entry.inputs)
    kept = list(keeper.operands)
    old.erase_op(keeper)
    slots = [_arg_index(v, old) for v in kept[:n_inputs]]
    layout = slots + [i for i in order if i not in slots]
    moved = reorder_arguments(callee, layout)  # a repeated input: first is used
    new = callee.body.block
    returned = new.last_op
    assert isinstance(returned, func.ReturnOp)
    natural = list(returned.operands)
    outputs = [moved.get(v, v) for v in kept[n_inputs:]]
    new.insert_op_before(func.ReturnOp(*outputs), returned)
    new.erase_op(returned)
    result_types = [v.type for v in outputs]
    callee.function_type = FunctionType.from_lists(new.arg_types, result_types)
    names = [DictionaryAttr({NAME: StringAttr(n)}) for n in entry.signature.inputs]
    callee.arg_attrs = ArrayAttr(names + [weight_attrs(i) for i in layout[n_inputs:]])
    # Not `outlined.inputs`: a sibling call rewritten before may have
    # replaced one of them (its old results are dead).
    operands = [old_call.operands[i] for i in layout]
    call = func.CallOp(callee.sym_name.data, operands, result_types)
    call.location = old_call.location
    call.attributes.update(old_call.attributes)
    block = old_call.parent
    assert block is not None
    block.insert_op_before(call, old_call)
    for result, value in zip(old_call.results, natural):
        result.replace_all_uses_with(call.results[outputs.index(value)])
    block.erase_op(old_call)
    outlined.op, outlined.inputs = call, operands


def _arg_index(value: SSAValue, block: Block) -> int:
    # Every signature input is used (by the keeper) and defined outside the
    # call, so the outliner made it an argument.
    assert isinstance(value, BlockArgument)
    assert value.block is block
    return value.index
