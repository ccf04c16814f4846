"""The ```python blocks of docs/rewrite-api.md run, in order, in one namespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from fxdsl.pipeline.registry import registered_passes, unregister_pass
from fxdsl.testing.docs import code_blocks

DOC = Path(__file__).resolve().parents[2] / "docs" / "rewrite-api.md"


def python_blocks() -> list[str]:
    return [b.text for b in code_blocks(DOC) if b.language == "python"]


def test_the_tutorial_has_examples() -> None:
    # Guards the extraction itself: a broken regex would run nothing.
    assert len(python_blocks()) >= 8


def test_tutorial_code_runs(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {"__name__": "rewrite_api_doc"}
    try:
        for index, block in enumerate(python_blocks()):
            code = compile(block, f"{DOC.name}[block {index}]", "exec")
            exec(code, namespace)  # the docs are our own code
    finally:
        # The tutorial registers a pass; keep the process-wide registry clean.
        if "docs-add-to-mul" in registered_passes():
            unregister_pass("docs-add-to-mul")
    printed = capsys.readouterr().out
    # The outputs the prose promises.
    assert "erase: graph.add still has 1 use(s) (by graph.relu)" in printed
    assert "ReplacedPatterns(anchor=graph.mul, replacements=[graph.sub])" in printed
    assert "check 'keeps_add' failed after pass 'AddToMul'" in printed
