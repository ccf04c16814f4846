"""Process-wide runtime counters: `fxdsl.runtime.stats()` reads them.

One set per process, shared by the kernel cache and the CUDA executor:

* `compiles`: real compiler runs (NVRTC or nvcc) that produced a cubin;
* `hits` / `misses`: kernel-cache lookups answered from disk / not;
* `corrupt`: cache entries found damaged, deleted and rebuilt;
* `compile_failures`: compiler runs that failed (the whole module, or one
  kernel tried alone to find which kernel fails);
* `host_fallbacks`: kernels that failed to compile and run on the host IR
  emulator instead;
* `modules_loaded`: cubins loaded into the device.

A second process with a warm cache shows `compiles=0` and one hit per module.

`timings()` adds where compile time goes, in seconds per phase:
`lower` (the pass pipeline and the launch plan), `build` (CUDA source, cache
lookup, compiler runs) and `load` (cubin load, executor set-up).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager

COUNTER_NAMES = (
    "compiles", "hits", "misses", "corrupt", "compile_failures",
    "host_fallbacks", "modules_loaded",
)  # fmt: skip

_COUNTERS: dict[str, int] = dict.fromkeys(COUNTER_NAMES, 0)

PHASES = ("lower", "build", "load")
_SECONDS: dict[str, float] = dict.fromkeys(PHASES, 0.0)


def count(name: str, amount: int = 1) -> None:
    """Add `amount` to counter `name` (one of `COUNTER_NAMES`)."""
    if name not in _COUNTERS:
        raise KeyError(f"unknown runtime counter '{name}'")
    _COUNTERS[name] += amount


def stats() -> dict[str, int]:
    """A copy of the process-wide runtime counters (see module doc)."""
    return dict(_COUNTERS)


@contextmanager
def timed(phase: str) -> Generator[None]:
    """Add the wall time of the `with` body to `phase` (one of `PHASES`)."""
    if phase not in _SECONDS:
        raise KeyError(f"unknown compile phase '{phase}'")
    start = time.perf_counter()
    try:
        yield
    finally:
        _SECONDS[phase] += time.perf_counter() - start


def timings() -> dict[str, float]:
    """Seconds spent per compile phase in this process (see module doc)."""
    return dict(_SECONDS)


def reset_stats() -> None:
    """Zero every counter and phase time (tests; or to measure one phase of
    a program)."""
    for name in _COUNTERS:
        _COUNTERS[name] = 0
    for phase in _SECONDS:
        _SECONDS[phase] = 0.0
