"""The code blocks of Markdown docs, read so that tests can run every one.

`tests/test_docs.py` runs each fenced block of README.md and docs/*.md:
```python blocks in order in one namespace per file, the `fxdsl-*` command
lines of ```sh blocks in a folder that holds the checkout's examples/ and
docs/ (other commands, such as `make`, are the reader's, and so is a line
whose input .mlir/.pt2/.npy/.npz file is not there: not run, the block is
reported skipped), and ```mlir blocks through the parser and verifier. Blocks without a
language (directory listings, output) are text. A comment on the line right
before a fence changes how its block runs (invisible when rendered):

    <!-- docs-test: skip REASON -->   never run; REASON says why (it needs
                                       files of the reader's own, ...)
    <!-- docs-test: gpu -->           run only where backend="cuda" works
    <!-- docs-test: args ARGS -->     an ```mlir block of ops: the body of
                                       `func.func @doc(ARGS)`

A python block that imports torch runs only where torch is installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUNNABLE = ("python", "sh", "mlir")
"""Fence languages whose blocks run."""

_FENCE = re.compile(
    r"^(?:<!-- docs-test: (?P<marker>[^\n]*?) -->\n)?"
    r"```(?P<language>[\w-]*)\n(?P<text>.*?)^```[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_TORCH = re.compile(r"^\s*(?:import|from)\s+torch\b", re.MULTILINE)


@dataclass(frozen=True)
class DocBlock:
    """One fenced block: where it starts, its language, text and marker."""

    path: Path
    line: int
    language: str
    text: str
    marker: str = ""

    @property
    def name(self) -> str:
        return f"{self.path.name}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        """The reason of a `skip` marker, else None."""
        kind, _, reason = self.marker.partition(" ")
        return (reason or "marked skip") if kind == "skip" else None

    @property
    def needs_gpu(self) -> bool:
        return self.marker == "gpu"

    @property
    def needs_torch(self) -> bool:
        return self.language == "python" and _TORCH.search(self.text) is not None

    @property
    def mlir_args(self) -> str | None:
        """ARGS of an `args` marker: the block is a function body."""
        kind, _, args = self.marker.partition(" ")
        return args if kind == "args" else None


def code_blocks(path: Path) -> list[DocBlock]:
    """Every fenced block of the Markdown file `path`, in order."""
    text = path.read_text()
    blocks: list[DocBlock] = []
    for match in _FENCE.finditer(text):
        fence = match.start("language") - 3
        blocks.append(
            DocBlock(
                path,
                text.count("\n", 0, fence) + 1,
                match["language"],
                match["text"],
                match["marker"] or "",
            )
        )
    return blocks
