"""Top-level entry points: parse, apply a pipeline, run, compile.

`apply`, `parse_pipeline` and `available_passes` are defined in
`fxdsl.pipeline.pass_pipeline` (below the runtime, which runs pipelines too) and
re-exported here, where users import them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from fxdsl.ir.parsing import parse_module
from fxdsl.ir.utils import verify_ssa

# The pipeline entry points are fxdsl.api's too, where users import them.
from fxdsl.pipeline.pass_pipeline import apply, available_passes, parse_pipeline

__all__ = ["apply", "available_passes", "compile", "parse", "parse_pipeline", "run"]


def parse(text: str, name: str = "<string>") -> ModuleOp:
    """Parse IR text (graph and upstream dialects) into a verified module."""
    module = parse_module(text, name)
    verify_ssa(module)
    return module


def run(
    module: ModuleOp,
    *inputs: Any,
    entry: str | None = None,
    backend: str = "cpu",
) -> tuple[np.ndarray, ...]:
    """Run function `entry` (default: the first public one) on numpy inputs.

    `backend="cpu"` is the numpy reference interpreter (the oracle);
    `backend="cuda"` compiles with the default pipeline first.
    """
    if backend == "cpu":
        from fxdsl.interpreters.run import run_reference

        return run_reference(module, *inputs, entry=entry)
    compiled = compile(module, backend=backend, entry=entry)
    return tuple(np.asarray(_to_host(r)) for r in compiled(*inputs))


def compile(
    module: ModuleOp,
    backend: str = "cuda",
    pipeline: str | None = None,
    entry: str | None = None,
    freeze: Any = None,
    **options: Any,
) -> Callable[..., tuple[Any, ...]]:
    """Compile `module` for `backend` ("cuda" or "cpu"); returns a callable.

    `freeze`: weights to bind as constants first (the arrays of the
    `graph.param` arguments in order, or fqn -> array; see
    `fxdsl.transforms.freeze`), folded with `graph-fold-constants`; the
    callable then takes the other inputs only."""
    from fxdsl.runtime.compile import compile_module

    if freeze is not None:
        from fxdsl.transforms.freeze import freeze_and_fold

        module = freeze_and_fold(module, freeze, entry)
    return compile_module(
        module, backend=backend, pipeline=pipeline, entry=entry, **options
    )


def _to_host(array: Any) -> Any:
    get = getattr(array, "get", None)  # CuPy arrays copy to the host with .get()
    return get() if callable(get) else array
