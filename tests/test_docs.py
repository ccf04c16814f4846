"""Every code block of README.md and docs/*.md runs (see fxdsl/testing/docs.py
for what runs how, and the markers that skip a block explicitly), so a stale
example fails here instead of in a new user's hands."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fxdsl
from fxdsl.testing.docs import RUNNABLE, DocBlock, code_blocks

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [b for doc in DOCS for b in code_blocks(doc) if b.language in RUNNABLE]
BIN = Path(sys.executable).parent
# an input file of a command line (not an output: after -o or >)
INPUT = re.compile(r"(?<!-o )(?<!> )(?<![\w/.-])([\w/.-]+\.(?:mlir|pt2|npy|npz))\b")


def test_blocks_are_found() -> None:
    # guards the extraction: a broken pattern would run nothing
    names = {b.path.name for b in BLOCKS}
    assert {"README.md", "rewrite-api.md"} <= names
    readme = [b for b in BLOCKS if b.path.name == "README.md"]
    assert {b.language for b in readme} == {"python", "sh", "mlir"}


def _check_runnable(block: DocBlock) -> None:
    if (reason := block.skip_reason) is not None:
        pytest.skip(f"{block.name}: {reason}")
    if block.needs_gpu:
        from fxdsl.runtime.compile import cuda_unavailable_reason

        if (why := cuda_unavailable_reason()) is not None:
            pytest.skip(f"{block.name} needs the CUDA backend: {why}")
    if block.needs_torch:
        pytest.importorskip("torch")


# python blocks of a file share one namespace, filled in file order
_namespaces: dict[Path, tuple[dict[str, Any], int]] = {}


@pytest.fixture(autouse=True, scope="module")
def _restore_pass_registry() -> Iterator[None]:
    # docs/rewrite-api.md registers a pass; keep the process-wide registry
    from fxdsl.pipeline.registry import registered_passes, unregister_pass

    before = set(registered_passes())
    yield
    for name in set(registered_passes()) - before:
        unregister_pass(name)


def _run_python(block: DocBlock, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace, done = _namespaces.get(block.path, ({"__name__": "docs"}, 0))
    earlier = [b for b in code_blocks(block.path) if b.language == "python"]
    monkeypatch.chdir(ROOT)  # examples/... paths are relative to the checkout
    for previous in earlier[done:]:
        if previous.line == block.line:
            break
        if previous.skip_reason is None and not previous.needs_gpu:
            _exec(previous, namespace)
    _exec(block, namespace)
    _namespaces[block.path] = (namespace, earlier.index(block) + 1)


def _exec(block: DocBlock, namespace: dict[str, Any]) -> None:
    exec(compile(block.text, block.name, "exec"), namespace)  # our own docs


def _run_sh(block: DocBlock, tmp_path: Path) -> None:
    for name in ("examples", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    missing: list[str] = []
    ran = 0
    for line in block.text.splitlines():
        command = line.split(" #", 1)[0].strip()
        words = [w for w in shlex.split(command) if "=" not in w.split("/")[0]]
        if not words or not words[0].startswith("fxdsl-"):
            continue  # `make ...` and the like are the reader's
        programs = [shlex.split(stage)[0] for stage in command.split("|")[1:]]
        absent = [p for p in programs if shutil.which(p, path=env["PATH"]) is None]
        # files of the reader's own (model.pt2) make a line not runnable here
        absent += [f for f in INPUT.findall(command) if not (tmp_path / f).exists()]
        if absent:
            missing.append(f"{command!r} needs {', '.join(absent)}")
            continue
        result = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert result.returncode == 0, f"{block.name}: {command}\n{result.stderr}"
        ran += 1
    if missing:
        pytest.skip(f"{block.name}: ran {ran} lines; " + "; ".join(missing))
    assert ran, f"{block.name}: no fxdsl command to run (mark it skip?)"


def _run_mlir(block: DocBlock) -> None:
    text = block.text
    if (args := block.mlir_args) is not None:
        text = f"func.func @doc({args}) {{\n{text}  func.return\n}}\n"
    fxdsl.parse(text, block.name)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"{b.name}-{b.language}")
def test_doc_block_runs(
    block: DocBlock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check_runnable(block)
    if block.language == "python":
        _run_python(block, monkeypatch)
    elif block.language == "sh":
        _run_sh(block, tmp_path)
    else:
        _run_mlir(block)


# --------------------------------------------------------------------------- #
# what the docs say, beside their code blocks
# --------------------------------------------------------------------------- #

PROSE = [
    *DOCS,
    *sorted((ROOT / "benchmarks").rglob("*.md")),
    *sorted((ROOT / "examples").glob("*.md")),
]


@pytest.mark.parametrize("doc", PROSE, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_cite_no_internal_issue_and_no_missing_file(doc: Path) -> None:
    """Readers do not see our issue tracker, and every `*.md` a doc names
    is there (beside it or at the root)."""
    text = doc.read_text()
    assert not re.findall(r"(?i)\bissues?\s+#?\d+", text)
    for name in re.findall(r"(?<![\w/.-])([\w/.-]+\.md)\b", text):
        assert (doc.parent / name).exists() or (ROOT / name).exists(), name


_BAD_PROGRAM = """\
func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %c = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %d = graph.mul %a, %c : tensor<4x8xf32
  func.return %d : tensor<4x8xf32>
}
"""


def test_readme_parse_error_is_what_fxdsl_opt_prints(tmp_path: Path) -> None:
    """The README shows a parse error as fxdsl-opt prints it: the located
    `error:` line, the source line and the caret (the `>` missing on line 4
    is noticed on line 5)."""
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"A parse error adds.*?```text\n(.*?)```", readme, re.DOTALL)
    assert shown is not None
    (tmp_path / "bad.mlir").write_text(_BAD_PROGRAM)
    result = subprocess.run(
        [str(BIN / "fxdsl-opt"), "bad.mlir"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == shown[1]
