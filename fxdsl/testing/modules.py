"""Import a Python file that no package holds: a test's sibling module
(pytest's importlib mode has no test packages), an example script."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_file(path: Path, name: str | None = None) -> ModuleType:
    """A fresh module run from the file at `path` (named `name`, default
    the file's stem; not added to `sys.modules`)."""
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
