"""Fuzzing `fxdsl-opt`: broken input is an `error:` and exit code 1, never a crash.

Valid seed programs (inline ones, the dialect FileCheck inputs and
`examples/*.mlir`) are mutated deterministically (`random.Random(seed)`):
truncation, swapped/deleted tokens, duplicated/deleted lines, wrong element
types and dims, unknown op names, undefined values, garbage and non-UTF-8
bytes. Every run must end with exit code 0 (the mutant happened to stay
valid; then the printed IR must parse again) or 1 with `error:` on stderr;
never a Python traceback, and never an internal exception dressed up as an
error (`error: KeyError: …`). Runs are in-process through
`fxdsl.tools.fxdsl_opt.main`; a handful go through a real subprocess.
"""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from fxdsl.tools.fxdsl_opt import main as fxdsl_opt

ROOT = Path(__file__).resolve().parents[2]
MUTANTS_PER_CASE = 4

# An internal exception that the driver's last line of defence turned into
# `error: TypeName: …`: a crash, not a diagnostic.
CRASH = re.compile(r"error: (?:\w+\.)*[A-Z]\w*(?:Error|Exception|Exit)\b:")

INLINE_SEEDS: dict[str, str] = {
    "mlp": """
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<16x8xf32> {graph.param = "fc.weight"},
               %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %h = graph.linear %x, %w, %b {scope = #graph.scope<("fc", 0, "Linear")>}
       : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = graph.gelu %h approximate "tanh" : tensor<4x16xf32>
  %s = graph.softmax %g dim 1 : tensor<4x16xf32>
  %m = graph.mean %s dims [1] keepdim : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r = graph.sub %s, %m : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  func.return %r : tensor<4x16xf32>
}
""",
    "fused": """
func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %r:2 = graph.fusion_group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>)
         -> (tensor<4x8xf32>, tensor<4xf32>) {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %s = graph.add %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %e = graph.exp %s : tensor<4x8xf32>
    %m = graph.sum %e dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    graph.yield %e, %m : tensor<4x8xf32>, tensor<4xf32>
  }
  func.return %r#0, %r#1 : tensor<4x8xf32>, tensor<4xf32>
}
""",
    "calls": """
func.func private @half(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c = graph.full value 5.0e-01 : tensor<2x8xf32>
  %y = graph.mul %a, %c : tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
func.func @main(%x: tensor<5x8xf32>, %i: tensor<5x2xi64>) -> tensor<4x8xf32> {
  %a, %b = graph.split %x dim 0 sizes [2, 3] : (tensor<5x8xf32>)
           -> (tensor<2x8xf32>, tensor<3x8xf32>)
  %h = func.call @half(%a) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = graph.slice %b start [0, 0] limit [2, 8] step [1, 1]
       : (tensor<3x8xf32>) -> tensor<2x8xf32>
  %c = graph.concat %h, %s dim 0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %t = graph.transpose %c perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = graph.reshape %t : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %g = graph.gather %x, %i dim 1 : (tensor<5x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  func.return %r : tensor<4x8xf32>
}
""",
    "generic": """
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xi32>, tensor<4xi1>) -> tensor<4xi32>,
                  sym_name = "g"}> ({
  ^bb0(%x: tensor<4xi32>, %c: tensor<4xi1>):
    %n = "graph.neg"(%x) : (tensor<4xi32>) -> tensor<4xi32>
    %s = "graph.select"(%c, %x, %n) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>)
         -> tensor<4xi32>
    %k = "graph.constant"() <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}>
         : () -> tensor<4xi32>
    %r = "graph.maximum"(%s, %k) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%r) : (tensor<4xi32>) -> ()
  }) : () -> ()
}) : () -> ()
""",
}


def _seeds() -> dict[str, str]:
    seeds = dict(INLINE_SEEDS)
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        seeds[f"examples/{path.name}"] = path.read_text()
    for name in ("structure", "data-movement", "reductions", "constants"):
        path = ROOT / "tests/filecheck/dialects/graph" / f"{name}.mlir"
        if path.exists():
            seeds[f"dialects/{name}"] = path.read_text()
    return seeds


SEEDS = _seeds()

# --------------------------------------------------------------------------- #
# Mutations: (random source, program text) -> bytes
# --------------------------------------------------------------------------- #

TOKEN = re.compile(r'\s+|"(?:[^"\\\n]|\\.)*"|[%@^#]?[\w.$]+|->|.', re.S)


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _solid(tokens: Sequence[str]) -> list[int]:
    return [i for i, t in enumerate(tokens) if not t.isspace()]


def truncate(rng: random.Random, text: str) -> bytes:
    return text[: rng.randrange(len(text))].encode()


def swap_tokens(rng: random.Random, text: str) -> bytes:
    tokens = _tokens(text)
    solid = _solid(tokens)
    k = rng.randrange(len(solid) - 1)
    i, j = solid[k], solid[k + 1]
    tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens).encode()


