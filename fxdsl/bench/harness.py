"""Run every variant of every workload side by side in one process.

For each workload the harness

1. checks numerics at the check scale: each checked variant runs the
   workload's seeded inputs and its outputs are compared with the numpy
   reference interpreter on the unmodified module (max abs error, and
   `numerics_ok` within `CHECK_RTOL`/`CHECK_ATOL`, or the workload's own
   `tolerance`: bf16 ones); a variant that is fast and wrong is reported as
   `wrong`, never trusted;
2. compiles each variant at the benchmark scale twice with the kernel caches
   pointed at one fresh temporary folder: the first compile is cold, the
   second warm; each time is the build plus the first call, synchronized
   (torch.compile compiles on that call), without moving the inputs;
3. times the warm build (median, p10, p90 of `runs` after `warmup`).

A variant that cannot run here is `skipped` with its reason; one that raises
is `failed` with the error's first line; neither stops the others.
"""

from __future__ import annotations

import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fxdsl.bench.generation import (
    GenerateWorkload,
    generate_step_bytes,
    run_generate,
)
from fxdsl.bench.timing import Device, summarize
from fxdsl.bench.variants import TORCH_PREFIX, Compiled, Skipped, Variant
from fxdsl.bench.workloads import Workload, bytes_moved, workload_inputs
from fxdsl.interpreters.run import entry_function, run_reference
from fxdsl.runtime.counters import timings
from fxdsl.runtime.kernel_build import KernelCompileWarning

CHECK_RTOL = 1e-3
CHECK_ATOL = 1e-3
CACHE_VARIABLES = (
    "FXDSL_CACHE_DIR",
    "CUPY_CACHE_DIR",
    "TORCHINDUCTOR_CACHE_DIR",
    "TRITON_CACHE_DIR",
)
"""Kernel caches pointed at a fresh folder for the cold/warm compile pair."""


@dataclass
class Row:
    """One variant of one workload: status, timings, compile times, numerics."""

    variant: str
    status: str = "ok"
    """ok | wrong (numerics check failed) | skipped | failed"""
    reason: str | None = None
    median_ms: float | None = None
    p10_ms: float | None = None
    p90_ms: float | None = None
    runs: int = 0
    gb_per_s: float | None = None
    tflops: float | None = None
    """achieved TFLOPS (workloads that name their FLOPs)"""
    vs_copy: float | None = None
    vs_best_torch: float | None = None
    compile_cold_s: float | None = None
    compile_warm_s: float | None = None
    warm_phases_s: dict[str, float] | None = None
    """fxdsl variants: the warm compile's seconds per phase (lower, build,
    load; `fxdsl.runtime.timings`); the rest of `compile_warm_s` is the
    first call."""
    kernels: int | None = None
    max_abs_err: float | None = None
    numerics_ok: bool | None = None
    tokens_per_s: float | None = None
    """generate workloads: generated tokens per second (median is per step)"""


@dataclass
class WorkloadResult:
    """Every variant's row for one workload at one scale."""

    name: str
    description: str
    dims: dict[str, int]
    check_dims: dict[str, int]
    bytes_moved: int
    rows: list[Row] = field(default_factory=list)
    flops: int | None = None
    """FLOPs of one run at the benchmark scale (None: not counted)"""
    element: str = "f32"
    """the element type of the first result (which tensor-core peak applies)"""


@dataclass(frozen=True)
class Settings:
    scale: str
    check_scale: str
    runs: int
    warmup: int
    warm_compile: bool = True
    """Compile twice, cold then warm (False: once, recorded as the cold
    compile: Inductor's compile of a 124M model is 10-15 s, which a GPU
    lease of minutes cannot spend twice per row)."""


