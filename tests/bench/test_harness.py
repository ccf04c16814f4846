"""`fxdsl-bench` on the CPU reference at tiny scale: every workload and
variant reported, numerics checked (a wrong variant is caught), bad input is
one `error:` line, reports are written atomically. The CUDA path (events, L2
flush, pipelines) runs against a stand-in `cupy` backed by numpy.

The report checks run on a smoke run (`SMOKE_WORKLOADS`: one workload of
each kind of variant list, three timed runs), which `make test` runs; the
same checks on every workload (two ResNet-18s, minutes on the reference) are
`slow`, for `make test-all`."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fxdsl.runtime.compile as runtime_compile
import fxdsl.runtime.cuda_executor as cuda_executor
from fxdsl.bench import cli, report
from fxdsl.bench.harness import (
    CACHE_VARIABLES,
    Harness,
    Settings,
    fresh_caches,
    max_abs_error,
    within_tolerance,
)
from fxdsl.bench.timing import CpuDevice, summarize
from fxdsl.bench.variants import (
    Compiled,
    Variant,
    default_variants,
    without_fuse,
)
from fxdsl.bench.workloads import (
    WORKLOADS,
    Workload,
    bytes_moved,
    workload_inputs,
    workload_named,
)
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.compile import compile_module
from fxdsl.runtime.kernel_build import KernelCompileWarning
from fxdsl.testing.optional import need

DATE = "2026-01-02"
HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
BASE_VARIANTS = [
    "fxdsl", "fxdsl-unfused", "fxdsl-cudagraph", "fxdsl-backend", "torch-eager",
    "torch-compile", "copy",
]  # fmt: skip


def bench(out: Path, *args: str, variants: list[Variant] | None = None) -> int:
    argv = ["--backend", "cpu", "--scale", "tiny", "--out", str(out)]
    argv += ["--date", DATE, "--tag", "ci", "--quiet", *args]
    return cli.run_bench(argv, variants)


def load(out: Path, tag: str = "ci") -> dict[str, Any]:
    return json.loads((out / f"{DATE}-{tag}.json").read_text())


def rows_of(document: dict[str, Any], workload: str) -> dict[str, dict[str, Any]]:
    entry = next(w for w in document["workloads"] if w["name"] == workload)
    return {row["variant"]: row for row in entry["rows"]}


SMOKE_WORKLOADS = (
    "elementwise",  # one fused kernel against five
    "gemm",  # + torch-compile-max-autotune
    "gpt2_block_b8_t512",  # + the attention variants
    "gpt2_12blocks_b1_t64",  # + split-K and reduce-overhead; 12 blocks' kernels
)
"""One workload of each kind of variant list: what `make test` runs."""
RUNS = 3


@pytest.fixture(
    scope="module",
    params=["smoke", pytest.param("every-workload", marks=pytest.mark.slow)],
)
def full_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, list[Workload]]:
    """One CPU run (RUNS timed runs each) of the smoke workloads or of every
    workload: its output folder, stdout and the workloads it ran."""
    out = tmp_path_factory.mktemp("results")
    argv = [sys.executable, "-m", "fxdsl.bench", "--backend", "cpu", "--scale", "tiny",
            "--out", str(out), "--tag", "ci", "--date", DATE, "--runs", str(RUNS),
            "--warmup", "1"]  # fmt: skip
    workloads = list(WORKLOADS)
    if request.param == "smoke":
        argv += ["--workloads", ",".join(SMOKE_WORKLOADS)]
        workloads = [workload_named(name) for name in SMOKE_WORKLOADS]
    code = subprocess.run(argv, capture_output=True, text=True, check=False)
    # No time limit asserted here (performance is the harness's to measure).
    assert code.returncode == 0, code.stderr
    return out, code.stdout, workloads


# --------------------------------------------------------------------------- #
# the CPU run
# --------------------------------------------------------------------------- #


Run = tuple[Path, str, list[Workload]]


def test_every_workload_and_variant_is_reported(full_run: Run) -> None:
    out, _, workloads = full_run
    document = load(out)
    assert document["device"]["backend"] == "cpu"
    assert (document["scale"], document["check_scale"], document["runs"]) == (
        "tiny", "tiny", RUNS,
    )  # fmt: skip
    assert [w["name"] for w in document["workloads"]] == [w.name for w in workloads]
    # every variant timed on one thread (the default), and the report says so
    assert document["device"]["threads"] == 1
    assert (
        "every variant timed on 1 thread: torch.set_num_threads" in (document["timing"])
    )
    for workload in workloads:
        rows = rows_of(document, workload.name)
        expected = list(BASE_VARIANTS)
        if workload.reduce_overhead:
            expected.insert(6, "torch-compile-reduce-overhead")
        if workload.max_autotune:
            expected.insert(6, "torch-compile-max-autotune")
        if workload.attention:
            expected[2:2] = ["fxdsl-unfused-attention", "fxdsl-bias-unfolded"]
        if workload.skinny:
            expected[2:3] = [
                "fxdsl-split-k",
                "fxdsl-cudagraph",
                "fxdsl-split-k-cudagraph",
            ]
        if workload.reduce_overhead:
            backend = expected.index("fxdsl-backend")
            expected.insert(backend + 1, "fxdsl-backend-cudagraph")
        assert list(rows) == expected, workload.name
        entry = next(w for w in document["workloads"] if w["name"] == workload.name)
        assert entry["bytes_moved"] == bytes_moved(workload.module("tiny"))
        for row in rows.values():
            # a row either ran or says why not
            assert row["status"] in {"ok", "skipped"}, row
            assert (row["status"] == "ok") == (row["median_ms"] is not None), row
            if row["status"] == "skipped":
                assert row["reason"], row


def test_fxdsl_rows_are_timed_checked_and_counted(full_run: Run) -> None:
    document = load(full_run[0])
    for workload in full_run[2]:
        rows = rows_of(document, workload.name)
        for name in ("fxdsl", "fxdsl-unfused"):
            row = rows[name]
            assert row["status"] == "ok", row
            assert row["runs"] == RUNS
            assert 0 < row["p10_ms"] <= row["median_ms"] <= row["p90_ms"]
            assert row["numerics_ok"] is True
            assert row["max_abs_err"] is not None
            assert row["max_abs_err"] <= 1e-5
            assert row["compile_cold_s"] > 0
            assert row["compile_warm_s"] > 0
            # the cpu backend lowers (the pipeline) and builds nothing
            phases = row["warm_phases_s"]
            assert 0 < phases["lower"] <= row["compile_warm_s"], row
            assert phases["build"] == phases["load"] == 0, row
            assert row["vs_copy"] == pytest.approx(
                row["median_ms"] / rows["copy"]["median_ms"]
            )
        # without graph-fuse every op is a kernel: never fewer than fused
        assert rows["fxdsl-unfused"]["kernels"] >= rows["fxdsl"]["kernels"] >= 1
        copy = rows["copy"]
        assert copy["vs_copy"] == pytest.approx(1.0)
        assert copy["max_abs_err"] is None
        assert copy["compile_cold_s"] is None
        assert copy["warm_phases_s"] is None
    elementwise = rows_of(document, "elementwise")
    # gelu(x*a+b)*sigmoid(x): one fused kernel, one per op (mul add gelu sigmoid mul)
    assert (
        elementwise["fxdsl"]["kernels"],
        elementwise["fxdsl-unfused"]["kernels"],
    ) == (1, 5)
    stack = rows_of(document, "gpt2_12blocks_b1_t64")
    assert stack["fxdsl-unfused"]["kernels"] > stack["fxdsl"]["kernels"] + 12


def test_torch_and_cudagraph_rows_say_why(full_run: Run) -> None:
    document = load(full_run[0])
    for workload in full_run[2]:
        rows = rows_of(document, workload.name)
        if HAS_TORCH:
            assert rows["torch-eager"]["status"] == "ok"
            assert rows["torch-eager"]["numerics_ok"] is True
            assert rows["torch-eager"]["vs_best_torch"] == pytest.approx(1.0)
        else:
            assert "torch is not importable" in rows["torch-eager"]["reason"]
            assert rows["fxdsl"]["vs_best_torch"] is None
        # torch.compile is timed on the device only
        assert rows["torch-compile"]["status"] == "skipped"
        cudagraph = rows["fxdsl-cudagraph"]
        assert cudagraph["status"] == "skipped"
        assert (
            "cuda_graph" in cudagraph["reason"] or "CUDA graphs" in cudagraph["reason"]
        )


def test_markdown_table_and_png(full_run: Run) -> None:
    out, stdout, workloads = full_run
    markdown = (out / f"{DATE}-ci.md").read_text()
    for workload in workloads:
        assert f"## {workload.name}\n" in markdown
    for variant in BASE_VARIANTS:
        assert f"| {variant} |" in markdown
    assert "| variant | median ms |" in markdown
    assert "every variant timed on 1 thread" in markdown
    assert "**skipped**: fxdsl.compile rejects cuda_graph=True" in markdown or (
        "**skipped**: CUDA graphs only apply" in markdown
    )
    png = out / f"{DATE}-ci.png"
    if HAS_MATPLOTLIB:
        assert png.read_bytes().startswith(b"\x89PNG")
    else:
        assert not png.exists()
        assert report.PNG_NEEDS_EXTRA in stdout
    assert f"wrote {out / f'{DATE}-ci.json'}" in stdout


# --------------------------------------------------------------------------- #
# numerics: a fast wrong result is caught
# --------------------------------------------------------------------------- #


def _perturbed(change: Callable[[np.ndarray], np.ndarray]) -> Variant:
    """The CPU fxdsl variant with `change` applied to its first output."""
    fxdsl_variant = default_variants()[0]

    def compile(device: Any, workload: Any, module: Any, dims: Any) -> Compiled:
        good = fxdsl_variant.compile(device, workload, module, dims)

        def fn(*inputs: Any) -> tuple[Any, ...]:
            first, *rest = good.fn(*inputs)
            return (change(np.asarray(first)), *rest)

        return Compiled(fn, good.inputs, good.outputs, good.timer)

    return Variant("broken", compile)


@pytest.mark.parametrize(
    "change",
    [
        lambda y: y + 1e-2,
        lambda y: y[..., ::-1],  # same values, wrong places
        lambda y: np.where(np.arange(y.size).reshape(y.shape) == 3, np.nan, y),
    ],
    ids=["offset", "permuted", "one-nan"],
)
def test_a_wrong_variant_is_reported_and_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any
) -> None:
    variants = [default_variants()[0], _perturbed(change), default_variants()[-1]]
    code = bench(tmp_path, "--workloads", "softmax", variants=variants)
    assert code == 1
    assert "error: numerics check failed: softmax/broken" in capsys.readouterr().err
    rows = rows_of(load(tmp_path), "softmax")
    assert rows["fxdsl"]["status"] == "ok"
    broken = rows["broken"]
    assert broken["status"] == "wrong"
    assert broken["numerics_ok"] is False
    assert "numerics check failed" in broken["reason"]
    # still timed (shown, flagged), but never a base for the ratios
    assert broken["median_ms"] is not None
    assert "**wrong**" in (tmp_path / f"{DATE}-ci.md").read_text()


def test_error_measures() -> None:
    ref = [np.ones((2, 3), np.float32)]
    assert max_abs_error([ref[0] + 0.5], ref) == pytest.approx(0.5)
    assert max_abs_error([np.ones((3, 2))], ref) == float("inf")
    assert max_abs_error([], ref) == float("inf")
    assert max_abs_error([np.full((2, 3), np.nan)], ref) == float("inf")
    inf = [np.full((2, 3), np.inf, np.float32)]
    assert max_abs_error(inf, inf) == 0.0  # agrees with within_tolerance
    assert within_tolerance(inf, inf)
    assert within_tolerance([ref[0] + 1e-5], ref)
    assert not within_tolerance([ref[0] + 1e-1], ref)
    assert not within_tolerance([np.ones((3, 2))], ref)


def test_failing_variant_is_a_row_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(*_args: Any) -> Compiled:
        raise RuntimeError("kernel launch failed\nsecond line")

    variants = [default_variants()[0], Variant("exploding", explode)]
    assert bench(tmp_path, "--workloads", "layer_norm", variants=variants) == 0
    row = rows_of(load(tmp_path), "layer_norm")["exploding"]
    assert row["status"] == "failed"
    assert row["reason"] == "RuntimeError: kernel launch failed"
    assert "warning: failed: layer_norm/exploding" in capsys.readouterr().err


def test_one_compile_builds_each_variant_once(tmp_path: Path) -> None:
    """`--one-compile`: one build at the bench scale (plus the check's),
    recorded as the cold compile; without it, a cold and a warm build."""
    fxdsl_variant = default_variants()[0]
    builds: list[str] = []

    def counted(device: Any, w: Any, module: Any, dims: Any) -> Compiled:
        builds.append(str(dict(dims)))
        return fxdsl_variant.compile(device, w, module, dims)

    variants = [Variant("counted", counted)]
    for flag, expected in ((["--one-compile"], 2), ([], 3)):
        builds.clear()
        assert bench(tmp_path, "--workloads", "softmax", *flag, variants=variants) == 0
        row = rows_of(load(tmp_path), "softmax")["counted"]
        assert row["status"] == "ok", row
        assert len(builds) == expected, builds  # the check's build + 1 or 2
        assert row["compile_cold_s"] > 0
        assert (row["compile_warm_s"] is None) == bool(flag)


def test_a_kernel_that_does_not_compile_fails_its_row(tmp_path: Path) -> None:
    """The executor's fallback for a kernel NVRTC refuses is the host IR
    emulator: correct, but timing it would spend the run's budget on the
    fallback (an H100 run did). The row fails at once with the error."""

    def falls_back(*_args: Any) -> Compiled:
        warnings.warn(
            "kernel 'fused_0' failed to compile (nvrtc): dynamic initialization",
            KernelCompileWarning,
            stacklevel=1,
        )
        raise AssertionError("the warning should have stopped the row")

    variants = [Variant("falls_back", falls_back)]
    assert bench(tmp_path, "--workloads", "softmax", variants=variants) == 0
    row = rows_of(load(tmp_path), "softmax")["falls_back"]
    assert row["status"] == "failed"
    assert row["reason"].startswith("KernelCompileWarning: kernel 'fused_0' failed")


# --------------------------------------------------------------------------- #
# the command line
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--workloads", "softmax,nope"],
            "error: unknown workload 'nope' (known: elementwise",
        ),
        (["--workloads", ","], "error: --workloads names no workload"),
        (["--variants", "fxdsl,torch"], "error: unknown variant 'torch'"),
        (["--runs", "0"], "must be at least 1, got 0"),
        (["--runs", "many"], "not an integer: 'many'"),
        (["--threads", "0"], "argument --threads: must be at least 1, got 0"),
        (["--backend", "tpu"], "error: argument --backend: invalid choice: 'tpu'"),
        (["--scale", "huge"], "error: argument --scale: invalid choice: 'huge'"),
        (["--tag", "a/b"], "error: --tag: use letters"),
        (["--date", "yesterday"], "error: --date: expected YYYY-MM-DD"),
        (["--frobnicate"], "error: unrecognized arguments: --frobnicate"),
    ],
)
def test_bad_input_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = cli.main(["--backend", "cpu", "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert code == 1
    assert message in err
    assert "Traceback" not in err
    assert err.startswith("error:")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_bad_input_from_the_console_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fxdsl.bench", "--workloads", "nope"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("error: unknown workload 'nope'")
    assert "Traceback" not in done.stderr


def test_cuda_backend_without_a_gpu_is_an_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # what a machine without a GPU answers; on one with a GPU too
    no_gpu = "no usable NVIDIA GPU: (test)"
    monkeypatch.setattr(cli, "cuda_unavailable_reason", lambda: no_gpu)
    assert cli.main(["--backend", "cuda", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "error: BackendUnavailable: backend='cuda' is unavailable" in err
    assert "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_smoke_run_covers_every_kind_of_variant_list() -> None:
    """`make test` runs SMOKE_WORKLOADS only: between them they have every
    optional variant any workload has."""
    flags = ("attention", "skinny", "reduce_overhead", "max_autotune")
    smoke = [workload_named(name) for name in SMOKE_WORKLOADS]
    for flag in flags:
        if any(getattr(w, flag) for w in WORKLOADS):
            assert any(getattr(w, flag) for w in smoke), flag


def test_cpu_timing_pins_threads_for_every_variant() -> None:
    """While a CPU variant is timed, torch's pool (and numpy's BLAS pool,
    with threadpoolctl) has `--threads` threads; before and after, the
    process's own setting."""
    torch = need("torch")
    threadpoolctl = need("threadpoolctl")  # the dev and bench extras
    seen: list[tuple[int, set[int]]] = []

    def probe(device: Any, *_args: Any) -> Compiled:
        def fn() -> None:
            blas = {
                pool["num_threads"]
                for pool in threadpoolctl.threadpool_info()
                if pool["user_api"] == "blas"
            }
            seen.append((torch.get_num_threads(), blas))

        return Compiled(fn, lambda _a: [], lambda _o: [], device.time)

    variants = [Variant("probe", probe, compiles=False, checked=False)]
    settings = Settings(scale="tiny", check_scale="tiny", runs=4, warmup=1)
    before = torch.get_num_threads()
    torch.set_num_threads(5)
    try:
        harness = Harness(CpuDevice(threads=3), variants, settings)
        (result,) = harness.run([workload_named("softmax")])
        after = torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
    assert [(r.variant, r.status, r.runs) for r in result.rows] == [("probe", "ok", 4)]
    # two untimed first calls (cold and warm build), then 1 warm-up + 4 runs
    assert [threads for threads, _ in seen] == [5, 5, 3, 3, 3, 3, 3]
    assert all(blas <= {3} for _, blas in seen[2:])
    assert after == 5
    assert CpuDevice(threads=3).describe()["threads"] == 3