def delete_token(rng: random.Random, text: str) -> bytes:
    tokens = _tokens(text)
    del tokens[rng.choice(_solid(tokens))]
    return "".join(tokens).encode()


def duplicate_line(rng: random.Random, text: str) -> bytes:
    lines = text.splitlines(keepends=True)
    i = rng.randrange(len(lines))
    return "".join(lines[: i + 1] + lines[i:]).encode()


def delete_line(rng: random.Random, text: str) -> bytes:
    lines = text.splitlines(keepends=True)
    del lines[rng.randrange(len(lines))]
    return "".join(lines).encode()


def _replace_nth(rng: random.Random, text: str, pattern: str, new: str) -> str:
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text + new
    m = rng.choice(matches)
    return text[: m.start()] + m.expand(new) + text[m.end() :]


def wrong_element_type(rng: random.Random, text: str) -> bytes:
    new = rng.choice(["i1", "f16", "i64", "f64", "index", "i7"])
    return _replace_nth(rng, text, r"\b(f32|i64|i32|i1)\b", new).encode()


def change_dim(rng: random.Random, text: str) -> bytes:
    new = rng.choice(["0", "1", "3", "7", "?", "-1", "99999999999999999999"])
    return _replace_nth(rng, text, r"(?<=[<x])\d+(?=x)", new).encode()


def change_int(rng: random.Random, text: str) -> bytes:
    """Dims, perms, sizes, slice bounds, call indices: any integer literal."""
    new = rng.choice(["0", "-1", "2", "5", "64", "9223372036854775808"])
    return _replace_nth(rng, text, r"(?<![\w%<x])\d+(?![\w.x])", new).encode()


def unknown_op(rng: random.Random, text: str) -> bytes:
    new = rng.choice(
        ["graph.frobnicate", "nosuch.op", "graph.", "graph.yield", "func.call"]
    )
    return _replace_nth(rng, text, r"\b(graph|func)\.\w+", new).encode()


def undefined_value(rng: random.Random, text: str) -> bytes:
    new = rng.choice(["%nope", "%0", "%r#7", "@nope"])
    return _replace_nth(rng, text, r"(?<==)\s*%\w+|, %\w+|\(%\w+", " " + new).encode()


def garbage(rng: random.Random, text: str) -> bytes:
    junk = "".join(rng.choice("{}()<>[]\"'\\%@^#:,=->!~`$\t\x00\x7f") for _ in range(4))
    at = rng.randrange(len(text) + 1)
    return (text[:at] + junk + text[at:]).encode()


def non_utf8(rng: random.Random, text: str) -> bytes:
    data = text.encode()
    at = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"])
    return data[:at] + junk + data[at:]


def stray_quote(rng: random.Random, text: str) -> bytes:
    """An unterminated string literal (once hung xDSL's lexer)."""
    at = rng.randrange(len(text) + 1)
    return (text[:at] + '"' + text[at:]).encode()


def split_marker(rng: random.Random, text: str) -> bytes:
    lines = text.splitlines(keepends=True)
    lines.insert(rng.randrange(len(lines) + 1), "// -----\n")
    return "".join(lines).encode()


MUTATORS: dict[str, Callable[[random.Random, str], bytes]] = {
    f.__name__: f
    for f in (
        truncate, swap_tokens, delete_token, duplicate_line, delete_line,
        wrong_element_type, change_dim, change_int, unknown_op, undefined_value,
        garbage, non_utf8, stray_quote, split_marker,
    )
}  # fmt: skip

# Driver flags each mutant is run with, picked by the random source.
FLAG_SETS: list[list[str]] = [
    [],
    ["-p", "cse,dce,canonicalize"],
    ["--print-op-generic"],
    ["-t", "dot"],
    ["--split-input-file"],
    ["--split-input-file", "--verify-diagnostics"],
    ["--parsing-diagnostics", "--split-input-file"],
]

# --------------------------------------------------------------------------- #
# Running the driver
# --------------------------------------------------------------------------- #


