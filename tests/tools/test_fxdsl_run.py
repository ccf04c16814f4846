"""fxdsl-run: once as a subprocess (the installed entry point), otherwise
in-process through `main`, which is all the script runs."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f64

import fxdsl
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.tools import fxdsl_run

PROGRAM = """
func.func private @scale(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = graph.add %x, %x : tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32>, %ids: tensor<3xi64>, %w: tensor<10x8xf32>)
    -> (tensor<4x8xf32>, tensor<3x8xf32>, tensor<4xf32>) {
  %a = graph.exp %x : tensor<4x8xf32>
  %b = graph.exp %x : tensor<4x8xf32>
  %c = graph.mul %a, %b : tensor<4x8xf32>
  %d = func.call @scale(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = graph.embedding %ids, %w : (tensor<3xi64>, tensor<10x8xf32>) -> tensor<3x8xf32>
  %s = graph.sum %x dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %d, %e, %s : tensor<4x8xf32>, tensor<3x8xf32>, tensor<4xf32>
}
"""

LINE = re.compile(r"result (\d+): (tensor<[^>]*>) sum=(\S+) mean_abs=(\S+) wsum=(\S+)$")


def _command() -> list[str]:
    script = Path(sys.executable).parent / "fxdsl-run"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "fxdsl.tools.fxdsl_run"]


def fxdsl_run_subprocess(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_command(), *args], capture_output=True, text=True, timeout=60
    )


def fxdsl_run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`fxdsl-run ARGS` in this process: exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = fxdsl_run.main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "program.mlir"
    path.write_text(PROGRAM)
    return path


def _results(stdout: str) -> list[tuple[str, float, float, float]]:
    rows = []
    for line in stdout.splitlines():
        if match := LINE.match(line):
            rows.append((match[2], *(float(match[i]) for i in (3, 4, 5))))
    return rows


def _expected_checksums(outputs: tuple[np.ndarray, ...]) -> list[tuple[float, ...]]:
    rows = []
    for out in outputs:
        flat = out.astype(np.float64).ravel()
        weights = np.linspace(1, 2, flat.size)
        rows.append((flat.sum(), np.abs(flat).mean(), float(flat @ weights)))
    return rows


def _assert_checksums(stdout: str, outputs: tuple[np.ndarray, ...]) -> None:
    rows = _results(stdout)
    assert [r[0] for r in rows] == [
        "tensor<4x8xf32>",
        "tensor<3x8xf32>",
        "tensor<4xf32>",
    ]
    for row, want in zip(rows, _expected_checksums(outputs), strict=True):
        np.testing.assert_allclose(row[1:], want, rtol=1e-8, atol=1e-9)


def test_random_inputs_print_checksums_of_the_reference(program: Path) -> None:
    result = fxdsl_run_subprocess(str(program), "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "@main: 3 results (random inputs, seed 3)"
    module = fxdsl.parse(PROGRAM)
    _assert_checksums(
        result.stdout, run_reference(module, *random_inputs(module, seed=3))
    )
    other = fxdsl_run_cli(str(program), "--seed", "4")
    assert _results(other.stdout) != _results(result.stdout)


def test_npy_inputs_and_saved_outputs(program: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    arrays = [
        rng.standard_normal((4, 8)).astype(np.float32),
        np.array([9, 0, 4], np.int64),
        rng.standard_normal((10, 8)).astype(np.float32),
    ]
    paths = []
    for i, array in enumerate(arrays):
        paths.append(tmp_path / f"in{i}.npy")
        np.save(paths[-1], array)
    out_dir = tmp_path / "out"
    result = fxdsl_run_cli(
        str(program),
        "--inputs",
        ",".join(map(str, paths)),
        "--save-outputs",
        str(out_dir),
    )
    assert result.returncode == 0, result.stderr
    expected = run_reference(fxdsl.parse(PROGRAM), *arrays)
    _assert_checksums(result.stdout, expected)
    for i, want in enumerate(expected):
        np.testing.assert_array_equal(
            np.load(out_dir / f"result{i}.npy"), want, strict=True
        )


def test_saved_rank0_bf16_output_is_rank0(tmp_path: Path) -> None:
    path = tmp_path / "rank0.mlir"
    path.write_text("""func.func @f(%x: tensor<4xbf16>) -> tensor<bf16> {
      %s = graph.sum %x dims [0] : (tensor<4xbf16>) -> tensor<bf16>
      func.return %s : tensor<bf16>
    }""")
    result = fxdsl_run_cli(str(path), "--save-outputs", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "out" / "result0.npy").shape == ()


def test_check_passes_on_an_identity_pipeline(program: Path) -> None:
    result = fxdsl_run_cli(str(program), "-p", "cse,dce", "--check")
    assert result.returncode == 0, result.stderr
    checks = [line for line in result.stdout.splitlines() if line.startswith("check ")]
    assert len(checks) == 3
    assert all(
        line.endswith(" ok") and "max_abs_diff=0.000e+00" in line for line in checks
    )


def test_check_fails_when_the_pipeline_changes_numerics(
    program: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fxdsl.ir import graph

    def break_exp(module, pipeline, where):  # type: ignore[no-untyped-def]
        # Stand-in for a wrong pass: exp(x) becomes x for one of the two exps.
        exp = next(op for op in module.walk() if isinstance(op, graph.ExpOp))
        exp.result.replace_all_uses_with(exp.input)
        exp.detach()
        exp.erase()

    monkeypatch.setattr(fxdsl_run, "apply_pipeline", break_exp)
    rc = fxdsl_run.main([str(program), "-p", "whatever", "--check"])
    captured = capsys.readouterr()
    assert rc == 1
    assert "check 0:" in captured.out
    assert "MISMATCH" in captured.out
    assert re.search(r"check 1: max_abs_diff=0\.000e\+00 .* ok", captured.out)
    assert "error: results differ from the unmodified module" in captured.err
    # A loose enough tolerance accepts the difference.
    rc = fxdsl_run.main([str(program), "-p", "x", "--check", "--rtol", "1e9"])
    assert rc == 0


GPT2_BLOCK = str(Path(__file__).parents[2] / "examples" / "gpt2_block.mlir")


def test_check_accepts_reordered_sums_and_rejects_a_miscompile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # split-K reorders 3072-term sums: elementwise rtol 1e-5 said MISMATCH
    pipeline = "graph-decompose,graph-split-k,graph-fuse"
    result = fxdsl_run_cli(GPT2_BLOCK, "-p", pipeline, "--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"check 0: .* summed terms\) ok$", result.stdout, re.M)
    from fxdsl.ir import graph

    real_pipeline = fxdsl_run.apply_pipeline

    def miscompile(module, pipeline, where):  # type: ignore[no-untyped-def]
        real_pipeline(module, pipeline, where)
        gelu = next(op for op in module.walk() if isinstance(op, graph.GeluOp))
        gelu.result.replace_all_uses_with(gelu.input)
        gelu.detach()
        gelu.erase()

    monkeypatch.setattr(fxdsl_run, "apply_pipeline", miscompile)
    result = fxdsl_run_cli(GPT2_BLOCK, "-p", "graph-split-k", "--check")
    assert result.returncode == 1
    assert "MISMATCH" in result.stdout


def test_checksums_of_infinities_warn_nothing() -> None:
    typ = TensorType(f64, [4])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        line = fxdsl_run.checksum_line(
            2, np.array([np.inf, -np.inf, 1e308, 1e308]), typ
        )
    assert "sum=nan" in line
    assert "mean_abs=inf" in line


NOISY = """
func.func @f(%x: tensor<1x4xf32>) -> (tensor<4xf32>, tensor<1x4xf32>) {
  %v = graph.var %x dims [0] : (tensor<1x4xf32>) -> tensor<4xf32>
  %l = graph.log %x : tensor<1x4xf32>
  func.return %v, %l : tensor<4xf32>, tensor<1x4xf32>
}
"""


def test_numpy_warnings_are_not_printed(
    tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    """A variance of one element and the log of a negative number are NaN,
    silently, as in torch: numpy's RuntimeWarnings do not reach the user."""
    x = np.array([[1.0, -1.0, 0.0, 2.0]], np.float32)
    np.save(tmp_path / "x.npy", x)
    path = _write(tmp_path, "noisy.mlir", NOISY)
    result = fxdsl_run_cli(path, "--inputs", str(tmp_path / "x.npy"), "--check")
    assert (result.returncode, result.stderr) == (0, "")
    assert "result 0: tensor<4xf32> sum=nan" in result.stdout
    assert "result 1: tensor<1x4xf32> sum=nan" in result.stdout
    assert [str(w.message) for w in recwarn] == []
    # fxdsl's own warnings (a kernel falling back) still show
    with (
        pytest.warns(RuntimeWarning, match="kernel fell back"),
        fxdsl_run.quiet_numpy(),
    ):
        warnings.warn("kernel fell back", RuntimeWarning, stacklevel=1)


@pytest.mark.parametrize(
    "text",
    ["", "module {}\n", "func.func private @decl(tensor<2xf32>) -> tensor<2xf32>\n"],
    ids=["blank", "empty-module", "declarations-only"],
)
def test_a_module_without_a_body_has_nothing_to_run(tmp_path: Path, text: str) -> None:
    """fxdsl-opt accepts these modules; fxdsl-run says there is nothing to
    run (exit 0), unless --entry names a function, which is then missing."""
    path = _write(tmp_path, "empty.mlir", text)
    for extra in ([], ["--check"], ["-p", "cse"]):
        result = fxdsl_run_cli(path, *extra)
        assert (result.returncode, result.stderr) == (0, "")
        assert (
            result.stdout
            == f"note: nothing to run: {path} has no func.func with a body\n"
        )
    result = fxdsl_run_cli(path, "-p", "no-such-pass")
    assert result.returncode == 1
    assert "bad pipeline" in result.stderr
    result = fxdsl_run_cli(path, "--entry", "decl")
    assert result.returncode == 1
    assert "error:" in result.stderr


def test_out_of_memory_names_the_argument_and_its_size(
    program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_memory(*_args: object) -> list[np.ndarray]:
        raise MemoryError("Unable to allocate 1.2 TiB")

    monkeypatch.setattr(fxdsl_run, "random_inputs", no_memory)
    result = fxdsl_run_cli(str(program))
    assert result.returncode == 1
    # @main(%x: 4x8 f32, %ids: 3 i64, %w: 10x8 f32): %w is the largest
    assert result.stderr == (
        "error: --inputs random: not enough memory for the inputs of @main: "
        "argument 2 (%w), tensor<10x8xf32>, needs 320 bytes (all arguments: "
        "472 bytes)\n"
    )


def test_a_closed_pipe_ends_quietly(program: Path) -> None:
    # `fxdsl-run ... | head -1`: no "error: Broken pipe", the SIGPIPE status
    child = subprocess.Popen(
        [*_command(), str(program)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdout is not None
    assert child.stderr is not None
    child.stdout.close()
    assert child.stderr.read() == b""
    assert child.wait(timeout=60) == 141


def test_compare_reports_max_abs_and_rel_diff() -> None:
    a = np.array([1.0, 2.0, np.nan, np.inf], np.float32)
    b = np.array([1.0, 2.5, np.nan, np.inf], np.float32)
    max_abs, max_rel, ok = fxdsl_run.compare(a, b, rtol=1e-5, atol=1e-6)
    assert (max_abs, max_rel, ok) == (0.5, 0.2, False)
    assert fxdsl_run.compare(a, b, rtol=0.25, atol=0.0)[2]
    assert not fxdsl_run.compare(np.array([np.nan]), np.array([1.0]), 1e9, 1e9)[2]


def _write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


GATHER = """func.func @g(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %r = graph.gather %x, %i dim 0 : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}"""

UNSUPPORTED = """func.func @f() -> tensor<2xf32> {
  %a = "test.op"() : () -> tensor<2xf32>
  func.return %a : tensor<2xf32>
}"""


USE_BEFORE_DEF = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = graph.neg %a : tensor<4xf32>
  %a = graph.exp %x : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
"""


HUGE = """
func.func @f(%b: tensor<4xf32>, %x: tensor<16777216x16777216xf32>) -> tensor<4xf32> {
  func.return %b : tensor<4xf32>
}
"""


def _error_cases(tmp_path: Path, program: str) -> dict[str, tuple[list[str], str]]:
    x = _write(tmp_path, "x.npy", b"")
    text_npy = _write(tmp_path, "text.npy", "1 2 3\n")
    np.savez(tmp_path / "w.npz", w=np.zeros((10, 8), np.float32))
    damaged = (tmp_path / "w.npz").read_bytes()
    damaged_npz = _write(tmp_path, "damaged.npz", damaged[: len(damaged) // 2])
    text_npz = _write(tmp_path, "text.npz", "w = 1\n")
    np.save(tmp_path / "good.npy", np.zeros((4, 8), np.float32))
    np.save(tmp_path / "ids.npy", np.zeros(3, np.int64))
    np.save(tmp_path / "w_bad.npy", np.zeros((10, 7), np.float32))
    np.save(tmp_path / "gx.npy", np.zeros(3, np.float32))
    np.save(tmp_path / "gi.npy", np.array([0, 5], np.int64))
    good, ids, w_bad = (str(tmp_path / n) for n in ("good.npy", "ids.npy", "w_bad.npy"))
    gather = _write(tmp_path, "gather.mlir", GATHER)
    gather_inputs = f"{tmp_path / 'gx.npy'},{tmp_path / 'gi.npy'}"
    return {
        "missing-file": ([str(tmp_path / "nope.mlir")], "no such file"),
        "malformed-ir": (
            [_write(tmp_path, "bad.mlir", "func.func @f( {\n")],
            "bad.mlir:1:",
        ),
        "verify-error": (
            [
                _write(
                    tmp_path,
                    "v.mlir",
                    PROGRAM.replace(
                        "%c = graph.mul %a, %b : tensor<4x8xf32>",
                        "%c = graph.mul %a, %b : tensor<4x8xf16>",
                    ),
                )
            ],
            "v.mlir:",
        ),
        "unreadable-npy": (
            [program, "--inputs", f"{x},{ids},{good}"],
            "cannot read input",
        ),
        "missing-npy": (
            [program, "--inputs", str(tmp_path / "none.npy")],
            "cannot read input",
        ),
        "misspelled-random": (
            [program, "--inputs", "randomm"],
            "error: --inputs 'randomm' is neither 'random' nor a file: --inputs "
            "takes 'random' or comma-separated .npy files",
        ),
        "text-named-npy": (
            [program, "--inputs", f"{text_npy},{good},{good}"],
            f"error: cannot read input '{text_npy}': not a .npy file (--inputs takes",
        ),
        "npz-as-input": (
            [program, "--inputs", str(tmp_path / "w.npz")],
            "': an .npz archive, not a .npy file",
        ),
        "damaged-weights": (
            [program, "--weights", damaged_npz],
            f"error: cannot read weights '{damaged_npz}': a damaged .npz archive",
        ),
        "text-weights": (
            [program, "--weights", text_npz],
            f"error: cannot read weights '{text_npz}': not an .npz archive",
        ),
        "npy-weights": (
            [program, "--weights", good],
            f"error: cannot read weights '{good}': a .npy file, not an .npz archive",
        ),
        "huge-random-input": (
            [_write(tmp_path, "huge.mlir", HUGE)],
            "error: --inputs random: not enough memory for the inputs of @f: "
            "argument 1 (%x), tensor<16777216x16777216xf32>, needs 1 PiB",
        ),
        "wrong-input-count": (
            [program, "--inputs", good],
            "@main takes 3 inputs, got 1",
        ),
        "wrong-input-shape": (
            [program, "--inputs", f"{good},{ids},{w_bad}"],
            "argument 2 (%w): expected tensor<10x8xf32>, got float32 array of shape "
            "(10, 7)",
        ),
        "unknown-entry": ([program, "--entry", "nope"], "no function @nope"),
        "unknown-pass": ([program, "-p", "no-such-pass"], "bad pipeline"),
        "bad-pass-option": ([program, "-p", "cse{bogus=1}"], "bad pipeline"),
        "bad-pipeline-syntax": ([program, "-p", "cse,,"], "pipeline"),
        "index-out-of-range": (
            [gather, "--inputs", gather_inputs],
            "gather.mlir:2:3: error: graph.gather: index 5 is out of range [0, 3)",
        ),
        "unsupported-op": (
            [_write(tmp_path, "u.mlir", UNSUPPORTED)],
            "u.mlir: error: Could not find interpretation function for op test.op",
        ),
        "bad-flag": ([program, "--frobnicate"], "unrecognized arguments"),
        "bad-seed": ([program, "--seed", "x"], "invalid int value"),
        "negative-rtol": (
            [program, "--check", "--rtol", "-1"],
            "argument --rtol: expected a number >= 0, got '-1'",
        ),
        "nan-atol": (
            [program, "--check", "--atol", "nan"],
            "argument --atol: expected a number >= 0, got 'nan'",
        ),
        "not-utf8": (
            [_write(tmp_path, "latin.mlir", b"func.func @f() {\n  \xff\n}\n")],
            "latin.mlir:2:3: error: input is not valid UTF-8",
        ),
        "use-before-def": (
            [_write(tmp_path, "dom.mlir", USE_BEFORE_DEF)],
            "dom.mlir:3:3: error: graph.neg: operand #0 does not dominate this use",
        ),
    }


ERROR_NAMES = [
    "missing-file",
    "malformed-ir",
    "verify-error",
    "unreadable-npy",
    "missing-npy",
    "misspelled-random",
    "text-named-npy",
    "npz-as-input",
    "damaged-weights",
    "text-weights",
    "npy-weights",
    "huge-random-input",
    "wrong-input-count",
    "wrong-input-shape",
    "unknown-entry",
    "unknown-pass",
    "bad-pass-option",
    "bad-pipeline-syntax",
    "index-out-of-range",
    "unsupported-op",
    "bad-flag",
    "bad-seed",
    "negative-rtol",
    "nan-atol",
    "not-utf8",
    "use-before-def",
]


@pytest.fixture(scope="module")
def error_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[subprocess.CompletedProcess[str], str]]:
    """Every error case, run once, with the message each must print."""
    tmp_path = tmp_path_factory.mktemp("errors")
    program = _write(tmp_path, "program.mlir", PROGRAM)
    cases = _error_cases(tmp_path, program)
    assert sorted(cases) == sorted(ERROR_NAMES)
    return {
        name: (fxdsl_run_cli(*argv), message) for name, (argv, message) in cases.items()
    }


@pytest.mark.parametrize("name", ERROR_NAMES)
def test_error_paths_are_one_error_line(
    name: str, error_runs: dict[str, tuple[subprocess.CompletedProcess[str], str]]
) -> None:
    result, message = error_runs[name]
    assert result.returncode == 1
    assert "error:" in result.stderr, result.stderr
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_cuda_backend_unavailable_is_an_error(program: Path) -> None:
    result = fxdsl_run_cli(str(program), "--backend", "cuda")
    assert "Traceback" not in result.stderr
    if importlib.util.find_spec("cupy") is None:
        assert result.returncode == 1
        assert "error: backend 'cuda' is unavailable: CuPy is not installed" in (
            result.stderr
        )
        assert result.stdout == ""
    else:
        assert result.returncode == 0 or "is unavailable" in result.stderr


def test_cuda_backend_guard_names_the_reason(
    program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the machine: a missing GPU is one error line with the reason;
    `--backend auto` notes it and runs the reference instead."""
    from fxdsl.runtime import compile as compile_module

    monkeypatch.setattr(
        compile_module, "cuda_unavailable_reason", lambda: "no usable NVIDIA GPU: X"
    )
    result = fxdsl_run_cli(str(program), "--backend", "cuda")
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        "error: backend 'cuda' is unavailable: no usable NVIDIA GPU: X"
    ), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = fxdsl_run_cli(str(program), "--backend", "auto")
    assert result.returncode == 0, result.stderr
    assert "note: running on the cpu reference" in result.stdout
    assert "no usable NVIDIA GPU: X" in result.stdout
    assert "result 0:" in result.stdout
