"""A Python function on a module as an xDSL `ModulePass` class, so that
`-p` pipelines and `fxdsl-opt` can run it (`register_pass`,
`Transformer.as_pass`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException


def make_pass(
    name: str, run: Callable[[ModuleOp], ModuleOp], subject: object
) -> type[ModulePass]:
    """A `ModulePass` class named `name` that runs `run` in place on the
    module (a new module `run` returns replaces the old one's contents);
    `subject` is what its docstring says it runs."""

    def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
        try:
            result = run(op)
        except PassFailedException:
            raise
        except Exception as error:
            # Any failure of a Python pass becomes one `error:` line.
            message = f"{name}: {type(error).__name__}: {error}"
            raise PassFailedException(message) from error
        if result is not op:
            _adopt(op, result)

    class_name = "".join(part.title() for part in name.replace("_", "-").split("-"))
    label = getattr(subject, "__name__", subject)
    namespace = {
        "name": name,
        "apply": apply,
        "__doc__": f"`{name}`: Python pass {label!r}.",
        "__module__": __name__,
    }
    cls = type(f"{class_name}Pass", (ModulePass,), namespace)
    return dataclass(frozen=True)(cls)


def _adopt(target: ModuleOp, source: ModuleOp) -> None:
    """Make `target` hold `source`'s body and attributes (passes run in place)."""
    for op in reversed(list(target.body.block.ops)):
        Rewriter.erase_op(op, safe_erase=False)
    moved = list(source.body.block.ops)
    for op in moved:
        op.detach()
    Rewriter.insert_op(moved, InsertPoint.at_end(target.body.block))
    target.attributes = dict(source.attributes)
