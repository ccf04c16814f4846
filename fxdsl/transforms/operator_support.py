"""Operator support predicates for partitioning (torch.fx `OperatorSupport`).

An `OperatorSupport` answers `is_node_supported(op) -> bool`. `OpAllowList`
accepts op names and dialect wildcards (`"graph.add"`, `"graph.*"`);
`chain(...)` accepts an op when every part does, `any_chain(...)` when one
does. Anywhere a support is expected, any object with an
`is_node_supported(op)` method (duck typing, as torch.fx) or a plain
`Callable[[Operation], bool]` works too (it is wrapped by `as_support`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from xdsl.ir import Operation


class OperatorSupport:
    """Base class: says whether a backend can take an op."""

    def is_node_supported(self, op: Operation) -> bool:
        raise NotImplementedError(f"{type(self).__name__}.is_node_supported")

    def __call__(self, op: Operation) -> bool:
        return self.is_node_supported(op)


class HasIsNodeSupported(Protocol):
    def is_node_supported(self, op: Operation) -> bool: ...


SupportLike = OperatorSupport | HasIsNodeSupported | Callable[[Operation], bool]


class _Predicate(OperatorSupport):
    def __init__(self, predicate: Callable[[Operation], bool]):
        self.predicate = predicate

    def is_node_supported(self, op: Operation) -> bool:
        return bool(self.predicate(op))

    def __repr__(self) -> str:
        return f"as_support({self.predicate!r})"


def as_support(support: SupportLike) -> OperatorSupport:
    """`support` itself if it is an OperatorSupport, else a wrapper calling its
    `is_node_supported` method or, failing that, `support` itself."""
    if isinstance(support, OperatorSupport):
        return support
    method = getattr(support, "is_node_supported", None)
    if callable(method):
        return _Predicate(method)
    if not callable(support):
        raise TypeError(
            "expected an object with is_node_supported(op) or a callable, "
            f"got {support!r}"
        )
    return _Predicate(support)


class OpAllowList(OperatorSupport):
    """Supports the ops named: exact names (`"graph.add"`) or whole dialects
    (`"graph.*"`)."""

    def __init__(self, names: Iterable[str]):
        self.names = tuple(names)
        self._exact = frozenset(n for n in self.names if not n.endswith(".*"))
        self._dialects = frozenset(n[:-2] for n in self.names if n.endswith(".*"))

    def is_node_supported(self, op: Operation) -> bool:
        return op.name in self._exact or op.name.split(".", 1)[0] in self._dialects

    def __repr__(self) -> str:
        return f"OpAllowList({list(self.names)!r})"


class _Chain(OperatorSupport):
    def __init__(self, supports: Iterable[SupportLike], require_all: bool):
        self.supports = tuple(as_support(s) for s in supports)
        self.require_all = require_all

    def is_node_supported(self, op: Operation) -> bool:
        answers = (s.is_node_supported(op) for s in self.supports)
        return all(answers) if self.require_all else any(answers)

    def __repr__(self) -> str:
        kind = "chain" if self.require_all else "any_chain"
        return f"{kind}({', '.join(map(repr, self.supports))})"


def chain(*supports: SupportLike) -> OperatorSupport:
    """Supports an op when every one of `supports` does (true when empty)."""
    return _Chain(supports, require_all=True)


def any_chain(*supports: SupportLike) -> OperatorSupport:
    """Supports an op when at least one of `supports` does (false when empty)."""
    return _Chain(supports, require_all=False)
