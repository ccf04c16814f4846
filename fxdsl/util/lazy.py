"""Lazy package exports (PEP 562), shared by `fxdsl` and `fxdsl.rewrite`.

A package lists its public names in a table `name -> defining module` and gets
a module-level `__getattr__` that imports the module on first use, so that
importing the package stays cheap (no numpy, no CUDA) until a name is used.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `(__getattr__, __dir__)` pair for `package`'s exports in `table`.

    `table` maps each exported name to the module that defines it. An entry
    naming a module that has no such attribute but ends in `.<name>` exports
    that module itself (`"ops": "fxdsl.tracing.ops"` makes `fxdsl.ops`).
    """

    def __getattr__(name: str) -> Any:
        source = table.get(name)
        if source is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        loaded = importlib.import_module(source)
        if not hasattr(loaded, name) and source.rpartition(".")[2] == name:
            return loaded
        return getattr(loaded, name)

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
