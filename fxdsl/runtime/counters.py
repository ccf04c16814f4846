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
"""

from __future__ import annotations

COUNTER_NAMES = (
    "compiles", "hits", "misses", "corrupt", "compile_failures",
    "host_fallbacks", "modules_loaded",
)  # fmt: skip

_COUNTERS: dict[str, int] = dict.fromkeys(COUNTER_NAMES, 0)


def count(name: str, amount: int = 1) -> None:
    """Add `amount` to counter `name` (one of `COUNTER_NAMES`)."""
    if name not in _COUNTERS:
        raise KeyError(f"unknown runtime counter '{name}'")
    _COUNTERS[name] += amount


def stats() -> dict[str, int]:
    """A copy of the process-wide runtime counters (see module doc)."""
    return dict(_COUNTERS)


def reset_stats() -> None:
    """Zero every counter (tests; or to measure one phase of a program)."""
    for name in _COUNTERS:
        _COUNTERS[name] = 0
