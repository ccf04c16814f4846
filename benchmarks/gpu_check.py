"""The GPU check: one command that proves fxdsl on a real GPU in minutes.

A device is lent now and then for about 15 minutes in all (its start, every
command and idle waits count), so the check is one prepared command with a
time budget per stage, each stage writing its results as it ends:

  a. tests: the `gpu`-marked tests (`GPU_TEST_FILES`, most important first),
     under pytest with a JUnit report, so every test's outcome is recorded;
  b. profile: `benchmarks/profile_backend.py`, the backend's host time per
     call and where it goes (cProfile), into the log;
  c. bench: `fxdsl-bench --backend cuda` on the rows that decide defaults and
     goals (`BENCH_WORKLOADS`, each in its `BENCH_ROWS`), its own JSON/markdown in
     the output folder;
  d. summary: device, versions, every bench row and each test's outcome in
     `<out>/<date>-<gpu>.{json,md}`, rewritten after every stage, so a stage
     cut short by its budget (or the device's limit) loses nothing before it.

    bash benchmarks/gpu_check.sh                # on the device machine
    python3 benchmarks/gpu_check.py --dry       # here: the same stages on the CPU

`--dry` runs the same script where there is no GPU (CI does, through a
slow-marked test): stage a only collects the listed tests (so a renamed or
new `gpu` test that the list misses fails the check), stage b profiles
the backend on the CPU at tiny sizes, stage c runs the same workloads on the
CPU reference at tiny sizes. Exit status 1 when a stage fails or runs out of
its budget; the summary says which.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fxdsl.util.atomic_write import write_atomic  # noqa: E402

GPU_TEST_FILES = (
    "tests/lowering/test_flash_attention.py",
    "tests/runtime/test_cublas.py",
    "tests/lowering/test_gpu_execution.py",
    "tests/frontends/test_torch_compile.py",
    "tests/frontends/test_torch_padding.py",
    "tests/runtime/test_tensor_core_gemm.py",
    "tests/distributed/test_pipeline_gpu.py",
    "tests/lowering/test_linalg_lowering.py",
    "tests/frontends/test_half_gemm_bias.py",
    "tests/frontends/test_half_attention.py",
)
"""Every test file that holds `gpu`-marked tests, the most telling first
(bf16/f16 flash attention on tensor cores, bf16 GEMMs through cuBLAS and as
one CUDA graph, then fused attention, split-K, CUDA graphs, conv lowering,
the torch backend on torch's stream, padded attention, the tensor-core GEMM,
pipeline stages, the linear-algebra solver steps through cupy.linalg). The
dry run fails when a file with `gpu` tests is missing here."""

BENCH_WORKLOADS = (
    "hf_gpt2_bf16_b1_t64",
    "generate_gpt2_bf16_b1",
    "hf_gpt2_bf16_b8_t512",
    "resnet18_b32",
    "attention_bf16_t512",
    "elementwise",
    "bias_relu",
    "softmax",
    "layer_norm",
    "gemm_bf16",
    "mlp",
    "gpt2_block_b8_t512",
    "embedding_grad_walk",
    "embedding_grad_sorted",
)
"""The workloads the goals are read against, in the order the open issues
need them (last, the two forms of an embedding gradient, to place
`INDEX_ADD_WALK_LIMIT`, the importer's switch between them). The
2026-11-28 H200 run measured GPT-2 bf16 at B=1 (every variant), the row
kernels, bf16 attention and the MLP, and ran out of budget in GPT-2 at
B=8, ResNet-18 and generation: those come first now, after GPT-2 at B=1
again through the backend (whose per-call host time that run showed and
the next commits cut). `bias_relu` sits beside
`elementwise`: the same bytes with a few ALU ops an element, to tell the
kernel's memory path from its math (about 230 PTX instructions a float4 in
`elementwise`). Each runs as its own `fxdsl-bench --merge` command, so a
budget cut keeps every finished workload."""

BENCH_VARIANTS = (
    "fxdsl",
    "fxdsl-flash-v1",
    "fxdsl-cudagraph",
    "fxdsl-backend",
    "fxdsl-backend-cudagraph",
    "fxdsl-backend-sdpa",
    "torch-eager",
    "torch-compile",
    "torch-compile-reduce-overhead",
    "copy",
)
"""Every variant a workload may be timed in (`fxdsl-bench` skips those that
do not apply to it)."""

BENCH_ROWS: dict[str, tuple[str, ...]] = {
    "hf_gpt2_bf16_b1_t64": (
        "fxdsl-cudagraph", "fxdsl-backend", "fxdsl-backend-cudagraph",
        "torch-compile-reduce-overhead",
    ),
    "generate_gpt2_bf16_b1": (
        "fxdsl-backend", "fxdsl-cudagraph", "torch-eager",
        "torch-compile-reduce-overhead", "copy",
    ),
    "hf_gpt2_bf16_b8_t512": (
        "fxdsl", "fxdsl-backend", "fxdsl-backend-sdpa", "torch-eager", "torch-compile",
    ),
    "resnet18_b32": ("fxdsl", "fxdsl-backend", "torch-eager", "torch-compile"),
    "attention_bf16_t512": (
        "fxdsl", "fxdsl-flash-v1", "fxdsl-backend", "fxdsl-backend-sdpa",
        "torch-eager",
    ),
    **{
        name: ("fxdsl", "fxdsl-backend", "torch-compile", "copy")
        for name in ("elementwise", "bias_relu", "softmax", "layer_norm")
    },
    "gemm_bf16": ("fxdsl", "torch-eager"),
    "embedding_grad_walk": ("fxdsl", "torch-eager"),
    "embedding_grad_sorted": ("fxdsl", "torch-eager"),
}  # fmt: skip
"""The variants each workload is timed in, where not all of BENCH_VARIANTS:
the rows its goals are read against (each variant costs a compile and its
runs, minutes in all for a model), fewer where a past run measured the
others already."""


LOG = "gpu-check.log"
"""Every stage's output, one after another (the device tool brings back at
most 8 files from $OUT)."""

DEFAULT_BUDGETS = {"tests": 120, "profile": 45, "bench": 300}
"""Seconds per stage: together under 8 minutes (a machine's start took
about 30 s on 2026-11-27; the tests took 46-53 s on the 2026-11-28 H200)."""


WORKLOAD_FLOOR = 60.0
"""Seconds a bench workload may always take (when the stage has them left)."""


def share(left: float) -> float:
    """The seconds one bench workload may take of the `left` in its stage:
    half, but no less than `WORKLOAD_FLOOR`, so one slow workload (a kernel
    that fell back to the emulator, an Inductor compile) cannot starve the
    rest; the report keeps its finished rows (`fxdsl-bench` writes the JSON
    after every row)."""
    return min(left, max(WORKLOAD_FLOOR, left / 2))


@dataclass
class Stage:
    """One stage's outcome, as the summary records it."""

    name: str
    status: str = "not run"  # passed, failed, timed out, not run
    seconds: float = 0.0
    command: list[str] = field(default_factory=list)
    log: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