def test_check_scale_differs_from_bench_scale() -> None:
    settings = Settings(scale="small", check_scale="tiny", runs=3, warmup=0)
    harness = Harness(CpuDevice(), default_variants()[:2], settings)
    (result,) = harness.run([workload_named("softmax")])
    assert (result.dims, result.check_dims) == (
        {"M": 256, "N": 1024},
        {"M": 16, "N": 64},
    )
    assert result.bytes_moved == 2 * 4 * 256 * 1024
    assert [(r.variant, r.status, r.runs) for r in result.rows] == [
        ("fxdsl", "ok", 3),
        ("fxdsl-unfused", "ok", 3),
    ]


def test_workload_lookup() -> None:
    assert workload_named("mlp").name == "mlp"
    with pytest.raises(ValueError, match="unknown workload 'x'"):
        workload_named("x")


# --------------------------------------------------------------------------- #
# writing the report
# --------------------------------------------------------------------------- #


def test_render_failure_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken_png(*_args: Any) -> bytes:
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(report, "render_png", broken_png)
    assert cli.main(["--backend", "cpu", "--workloads", "softmax", "--quiet",
                     "--out", str(tmp_path / "out"), "--date", DATE]) == 1  # fmt: skip
    assert "error: RuntimeError: renderer crashed" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_interrupted_write_keeps_the_old_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / f"{DATE}-ci.json"
    old.write_text("old report\n")

    def failing_replace(*_args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    assert cli.main(["--backend", "cpu", "--workloads", "softmax", "--quiet",
                     "--out", str(tmp_path), "--date", DATE, "--tag", "ci"]) == 1  # fmt: skip
    # the old file is whole, and no temp file is left behind
    assert old.read_text() == "old report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [old.name]


def test_merge_keeps_other_workloads_and_variants(tmp_path: Path) -> None:
    assert bench(tmp_path, "--workloads", "layer_norm", "--variants", "copy") == 0
    merge = ["--merge", "--workloads", "softmax,layer_norm"]
    assert bench(tmp_path, *merge, "--variants", "fxdsl") == 0
    document = load(tmp_path)
    assert [w["name"] for w in document["workloads"]] == ["softmax", "layer_norm"]
    # rows of other variants stay, in the default order; ratios are recomputed
    layer_norm = rows_of(document, "layer_norm")
    assert list(layer_norm) == ["fxdsl", "copy"]
    assert layer_norm["fxdsl"]["vs_copy"] == pytest.approx(
        layer_norm["fxdsl"]["median_ms"] / layer_norm["copy"]["median_ms"]
    )
    assert list(rows_of(document, "softmax")) == ["fxdsl"]
    assert "## layer_norm" in (tmp_path / f"{DATE}-ci.md").read_text()
    # without --merge the report is replaced
    assert bench(tmp_path, "--workloads", "mlp", "--variants", "copy") == 0
    assert [w["name"] for w in load(tmp_path)["workloads"]] == ["mlp"]
    with pytest.raises(cli.UserError, match="is backend cpu at scale tiny, this run"):
        bench(tmp_path, "--workloads", "mlp", "--merge", "--scale", "small")
    (tmp_path / f"{DATE}-ci.json").write_text("{not json")
    with pytest.raises(cli.UserError, match="--merge: cannot read"):
        bench(tmp_path, "--workloads", "mlp", "--merge")


def test_a_merge_run_cut_short_keeps_its_finished_rows(tmp_path: Path) -> None:
    """`--merge` rewrites the JSON after every row: a run killed in the
    middle of a workload (the GPU check's time budget) keeps the rows before
    the kill, marked partial, and a later `--merge` run completes them."""

    def killed(*_args: Any) -> Compiled:
        raise KeyboardInterrupt  # as the budget's SIGINT

    first = default_variants()[0]
    variants = [first, Variant("killed", killed)]
    with pytest.raises(KeyboardInterrupt):
        bench(tmp_path, "--merge", "--workloads", "softmax,mlp", variants=variants)
    document = load(tmp_path)
    assert document["partial"] is True
    assert [w["name"] for w in document["workloads"]] == ["softmax"]
    assert rows_of(document, "softmax")["fxdsl"]["status"] == "ok"
    assert not (tmp_path / f"{DATE}-ci.md").exists()  # written at the end only
    assert bench(tmp_path, "--merge", "--workloads", "mlp", variants=[first]) == 0
    document = load(tmp_path)
    assert "partial" not in document
    assert [w["name"] for w in document["workloads"]] == ["softmax", "mlp"]


# --------------------------------------------------------------------------- #
# pieces
# --------------------------------------------------------------------------- #


def test_unfused_pipeline_drops_only_graph_fuse() -> None:
    assert without_fuse("graph-dedup{min-ops=8},graph-decompose,graph-fuse,cse") == (
        "graph-dedup{min-ops=8},graph-decompose,cse"
    )
    assert "graph-fuse" not in without_fuse(GPU_PIPELINE).split(",")
    assert without_fuse("graph-fuse") == ""


def test_summary_statistics() -> None:
    summary = summarize([float(t) for t in range(1, 31)])
    assert (summary.median_ms, summary.runs) == (15.5, 30)
    assert summary.p10_ms == pytest.approx(3.9)
    assert summary.p90_ms == pytest.approx(27.1)
    with pytest.raises(ValueError, match="no runs"):
        summarize([])


def test_fresh_caches_are_empty_and_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FXDSL_CACHE_DIR", "/somewhere")
    monkeypatch.delenv("CUPY_CACHE_DIR", raising=False)
    with fresh_caches():
        folders = [os.environ[name] for name in CACHE_VARIABLES]
        assert len(set(folders)) == len(CACHE_VARIABLES)
        assert all(not os.path.exists(f) for f in folders)
    assert os.environ["FXDSL_CACHE_DIR"] == "/somewhere"
    assert "CUPY_CACHE_DIR" not in os.environ


def test_torch_implementations_match_the_graphs() -> None:
    torch = pytest.importorskip("torch")
    from fxdsl.interpreters.run import run_reference

    for workload in WORKLOADS:
        dims = workload.dims["tiny"]
        module = workload.module("tiny")
        inputs = workload_inputs(module)
        expected = run_reference(module, *inputs)[0]
        got = workload.torch_fn(dims)(*(torch.from_numpy(a) for a in inputs))
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------- #
# the CUDA path against a stand-in cupy
# --------------------------------------------------------------------------- #


class _FakeEvent:
    def record(self) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass


class _FlushBuffer:
    def __init__(self, nbytes: int, log: dict[str, int]) -> None:
        self.nbytes, self.log = nbytes, log

    def fill(self, _value: int) -> None:
        self.log["flushes"] += 1


def fake_cupy(log: dict[str, int]) -> types.ModuleType:
    """numpy under CuPy's names, with events timed by perf_counter."""
    cp = types.ModuleType("cupy")
    l2 = 4096
    for name in ("asarray", "ones", "empty_like", "copyto", "uint8"):
        setattr(cp, name, getattr(np, name))
    cp.asnumpy = np.asarray
    cp.empty = lambda n, dtype: _FlushBuffer(n, log)
    device = types.SimpleNamespace(id=0, attributes={"L2CacheSize": l2})
    props = {"name": b"Fake H100", "major": 9, "minor": 0, "totalGlobalMem": 2**36}
    cp.cuda = types.SimpleNamespace(
        Device=lambda: device,
        Event=_FakeEvent,
        get_elapsed_time=lambda a, b: (b.at - a.at) * 1e3,
        get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None),
        runtime=types.SimpleNamespace(
            getDeviceProperties=lambda _id: props, getDeviceCount=lambda: 1
        ),
    )
    return cp


