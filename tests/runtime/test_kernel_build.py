"""Compiling kernels once through the disk cache (real nvcc where it counts),
finding the kernel that fails, the compilers, and the process-wide stats."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from xdsl.dialects import gpu

import fxdsl.runtime
from fxdsl.api import apply
from fxdsl.frontends.models import gpt2_stack
from fxdsl.lowering.cuda_printer import PRELUDE, kernel_source
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime import counters, nvrtc, reset_stats, stats
from fxdsl.runtime.kernel_build import KernelCompileWarning, build_kernels
from fxdsl.runtime.kernel_cache import KernelCache
from fxdsl.runtime.nvrtc import (
    CompileError,
    CompilerUnavailable,
    NvccCompiler,
    default_compiler,
    first_errors,
)

GPT2_KERNELS = 6
"""Unique kernels of gpt2_stack(12, B=1, T=8, D=16, heads=2) after
GPU_PIPELINE: graph-dedup outlines the block, whose kernels the 12 calls
launch (73 launches)."""

BUILD_SCRIPT = """
from xdsl.dialects import gpu
from fxdsl.api import apply
from fxdsl.frontends.models import gpt2_stack
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime import stats
from fxdsl.runtime.kernel_build import build_kernels
from fxdsl.runtime.nvrtc import NvccCompiler

lowered = apply(gpt2_stack(12, B=1, T=8, D=16, heads=2), GPU_PIPELINE)
names = [k.sym_name.data for k in lowered.walk() if isinstance(k, gpu.FuncOp)]
build = build_kernels(lowered, names, "sm_90", NvccCompiler())
assert build.cubin.startswith(b"\\x7fELF") and not build.failed
s = stats()
print(f"kernels={len(names)} compiles={s['compiles']} hits={s['hits']}")
"""


@pytest.mark.nvcc
def test_second_process_hits_the_disk_cache(tmp_path: Path) -> None:
    """(a): one nvcc run for the whole gpu.module, none in a second process."""
    env = os.environ | {"FXDSL_CACHE_DIR": str(tmp_path / "cache")}
    lines = []
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, "-c", BUILD_SCRIPT], capture_output=True, text=True,
            env=env, timeout=300,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-3000:]
        lines.append(result.stdout.strip())
    assert lines == [
        f"kernels={GPT2_KERNELS} compiles=1 hits=0",
        f"kernels={GPT2_KERNELS} compiles=0 hits=1",
    ]
    assert len(list((tmp_path / "cache").iterdir())) == 1


@pytest.mark.nvcc
def test_nvcc_compiler_makes_a_cubin_and_reports_errors() -> None:
    compiler = NvccCompiler()
    source = 'extern "C" __global__ void fx_k(float* x) { x[0] = 1.0f; }'
    cubin = compiler(source, "sm_90", ("--std=c++17",))
    assert cubin.startswith(b"\x7fELF")
    assert b"fx_k" in cubin
    with pytest.raises(CompileError, match="error") as info:
        compiler(source.replace("1.0f;", "1.0f"), "sm_90", ())
    assert 'expected a ";"' in info.value.log
    assert compiler.identity.startswith("nvcc ")


class ScriptedCompiler:
    """Fails every source that holds kernel `victim`; counts its runs."""

    identity = "scripted 1"

    def __init__(self, victim: str | None) -> None:
        self.victim = victim
        self.sources: list[str] = []

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes:
        self.sources.append(source)
        names = re.findall(r"__global__ void (\w+)\(", source)
        if self.victim in names:
            raise CompileError(self.identity, f"k.cu(3): error: bad {self.victim}")
        return ("CUBIN " + " ".join(names)).encode()


def gpt2_lowered() -> tuple[Any, list[str]]:
    lowered = apply(gpt2_stack(2, B=1, T=8, D=16, heads=2), GPU_PIPELINE)
    names = [k.sym_name.data for k in lowered.walk() if isinstance(k, gpu.FuncOp)]
    return lowered, names


def test_failing_kernel_is_isolated_with_one_warning(tmp_path: Path) -> None:
    lowered, names = gpt2_lowered()
    victim = names[2]
    compiler = ScriptedCompiler(victim)
    reset_stats()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build = build_kernels(lowered, names, "sm_90", compiler, KernelCache(tmp_path))
    assert [str(w.message) for w in caught if w.category is KernelCompileWarning] == [
        f"kernel '{victim}' failed to compile (scripted 1): k.cu(3): error: bad "
        f"{victim}; it runs on the host IR emulator instead (correct, much slower)"
    ]
    assert build.failed == {victim: f"k.cu(3): error: bad {victim}"}
    assert build.compiled == tuple(n for n in names if n != victim)
    assert build.cubin == ("CUBIN " + " ".join(build.compiled)).encode()
    # the module, each kernel alone, then the rest as one module
    assert len(compiler.sources) == 1 + len(names) + 1
    assert stats()["compile_failures"] == 2
    assert stats()["host_fallbacks"] == 1
    # a second build reuses every cached success; only failures run again
    compiler.sources.clear()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        again = build_kernels(lowered, names, "sm_90", compiler, KernelCache(tmp_path))
    assert again == build
    assert len(compiler.sources) == 2


def test_kernel_source_of_some_kernels() -> None:
    lowered, names = gpt2_lowered()
    whole = kernel_source(lowered)
    one = kernel_source(lowered, [names[1]])
    assert one.startswith(PRELUDE)
    assert re.findall(r"__global__ void (\w+)\(", one) == [names[1]]
    assert re.findall(r"__global__ void (\w+)\(", whole) == names
    # a kernel's text does not depend on its neighbours
    body = one[one.index('extern "C"') :]
    assert body in whole


def test_compiler_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvrtc.COMPILER_ENV, "clang")
    with pytest.raises(CompilerUnavailable, match="expected 'nvrtc' or 'nvcc'"):
        default_compiler()
    monkeypatch.setenv(nvrtc.COMPILER_ENV, "nvrtc")
    monkeypatch.setattr(nvrtc, "_nvrtc_module", _raise_import_error)
    with pytest.raises(CompilerUnavailable, match="NVRTC is not available"):
        default_compiler()
    monkeypatch.delenv(nvrtc.COMPILER_ENV)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(CompilerUnavailable, match="no CUDA compiler: NVRTC .*nvcc"):
        default_compiler()


def _raise_import_error() -> Any:
    raise ImportError("No module named 'cupy'")


@pytest.mark.nvcc
def test_nvcc_when_nvrtc_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(nvrtc.COMPILER_ENV, raising=False)
    monkeypatch.setattr(nvrtc, "_nvrtc_module", _raise_import_error)
    assert isinstance(default_compiler(), NvccCompiler)


class FakeNvrtc(types.SimpleNamespace):
    """CuPy's thin NVRTC wrapper, scripted: records the options."""

    class NVRTCError(RuntimeError):
        pass

    def __init__(self, fail: bool) -> None:
        super().__init__(fail=fail, options=None, destroyed=0)

    def getVersion(self) -> tuple[int, int]:
        return (12, 8)

    def createProgram(self, src: str, name: str, headers: Any, names: Any) -> int:
        return 7

    def compileProgram(self, program: int, options: list[str]) -> None:
        self.options = options
        if self.fail:
            raise self.NVRTCError("NVRTC_ERROR_COMPILATION (6)")

    def getProgramLog(self, program: int) -> str:
        return 'kernels.cu(5): error: identifier "x" is undefined\n'

    def getCUBIN(self, program: int) -> bytes:
        return b"\x7fELF-cubin"

    def destroyProgram(self, program: int) -> None:
        self.destroyed += 1