def python_path() -> str:
    """PYTHONPATH with the checkout and benchmarks/ on it (pytest's `-p
    gpu_check_failures` imports from there; a `benchmarks` package in
    site-packages would shadow `benchmarks.gpu_check_failures`)."""
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    wanted = [str(ROOT), str(ROOT / "benchmarks")]
    return os.pathsep.join([*paths, *(w for w in wanted if w not in paths)])


def run_stage(stage: Stage, command: list[str], budget: float, log: Path) -> None:
    """Run `command` with its output appended to `log` (one log for the whole
    check: the device tool brings back at most 8 files), killed (with its
    children) when `budget` seconds pass; fills in the stage's status and
    time."""
    stage.command, stage.log = command, log.name
    start = time.monotonic()
    with log.open("a") as stream:
        stream.write(f"\n==== {stage.name}: {' '.join(command)}\n")
        stream.flush()
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=stream,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": python_path()},
        )
        try:
            code = process.wait(timeout=budget)
            stage.status = "passed" if code == 0 else f"failed (exit {code})"
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            stage.status = f"timed out after {budget:.0f} s"
    stage.seconds = round(time.monotonic() - start, 1)


def junit_outcomes(path: Path) -> dict[str, str]:
    """`test id -> passed/failed/error/skipped: reason` from a JUnit file."""
    if not path.exists():
        return {}
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                message = (child.get("message") or "").splitlines()[:1]
                outcome = ": ".join([child.tag, *message])
        outcomes[name] = outcome
    return outcomes


