"""Timers: CUDA events on the device, `perf_counter` on the CPU reference.

Every timer runs `warmup` untimed calls, then `runs` timed ones, and returns
the per-run times in milliseconds; `summarize` turns them into median and
p10/p90. On CUDA each timed run is bracketed by two events recorded on the
stream the work runs on (CuPy's current stream for fxdsl and the copy,
torch's current stream for torch variants), and before each run the timer
overwrites a buffer of twice the L2 size, so no run finds its inputs in L2
left there by the previous one (the flush is outside the events).

On the CPU every variant is timed with the same number of threads
(`CpuDevice(threads)`, `fxdsl-bench --threads`, default 1): torch's intra-op
pool (`torch.set_num_threads`) and numpy's BLAS and OpenMP pools (through
threadpoolctl, the `bench` extra) are limited while a timer runs, so torch
eager does not swing with the load on the machine while fxdsl's numpy path
runs single-threaded. The count is in the report (device `threads`).

CuPy is imported only when a `CudaDevice` is made (it is optional and lives
on the device machine); torch only by `torch_events`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_RUNS = 30
DEFAULT_WARMUP = 5
DEFAULT_THREADS = 1
FALLBACK_L2_BYTES = 50 * 2**20  # H100 SXM; used if the device does not say


@dataclass(frozen=True)
class Summary:
    """Median and spread of one variant's run times (milliseconds)."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    runs: int


def summarize(times_ms: list[float]) -> Summary:
    """Median, 10th and 90th percentile of `times_ms`."""
    if not times_ms:
        raise ValueError("summarize: no runs")
    p10, p90 = np.percentile(np.asarray(times_ms), [10, 90])
    return Summary(statistics.median(times_ms), float(p10), float(p90), len(times_ms))


@dataclass(frozen=True)
class EventApi:
    """How one framework records and reads device events."""

    make: Callable[[], Any]
    elapsed_ms: Callable[[Any, Any], float]
    synchronize: Callable[[], None]
    flush: Callable[[], None]


def time_events(
    fn: Callable[[], Any], api: EventApi, runs: int, warmup: int
) -> list[float]:
    """Per-run device times (ms) of `fn`, bracketed by events of `api`."""
    for _ in range(warmup):
        fn()
    api.synchronize()
    times: list[float] = []
    for _ in range(runs):
        api.flush()
        start, end = api.make(), api.make()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(api.elapsed_ms(start, end))
    return times


def time_host(fn: Callable[[], Any], runs: int, warmup: int) -> list[float]:
    """Per-run wall times (ms) of `fn` with `time.perf_counter` (CPU)."""
    for _ in range(warmup):
        fn()
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def _blas_pinning() -> str | None:
    """How numpy's thread pools are limited (None: they cannot be here)."""
    if importlib.util.find_spec("threadpoolctl") is None:
        return None
    return "numpy's BLAS and OpenMP pools by threadpoolctl"


@contextlib.contextmanager
def pinned_threads(count: int) -> Iterator[None]:
    """Limit torch's intra-op pool (when torch is loaded: only torch
    variants load it) and numpy's BLAS/OpenMP pools to `count` threads;
    restore them after."""
    torch = sys.modules.get("torch")
    previous = torch.get_num_threads() if torch is not None else None
    with contextlib.ExitStack() as stack:
        if _blas_pinning() is not None:
            from threadpoolctl import threadpool_limits

            stack.enter_context(threadpool_limits(limits=count))
        if torch is not None:
            torch.set_num_threads(count)
            stack.callback(torch.set_num_threads, previous)
        yield


class CpuDevice:
    """The numpy reference backend: host arrays, wall-clock timing, every
    variant timed on `threads` threads (`pinned_threads`)."""

    name = "cpu"

    def __init__(self, threads: int = DEFAULT_THREADS) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.threads = threads
        blas = _blas_pinning() or "numpy's BLAS not limited (needs threadpoolctl)"
        count = f"{threads} thread{'' if threads == 1 else 's'}"
        self.threading = f"{count}: torch.set_num_threads, {blas}"
        self.flush_note = (
            "no cache flush (CPU reference; wall-clock perf_counter); "
            f"every variant timed on {self.threading}"
        )

    def describe(self) -> dict[str, Any]:
        import platform

        return {
            "backend": "cpu",
            "name": platform.processor() or platform.machine(),
            "threads": self.threads,
            "threading": self.threading,
        }

    def to_device(self, array: np.ndarray) -> Any:
        return array

    def to_host(self, array: Any) -> np.ndarray:
        return np.asarray(array)

    def time(self, fn: Callable[[], Any], runs: int, warmup: int) -> list[float]:
        with pinned_threads(self.threads):
            return time_host(fn, runs, warmup)

    def synchronize(self) -> None:
        """Nothing is asynchronous on the host."""

    def copy_fn(self, nbytes: int) -> Callable[[], Any]:
        src = np.ones(max(nbytes, 1), dtype=np.uint8)
        dst = np.empty_like(src)
        return lambda: np.copyto(dst, src)


class CudaDevice:
    """CuPy on the current GPU: device arrays, CUDA-event timing, L2 flush."""

    name = "cuda"

    def __init__(self) -> None:
        import cupy

        self.cp = cupy
        device = cupy.cuda.Device()
        attributes = device.attributes
        self.l2_bytes = int(attributes.get("L2CacheSize", 0)) or FALLBACK_L2_BYTES
        self.props = cupy.cuda.runtime.getDeviceProperties(device.id)
        self._flush_buffer = cupy.empty(2 * self.l2_bytes, dtype=cupy.uint8)
        self.flush_note = (
            f"L2 ({self.l2_bytes / 2**20:.0f} MiB) flushed before each run by "
            f"writing {2 * self.l2_bytes / 2**20:.0f} MiB"
        )
        self.events = EventApi(
            make=cupy.cuda.Event,
            elapsed_ms=cupy.cuda.get_elapsed_time,
            synchronize=cupy.cuda.get_current_stream().synchronize,
            flush=lambda: self._flush_buffer.fill(1),
        )

    def describe(self) -> dict[str, Any]:
        name = self.props["name"]
        return {
            "backend": "cuda",
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{self.props['major']}.{self.props['minor']}",
            "l2_bytes": self.l2_bytes,
            "memory_bytes": int(self.props["totalGlobalMem"]),
        }

    def to_device(self, array: np.ndarray) -> Any:
        return self.cp.asarray(array)

    def to_host(self, array: Any) -> np.ndarray:
        return self.cp.asnumpy(array)

    def time(self, fn: Callable[[], Any], runs: int, warmup: int) -> list[float]:
        return time_events(fn, self.events, runs, warmup)

    def synchronize(self) -> None:
        self.events.synchronize()

    def copy_fn(self, nbytes: int) -> Callable[[], Any]:
        src = self.cp.ones(max(nbytes, 1), dtype=self.cp.uint8)
        dst = self.cp.empty_like(src)
        return lambda: self.cp.copyto(dst, src)


@functools.cache
def torch_events(device: CudaDevice) -> EventApi:
    """Events on torch's current stream; the L2 flush is a torch write too,
    so it is ordered with the timed work on that stream (one per device)."""
    import torch

    flush_buffer = torch.empty(2 * device.l2_bytes, dtype=torch.uint8, device="cuda")
    return EventApi(
        make=lambda: torch.cuda.Event(enable_timing=True),
        elapsed_ms=lambda start, end: float(start.elapsed_time(end)),
        synchronize=torch.cuda.synchronize,
        flush=lambda: flush_buffer.fill_(1),
    )


Device = CpuDevice | CudaDevice