@pytest.mark.parametrize("fail", [False, True])
def test_nvrtc_compiler_asks_for_a_cubin(
    monkeypatch: pytest.MonkeyPatch, fail: bool
) -> None:
    fake = FakeNvrtc(fail)
    monkeypatch.setattr(nvrtc, "_nvrtc_module", lambda: fake)
    compiler = nvrtc.NvrtcCompiler()
    assert compiler.identity == "nvrtc-12.8"
    if fail:
        with pytest.raises(CompileError, match='identifier "x" is undefined'):
            compiler("src", "sm_90", ("--std=c++17",))
    else:
        assert compiler("src", "sm_90", ("--std=c++17",)) == b"\x7fELF-cubin"
    assert fake.options[:2] == ["-arch=sm_90", "--std=c++17"]
    assert fake.destroyed == 1


def test_first_errors_prefers_error_lines() -> None:
    log = "k.cu(1): warning: unused\nk.cu(2): error: one\nk.cu(3): error: two\n"
    assert first_errors(log) == "k.cu(2): error: one | k.cu(3): error: two"
    assert first_errors("") == "(no compiler output)"


def test_stats_are_process_wide_and_resettable(tmp_path: Path) -> None:
    reset_stats()
    cache = KernelCache(tmp_path)
    cache.get_or_compile("s", "sm_90", [], lambda: b"x")
    KernelCache(tmp_path).get_or_compile("s", "sm_90", [], lambda: b"x")
    assert fxdsl.runtime.stats() == stats()
    assert (stats()["compiles"], stats()["hits"], stats()["misses"]) == (1, 1, 1)
    with counters.timed("lower"):
        pass
    assert fxdsl.runtime.timings()["lower"] > 0
    with pytest.raises(KeyError, match="unknown compile phase 'parse'"):
        counters.timed("parse").__enter__()
    reset_stats()
    assert set(stats().values()) == {0}
    assert set(fxdsl.runtime.timings().values()) == {0.0}
