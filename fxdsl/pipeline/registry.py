"""Exposing Python passes (callables, Transformers) to `fxdsl-opt -p NAME`.

    # my_passes.py
    from fxdsl.pipeline.registry import register_pass
    register_pass("add-to-mul", AddToMul)

    $ FXDSL_PLUGINS=my_passes fxdsl-opt in.mlir -p add-to-mul

`register_pass` wraps the pass in a generated `ModulePass` subclass and adds
it to `fxdsl.pipeline.universe.PASSES` (the registry `fxdsl-opt`, `xdsl-opt` and
`fxdsl.apply` read), pointing at this module, which hands the class out by
name. `fxdsl.pipeline.universe` imports every module named in the comma-separated
`FXDSL_PLUGINS` variable when it is imported itself, so their
`register_pass` calls run before the driver looks passes up.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes as upstream_passes

from fxdsl.pipeline import universe
from fxdsl.rewrite.pass_manager import run_pass
from fxdsl.rewrite.python_pass import make_pass

_REGISTERED: dict[str, type[ModulePass]] = {}


def register_pass(name: str, pass_: Any, replace: bool = False) -> type[ModulePass]:
    """Register `pass_` under `name` for `-p name` pipelines; returns the class.

    Re-registering a name of this registry replaces it; shadowing a built-in
    fxdsl or upstream pass is refused unless `replace=True`.
    """
    builtin = name in upstream_passes() or (
        name in universe.PASSES and name not in _REGISTERED
    )
    if builtin and not replace:
        raise ValueError(f"register_pass: '{name}' is already a built-in pass")
    cls = make_pass(name, partial(run_pass, pass_), pass_)
    _REGISTERED[name] = cls
    universe.PASSES[name] = f"{__name__}:{name}"
    # The Universe object was filled when fxdsl.pipeline.universe was imported.
    universe_obj = getattr(universe, "FXDSL_UNIVERSE", None)
    if universe_obj is not None:
        universe_obj.all_passes[name] = lambda: _REGISTERED[name]
    return cls


def unregister_pass(name: str) -> None:
    """Remove a pass registered with `register_pass` (KeyError if none)."""
    del _REGISTERED[name]
    universe.PASSES.pop(name, None)
    universe_obj = getattr(universe, "FXDSL_UNIVERSE", None)
    if universe_obj is not None:
        universe_obj.all_passes.pop(name, None)


def registered_passes() -> dict[str, type[ModulePass]]:
    """Passes registered so far, by name."""
    return dict(_REGISTERED)


def __getattr__(name: str) -> type[ModulePass]:
    # `fxdsl.pipeline.universe` resolves "fxdsl.pipeline.registry:<pass-name>" this way.
    if name in _REGISTERED:
        return _REGISTERED[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
