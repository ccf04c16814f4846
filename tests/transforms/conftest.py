"""Fixtures shared by the pass tests in this folder.

pytest imports test files with `--import-mode=importlib`, so a test file
cannot import a sibling helper module; a fixture defined here reaches every
test below this folder without path tricks.

* `fxdsl_opt(text, pipeline)` runs the `fxdsl-opt` driver in a subprocess;
  `fxdsl_opt_error(text, pipeline)` also checks its error contract.
* `contracted_edges` and `is_acyclic` are a brute-force cycle oracle for
  partitioning tests, written independently of `DependencyGraph`.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path

import pytest
from xdsl.ir import Operation

OptRun = Callable[[str, str], subprocess.CompletedProcess[str]]
Edges = set[tuple[Hashable, Hashable]]
EdgeFinder = Callable[[Iterable[Operation], Mapping[Operation, Hashable]], Edges]


@pytest.fixture
def fxdsl_opt(tmp_path: Path) -> OptRun:
    """`fxdsl_opt(text, pipeline)`: the result of `fxdsl-opt in.mlir -p
    pipeline` with `text` written to `tmp_path / "in.mlir"`."""

    def run(text: str, pipeline: str) -> subprocess.CompletedProcess[str]:
        source = tmp_path / "in.mlir"
        source.write_text(text)
        command = [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", str(source)]
        return subprocess.run(
            [*command, "-p", pipeline], capture_output=True, text=True, check=False
        )

    return run


@pytest.fixture
def fxdsl_opt_error(fxdsl_opt: OptRun) -> Callable[[str, str], str]:
    """`fxdsl_opt_error(text, pipeline)`: run `fxdsl_opt`, check that the driver
    failed the way users should see it (exit status 1, nothing on stdout, an
    `error:` line and no traceback on stderr), and return stderr."""

    def run(text: str, pipeline: str) -> str:
        result = fxdsl_opt(text, pipeline)
        assert result.returncode == 1, result.stdout
        assert "Traceback" not in result.stderr
        assert "error:" in result.stderr
        assert result.stdout == ""
        return result.stderr

    return run


def _contracted_edges(
    ops: Iterable[Operation], unit: Mapping[Operation, Hashable]
) -> Edges:
    """Edges p -> q when an op of unit q (or one nested in it) uses a value
    made by an op of unit p != q; ops outside `unit` are not followed."""
    edges: Edges = set()
    for op in ops:
        for inner in op.walk():
            for operand in inner.operands:
                owner = operand.owner
                if (
                    isinstance(owner, Operation)
                    and owner in unit
                    and unit[owner] != unit[op]
                ):
                    edges.add((unit[owner], unit[op]))
    return edges


def _is_acyclic(edges: Edges) -> bool:
    """Repeatedly strip the nodes without incoming edges (Kahn)."""
    remaining = set(edges)
    while remaining:
        targets = {b for _, b in remaining}
        sources = {a for a, _ in remaining if a not in targets}
        if not sources:
            return False
        remaining = {(a, b) for a, b in remaining if a not in sources}
    return True


@pytest.fixture(scope="session")
def contracted_edges() -> EdgeFinder:
    """`contracted_edges(ops, unit)`: the edges between the units of `unit`
    (op -> its partition, or the op itself) that the uses of `ops` make."""
    return _contracted_edges


@pytest.fixture(scope="session")
def is_acyclic() -> Callable[[Edges], bool]:
    """`is_acyclic(edges)`: whether the graph of `edges` has no cycle."""
    return _is_acyclic
