"""CUDA C -> cubin for the device's architecture: NVRTC, or `nvcc` as a
subprocess.

* `NvrtcCompiler` runs NVRTC in-process through CuPy's thin NVRTC wrapper
  (`cupy_backends.cuda.libs.nvrtc`, also `cupy.cuda.nvrtc`: createProgram,
  compileProgram, getCUBIN, getProgramLog); with `-arch=sm_XY` NVRTC emits
  a cubin (SASS), so loading it needs no PTX JIT.
* `NvccCompiler` runs `nvcc -cubin -arch=sm_XY`: no GPU and no CuPy needed,
  which is what CI uses to check the cache with a real compiler.
* `default_compiler()` picks NVRTC when CuPy provides it, else nvcc;
  `$FXDSL_CUDA_COMPILER=nvrtc|nvcc` forces one.

A compiler is a callable `(source, arch, options) -> bytes` raising
`CompileError` (with the compiler's log) when the source does not compile;
its `identity` (name and version) is part of the kernel-cache key.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

COMPILER_ENV = "FXDSL_CUDA_COMPILER"


class CompileError(RuntimeError):
    """The CUDA source does not compile; `log` is the compiler's output."""

    def __init__(self, compiler: str, log: str):
        self.compiler = compiler
        self.log = log
        super().__init__(f"{compiler}: {first_errors(log)}")


class CompilerUnavailable(RuntimeError):
    """No CUDA compiler can run here (neither NVRTC nor nvcc)."""


class Compiler(Protocol):
    """`compiler(source, arch, options) -> cubin bytes`."""

    @property
    def identity(self) -> str: ...

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes: ...


def first_errors(log: str, lines: int = 3) -> str:
    """The first `lines` error lines of a compiler log (else its first lines)."""
    text = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in text if "error" in line.lower()]
    return " | ".join((errors or text)[:lines]) or "(no compiler output)"


def _include_dirs() -> list[str]:
    """CUDA include folders for `cuda_fp16.h`/`cuda_bf16.h` (NVRTC does not
    search the toolkit by itself)."""
    roots = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME")]
    try:
        import cupy  # type: ignore[import-not-found]

        roots.append(cupy.cuda.get_cuda_path())
    except Exception:  # noqa: BLE001 - no CuPy or no toolkit: try the others
        pass
    roots.append("/usr/local/cuda")
    return [
        str(Path(root) / "include")
        for root in dict.fromkeys(r for r in roots if r)
        if (Path(root) / "include" / "cuda_fp16.h").exists()
    ]


def _nvrtc_module() -> Any:
    try:
        from cupy_backends.cuda.libs import (  # type: ignore[import-not-found]
            nvrtc,
        )
    except ImportError:
        from cupy.cuda import nvrtc  # type: ignore[import-not-found]
    return nvrtc


class NvrtcCompiler:
    """In-process NVRTC through CuPy (see module doc)."""

    def __init__(self) -> None:
        try:
            self.nvrtc = _nvrtc_module()
            major, minor = self.nvrtc.getVersion()
        except Exception as error:
            raise CompilerUnavailable(f"NVRTC is not available: {error}") from error
        self.version = f"{major}.{minor}"

    @property
    def identity(self) -> str:
        return f"nvrtc-{self.version}"

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes:
        nvrtc = self.nvrtc
        flags = [f"-arch={arch}", *options, *(f"-I{d}" for d in _include_dirs())]
        program = nvrtc.createProgram(source, "fxdsl_kernels.cu", (), ())
        try:
            try:
                nvrtc.compileProgram(program, flags)
            except nvrtc.NVRTCError as error:
                log = nvrtc.getProgramLog(program)
                raise CompileError(self.identity, log or str(error)) from None
            return bytes(nvrtc.getCUBIN(program))
        finally:
            nvrtc.destroyProgram(program)


class NvccCompiler:
    """`nvcc -cubin -arch=<arch>` in a temporary folder (see module doc)."""

    def __init__(self, nvcc: str | None = None) -> None:
        found = nvcc or shutil.which("nvcc")
        if found is None:
            raise CompilerUnavailable("nvcc is not on PATH")
        self.nvcc = found
        try:
            banner = subprocess.run(
                [found, "--version"], capture_output=True, text=True, timeout=60
            ).stdout
        except (OSError, subprocess.SubprocessError) as error:
            raise CompilerUnavailable(f"cannot run {found}: {error}") from error
        release = [line for line in banner.splitlines() if "release" in line]
        self.version = release[-1].strip() if release else "unknown"

    @property
    def identity(self) -> str:
        return f"nvcc {self.version}"

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes:
        with tempfile.TemporaryDirectory(prefix="fxdsl-nvcc-") as folder:
            cu, cubin = Path(folder) / "kernels.cu", Path(folder) / "kernels.cubin"
            cu.write_text(source)
            command = [self.nvcc, "-cubin", f"-arch={arch}", *options, str(cu)]
            result = subprocess.run(
                [*command, "-o", str(cubin)], capture_output=True, text=True,
                timeout=600,
            )  # fmt: skip
            if result.returncode != 0:
                raise CompileError(self.identity, result.stderr + result.stdout)
            return cubin.read_bytes()


def default_compiler() -> Compiler:
    """NVRTC when CuPy provides it, else nvcc; `$FXDSL_CUDA_COMPILER` forces
    one. Raises `CompilerUnavailable` saying what is missing."""
    choice = os.environ.get(COMPILER_ENV, "").strip().lower()
    if choice == "nvrtc":
        return NvrtcCompiler()
    if choice == "nvcc":
        return NvccCompiler()
    if choice:
        raise CompilerUnavailable(
            f"${COMPILER_ENV}='{choice}': expected 'nvrtc' or 'nvcc'"
        )
    try:
        return NvrtcCompiler()
    except CompilerUnavailable as nvrtc_missing:
        try:
            return NvccCompiler()
        except CompilerUnavailable as nvcc_missing:
            raise CompilerUnavailable(
                f"no CUDA compiler: {nvrtc_missing}; {nvcc_missing}"
            ) from None


def device_arch(cupy: Any) -> str:
    """`sm_XY` of the current device (`compute_capability` is e.g. "90")."""
    return f"sm_{cupy.cuda.Device().compute_capability}"
