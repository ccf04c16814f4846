"""`fxdsl-bench`: time fxdsl against its baselines and write a report.

    fxdsl-bench --backend cuda --tag h100            # on the device, full size
    fxdsl-bench --backend cpu --scale tiny           # CI: CPU reference, seconds
    fxdsl-bench --workloads softmax,mlp --runs 50

Writes `<out>/<YYYY-MM-DD>-<tag>.{json,md,png}` (UTC date; the PNG needs the
`bench` extra). Exit status 1 when a variant's numerics check fails (after
writing the report, which marks it `wrong`), or on bad input, which is one
`error:` line and never a traceback.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fxdsl.bench.bf16_workloads import BF16_WORKLOADS
from fxdsl.bench.generation import GENERATE_WORKLOADS, GenerateWorkload
from fxdsl.bench.harness import (
    CHECK_ATOL,
    CHECK_RTOL,
    Harness,
    Settings,
    WorkloadResult,
)
from fxdsl.bench.report import load_report, merge_results, to_json, write_report
from fxdsl.bench.timing import (
    DEFAULT_RUNS,
    DEFAULT_THREADS,
    DEFAULT_WARMUP,
    CpuDevice,
    CudaDevice,
)
from fxdsl.bench.variants import Variant, default_variants
from fxdsl.bench.workloads import SCALES, WORKLOADS, Workload, workload_named
from fxdsl.runtime.compile import BackendUnavailable, cuda_unavailable_reason
from fxdsl.tools.diagnostics import DriverArgumentParser, UserError, run_guarded
from fxdsl.util.atomic_write import write_atomic

DESCRIPTION = "time fxdsl (fused, unfused), torch and a device copy side by side"
DEFAULT_OUT = Path("benchmarks/results")
CHECK_SCALE = {"full": "small", "small": "small", "tiny": "tiny"}
"""Scale at which numerics are checked against the (slow) CPU reference."""


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argparse `type`: an integer no smaller than `minimum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


_positive = _at_least(1)
_non_negative = _at_least(0)


def build_parser() -> argparse.ArgumentParser:
    parser = DriverArgumentParser(prog="fxdsl-bench", description=DESCRIPTION)
    parser.add_backend_argument(default="auto")
    parser.add_argument(
        "--scale",
        choices=SCALES,
        help="workload sizes (default: full on cuda, tiny on cpu)",
    )
    parser.add_argument(
        "--workloads",
        help="comma-separated names or groups (default: f32): "
        + "; ".join(f"{group}: {', '.join(w.name for w in members)}"
                    for group, members in GROUPS.items()),
    )  # fmt: skip
    parser.add_argument(
        "--variants",
        help="comma-separated names (default: all): "
        + ", ".join(v.name for v in default_variants()),
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the other workloads of an existing report of the same name "
        "(split a long run over several commands); the JSON is rewritten after "
        "every row, so a run cut short keeps the rows it finished",
    )
    parser.add_argument(
        "--runs", type=_positive, default=DEFAULT_RUNS, help="timed runs (median)"
    )
    parser.add_argument(
        "--warmup", type=_non_negative, default=DEFAULT_WARMUP, help="untimed runs"
    )
    parser.add_argument(
        "--threads",
        type=_positive,
        default=DEFAULT_THREADS,
        help="cpu backend: threads of torch's and numpy's pools while timing, "
        "the same for every variant (default: %(default)s)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="folder for the report files"
    )
    parser.add_argument("--tag", help="file name tag (default: the backend)")
    parser.add_argument(
        "--date", help="date in the file names (default: today, UTC, YYYY-MM-DD)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument(
        "--one-compile",
        action="store_true",
        help="compile each variant once (its cold compile time), not cold "
        "then warm: halves Inductor's compile time on a short GPU lease",
    )
    return parser


GROUPS: dict[str, tuple[Workload | GenerateWorkload, ...]] = {
    "f32": WORKLOADS,
    "bf16": BF16_WORKLOADS,
    "generate": GENERATE_WORKLOADS,
    "all": (*WORKLOADS, *BF16_WORKLOADS, *GENERATE_WORKLOADS),
}
"""Names `--workloads` takes for a set of workloads (the default: f32)."""


def select_workloads(spec: str | None) -> list[Workload | GenerateWorkload]:
    if spec is None:
        return list(WORKLOADS)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise UserError("--workloads names no workload")
    chosen: list[Workload | GenerateWorkload] = []
    try:
        for name in names:
            chosen += GROUPS.get(name) or [workload_named(name, GROUPS["all"])]  # type: ignore[arg-type]
    except ValueError as error:
        raise UserError(str(error)) from None
    return list({w.name: w for w in chosen}.values())


def select_variants(spec: str | None, variants: Sequence[Variant]) -> list[Variant]:
    if spec is None:
        return list(variants)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    known = {v.name: v for v in variants}
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UserError(
            f"unknown variant '{unknown[0] if unknown else spec}' "
            f"(known: {', '.join(known)})"
        )
    return [known[n] for n in dict.fromkeys(names)]


def make_device(backend: str, threads: int = DEFAULT_THREADS) -> CpuDevice | CudaDevice:
    """The device for `backend`; cuda unavailable -> BackendUnavailable
    (auto falls back to the cpu reference, timed on `threads` threads)."""
    if backend == "cpu":
        return CpuDevice(threads)
    reason = cuda_unavailable_reason()
    if reason is None:
        return CudaDevice()
    if backend == "auto":
        return CpuDevice(threads)
    raise BackendUnavailable(reason)


def _date(text: str | None) -> str:
    if text is None:
        return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise UserError(f"--date: expected YYYY-MM-DD, got {text!r}") from None


def run_bench(
    argv: Sequence[str] | None = None, variants: Sequence[Variant] | None = None
) -> int:
    """The whole `fxdsl-bench` run (`variants` replaces the default list:
    tests inject variants through it). Raises on bad input."""
    args = build_parser().parse_args(argv)
    workloads = select_workloads(args.workloads)
    chosen = select_variants(args.variants, variants or default_variants())
    date = _date(args.date)
    tag = args.tag or ""
    if tag and not all(c.isalnum() or c in "-_." for c in tag):
        raise UserError(f"--tag: use letters, digits, '-', '_' or '.', got {tag!r}")
    device = make_device(args.backend, args.threads)
    scale = args.scale or ("full" if device.name == "cuda" else "tiny")
    settings = Settings(
        scale, CHECK_SCALE[scale], args.runs, args.warmup, not args.one_compile
    )
    stem = f"{date}-{tag or device.name}"
    old = _previous(args.out / f"{stem}.json", device.name, scale) if args.merge else []
    harness = Harness(device, chosen, settings)
    progress = (lambda _line: None) if args.quiet else _print_err
    start = time.perf_counter()
    order = [v.name for v in default_variants()] + [v.name for v in chosen]

    def meta(partial: bool) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "date": date,
            "tag": tag or device.name,
            "device": device.describe(),
            "scale": scale,
            "check_scale": settings.check_scale,
            "check_tolerance": {"rtol": CHECK_RTOL, "atol": CHECK_ATOL},
            "runs": settings.runs,
            "warmup": settings.warmup,
            "timing": device.flush_note,
            "elapsed_s": round(time.perf_counter() - start, 1),
            "versions": _versions(),
        }
        if partial:  # a cut run leaves this behind: say it was not finished
            fields["partial"] = True
        return fields

    def merged(results: list[WorkloadResult]) -> list[WorkloadResult]:
        if not old:
            return results
        return merge_results(old, results, [w.name for w in GROUPS["all"]], order)

    def checkpoint(results: list[WorkloadResult]) -> None:
        """Under `--merge`, the JSON report so far after every row (marked
        `partial`; the markdown and the plot wait for the end): a run killed
        by its time budget keeps every row it finished, and the next
        `--merge` reads them back."""
        write_atomic(args.out / f"{stem}.json", to_json(meta(True), merged(results)))

    if args.merge:
        args.out.mkdir(parents=True, exist_ok=True)
    results = harness.run(workloads, progress, checkpoint if args.merge else None)
    report = merged(results)
    written, note = write_report(args.out, stem, meta(False), report)
    for path in written:
        print(f"wrote {path}")
    if note:
        print(note)
    # only this run's rows decide the exit status
    bad = [
        f"{r.name}/{row.variant}" for r in results for row in r.rows
        if row.status == "wrong"
    ]  # fmt: skip
    failed = [
        f"{r.name}/{row.variant} ({row.reason})" for r in results for row in r.rows
        if row.status == "failed"
    ]  # fmt: skip
    for line in failed:
        _print_err(f"warning: failed: {line}")
    if bad:
        _print_err(f"error: numerics check failed: {', '.join(bad)}")
        return 1
    return 0


def _versions() -> dict[str, str]:
    """Installed versions of what the numbers depend on (absent: not here)."""
    found: dict[str, str] = {"python": platform.python_version()}
    for package in ("fxdsl", "xdsl", "numpy", "cupy-cuda13x", "cupy-cuda12x", "torch"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def _previous(path: Path, backend: str, scale: str) -> list[WorkloadResult]:
    """The results of the report at `path` to merge into (none if absent);
    it must come from the same backend and scale."""
    if not path.exists():
        return []
    try:
        meta, results = load_report(path)
    except (ValueError, KeyError, TypeError) as error:
        raise UserError(f"--merge: cannot read {path}: {error}") from None
    found = (meta.get("device", {}).get("backend"), meta.get("scale"))
    if found != (backend, scale):
        raise UserError(
            f"--merge: {path} is backend {found[0]} at scale {found[1]}, "
            f"this run is backend {backend} at scale {scale}"
        )
    return results


def _print_err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point: exit status of the run (see the module doc)."""
    return run_guarded(lambda: run_bench(argv), lambda: None)
