"""The module-call tree of a flat function, read from the ops' `scope`.

Used by `graph-unflatten`. Every op's `scope` is a stack of frames
`(fqn, call index, type)`, outermost first; every prefix of a stack is one
module call (`CallNode`). Ops whose stack is exactly a node's path are that
node's direct members. Frames must nest by name (`a` then `a.b`).

Also here: `structural_key`, a hashable summary of a function body, equal for
two functions exactly when they differ at most in value names, locations and
symbol name, so that identical module calls can share one function.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Block, Operation

from fxdsl.ir.graph import SCOPE, ScopeAttr, ScopeFrame
from fxdsl.ir.utils import block_structure

MODULE_ATTR = "graph.module"
"""On a `func.call` made by unflatten: the frame of the module it calls, with
the fqn relative to the caller's module and the call index counted among the
caller's calls of that fqn: `#graph.scope<("attn", 0, "Attention")>`."""


class ScopeError(Exception):
    """A `scope` attribute that is not a well-formed module call stack;
    `op` is the op that carries it."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


@dataclass(eq=False)
class CallNode:
    """One module call: its frames from the root, members and children."""

    path: tuple[ScopeFrame, ...]
    parent: CallNode | None
    relative_index: int
    """How many earlier calls of the same fqn its parent call made."""
    members: list[Operation] = field(default_factory=list[Operation])
    """Ops directly in this call, in block order."""

    @property
    def frame(self) -> ScopeFrame:
        return self.path[-1]

    @property
    def fqn(self) -> str:
        return self.frame[0]

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def call_name(self) -> str:
        """torch.export's name of the call: `fqn`, `fqn@1`, `fqn@2`..."""
        fqn, index, _ = self.frame
        return call_name(fqn, index)

    @property
    def relative_fqn(self) -> str:
        """The fqn without its parent module's prefix."""
        if self.parent is None:
            return self.fqn
        return self.fqn[len(self.parent.fqn) + 1 :]


def call_name(fqn: str, index: int) -> str:
    """torch.export's name of call `index` of module `fqn`."""
    return fqn if index == 0 else f"{fqn}@{index}"


def module_frame(op: Operation) -> ScopeFrame | None:
    """The `graph.module` frame of a module call made by `graph-unflatten`
    (a `func.call` carrying exactly one), else None."""
    if not isinstance(op, func.CallOp):
        return None
    attr = op.attributes.get(MODULE_ATTR)
    if not isinstance(attr, ScopeAttr) or len(attr.data) != 1:
        return None
    return attr.data[0]


def scope_frames(op: Operation) -> tuple[ScopeFrame, ...]:
    scope = op.attributes.get(SCOPE)
    return scope.data if isinstance(scope, ScopeAttr) else ()


def call_tree(block: Block) -> list[CallNode]:
    """Every module call of `block`'s ops, in order of first appearance
    (a parent before its children). Raises ScopeError on a frame whose fqn is
    not inside the fqn of the frame around it."""
    nodes: dict[tuple[ScopeFrame, ...], CallNode] = {}
    calls_made: dict[tuple[tuple[ScopeFrame, ...], str], int] = {}
    for op in block.ops:
        frames = scope_frames(op)
        for depth in range(1, len(frames) + 1):
            path = frames[:depth]
            if path in nodes:
                continue
            parent = nodes.get(path[:-1])
            fqn = path[-1][0]
            if parent is not None and not fqn.startswith(parent.fqn + "."):
                raise ScopeError(
                    f"scope frame '{fqn}' of {op.name} is not inside '{parent.fqn}'",
                    op,
                )
            key = (path[:-1], fqn)
            index = calls_made.get(key, 0)
            calls_made[key] = index + 1
            nodes[path] = CallNode(path, parent, index)
        if frames:
            nodes[frames].members.append(op)
    return list(nodes.values())


def structural_key(
    function: func.FuncOp, ignored_arg_attrs: frozenset[str] = frozenset()
) -> Hashable:
    """Equal for function bodies that are the same up to value names and
    locations (argument and result attributes included, except those named
    in `ignored_arg_attrs`)."""
    arg_attrs = function.arg_attrs
    if arg_attrs is not None and ignored_arg_attrs:
        arg_attrs = tuple(
            tuple((k, v) for k, v in a.data.items() if k not in ignored_arg_attrs)
            if isinstance(a, DictionaryAttr)
            else a
            for a in arg_attrs.data
        )
    return (
        function.function_type,
        arg_attrs,
        function.res_attrs,
        block_structure(function.body.block),
    )
