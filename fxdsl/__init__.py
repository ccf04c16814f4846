"""fxdsl: a dialect-based graph compiler on xDSL.

The Python API in one place; every name is imported on first use so that
`import fxdsl` stays cheap and never needs a GPU.

    module = fxdsl.trace(fn, fxdsl.TensorSpec((4, 8)))   # Python -> graph IR
    module = fxdsl.parse(text)                            # IR text -> module
    fxdsl.apply(module, "graph-decompose,graph-fuse")     # -p pipeline syntax
    outputs = fxdsl.run(module, x)                        # reference interpreter
    program = fxdsl.from_torch(model, (x,))               # PyTorch -> graph IR
"""

from __future__ import annotations

from fxdsl.util.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "__version__": "fxdsl._version",
    "trace": "fxdsl.tracing.tracer",
    "TensorSpec": "fxdsl.tracing.tracer",
    "scope": "fxdsl.tracing.trace_state",
    "module_call": "fxdsl.tracing.module_calls",
    "ops": "fxdsl.tracing.ops",
    "parse": "fxdsl.api",
    "apply": "fxdsl.pipeline.pass_pipeline",
    "run": "fxdsl.api",
    "compile": "fxdsl.api",
    "BackendUnavailable": "fxdsl.runtime.compile",
    "random_inputs": "fxdsl.interpreters.run",
    "interpreters": "fxdsl.interpreters",
    "from_torch": "fxdsl.frontends.torch_export",
    "from_exported_program": "fxdsl.frontends.torch_export",
}

# Derived from the table so that a new export is one line there; pyright
# only reads literal lists.
__all__ = sorted(_EXPORTS)  # pyright: ignore[reportUnsupportedDunderAll]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