def test_cuda_path_with_a_stand_in_cupy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = {"flushes": 0}
    pipelines: list[str | None] = []
    graphed: list[bool] = []
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(log))
    monkeypatch.setattr(runtime_compile, "cuda_unavailable_reason", lambda: None)
    monkeypatch.setattr(cli, "cuda_unavailable_reason", lambda: None)

    def compile_cuda(
        module: Any, pipeline: str | None = None, entry: Any = None,
        cuda_graph: bool = False, **_cuda_options: Any,
    ) -> Any:  # fmt: skip
        # the CUDA executor's pipeline, run on the CPU reference instead
        pipelines.append(pipeline)
        graphed.append(cuda_graph)
        spec = (pipeline or GPU_PIPELINE).replace(",convert-graph-to-gpu", "")
        return compile_module(module, "cpu", spec, entry)

    monkeypatch.setattr(cuda_executor, "compile_cuda", compile_cuda)
    code = cli.run_bench(
        ["--backend", "cuda", "--scale", "tiny", "--workloads", "gelu_bias_residual",
         "--variants", "fxdsl,fxdsl-unfused,fxdsl-cudagraph,copy", "--runs", "30", "--warmup", "2",
         "--out", str(tmp_path), "--date", DATE, "--tag", "h100", "--quiet"]
    )  # fmt: skip
    assert code == 0
    document = load(tmp_path, "h100")
    assert document["device"] == {
        "backend": "cuda", "name": "Fake H100", "compute_capability": "9.0",
        "l2_bytes": 4096, "memory_bytes": 2**36,
    }  # fmt: skip
    assert "L2" in document["timing"]
    rows = rows_of(document, "gelu_bias_residual")
    assert [r["status"] for r in rows.values()] == ["ok", "ok", "ok", "ok"]
    timed = [r for r in rows.values() if r["status"] == "ok"]
    assert all(r["runs"] == 30 for r in timed)
    # fused: the default pipeline (None); unfused: no graph-fuse or
    # graph-fuse-attention; cudagraph: the default pipeline with
    # cuda_graph=True; each compiled for the check, cold and warm
    unfused = GPU_PIPELINE.replace("graph-fuse-attention,", "")
    unfused = unfused.replace("graph-fuse,", "")
    assert pipelines == [None] * 3 + [unfused] * 3 + [None] * 3
    assert graphed == [False] * 6 + [True] * 3
    # the L2 is flushed before every timed run of each variant
    assert log["flushes"] == 4 * 30
