"""Top-level entry points: parse, apply a pipeline, run, compile."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms import get_all_passes as upstream_passes

from fxdsl.ir_utils import verify_ssa
from fxdsl.parsing import make_context, parse_module
from fxdsl.pipeline_syntax import check_pass_options, quote_dotted_values
from fxdsl.universe import get_all_passes


def parse(text: str, name: str = "<string>") -> ModuleOp:
    """Parse IR text (graph and upstream dialects) into a verified module."""
    module = parse_module(text, name)
    verify_ssa(module)
    return module


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass a pipeline may name: upstream xDSL's and fxdsl's."""
    return {**upstream_passes(), **get_all_passes()}


def parse_pipeline(pipeline: str) -> PassPipeline:
    """Parse a `-p`-style pipeline (`"cse,graph-fuse{max-args=64}"`) into
    passes that verify the module after each step. Raises ValueError (or
    xDSL's ArgSpecParseError) for unknown passes and bad options."""
    spec = quote_dotted_values(pipeline)
    check_pass_options(spec, available_passes())
    return PassPipeline.parse_spec(
        available_passes(),
        spec,
        lambda _prev, mod, _next: verify_ssa(mod),
    )


def apply(module: ModuleOp, pipeline: str | PassPipeline) -> ModuleOp:
    """Run a pipeline (text or parsed) on `module` in place, verifying after
    each pass. Returns the module for chaining."""
    if not isinstance(pipeline, str | PassPipeline):
        raise TypeError(
            "pipeline must be a pass pipeline string such as 'graph-decompose,"
            f"graph-fuse' or a PassPipeline, got {type(pipeline).__name__}"
        )
    passes = parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
    passes.apply(make_context(), module)
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
    **options: Any,
) -> Callable[..., tuple[Any, ...]]:
    """Compile `module` for `backend` ("cuda" or "cpu"); returns a callable."""
    from fxdsl.runtime.compile import compile_module

    return compile_module(
        module, backend=backend, pipeline=pipeline, entry=entry, **options
    )


def _to_host(array: Any) -> Any:
    get = getattr(array, "get", None)  # CuPy arrays copy to the host with .get()
    return get() if callable(get) else array