_VERBOSE_OUTCOME = re.compile(r"(tests/\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL)")
_XDIST_OUTCOME = re.compile(r"\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL) (tests/\S+::\S+)")


def log_outcomes(log: Path) -> dict[str, str]:
    """`test id -> outcome` from pytest's verbose lines in `log`: what a
    tests stage killed by its budget leaves (its JUnit report is written
    only at the end)."""
    outcomes: dict[str, str] = {}
    if not log.exists():
        return outcomes
    for line in log.read_text(errors="replace").splitlines():
        if found := _VERBOSE_OUTCOME.search(line):
            outcomes[found.group(1)] = found.group(2).lower()
        elif found := _XDIST_OUTCOME.search(line):
            outcomes[found.group(2)] = found.group(1).lower()
    return outcomes


def gpu_test_files() -> set[str]:
    """The test files that hold `gpu`-marked tests (by collecting them)."""
    found = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "gpu", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return {line.split("::")[0] for line in found.stdout.splitlines() if "::" in line}


def tests_stage(out: Path, dry: bool, budget: float) -> Stage:
    stage = Stage("tests")
    report = out / "gpu-tests.xml"
    command = [sys.executable, "-m", "pytest", "-m", "gpu", "-rs"]
    if dry:
        command += ["-q", "--collect-only"]
    else:
        # The device has 16 cores and pytest-xdist and pytest-timeout: the
        # files' compiles (NVRTC, Dynamo) run side by side, and one hung test
        # costs a minute, not the stage. -v names each outcome in the log.
        # -p gpu_check_failures: each failure's traceback lands in
        # the log as it happens, not only at the end a cut stage never sees.
        command += ["-v", "-n", "8", "--timeout", "90", f"--junitxml={report}"]
        command += ["-p", "gpu_check_failures", "--durations=15"]
    log = out / LOG
    run_stage(stage, [*command, *GPU_TEST_FILES], budget, log)
    if dry:
        missing = sorted(gpu_test_files() - set(GPU_TEST_FILES))
        stage.detail["files missing from GPU_TEST_FILES"] = missing
        if missing and stage.status == "passed":
            stage.status = "failed (gpu tests outside GPU_TEST_FILES)"
    else:
        outcomes = junit_outcomes(report) or log_outcomes(log)
        stage.detail["outcomes"] = outcomes
        stage.detail["passed"] = sum(o == "passed" for o in outcomes.values())
        stage.detail["total"] = len(outcomes)
    return stage


def profile_stage(out: Path, dry: bool, budget: float) -> Stage:
    """`benchmarks/profile_backend.py`: the backend's host time per call and
    where it goes, into the log."""
    stage = Stage("profile")
    command = [sys.executable, str(ROOT / "benchmarks" / "profile_backend.py")]
    command += ["--dry", "--calls", "5"] if dry else ["--calls", "30"]
    run_stage(stage, command, budget, out / LOG)
    return stage


def bench_stage(
    out: Path,
    dry: bool,
    budget: float,
    tag: str,
    date: str,
    workloads: Sequence[str] = BENCH_WORKLOADS,
) -> Stage:
    stage = Stage("bench")
    command = [sys.executable, "-m", "fxdsl.bench", "--out", str(out), "--merge"]
    command += ["--tag", f"{tag}-bench", "--date", date, "--quiet"]
    command += ["--one-compile"]
    if dry:
        command += [
            "--backend",
            "cpu",
            "--scale",
            "tiny",
            "--runs",
            "1",
            "--warmup",
            "0",
        ]
    else:
        command += ["--backend", "cuda"]
    deadline = time.monotonic() + budget
    statuses: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for workload in workloads:
        left = deadline - time.monotonic()
        if left <= 0:
            statuses[workload] = "not run (budget spent)"
            continue
        part = Stage(workload)
        variants = ",".join(BENCH_ROWS.get(workload, BENCH_VARIANTS))
        timed = [*command, "--variants", variants, "--workloads", workload]
        run_stage(part, timed, share(left), out / LOG)
        statuses[workload] = part.status
        seconds[workload] = part.seconds
    stage.command, stage.log = command, LOG
    stage.seconds = round(budget - max(deadline - time.monotonic(), 0.0), 1)
    failed = {w: s for w, s in statuses.items() if s != "passed"}
    stage.status = "passed" if not failed else f"failed ({len(failed)} workloads)"
    stage.detail["statuses"] = statuses
    stage.detail["seconds"] = seconds
    report = out / f"{date}-{tag}-bench.json"
    if report.exists():
        stage.detail["report"] = report.name
        stage.detail["workloads"] = json.loads(report.read_text())["workloads"]
    return stage


