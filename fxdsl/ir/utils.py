"""Small IR queries that any layer may use (interpreters, rewrites, passes).

Kept free of fxdsl imports so that low-level modules such as the reference
interpreter need not import the rewrite API to find a module's functions.
"""

from __future__ import annotations

from collections.abc import Container, Hashable

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.traits import IsTerminator, is_side_effect_free
from xdsl.utils.exceptions import PassFailedException, VerifyException


def location_of(op: Operation | None) -> str | None:
    """`file:line:col` of the op or its closest located ancestor."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return None


class OpFailure(PassFailedException):
    """A pass cannot handle `op`. `message` says why, after the pass name;
    `where` is the op's `file:line:col` when known. `str()` is
    `where: message`, so a Python caller sees the location; the drivers
    print `where: error: message`, as mlir-opt puts a diagnostic at its op."""

    def __init__(self, message: str, op: Operation | None = None):
        # (op is optional so that copy and pickle, which pass str(), work)
        self.message, self.where = message, location_of(op)
        super().__init__(f"{self.where}: {message}" if self.where else message)


def with_provenance(ops: list[Operation], source: Operation) -> list[Operation]:
    """`ops`, each given the attributes (`scope`, ...) of `source`, the op
    they replace: provenance survives every pass."""
    for op in ops:
        op.attributes |= dict(source.attributes)
    return ops


def functions(module_or_func: Operation) -> list[func.FuncOp]:
    """The `func.func`s of a module (or the function itself), in order."""
    if isinstance(module_or_func, func.FuncOp):
        return [module_or_func]
    if isinstance(module_or_func, ModuleOp):
        return [op for op in module_or_func.ops if isinstance(op, func.FuncOp)]
    raise TypeError(
        f"expected a builtin.module or func.func, got {module_or_func.name}"
    )


def entry_function(module: ModuleOp, entry: str | None = None) -> func.FuncOp:
    """The function a module runs, by the one rule every runner and pass
    uses: function `entry` (`@` optional) when named, which must have a
    body; else the first public function with a body, else the first
    function with a body (declarations are never an entry). Raises
    ValueError saying which rule failed, naming the module's functions."""
    funcs = functions(module)
    if entry is None:
        defined = [f for f in funcs if not f.is_declaration]
        public = [f for f in defined if _is_public(f)]
        chosen = next(iter(public or defined), None)
        if chosen is None:
            raise ValueError("the module has no func.func with a body to run")
        return chosen
    name = entry.removeprefix("@")
    for candidate in funcs:
        if candidate.sym_name.data == name:
            if candidate.is_declaration:
                raise ValueError(f"function @{name} is a declaration without a body")
            return candidate
    known = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
    raise ValueError(f"no function @{name} in the module (functions: {known})")


def reachable_module(module: ModuleOp, entry: str) -> ModuleOp:
    """A clone of `module` holding function `entry` and the functions it
    refers to (calls, at any depth), besides every top-level op that is not
    a function; other functions are left out, so lowering one entry of a
    module of many costs what that entry needs (a module of 100 test
    programs lowered whole once per entry took 80 s)."""
    by_name = {f.sym_name.data: f for f in functions(module)}
    wanted: set[str] = set()
    pending = [entry_function(module, entry).sym_name.data]
    while pending:
        name = pending.pop()
        if name in wanted or name not in by_name:
            continue
        wanted.add(name)
        for op in by_name[name].walk():
            attrs = [*op.properties.values(), *op.attributes.values()]
            while attrs:  # nested in arrays and dictionaries too
                attr = attrs.pop()
                if isinstance(attr, SymbolRefAttr):
                    pending.append(attr.root_reference.data)
                elif isinstance(attr, ArrayAttr):
                    attrs.extend(attr.data)
                elif isinstance(attr, DictionaryAttr):
                    attrs.extend(attr.data.values())
    kept = [
        op.clone()
        for op in module.ops
        if not isinstance(op, func.FuncOp) or op.sym_name.data in wanted
    ]
    return ModuleOp(kept, dict(module.attributes), module.sym_name)


def _is_public(function: func.FuncOp) -> bool:
    visibility = function.sym_visibility
    return visibility is None or visibility.data == "public"


def arg_attr(function: func.FuncOp, index: int, key: str) -> str | None:
    """The string attribute `key` of argument `index` of `function`, if set."""
    attrs = function.arg_attrs
    if attrs is None or index >= len(attrs.data):
        return None
    value = attrs.data[index].data.get(key)
    return value.data if isinstance(value, StringAttr) else None


def unique_name(base: str, taken: Container[str], separator: str = "_") -> str:
    """`base`, or else `base_1`, `base_2`... (joined by `separator`): the
    first that is not in `taken`. Adding it to `taken` is the caller's."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}{separator}{n}"
    return name


def single_block_bodies(
    root: Operation, pass_name: str
) -> list[tuple[func.FuncOp, Block]]:
    """Every defined `func.func` under `root` with its one block; declarations
    are skipped. A function with several blocks (`cf` control flow) fails
    `pass_name` with a diagnostic naming it: passes that rewrite straight-line
    dataflow (the GPU lowering) do not handle branches."""
    bodies: list[tuple[func.FuncOp, Block]] = []
    for op in root.walk():
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        if len(op.body.blocks) > 1:
            raise OpFailure(
                f"{pass_name}: @{op.sym_name.data} has {len(op.body.blocks)} "
                "blocks; only single-block functions (no control flow) are "
                "supported",
                op,
            )
        bodies.append((op, op.body.block))
    return bodies


def reorder_arguments(
    function: func.FuncOp, layout: list[int]
) -> dict[SSAValue, SSAValue]:
    """Give `function` a new entry block whose arguments are the old ones at
    indices `layout` (names kept; an index given twice keeps its uses on the
    first) and move the body into it. Returns old argument -> new argument;
    the function type is the caller's to update (its results may change)."""
    old = function.body.block
    new = Block(arg_types=[old.args[i].type for i in layout])
    moved: dict[SSAValue, SSAValue] = {}
    for arg, index in zip(new.args, layout):
        if old.args[index] not in moved:
            moved[old.args[index]] = arg
            arg.name_hint = old.args[index].name_hint
            old.args[index].replace_all_uses_with(arg)
    for op in list(old.ops):
        old.detach_op(op)
        new.add_op(op)
    function.body.detach_block(old)
    function.body.add_block(new)
    return moved


