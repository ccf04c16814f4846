"""Fixtures the PyTorch frontend tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def fresh_dynamo() -> Iterator[None]:
    """A clean Dynamo state (and the backend's once-per-kind log) around a
    test, so each `torch.compile` really compiles."""
    import torch

    from fxdsl.frontends import torch_compile

    torch._dynamo.reset()
    torch_compile._LOGGED_KINDS.clear()
    yield
    torch._dynamo.reset()
