"""Exposing Python passes (callables, Transformers) to `fxdsl-opt -p NAME`.

    # my_passes.py
    from fxdsl.rewrite.registry import register_pass
    register_pass("add-to-mul", AddToMul)

    $ FXDSL_PLUGINS=my_passes fxdsl-opt in.mlir -p add-to-mul

`register_pass` wraps the pass in a generated `ModulePass` subclass and adds
it to `fxdsl.universe.PASSES` (the registry `fxdsl-opt`, `xdsl-opt` and
`fxdsl.apply` read), pointing at this module, which hands the class out by
name. `fxdsl.universe` calls `load_plugins()` when it is imported: every
module named in the comma-separated `FXDSL_PLUGINS` variable is imported, so
its `register_pass` calls run before the driver looks passes up.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

PLUGINS_VARIABLE = "FXDSL_PLUGINS"

_REGISTERED: dict[str, type[ModulePass]] = {}


def make_pass(name: str, pass_: Any) -> type[ModulePass]:
    """A `ModulePass` class named `name` that runs `pass_` (a callable on a
    module, a Transformer subclass/instance) in place on the module."""
    # Imported here: pass_manager -> transformer -> this module (`as_pass`).
    from fxdsl.rewrite.pass_manager import run_pass

    def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
        try:
            result = run_pass(pass_, op)
        except PassFailedException:
            raise
        except Exception as error:
            # Any failure of a Python pass becomes one `error:` line.
            message = f"{name}: {type(error).__name__}: {error}"
            raise PassFailedException(message) from error
        if result is not op:
            _adopt(op, result)

    class_name = "".join(part.title() for part in name.replace("_", "-").split("-"))
    namespace = {
        "name": name,
        "apply": apply,
        "__doc__": f"`{name}`: Python pass {getattr(pass_, '__name__', pass_)!r}.",
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


def register_pass(name: str, pass_: Any, replace: bool = False) -> type[ModulePass]:
    """Register `pass_` under `name` for `-p name` pipelines; returns the class.

    Re-registering a name of this registry replaces it; shadowing a built-in
    fxdsl or upstream pass is refused unless `replace=True`.
    """
    from xdsl.transforms import get_all_passes as upstream_passes

    # Imported here: fxdsl.universe imports this module to load plugins.
    from fxdsl import universe

    builtin = name in upstream_passes() or (
        name in universe.PASSES and name not in _REGISTERED
    )
    if builtin and not replace:
        raise ValueError(f"register_pass: '{name}' is already a built-in pass")
    cls = make_pass(name, pass_)
    _REGISTERED[name] = cls
    universe.PASSES[name] = f"{__name__}:{name}"
    # The Universe object was filled when fxdsl.universe was imported.
    universe_obj = getattr(universe, "FXDSL_UNIVERSE", None)
    if universe_obj is not None:
        universe_obj.all_passes[name] = lambda: _REGISTERED[name]
    return cls


def unregister_pass(name: str) -> None:
    """Remove a pass registered with `register_pass` (KeyError if none)."""
    from fxdsl import universe

    del _REGISTERED[name]
    universe.PASSES.pop(name, None)
    universe_obj = getattr(universe, "FXDSL_UNIVERSE", None)
    if universe_obj is not None:
        universe_obj.all_passes.pop(name, None)


def registered_passes() -> dict[str, type[ModulePass]]:
    """Passes registered so far, by name."""
    return dict(_REGISTERED)


def load_plugins(spec: str | None = None) -> list[str]:
    """Import the plugin modules named in `spec` (default: $FXDSL_PLUGINS,
    comma-separated dotted paths); returns the module names imported."""
    spec = os.environ.get(PLUGINS_VARIABLE, "") if spec is None else spec
    names = [name.strip() for name in spec.split(",") if name.strip()]
    for module_name in names:
        try:
            importlib.import_module(module_name)
        except Exception as error:
            raise ImportError(
                f"{PLUGINS_VARIABLE}: cannot import plugin module '{module_name}': "
                f"{type(error).__name__}: {error}"
            ) from error
    return names


def __getattr__(name: str) -> type[ModulePass]:
    # `fxdsl.universe` resolves "fxdsl.rewrite.registry:<pass-name>" this way.
    if name in _REGISTERED:
        return _REGISTERED[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