def run_opt(argv: list[str]) -> tuple[int, str, str]:
    """fxdsl-opt in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = fxdsl_opt(argv)
    return code, out.getvalue(), err.getvalue()


def check_outcome(code: int, out: str, err: str, what: str) -> None:
    context = f"{what}\nexit {code}\nstdout:\n{out[-2000:]}\nstderr:\n{err[-2000:]}"
    assert code in (0, 1), context
    assert "Traceback" not in out + err, context
    assert not CRASH.search(out + err), context
    if code == 1:
        assert "error:" in err, context


def _case_ids() -> list[tuple[str, str]]:
    return [(seed, mutator) for seed in SEEDS for mutator in MUTATORS]


@pytest.mark.parametrize(
    ("seed_name", "mutator"), _case_ids(), ids=[f"{s}-{m}" for s, m in _case_ids()]
)
def test_mutants_never_crash(seed_name: str, mutator: str, tmp_path: Path) -> None:
    text = SEEDS[seed_name]
    rng = random.Random(f"{seed_name}/{mutator}")
    for k in range(MUTANTS_PER_CASE):
        data = MUTATORS[mutator](rng, text)
        flags = rng.choice(FLAG_SETS)
        path = tmp_path / f"mutant{k}.mlir"
        path.write_bytes(data)
        what = f"{seed_name} {mutator} #{k} flags={flags}: {path}"
        code, out, err = run_opt([str(path), *flags])
        check_outcome(code, out, err, what)
        if code == 0 and flags in ([], ["--print-op-generic"]):
            # A mutant that was accepted prints IR that parses again.
            path.write_text(out)
            check_outcome(*run_opt([str(path)]), f"re-parse of {what}")
            assert run_opt([str(path)])[0] == 0, what


def test_unterminated_string_is_fast() -> None:
    # 2**n backtracking in xDSL's string-literal regex (fixed in fxdsl.ir.parsing).
    text = '%x = "test.op"() {a = "' + "abcdefgh " * 20 + "\n"
    result = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt"],
        input=text.encode(),
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 1
    assert b"error: End of file reached before closing string literal" in result.stderr


def test_out_of_range_literal_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "big.mlir"
    path.write_text(
        "func.func @f() {\n"
        "  %c = graph.constant dense<[1, 9223372036854775808]> : tensor<2xi32>\n"
        "  func.return\n}\n"
    )
    code, out, err = run_opt([str(path)])
    check_outcome(code, out, err, "out-of-range literal")
    assert err.startswith(f"{path}:2:3: error: Integer value 9223372036854775808 is ")


def _pass_names() -> list[str]:
    from fxdsl.pipeline.universe import PASSES

    return sorted(PASSES)


@pytest.mark.parametrize("pass_name", _pass_names())
def test_fxdsl_passes_never_crash(pass_name: str, tmp_path: Path) -> None:
    """Every registered fxdsl pass, on the seeds and a few valid-looking
    mutants: a result or an `error:`, never an internal exception."""
    rng = random.Random(pass_name)
    seeds = [name for name in SEEDS if not name.startswith("dialects/")]
    for k, seed_name in enumerate(seeds):
        text = SEEDS[seed_name]
        mutator = rng.choice(
            ["change_int", "change_dim", "duplicate_line", "swap_tokens"]
        )
        for data in (text.encode(), MUTATORS[mutator](rng, text)):
            path = tmp_path / f"in{k}.mlir"
            path.write_bytes(data)
            code, out, err = run_opt([str(path), "-p", pass_name])
            check_outcome(code, out, err, f"-p {pass_name} on {seed_name} ({mutator})")


def test_seeds_are_valid(tmp_path: Path) -> None:
    for name, text in SEEDS.items():
        path = tmp_path / "seed.mlir"
        path.write_text(text)
        code, _out, err = run_opt([str(path), "-p", "cse"])
        assert code == 0, f"{name}: {err}"


def test_empty_input(tmp_path: Path) -> None:
    path = tmp_path / "empty.mlir"
    path.write_bytes(b"")
    code, out, err = run_opt([str(path)])
    assert (code, err) == (0, "")
    assert out.split() == ["builtin.module", "{", "}"]


def test_non_utf8_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bin.mlir"
    path.write_bytes(b"func.func @f() {\n  \xff\xfe\n}\n")
    code, _out, err = run_opt([str(path)])
    assert code == 1
    assert err.strip() == f"{path}:2:3: error: input is not valid UTF-8"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["-p", "cse{x"], "error: Error parsing pass pipeline specification"),
        (["-p", "no-such-pass"], "error: Unrecognized passes: ['no-such-pass']"),
        (["-p", "cse{x=1}"], "error: cse: unknown option x (options: none)"),
        (["-p", "{}"], "error:"),
        (["-t", "no-such-target"], "error: argument -t/--target: invalid choice"),
        (["-t", "dot{edge-labels=maybe}"], "error: bad options for target 'dot'"),
        (["-t", "dot{bogus=1}"], "error: bad options for target 'dot'"),
        (["-t", "dot{"], "error:"),
        (["-t", "mlir{x=1}"], "error: bad options for target 'mlir'"),
        (["--no-such-flag"], "error: unrecognized arguments: --no-such-flag"),
        (["-o"], "error: argument -o/--output-file: expected one argument"),
    ],
)
def test_bad_options(flags: list[str], message: str, tmp_path: Path) -> None:
    path = tmp_path / "ok.mlir"
    path.write_text(INLINE_SEEDS["mlp"])
    code, out, err = run_opt([str(path), *flags])
    check_outcome(code, out, err, str(flags))
    assert code == 1
    assert message in err


def test_missing_input_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mlir"
    code, _out, err = run_opt([str(missing)])
    assert code == 1
    assert err.strip() == f"{missing}: error: no such file: {missing}"


def test_directory_as_input(tmp_path: Path) -> None:
    code, out, err = run_opt([str(tmp_path)])
    check_outcome(code, out, err, "directory")
    assert code == 1


# --------------------------------------------------------------------------- #
# -o: nothing half-written
# --------------------------------------------------------------------------- #


def _bad_inputs(tmp_path: Path) -> list[tuple[Path, list[str]]]:
    parse_error = tmp_path / "parse.mlir"
    parse_error.write_text(INLINE_SEEDS["mlp"][:200])
    verify_error = tmp_path / "verify.mlir"
    verify_error.write_text(INLINE_SEEDS["mlp"].replace("dim 1", "dim 5"))
    binary = tmp_path / "binary.mlir"
    binary.write_bytes(b"\xff" + INLINE_SEEDS["mlp"].encode())
    # The second chunk fails after the first one was already printed.
    late = tmp_path / "late.mlir"
    late.write_text(INLINE_SEEDS["mlp"] + "// -----\n" + INLINE_SEEDS["mlp"][:300])
    return [
        (parse_error, []),
        (verify_error, []),
        (binary, []),
        (late, ["--split-input-file"]),
        (tmp_path / "ok.mlir", ["-p", "no-such-pass"]),
        (tmp_path / "ok.mlir", ["-t", "dot{bogus=1}"]),
    ]


def test_failed_run_writes_no_output_file(tmp_path: Path) -> None:
    (tmp_path / "ok.mlir").write_text(INLINE_SEEDS["mlp"])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for src, flags in _bad_inputs(tmp_path):
        target = out_dir / "out.mlir"
        code, _out, err = run_opt([str(src), *flags, "-o", str(target)])
        assert code == 1, (src, flags, err)
        assert not target.exists(), (src, flags)
        assert list(out_dir.iterdir()) == [], (src, flags)  # no temp files left


def test_failed_run_keeps_existing_output_file(tmp_path: Path) -> None:
    (tmp_path / "ok.mlir").write_text(INLINE_SEEDS["mlp"])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "out.mlir"
    for src, flags in _bad_inputs(tmp_path):
        target.write_text("previous content\n")
        code, _out, err = run_opt([str(src), *flags, "-o", str(target)])
        assert code == 1, (src, flags, err)
        assert target.read_text() == "previous content\n", (src, flags)
        assert list(out_dir.iterdir()) == [target], (src, flags)


def test_successful_run_replaces_output_file(tmp_path: Path) -> None:
    src = tmp_path / "ok.mlir"
    src.write_text(INLINE_SEEDS["mlp"])
    target = tmp_path / "out.mlir"
    target.write_text("previous content\n")
    code, out, err = run_opt([str(src), "-o", str(target)])
    assert (code, out, err) == (0, "", "")
    assert target.read_text() == run_opt([str(src)])[1]


def test_output_into_missing_directory(tmp_path: Path) -> None:
    src = tmp_path / "ok.mlir"
    src.write_text(INLINE_SEEDS["mlp"])
    target = tmp_path / "no" / "such" / "dir" / "out.mlir"
    code, _out, err = run_opt([str(src), "-o", str(target)])
    assert code == 1
    assert err.strip() == f"error: cannot write {target}: No such file or directory"
    assert not (tmp_path / "no").exists()


# --------------------------------------------------------------------------- #
# A handful through a real process (entry point, stdin, exit status)
# --------------------------------------------------------------------------- #

SUBPROCESS_CASES: list[tuple[list[str], bytes]] = [
    ([], b"\xff\xfe\x00garbage"),
    ([], INLINE_SEEDS["mlp"][:150].encode()),
    ([], INLINE_SEEDS["mlp"].replace("f32", "i1", 1).encode()),
    (["-p", "cse{x"], INLINE_SEEDS["mlp"].encode()),
    (["-p", "no-such-pass"], b""),
    (["/no/such/file.mlir"], b""),
    (["-t", "nope"], b""),
]


@pytest.mark.parametrize(("flags", "stdin"), SUBPROCESS_CASES)
def test_subprocess_errors(flags: list[str], stdin: bytes) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", *flags],
        input=stdin,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    out, err = result.stdout.decode(), result.stderr.decode()
    check_outcome(result.returncode, out, err, f"{flags} {stdin[:40]!r}")
    assert result.returncode == 1
    assert out == ""


def test_subprocess_valid_stdin() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", "-p", "cse"],
        input=INLINE_SEEDS["fused"].encode(),
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert b"graph.fusion_group" in result.stdout
