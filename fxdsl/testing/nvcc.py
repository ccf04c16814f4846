"""`nvcc -ptx` for tests: CUDA C checked for sm_90 without a GPU.

Tests that call it carry the `nvcc` marker (tests/conftest.py skips them
where no `nvcc` is on PATH).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fxdsl.lowering.launch_plan import Launch


def _nvcc(source: str, directory: Path, name: str, output: str, *flags: str) -> str:
    """`nvcc <flags> -arch=sm_90` of `source` (written to `directory/name.cu`)
    into `directory/name.<output>`; fails with nvcc's message; returns its
    stderr (ptxas's `-v` report goes there)."""
    nvcc = shutil.which("nvcc")
    assert nvcc is not None, "nvcc is not on PATH (mark the test `nvcc`)"
    cu, out = directory / f"{name}.cu", directory / f"{name}.{output}"
    cu.write_text(source)
    result = subprocess.run(
        [nvcc, *flags, "-arch=sm_90", str(cu), "-o", str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, f"nvcc failed on {name}:\n{result.stderr[-4000:]}"
    return result.stderr


def compile_ptx(source: str, directory: Path, name: str) -> str:
    """`nvcc -ptx -arch=sm_90` of `source` (written to `directory/name.cu`);
    fails with nvcc's message; returns the PTX."""
    _nvcc(source, directory, name, "ptx", "-ptx")
    return (directory / f"{name}.ptx").read_text()


@dataclass(frozen=True)
class Resources:
    """What ptxas says one kernel needs of an SM."""

    registers: int
    shared_bytes: int


MAX_THREADS = 1024
"""Threads per block on every GPU since sm_20."""
REGISTERS_PER_SM = 65536
"""The register file a block's threads share (sm_90: 64 Ki 32-bit)."""
MAX_GRID_YZ = 65535
MAX_GRID_X = 2**31 - 1


def kernel_resources(source: str, directory: Path, name: str) -> dict[str, Resources]:
    """`nvcc -cubin -arch=sm_90 -Xptxas -v` of `source`: each kernel's
    registers and static shared memory, as ptxas reports them (ptxas itself
    refuses more than 48 KiB of static shared memory). Fails with nvcc's
    message."""
    report = _nvcc(source, directory, name, "cubin", "-cubin", "-Xptxas", "-v")
    found: dict[str, Resources] = {}
    kernel = None
    for line in report.splitlines():
        if entry := re.search(r"Compiling entry function '(\w+)'", line):
            kernel = entry.group(1)
        elif kernel and (used := re.search(r"Used (\d+) registers", line)):
            shared = re.search(r"(\d+) bytes smem", line)
            smem = int(shared.group(1)) if shared else 0
            found[kernel] = Resources(int(used.group(1)), smem)
            kernel = None
    return found


def launch_problems(plan: Any, resources: dict[str, Resources]) -> list[str]:
    """What in `plan`'s launches an sm_90 GPU would refuse at launch time
    ("too many resources requested", "invalid configuration"), which no
    compiler reports: a block over 1024 threads, or whose threads need more
    registers than an SM has, a grid over 2^31 - 1 in x or 65535 in y or z."""
    problems = []
    for step in plan.steps:
        if not isinstance(step, Launch):
            continue
        threads = step.block[0] * step.block[1] * step.block[2]
        used = resources[step.kernel]
        if threads > MAX_THREADS:
            problems.append(f"{step.kernel}: {threads} threads per block")
        if used.registers * threads > REGISTERS_PER_SM:
            problems.append(
                f"{step.kernel}: {used.registers} registers x {threads} threads "
                f"> {REGISTERS_PER_SM}"
            )
        if step.grid[0] > MAX_GRID_X or max(step.grid[1:]) > MAX_GRID_YZ:
            problems.append(f"{step.kernel}: grid {step.grid}")
    return problems
