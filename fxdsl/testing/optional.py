"""Optional dependencies in tests: skip where missing, fail where required.

torch and transformers are the `fxdsl[torch]` extra. A developer without
them skips the tests that need them; CI installs them (the Makefile), so
under `CI` a missing one is a failure, never a silent skip.
"""

from __future__ import annotations

import importlib
import os
from typing import Any


def need(module: str) -> Any:
    """`module` imported; `pytest.importorskip` outside CI."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    import pytest

    return pytest.importorskip(module)
