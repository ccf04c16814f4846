"""Compile the kernels of a lowered module once, through the disk cache, and
isolate the kernels that do not compile.

`build_kernels(lowered, kernels, arch)`:

1. Compiles the whole `gpu.module` (`kernel_source(lowered)`: every kernel in
   one translation unit) through `KernelCache.get_or_compile`: one compiler
   run per module on a cold cache, none on a warm one (another process
   included). The key covers the source, the arch, the options and the
   compiler's identity.
2. When that fails (`CompileError`), compiles each needed kernel alone (with
   the shared prelude, `kernel_source(lowered, [name])`) to find the failing
   ones, then the others together as one module. Each failing kernel gets
   one `KernelCompileWarning` naming it and quoting the compiler's first
   error lines, and is returned in `failed`: the executor runs it on the host
   (`fxdsl.runtime.ir_emulator`), so the program stays correct.

Cost of a failure: the module compile, one compile per needed kernel and one
for the rest (the kernels that compile are cached, so a later process pays
only the failing compiles again: failures are not cached).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.runtime import counters
from fxdsl.runtime.kernel_cache import KernelCache
from fxdsl.runtime.nvrtc import CompileError, Compiler, default_compiler, first_errors

COMPILE_OPTIONS: tuple[str, ...] = ("--std=c++17",)
"""Options of every compile (NVRTC and nvcc both accept them)."""


class KernelCompileWarning(RuntimeWarning):
    """A kernel did not compile; it runs on the host IR emulator instead."""


@dataclass(frozen=True)
class KernelBuild:
    """The compiled module of the kernels that compile, and those that do not."""

    cubin: bytes | None
    """One cubin holding every kernel of `compiled` (None when it is empty)."""
    compiled: tuple[str, ...]
    failed: dict[str, str] = field(default_factory=dict[str, str])
    """kernel name -> the compiler's first error lines."""


def build_kernels(
    lowered: ModuleOp,
    kernels: Sequence[str],
    arch: str,
    compiler: Compiler | None = None,
    cache: KernelCache | None = None,
    options: Sequence[str] = COMPILE_OPTIONS,
) -> KernelBuild:
    """Compile the `kernels` of `lowered` for `arch` (e.g. `sm_90`); see the
    module doc. `compiler` defaults to `default_compiler()`, `cache` to the
    user cache directory (`$FXDSL_CACHE_DIR` overrides it)."""
    compiler = compiler or default_compiler()
    cache = cache if cache is not None else KernelCache()
    key_options = (*options, f"compiler={compiler.identity}")

    def compile_cached(source: str) -> bytes:
        def run() -> bytes:
            try:
                return compiler(source, arch, tuple(options))
            except CompileError:
                counters.count("compile_failures")
                raise

        return cache.get_or_compile(source, arch, key_options, run)

    names = tuple(dict.fromkeys(kernels))
    if not names:
        return KernelBuild(None, ())
    try:
        return KernelBuild(compile_cached(kernel_source(lowered)), names)
    except CompileError:
        pass  # find which kernels fail
    failed: dict[str, str] = {}
    for name in names:
        try:
            compile_cached(kernel_source(lowered, [name]))
        except CompileError as error:
            failed[name] = first_errors(error.log)
    good = tuple(n for n in names if n not in failed)
    cubin = None
    if good:
        try:
            cubin = compile_cached(kernel_source(lowered, good))
        except CompileError as error:  # alone they compile, together not
            failed |= dict.fromkeys(good, first_errors(error.log))
            good = ()
    for name, message in failed.items():
        warnings.warn(
            f"kernel '{name}' failed to compile ({compiler.identity}): {message}; "
            "it runs on the host IR emulator instead (correct, much slower)",
            KernelCompileWarning,
            stacklevel=2,
        )
    counters.count("host_fallbacks", len(failed))
    return KernelBuild(cubin, good, failed)
