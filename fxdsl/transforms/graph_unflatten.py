"""`graph-unflatten`: rebuild the module hierarchy from `scope`.

torch.export.unflatten on the `graph` dialect. Every module call in a
function's ops (`fxdsl.transforms.scope_tree.call_tree`) becomes a private
`func.func` named after the call (`@"layers.0.attn"`, a second call with
another graph `@"layers.0.attn@1"`), called from its parent module's function
(or from the original function for top-level modules) with a `func.call` that
carries `graph.module = #graph.scope<(fqn relative to the caller, call index
among the caller's calls of it, type)>`. Calls are outlined deepest first with
`fxdsl.transforms.outlining`, so a value flowing between modules that are not
nested (a skip connection across siblings) is threaded through their common
ancestor; ops of one call need not be contiguous, but interleavings that would
make a cycle between calls are an error.

Interface of a module function: its arguments are the values defined outside
and used inside, in order of first use in the body, then its weights (also
in order of first use): a canonical order, so calls with identical bodies
share a function whichever values reach them. A weight is an argument of the
original function marked `graph.param = "<name>"` whose name lies inside the
module's fqn (`layers.0.attn.weight` in `layers.0.attn` and in `layers.0`);
in the module's function it carries `graph.param` relative to the module
(`"weight"`, `"attn.weight"`). A weight the model reaches under several names
(`graph.aliases`: a shared submodule, `self.mod3 = self.mod2`) lies inside
each module one of its names does, and is named there by the first of them
(with `graph.aliases` relative to the module where several lie inside): so
the calls of one module object under its several names share a function, as
in torch. Weights stay arguments (the entry signature is unchanged, so
callers and numerics are unaffected) rather than globals: a module passes
down only the weights its submodules own. Results: the values defined inside
and used outside, in order of definition. The bodies of module functions
carry no `scope` (it is implied by the call chain).

Sharing: calls whose functions are identical (same body up to value names,
argument attributes included) call one function, named after the first call
(torch.export's `_deduplicate_modules`, both for repeated calls of one module
and for different modules); each call site keeps its own fqn in `graph.module`.
`graph-flatten` inverts the pass exactly when call indices count calls in
order (as the tracer numbers them).

Composing with `graph-dedup`: functions marked `graph.dedup` are left alone
(their ops keep the scopes of one representative copy only). Run
`graph-unflatten` first when the model's modules are what repeats: identical
module calls then share functions (dedup's job at module granularity), and a
later `graph-dedup` only finds repeats inside or across module functions.
Run `graph-dedup` first and each module call that was one deduplicated copy
becomes a module function holding just the call to `@dedup_<n>`.

Preserved call signatures (torch.export's `preserve_module_call_signature`):
a call whose call name (`fqn`, `fqn@1`, ...) is a key of the module attribute
`graph.call_signatures` gets exactly its recorded interface
(`fxdsl.transforms.call_signatures`): the arguments are the signature's
inputs in order (an input unused inside is an unused argument, a value listed
twice is two arguments), each with the arg attribute `graph.name`, then its
weights; the results are the signature's outputs in order (returned even when
unused outside; an output may be an input). Values are named by `graph.name`.
It is an error (naming the call and the value) when a name resolves to
nothing, an input is defined inside the call, an output is defined outside
and is not an input, a value crossing the call's boundary is not in the
signature (weights excepted), or a signature names a call that occurs
nowhere in the module (as in torch). Names the signatures mention are removed
from the bodies of module functions (the module attribute stays, and
`graph-flatten` restores them from it), so calls with identical bodies and
signatures of the same shape still share a function; `graph.name` on
arguments does not count for sharing, a shared function shows the names of
its first call.

State mutation: the dialect has no op that writes module state; once
one exists (a buffer store naming `<fqn>.<buffer>`), it will be placed in the
module owning the buffer by name, as weights are.

Options: `share` (default true): share identical module functions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.graph import ALIASES, NAME, PARAM, SCOPE, ScopeAttr, SignatureAttr
from fxdsl.ir.utils import OpFailure, reorder_arguments, unique_name
from fxdsl.transforms.call_signatures import (
    SignatureError,
    add_keepers,
    apply_signature,
    module_call_names,
    module_signatures,
    resolve_signatures,
    strip_names,
)
from fxdsl.transforms.outlining import OutlineCycleError, Outlined, outline_groups
from fxdsl.transforms.scope_tree import (
    MODULE_ATTR,
    CallNode,
    ScopeError,
    call_tree,
    structural_key,
)

DEDUP_ATTR = "graph.dedup"
"""Marks the functions `graph-dedup` outlines."""


def weight_names(function: func.FuncOp) -> dict[SSAValue, tuple[str, ...]]:
    """Arguments marked `graph.param`, with every name of each: its
    `graph.aliases`, else its `graph.param` alone. A PassFailedException
    where `graph.aliases` is not a list of strings holding the argument's
    `graph.param`."""
    names: dict[SSAValue, tuple[str, ...]] = {}
    attrs = function.arg_attrs.data if function.arg_attrs is not None else ()
    for arg, arg_attrs in zip(function.body.block.args, attrs):
        param = arg_attrs.data.get(PARAM)
        aliases = arg_attrs.data.get(ALIASES)
        if aliases is None and isinstance(param, StringAttr):
            names[arg] = (param.data,)
        elif aliases is not None:
            names[arg] = _aliases(function, arg.index, param, aliases)
    return names


def _aliases(
    function: func.FuncOp, index: int, param: Attribute | None, aliases: Attribute
) -> tuple[str, ...]:
    entries = aliases.data if isinstance(aliases, ArrayAttr) else ()
    names = tuple(n.data for n in entries if isinstance(n, StringAttr))
    named = isinstance(param, StringAttr) and param.data in names
    if named and len(names) == len(entries):
        return names
    raise PassFailedException(
        f"graph-unflatten: argument {index} of @{function.sym_name.data}: "
        f"{ALIASES} must be a list of names holding its {PARAM} "
        f"({param or 'none'}), got {aliases}"
    )


def _permute_inputs(outlined: Outlined, order: list[int]) -> None:
    """Reorder the callee's arguments (and the call's operands) to `order`."""
    callee = outlined.callee
    assert callee is not None
    reorder_arguments(callee, order)
    outputs = callee.function_type.outputs.data
    arg_types = callee.body.block.arg_types
    callee.function_type = FunctionType.from_lists(arg_types, outputs)
    call = outlined.op
    call.operands = tuple(call.operands[i] for i in order)
    outlined.inputs = [outlined.inputs[i] for i in order]


def _symbol_names(module: ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.ops:
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(name, StringAttr):
            names.add(name.data)
    return names


def _param_attrs(names: tuple[str, ...]) -> DictionaryAttr:
    attrs: dict[str, Attribute] = {}
    if names:
        attrs[PARAM] = StringAttr(names[0])
    if len(names) > 1:
        attrs[ALIASES] = ArrayAttr(StringAttr(name) for name in names)
    return DictionaryAttr(attrs)


@dataclass
class _Unflattener:
    """Unflattens one function of `module`."""

    module: ModuleOp
    function: func.FuncOp
    share: bool
    signatures: dict[str, SignatureAttr]

    def __post_init__(self) -> None:
        """Read the call tree and check the signatures (changes nothing)."""
        self.weights = weight_names(self.function)
        self.shared: dict[Hashable, str] = {}
        self.taken: set[str] = set()
        signatures = self.signatures.values()
        self.restorable = {n for s in signatures for n in (*s.inputs, *s.outputs)}
        try:
            self.nodes = call_tree(self.function.body.block)
            resolved = resolve_signatures(
                self.function, self.nodes, self.signatures, self.weights.__contains__
            )
        except ScopeError as error:
            raise OpFailure(f"graph-unflatten: {error}", error.op) from error
        except SignatureError as error:
            raise PassFailedException(f"graph-unflatten: {error}") from error
        self.resolved = {entry.node: entry for entry in resolved}

    def fresh_name(self, base: str) -> str:
        """`base`, or `base_1`, `base_2`...: a name no symbol has yet."""
        name = unique_name(base, self.taken)
        self.taken.add(name)
        return name

    def run(self) -> None:
        # Every symbol name, collected once: a lookup per new function would
        # make the pass quadratic in the number of module calls.
        self.taken = _symbol_names(self.module)
        add_keepers(self.function.body.block, self.resolved.values())
        levels: dict[int, list[CallNode]] = defaultdict(list)
        for node in self.nodes:
            levels[node.depth].append(node)
        for depth in sorted(levels, reverse=True):
            self.outline_level(levels[depth])

    def outline_level(self, level: list[CallNode]) -> None:
        names = [self.fresh_name(node.call_name) for node in level]
        try:
            outlined = outline_groups([n.members for n in level], "func", names)
        except OutlineCycleError as error:
            calls = " -> ".join(level[i].call_name for i in error.cycle)
            raise PassFailedException(
                f"graph-unflatten: outlining module calls {calls} would create a "
                "cycle (their ops interleave with ops that depend on them)"
            ) from error
        for node, result in zip(level, outlined):
            self.finish(node, result)

    def finish(self, node: CallNode, outlined: Outlined) -> None:
        callee = outlined.callee
        assert callee is not None
        for op in callee.body.block.ops:
            op.attributes.pop(SCOPE, None)
        if self.restorable:
            strip_names(callee.body.block, self.restorable)
        relative = [self.relative_weight(node, v) for v in outlined.inputs]
        # Canonical: first use in the body, weights last. Where a value comes
        # from (an argument of the caller or not) must not count, or identical
        # calls reached in another order would not share a function.
        order = sorted(range(len(relative)), key=lambda i: (bool(relative[i]), i))
        entry = self.resolved.get(node)
        if entry is not None:
            apply_signature(outlined, entry, order, lambda i: _param_attrs(relative[i]))
        else:
            _permute_inputs(outlined, order)
            callee.arg_attrs = ArrayAttr(_param_attrs(relative[i]) for i in order)
        call = outlined.op
        _, _, type_name = node.frame
        frame = (node.relative_fqn, node.relative_index, type_name)
        call.attributes[MODULE_ATTR] = ScopeAttr((frame,))
        if node.parent is not None:
            call.attributes[SCOPE] = ScopeAttr(node.parent.path)
            node.parent.members.append(call)
        if not self.share:
            return
        key = structural_key(callee, frozenset({NAME}))
        existing = self.shared.setdefault(key, callee.sym_name.data)
        if existing != callee.sym_name.data:
            self.taken.discard(callee.sym_name.data)
            self.module.body.block.erase_op(callee)
            call.properties["callee"] = SymbolRefAttr(existing)

    def relative_weight(self, node: CallNode, value: SSAValue) -> tuple[str, ...]:
        """The weight's names inside `node`'s module, or () (not a weight of
        this module or its submodules)."""
        prefix = node.fqn + "."
        names = self.weights.get(value, ())
        return tuple(n[len(prefix) :] for n in names if n.startswith(prefix))


def unflatten(module: ModuleOp, share: bool = True) -> ModuleOp:
    """Unflatten every function of `module` in place (see the module
    docstring); returns `module`."""
    try:
        signatures = module_signatures(module)
    except SignatureError as error:
        raise PassFailedException(f"graph-unflatten: {error}") from error
    workers = [
        _Unflattener(module, function, share, signatures)
        for function in module.ops
        if isinstance(function, func.FuncOp)
        and len(function.body.blocks) == 1
        and DEDUP_ATTR not in function.attributes
    ]
    if signatures:
        # Calls unflattened before count: running the pass twice is no error.
        present = module_call_names(module)
        present.update(node.call_name for worker in workers for node in worker.nodes)
        missing = sorted(set(signatures) - present)
        if missing:
            raise PassFailedException(
                f"graph-unflatten: call signature for '{missing[0]}': no module "
                "call of that name in the module"
            )
    for worker in workers:
        worker.run()
    return module


def flatten(module: ModuleOp) -> ModuleOp:
    """Inline every module call back (`graph-flatten`); returns `module`."""
    from fxdsl.transforms.graph_flatten import flatten as flatten_module

    return flatten_module(module)


@dataclass(frozen=True)
class GraphUnflattenPass(ModulePass):
    """Outline each module call recorded in `scope` into its own function
    (torch.export.unflatten). Option `share` (default true): identical module
    functions are shared."""

    name = "graph-unflatten"

    share: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unflatten(op, self.share)
