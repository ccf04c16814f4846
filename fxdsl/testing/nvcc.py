"""`nvcc -ptx` for tests: CUDA C checked for sm_90 without a GPU.

Tests that call it carry the `nvcc` marker (tests/conftest.py skips them
where no `nvcc` is on PATH).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def compile_ptx(source: str, directory: Path, name: str) -> str:
    """`nvcc -ptx -arch=sm_90` of `source` (written to `directory/name.cu`);
    fails with nvcc's message; returns the PTX."""
    nvcc = shutil.which("nvcc")
    assert nvcc is not None, "nvcc is not on PATH (mark the test `nvcc`)"
    cu, ptx = directory / f"{name}.cu", directory / f"{name}.ptx"
    cu.write_text(source)
    result = subprocess.run(
        [nvcc, "-ptx", "-arch=sm_90", str(cu), "-o", str(ptx)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, f"nvcc failed on {name}:\n{result.stderr[-4000:]}"
    return ptx.read_text()
