"""fxdsl: a dialect-based graph compiler on xDSL.

The Python API in one place; every name is imported on first use so that
`import fxdsl` stays cheap and never needs a GPU.

    module = fxdsl.trace(fn, fxdsl.TensorSpec((4, 8)))   # Python -> graph IR
    module = fxdsl.parse(text)                            # IR text -> module
    fxdsl.apply(module, "graph-decompose,graph-fuse")     # -p pipeline syntax
    outputs = fxdsl.run(module, x)                        # reference interpreter
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "trace": "fxdsl.frontends.tracer",
    "TensorSpec": "fxdsl.frontends.tracer",
    "scope": "fxdsl.frontends.tracer",
    "ops": "fxdsl.frontends.ops",
    "parse": "fxdsl.api",
    "apply": "fxdsl.api",
    "run": "fxdsl.api",
    "compile": "fxdsl.api",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fxdsl' has no attribute '{name}'")
    loaded = importlib.import_module(module)
    return loaded if name == "ops" else getattr(loaded, name)