@contextmanager
def kernels_must_compile() -> Iterator[None]:
    """A kernel that fails to compile is an error here, not a warning: the
    executor would run it on the host IR emulator, correct but thousands of
    times slower, and a benchmark row would spend its whole time budget
    measuring the fallback (an H100 run lost its budget so)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelCompileWarning)
        yield


@contextmanager
def fresh_caches() -> Iterator[None]:
    """Point every kernel cache at one new temporary folder (then restore)."""
    saved = {name: os.environ.get(name) for name in CACHE_VARIABLES}
    with tempfile.TemporaryDirectory(prefix="fxdsl-bench-cache-") as root:
        for name in CACHE_VARIABLES:
            os.environ[name] = os.path.join(root, name.lower())
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(error).__name__}: {line}" if line else type(error).__name__


def max_abs_error(outputs: Sequence[np.ndarray], expected: Sequence[Any]) -> float:
    """Largest |output - expected| over all results (inf on a shape mismatch
    or a missing result; NaN propagates as inf; equal values, infinities
    included, differ by 0, as `within_tolerance` sees them)."""
    if len(outputs) != len(expected):
        return float("inf")
    worst = 0.0
    for out, ref in zip(outputs, expected):
        ref64 = np.asarray(ref, dtype=np.float64)
        out64 = np.asarray(out, dtype=np.float64)
        if out64.shape != ref64.shape:
            return float("inf")
        with np.errstate(invalid="ignore"):  # inf - inf
            diff = np.where(out64 == ref64, 0.0, np.abs(out64 - ref64))
        if diff.size and not np.all(np.isfinite(diff)):
            return float("inf")
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
    return worst


def _wide(array: Any) -> np.ndarray:
    return np.asarray(array, np.float64)


def within_tolerance(
    outputs: Sequence[np.ndarray],
    expected: Sequence[Any],
    rtol: float = CHECK_RTOL,
    atol: float = CHECK_ATOL,
) -> bool:
    if len(outputs) != len(expected):
        return False
    return all(
        np.shape(out) == np.shape(ref)
        and bool(np.allclose(_wide(out), _wide(ref), rtol=rtol, atol=atol))
        for out, ref in zip(outputs, expected)
    )


def _timed_compile(
    build: Callable[[], Compiled], inputs: Callable[[Compiled], list[Any]]
) -> tuple[Compiled, list[Any], float]:
    """Build, then make the first call (synchronized); the seconds of both,
    not counting moving the inputs to the device."""
    start = time.perf_counter()
    compiled = build()
    built = time.perf_counter()
    args = inputs(compiled)
    called = time.perf_counter()
    compiled.fn(*args)
    compiled.synchronize()
    return compiled, args, (built - start) + (time.perf_counter() - called)


def _kernel_count(pipeline: str, module: Any) -> int:
    """Kernel launches + GEMMs of `module` lowered by `pipeline` (pure Python:
    it needs no GPU, and the count does not depend on the sizes)."""
    from fxdsl.pipeline.lower import lower_for_cuda

    return len(lower_for_cuda(module, pipeline)[1].steps)


class Harness:
    """Runs `variants` of `workloads` on `device` (see the module docstring)."""

    def __init__(
        self, device: Device, variants: Sequence[Variant], settings: Settings
    ) -> None:
        self.device = device
        self.variants = list(variants)
        self.settings = settings

    def run(
        self,
        workloads: Sequence[Workload | GenerateWorkload],
        progress: Callable[[str], None] = lambda _line: None,
        checkpoint: Callable[[list[WorkloadResult]], None] | None = None,
    ) -> list[WorkloadResult]:
        """Every workload's result; `checkpoint` is given the results so far
        (the running workload's finished rows included) after each row, so
        a run cut short keeps what it measured."""
        done: list[WorkloadResult] = []

        def report(partial: WorkloadResult) -> None:
            fill_ratios(partial)
            if checkpoint is not None:
                checkpoint([*done, partial])

        for workload in workloads:
            done.append(self.run_workload(workload, progress, report))
        return done

    def run_workload(
        self,
        workload: Workload | GenerateWorkload,
        progress: Callable[[str], None],
        on_row: Callable[[WorkloadResult], None] = lambda _result: None,
    ) -> WorkloadResult:
        """`workload` under every variant that applies; `on_row(result)`
        after each row is added."""
        if isinstance(workload, GenerateWorkload):
            return self.run_generate(workload, progress, on_row)
        scale, check_scale = self.settings.scale, self.settings.check_scale
        module = workload.module(scale)
        check_module = module if check_scale == scale else workload.module(check_scale)
        check_inputs = workload_inputs(check_module)
        expected = run_reference(check_module, *check_inputs)
        dims = workload.dims[scale]
        outputs = entry_function(module).function_type.outputs
        result = WorkloadResult(
            workload.name,
            workload.description,
            dict(dims),
            dict(workload.dims[check_scale]),
            bytes_moved(module),
            flops=workload.flops(dims) if workload.flops else None,
            element=str(outputs.data[0].element_type),  # type: ignore[attr-defined]
        )
        arrays = workload_inputs(module)
        for variant in self.variants:
            if not variant.applies(workload):
                continue
            row = Row(variant.name)
            try:
                with kernels_must_compile():
                    self._run_variant(
                        variant,
                        workload,
                        row,
                        (module, arrays),
                        (check_module, check_inputs, expected),
                    )
            except Skipped as why:
                row.status, row.reason = "skipped", str(why)
            # one variant's failure must not stop the others
            except Exception as error:  # noqa: BLE001
                row.status, row.reason = "failed", _first_line(error)
            result.rows.append(row)
            progress(_progress_line(workload.name, row))
            on_row(result)
        fill_ratios(result)
        return result

    def run_generate(
        self,
        workload: GenerateWorkload,
        progress: Callable[[str], None],
        on_row: Callable[[WorkloadResult], None] = lambda _result: None,
    ) -> WorkloadResult:
        """A generate workload (`bench.generation`): one row per variant,
        `median_ms` per decode step, `bytes_moved` what a step reads."""
        scale, runs, warmup = (
            self.settings.scale, self.settings.runs, self.settings.warmup
        )  # fmt: skip
        dims = workload.dims[scale]
        result = WorkloadResult(
            workload.name,
            workload.description,
            dict(dims),
            dict(dims),
            generate_step_bytes(workload, scale, self.device),
            element="bf16",
        )
        for variant in self.variants:
            row = Row(variant.name)
            try:
                with kernels_must_compile():
                    fields = run_generate(
                        workload, scale, self.device, variant.name, runs, warmup
                    )
                row.median_ms = fields["median_ms"]
                row.tokens_per_s = fields.get("tokens_per_s")
                row.numerics_ok = fields.get("numerics_ok")
                row.runs = runs
                if row.numerics_ok is False:
                    row.status = "wrong"
                    row.reason = "tokens differ from eager's (not at a tie)"
            except Skipped as why:
                row.status, row.reason = "skipped", str(why)
            except Exception as error:  # noqa: BLE001
                row.status, row.reason = "failed", _first_line(error)
            result.rows.append(row)
            progress(_progress_line(workload.name, row))
            on_row(result)
        fill_ratios(result)
        return result

    def _run_variant(
        self,
        variant: Variant,
        workload: Workload,
        row: Row,
        bench: tuple[Any, Sequence[np.ndarray]],
        check: tuple[Any, Sequence[np.ndarray], Sequence[Any]],
    ) -> None:
        device, settings = self.device, self.settings
        module, arrays = bench
        check_module, check_inputs, expected = check
        if variant.checked:
            dims = workload.dims[settings.check_scale]
            checker = variant.compile(device, workload, check_module, dims)
            outputs = checker.outputs(checker.fn(*checker.inputs(check_inputs)))
            rtol, atol = workload.tolerance or (CHECK_RTOL, CHECK_ATOL)
            row.max_abs_err = max_abs_error(outputs, expected)
            row.numerics_ok = within_tolerance(outputs, expected, rtol, atol)
            if not row.numerics_ok:
                row.status = "wrong"
                row.reason = (
                    f"numerics check failed at {settings.check_scale} scale: "
                    f"max abs error {row.max_abs_err:.3g} "
                    f"(rtol {rtol}, atol {atol})"
                )
        if variant.kernel_pipeline is not None:
            row.kernels = _kernel_count(variant.kernel_pipeline, check_module)

        dims = workload.dims[settings.scale]
        build = lambda: variant.compile(device, workload, module, dims)
        converted: list[list[Any]] = []

        def inputs(compiled: Compiled) -> list[Any]:
            # moved to the device once; the warm build reuses them
            if not converted:
                converted.append(compiled.inputs(arrays))
            return converted[0]

        # the caches stay in place while the variant runs (lazy loaders)
        with fresh_caches():
            cold = None
            if settings.warm_compile:
                _, _, cold = _timed_compile(build, inputs)
            before = timings()
            compiled, args, last = _timed_compile(build, inputs)
            phases = {k: v - before[k] for k, v in timings().items()}
            if variant.compiles and not settings.warm_compile:
                row.compile_cold_s = last  # the one compile was cold
            elif variant.compiles:
                row.compile_cold_s, row.compile_warm_s = cold, last
                row.warm_phases_s = phases if any(phases.values()) else None
            times = compiled.timer(
                lambda: compiled.fn(*args), settings.runs, settings.warmup
            )
        summary = summarize(times)
        row.median_ms, row.p10_ms, row.p90_ms = (
            summary.median_ms,
            summary.p10_ms,
            summary.p90_ms,
        )
        row.runs = summary.runs


def fill_ratios(result: WorkloadResult) -> None:
    """Bandwidth, and time relative to the copy and to the best torch variant
    (only rows that ran and passed their numerics check count as a base)."""
    timed = [r for r in result.rows if r.median_ms is not None]
    good = [r for r in timed if r.status == "ok"]
    copy = next((r for r in good if r.variant == "copy"), None)
    torch_times = [r.median_ms for r in good if r.variant.startswith(TORCH_PREFIX)]
    best_torch = min((t for t in torch_times if t is not None), default=None)
    for row in timed:
        assert row.median_ms is not None
        row.gb_per_s = row.tflops = row.vs_copy = row.vs_best_torch = None
        if row.median_ms > 0:
            row.gb_per_s = result.bytes_moved / (row.median_ms * 1e-3) / 1e9
            if result.flops is not None and row.variant != "copy":  # no arithmetic
                row.tflops = result.flops / (row.median_ms * 1e-3) / 1e12
        if copy is not None and copy.median_ms:
            row.vs_copy = row.median_ms / copy.median_ms
        if best_torch:
            row.vs_best_torch = row.median_ms / best_torch


def _progress_line(workload: str, row: Row) -> str:
    if row.median_ms is None:
        return f"{workload:22} {row.variant:30} {row.status}: {row.reason}"
    return f"{workload:22} {row.variant:30} {row.median_ms:10.4f} ms  {row.status}"
