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


def torch_before(version: str) -> bool:
    """Whether the installed torch is older than `version` ("2.14"): for
    test rows whose expectation is a torch behaviour that a newer release
    changed (a fixed decomposition, another recompile count). The main
    environment has torch 2.13, the TIMM one 2.14."""
    import torch

    def numbers(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("+")[0].split(".")[:2])

    return numbers(torch.__version__) < numbers(version)
