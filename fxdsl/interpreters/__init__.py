"""The numpy reference interpreter: the oracle every pass is tested against.

`fxdsl.interpreters.run` (running a module, `random_inputs`) is imported on
first use, so `import fxdsl` stays cheap and the attribute always works.
"""

from __future__ import annotations

from fxdsl.util.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "run": "fxdsl.interpreters.run",
    "random_inputs": "fxdsl.interpreters.run",
    "run_reference": "fxdsl.interpreters.run",
}

__all__ = sorted(_EXPORTS)  # pyright: ignore[reportUnsupportedDunderAll]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