def block_structure(
    block: Block,
    *,
    attributes: bool = True,
    number: dict[SSAValue, int] | None = None,
) -> tuple[Hashable, ...]:
    """The structure of `block` as nested tuples: its argument types and, per
    op, its name, operand wiring (values numbered in definition order),
    result types, properties, attributes (left out with `attributes=False`)
    and nested regions. Equal structures compute the same thing from equal
    arguments. Raises KeyError when an op reads a value defined outside."""
    number = {} if number is None else number
    for arg in block.args:
        number[arg] = len(number)
    rows: list[Hashable] = [tuple(arg.type for arg in block.args)]
    for op in block.ops:
        rows.append((
            op.name,
            tuple(number[v] for v in op.operands),
            tuple(r.type for r in op.results),
            tuple(sorted(op.properties.items())),
            tuple(sorted(op.attributes.items())) if attributes else (),
            tuple(
                tuple(block_structure(b, attributes=attributes, number=number)
                      for b in region.blocks)
                for region in op.regions
            ),
        ))  # fmt: skip
        for result in op.results:
            number[result] = len(number)
    return tuple(rows)


def block_key(block: Block) -> Hashable | None:
    """`block_structure` without discardable attributes (provenance `scope`,
    names), as a dict key; None when the block reads a value from outside or
    a property does not hash."""
    try:
        key = block_structure(block, attributes=False)
        hash(key)
    except (KeyError, TypeError):
        return None
    return key


def erase_dead(rewriter: PatternRewriter, ops: list[Operation]) -> None:
    """Erase `ops` once unused, then every side-effect-free producer they
    leave without uses (a rewrite's replaced chain and what only it read)."""
    pending = list(ops)
    while pending:
        op = pending.pop(0)
        if op.parent is None or any(r.uses for r in op.results):
            continue
        producers = [o.owner for o in op.operands]
        rewriter.erase(op)
        pending.extend(
            p for p in producers if isinstance(p, Operation) and is_side_effect_free(p)
        )


class DominanceError(VerifyException):
    """An operand whose definition does not dominate its use; `op` uses it."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


def verify_ssa(root: Operation) -> None:
    """`root.verify()` plus SSA dominance, which xDSL's verifier does not
    check: the parser resolves forward references, so `%b = neg %a` before
    `%a = exp %x`, or a cycle, would otherwise reach the passes. Raises
    `DominanceError` naming the first (pre-order) offending use. Linear in
    the number of operands, plus a block-dominance analysis per multi-block
    region that needs one."""
    root.verify()
    position: dict[Operation, int] = {}
    for op in root.walk():
        for region in op.regions:
            for block in region.blocks:
                position.update((inner, k) for k, inner in enumerate(block.ops))
    regions: dict[Region, DominanceInfo] = {}
    for user in root.walk():
        for k, value in enumerate(user.operands):
            if not _dominates(value, user, position, regions):
                definer = value.op.name if isinstance(value, OpResult) else "a block"
                raise DominanceError(
                    f"{user.name}: operand #{k} does not dominate this use "
                    f"(defined by {definer})",
                    user,
                )


def _dominates(
    value: SSAValue,
    user: Operation,
    position: dict[Operation, int],
    regions: dict[Region, DominanceInfo],
) -> bool:
    if isinstance(value, OpResult):
        if value.op not in position:
            return True  # defined outside the verified root
        block, index = value.op.parent_block(), position[value.op]
    elif isinstance(value, BlockArgument):
        block, index = value.block, -1
    else:
        return True
    if block is None or block.parent is None:
        return True
    # the ancestor of `user` (or `user`) in the defining block's region
    anchor: Operation | None = user
    while anchor is not None:
        parent = anchor.parent_block()
        if parent is not None and parent.parent is block.parent:
            break
        anchor = anchor.parent_op()
    if anchor is None:
        return False
    anchor_block = anchor.parent_block()
    if anchor_block is block:
        return index < position[anchor]
    region = block.parent
    if region not in regions:  # computed once per region, only when needed
        regions[region] = DominanceInfo(region)
    info = regions[region]
    assert anchor_block is not None
    if isinstance(value, BlockArgument):
        return info.dominates(block, anchor_block)
    return info.strictly_dominates(block, anchor_block)


def erase_unused(block: Block) -> None:
    """Erase the side-effect-free ops of `block` whose results nothing uses,
    last first (so a chain that only fed dead ops goes too)."""
    for op in reversed(list(block.ops)):
        if op.has_trait(
            IsTerminator, value_if_unregistered=False
        ) or not is_side_effect_free(op):
            continue
        if all(not result.uses for result in op.results):
            block.erase_op(op)