def device_name() -> str:
    """The GPU's name from nvidia-smi, or "cpu" where there is none."""
    try:
        found = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "cpu"
    return found.stdout.strip().splitlines()[0] if found.stdout.strip() else "cpu"


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in ("fxdsl", "xdsl", "numpy", "torch", "cupy-cuda12x", "cupy"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def file_tag(device: str) -> str:
    """A file-name-safe tag from the device name ("NVIDIA H100 80GB HBM3" ->
    "nvidia-h100-80gb-hbm3")."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-") or "device"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


@dataclass(frozen=True)
class Goal:
    """A goal the table is read against (issues 30, 31, 35): the median of
    `ours` over the median of `theirs` (a variant, or "copy") in `workload`,
    at most `most`. Read, never asserted by a test."""

    text: str
    workload: str
    ours: tuple[str, ...]  # the first that ran counts
    theirs: str
    most: float


GOALS = (
    Goal(
        "fused elementwise >= 95 % of copy bandwidth",
        "elementwise",
        ("fxdsl",),
        "copy",
        1 / 0.95,
    ),
    Goal("softmax <= 1.05x its copy", "softmax", ("fxdsl",), "copy", 1.05),
    Goal("layer_norm <= 1.05x its copy", "layer_norm", ("fxdsl",), "copy", 1.05),
    Goal(
        "bf16 attention >= 0.9x SDPA's speed",
        "attention_bf16_t512",
        ("fxdsl",),
        "torch-eager",
        1 / 0.9,
    ),
    Goal(
        "GPT-2 bf16 B8 T512 via the backend <= torch.compile",
        "hf_gpt2_bf16_b8_t512",
        ("fxdsl-backend",),
        "torch-compile",
        1.0,
    ),
    Goal(
        "GPT-2 bf16 B1 T64 via the backend <= reduce-overhead",
        "hf_gpt2_bf16_b1_t64",
        ("fxdsl-backend-cudagraph", "fxdsl-backend"),
        "torch-compile-reduce-overhead",
        1.0,
    ),
    Goal(
        "ResNet-18 B32 <= torch.compile",
        "resnet18_b32",
        ("fxdsl-backend", "fxdsl"),
        "torch-compile",
        1.0,
    ),
    Goal(
        "decode step B1 <= reduce-overhead",
        "generate_gpt2_bf16_b1",
        ("fxdsl-cudagraph", "fxdsl-backend"),
        "torch-compile-reduce-overhead",
        1.0,
    ),
    Goal(
        "decode step B1 within 3x the bandwidth limit",
        "generate_gpt2_bf16_b1",
        ("fxdsl-cudagraph", "fxdsl-backend"),
        "copy",
        3.0,
    ),
)


def read_goals(workloads: Sequence[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(goal, measured, verdict) per goal: `met`, `missed by N %`, or
    `not measured` (a row missing, failed or wrong)."""
    medians = {
        (w["name"], r["variant"]): r["median_ms"]
        for w in workloads
        for r in w["rows"]
        if r["status"] == "ok" and r.get("median_ms")
    }
    read = []
    for goal in GOALS:
        ours = next(
            (
                (v, medians[goal.workload, v])
                for v in goal.ours
                if (goal.workload, v) in medians
            ),
            None,
        )
        theirs = medians.get((goal.workload, goal.theirs))
        if ours is None or theirs is None:
            read.append((goal.text, "", "not measured"))
            continue
        ratio = ours[1] / theirs
        measured = (
            f"{ours[0]} {ours[1]:.4g} ms / {goal.theirs} {theirs:.4g} ms = {ratio:.3g}"
        )
        verdict = (
            "met" if ratio <= goal.most else f"missed by {ratio / goal.most - 1:.0%}"
        )
        read.append((goal.text, measured, verdict))
    return read


def markdown(summary: dict[str, Any]) -> str:
    lines = [f"# GPU check, {summary['date']}, {summary['device']}", ""]
    lines.append(f"Mode: {'dry (CPU)' if summary['dry'] else 'device'}. Versions: ")
    lines[-1] += ", ".join(f"{k} {v}" for k, v in summary["versions"].items())
    lines += ["", "| stage | status | seconds |", "|---|---|---|"]
    lines += [
        f"| {s['name']} | {s['status']} | {s['seconds']} |" for s in summary["stages"]
    ]
    workloads = [
        w for stage in summary["stages"] for w in stage["detail"].get("workloads", [])
    ]
    if workloads:
        lines += ["", "## Goals (read, not asserted)", ""]
        lines += ["| goal | measured | verdict |", "|---|---|---|"]
        lines += [f"| {g} | {m} | {v} |" for g, m, v in read_goals(workloads)]
    for stage in summary["stages"]:
        outcomes = stage["detail"].get("outcomes", {})
        if outcomes:
            lines += [
                "",
                f"## Tests: {stage['detail']['passed']} of {len(outcomes)} passed",
            ]
            lines += ["", "| test | outcome |", "|---|---|"]
            lines += [f"| `{name}` | {outcome} |" for name, outcome in outcomes.items()]
        for workload in stage["detail"].get("workloads", []):
            lines += ["", f"## {workload['name']}: {workload['description']}", ""]
            lines += ["| variant | median ms | x copy | x best torch | status |"]
            lines += ["|---|---|---|---|---|"]
            for row in workload["rows"]:
                cells = [
                    _number(row.get(k))
                    for k in ("median_ms", "vs_copy", "vs_best_torch")
                ]
                status = row["status"] + (
                    f" ({row['reason']})" if row.get("reason") else ""
                )
                lines.append(f"| {row['variant']} | {' | '.join(cells)} | {status} |")
    return "\n".join(lines) + "\n"


def write_summary(out: Path, summary: dict[str, Any]) -> None:
    stem = out / f"{summary['date']}-{summary['tag']}"
    write_atomic(f"{stem}.json", json.dumps(summary, indent=2, default=str) + "\n")
    write_atomic(f"{stem}.md", markdown(summary))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dry", action="store_true", help="CPU stand-in: collect, tiny bench"
    )
    parser.add_argument(
        "--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/fxdsl-gpu-check"))
    )
    parser.add_argument(
        "--stages",
        default=",".join(DEFAULT_BUDGETS),
        help="comma-separated: tests,profile,bench",
    )
    for name, seconds in DEFAULT_BUDGETS.items():
        parser.add_argument(
            f"--{name}-budget", type=float, default=seconds, metavar="S"
        )
    parser.add_argument(
        "--workloads",
        default=",".join(BENCH_WORKLOADS),
        help="comma-separated bench workloads, in the order to run them "
        "(default: BENCH_WORKLOADS)",
    )
    args = parser.parse_args(argv)
    stages = args.stages.split(",")
    unknown = sorted(set(stages) - set(DEFAULT_BUDGETS))
    if unknown:
        parser.error(f"--stages: unknown {', '.join(unknown)} (tests, profile, bench)")
    args.out.mkdir(parents=True, exist_ok=True)
    device = device_name()
    summary: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "device": device,
        "tag": file_tag(device) + ("-dry" if args.dry else ""),
        "dry": args.dry,
        "versions": versions(),
        "stages": [],
    }
    write_summary(args.out, summary)
    for name in stages:
        if name == "tests":
            stage = tests_stage(args.out, args.dry, args.tests_budget)
        elif name == "profile":
            stage = profile_stage(args.out, args.dry, args.profile_budget)
        else:
            stage = bench_stage(
                args.out,
                args.dry,
                args.bench_budget,
                summary["tag"],
                summary["date"],
                args.workloads.split(","),
            )
        summary["stages"].append(asdict(stage))
        write_summary(args.out, summary)
        print(
            f"gpu-check: {stage.name}: {stage.status} ({stage.seconds} s)", flush=True
        )
    failed = [s["name"] for s in summary["stages"] if s["status"] != "passed"]
    print(f"gpu-check: summary in {args.out}/{summary['date']}-{summary['tag']}.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
