"""`fxdsl-opt`: the driver's contract (output, locations, errors, `-o`, targets).

Malformed input in bulk is `test_fxdsl_opt_fuzz.py`'s job; this file checks
the behaviours one at a time, with exact outputs.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import fxdsl
from fxdsl.tools.fxdsl_opt import main as fxdsl_opt

PROGRAM = """\
func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %c = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %d = graph.mul %a, %c : tensor<4x8xf32>
  func.return %d : tensor<4x8xf32>
}
"""

# Line 3, column 8: the matmul (inside a func) does not verify.
BAD_VERIFY = """\
func.func @g(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) -> tensor<4x3xf32> {
  %n = graph.neg %a : tensor<4x8xf32>
       %c = graph.matmul %n, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
  func.return %c : tensor<4x3xf32>
}
"""


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = fxdsl_opt(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "program.mlir"
    path.write_text(PROGRAM)
    return path


def test_prints_the_parsed_module(program: Path) -> None:
    code, out, err = run([str(program)])
    assert (code, err) == (0, "")
    assert out == str(fxdsl.parse(PROGRAM)) + "\n\n"
    assert out.count("graph.add") == 2


def test_pipeline_runs_upstream_passes(program: Path) -> None:
    code, out, err = run([str(program), "-p", "cse"])
    assert (code, err) == (0, "")
    assert out.count("graph.add") == 1  # graph ops are Pure: cse merges them


def test_generic_form_round_trips(program: Path, tmp_path: Path) -> None:
    code, generic, _ = run([str(program), "--print-op-generic"])
    assert code == 0
    assert '"graph.add"' in generic
    assert "graph.add %" not in generic
    again = tmp_path / "generic.mlir"
    again.write_text(generic)
    assert run([str(again)])[1] == run([str(program)])[1]


def test_debuginfo_shows_source_locations(program: Path) -> None:
    code, out, _ = run([str(program), "--print-debuginfo"])
    assert code == 0
    assert f'graph.mul %a, %c : tensor<4x8xf32> loc("{program}":4:3)' in out


def test_verify_error_points_at_the_op(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(BAD_VERIFY)
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err == (
        f"{path}:3:8: error: graph.matmul: contracting dims differ: "
        "lhs tensor<4x8xf32> has 8, rhs tensor<7x3xf32> has 7\n"
    )


def test_verify_error_after_a_pass_is_located(tmp_path: Path) -> None:
    # The module fails verification already when parsed; with a pipeline the
    # message and location are the same.
    path = tmp_path / "bad.mlir"
    path.write_text(BAD_VERIFY)
    assert run([str(path), "-p", "cse"])[2] == run([str(path)])[2]


def test_parse_error_has_location_and_caret(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    # Line 4 misses the `>` of its type: the parser notices on line 5.
    path.write_text(
        PROGRAM.replace("%a, %c : tensor<4x8xf32>", "%a, %c : tensor<4x8xf32")
    )
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"{path}:5:3: error: Expected '>' after builtin parameter list",
        "  func.return %d : tensor<4x8xf32>",
        "  ^^^^^^^^^^^",
    ]


_DEEP = 200  # levels of nesting; xDSL parses nesting by recursion


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            '"test.op"() {a = ' + "[" * _DEEP + "1" + "]" * _DEEP + "} : () -> ()",
            ":1:",
        ),
        (
            '"test.op"() {a = dense<' + "[" * _DEEP + "1.0" + "]" * _DEEP
            + "> : tensor<" + "1x" * _DEEP + "f32>} : () -> ()",
            ":1:",
        ),
        (
            "func.func @f(%x: " + "tensor<" * _DEEP + "f32" + ">" * _DEEP
            + ") {\n  func.return\n}",
            ":1:",
        ),
        ("!t = " + "tensor<" * _DEEP + "f32" + ">" * _DEEP, ":1:"),
        ("#a = " + "[" * _DEEP + "1" + "]" * _DEEP, ":1:"),
    ],
    ids=["list", "dense", "tensor", "type-alias", "attribute-alias"],
)  # fmt: skip
def test_deep_nesting_is_a_located_error_or_parses(
    tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "deep.mlir"
    path.write_text(text + "\n")
    code, out, err = run([str(path)])
    assert "RecursionError" not in err
    if code == 0:  # within the parser's reach: it must print back
        assert out.startswith("builtin.module")
        return
    assert (code, out) == (1, "")
    assert re.match(
        rf"{re.escape(str(path))}{where}\d+: error: input nested too deeply", err
    )


def test_block_label_defined_twice_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "labels.mlir"
    path.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  cf.br ^next\n^next:\n  cf.br ^next\n^next:\n"
        "  func.return %x : tensor<4xf32>\n}\n"
    )
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}:5:1: error: re-declaration of block 'next'")


def test_fusion_group_input_naming_its_own_block_argument(tmp_path: Path) -> None:
    # the region's names are out of the inputs' scope (as in the generic form)
    path = tmp_path / "group.mlir"
    path.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %r = graph.fusion_group (%a) : (tensor<4xf32>) -> tensor<4xf32> {\n"
        "  ^bb0(%a: tensor<4xf32>):\n"
        "    graph.yield %a : tensor<4xf32>\n"
        "  }\n"
        "  func.return %r : tensor<4xf32>\n}\n"
    )
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}:2:28: error: use of undefined value %a\n")


def test_undefined_value_is_an_error_at_its_first_use(tmp_path: Path) -> None:
    # xDSL reports it at the end of the input
    path = tmp_path / "undefined.mlir"
    path.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = graph.neg %nope : tensor<4xf32>\n"
        "  %z = graph.neg %nope2 : tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n}\n"
    )
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"{path}:2:18: error: use of undefined value %nope",
        "  %y = graph.neg %nope : tensor<4xf32>",
        "                 ^^^^^",
    ]


def test_split_input_file_keeps_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "split.mlir"
    path.write_text(PROGRAM + "// -----\n" + BAD_VERIFY)
    code, out, err = run([str(path), "--split-input-file", "--verify-diagnostics"])
    assert (code, err) == (0, "")
    first, second = out.split("// -----\n")
    assert "func.func @f" in first
    line = PROGRAM.count("\n") + 1 + 3  # chunk 1, the marker line, line 3
    assert second == (
        f"{path}:{line}:8: error: graph.matmul: contracting dims differ: "
        "lhs tensor<4x8xf32> has 8, rhs tensor<7x3xf32> has 7\n"
    )


def test_output_file_is_written_on_success(program: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    code, out, err = run([str(program), "-p", "cse", "-o", str(target)])
    assert (code, out, err) == (0, "", "")
    assert target.read_text() == run([str(program), "-p", "cse"])[1]


def test_output_file_untouched_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(BAD_VERIFY)
    target = tmp_path / "out.mlir"
    target.write_text("keep me\n")
    assert run([str(path), "-o", str(target)])[0] == 1
    assert target.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "out.mlir"]


@pytest.mark.parametrize(
    "options",
    [["-t", "cuda"], ["-p", "graph-bufferize"], ["-o", "out.mlir", "-t", "cuda"]],
)
def test_errors_name_the_input_file_after_options(
    program: Path, options: list[str]
) -> None:
    """Option values (`cuda`, `out.mlir`) are not the input file; a pass
    failure at an op (graph-bufferize) is also at its line."""
    code, _, err = run([*options, str(program)])
    assert code == 1
    assert re.match(rf"{re.escape(str(program))}(:\d+:\d+)?: error: ", err)
    assert (":2:3: error: " in err) == ("graph-bufferize" in options)


def test_dot_target_is_registered(program: Path) -> None:
    code, out, err = run([str(program), "-t", "dot"])
    assert (code, err) == (0, "")
    assert out.startswith('digraph "module" {')
    assert "subgraph cluster_f {" in out


@pytest.mark.parametrize("target", ["wgsl", "wat"])
def test_upstream_target_printing_nothing_is_a_named_error(
    program: Path, target: str
) -> None:
    code, out, err = run([str(program), "-t", target])
    assert (code, out) == (1, "")
    assert err.startswith(
        f"{program}: error: -t {target}: xDSL's {target} target printed nothing "
        "for this input; it prints only IR already lowered to its dialects"
    )


def test_upstream_target_warning_is_not_a_python_warning(
    program: Path, recwarn: pytest.WarningsRecorder
) -> None:
    """xDSL's csl target warns ("Expected all top-level operations to be
    `csl.module` ops!") and prints nothing: one `error:` line, no warning."""
    code, out, err = run([str(program), "-t", "csl"])
    assert (code, out) == (1, "")
    assert err == (
        f"{program}: error: -t csl: xDSL's csl target printed nothing for this "
        "input; it prints only IR already lowered to its dialects, not graph IR "
        "(fxdsl's targets: dot, cuda, mlir)\n"
    )
    assert [str(w.message) for w in recwarn] == []


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("riscv-asm", "(AssertionError)"),
        ("mps", "(NotImplementedError: MPS backend not yet implemented)"),
    ],
)
def test_upstream_target_on_graph_ir_is_a_named_error(
    program: Path, target: str, why: str
) -> None:
    """xDSL's own targets assert on IR outside their dialects: one located
    line naming the target and what it prints, no traceback, no output."""
    code, out, err = run([str(program), "-t", target])
    assert (code, out) == (1, "")
    assert err == (
        f"{program}: error: -t {target}: xDSL's {target} target failed on this "
        f"input {why}; it prints only IR already lowered to its dialects, not "
        "graph IR (fxdsl's targets: dot, cuda, mlir)\n"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-p", "no-such-pass"], "error: Unrecognized passes: ['no-such-pass']"),
        (["-p", "cse{bogus=1}"], "error: cse: unknown option bogus (options: none)"),
        (
            ["-p", "graph-fuse{max-args=abc}"],
            "error: graph-fuse: option max-args expects an integer, got abc",
        ),
        (
            ["-p", "graph-fuse{maxargs=3}"],
            "error: graph-fuse: unknown option maxargs (options: max-args,",
        ),
        pytest.param(
            ["-t", "llvm"],
            "error: -t llvm needs the Python package 'llvmlite', which is not "
            "installed",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("llvmlite") is not None,
                reason="llvmlite is installed",
            ),
        ),
        (["-t", "dot{bogus=1}"], "error: bad options for target 'dot'"),
    ],
)
def test_option_errors(program: Path, argv: list[str], expected: str) -> None:
    code, out, err = run([str(program), *argv])
    assert (code, out) == (1, "")
    assert err.startswith(f"{program}: {expected}")
    assert "Traceback" not in err


def test_blank_input_is_an_empty_module(tmp_path: Path) -> None:
    path = tmp_path / "blank.mlir"
    path.write_text("// only a comment\n\n")
    assert run([str(path)]) == (0, "builtin.module {\n}\n\n", "")


def test_stdin_and_exit_status() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", "-p", "cse"],
        input=PROGRAM, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ok.returncode == 0
    assert ok.stdout.count("graph.add") == 1
    bad = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt"],
        input=BAD_VERIFY, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 1
    assert bad.stderr.startswith("stdin:3:8: error: graph.matmul:")
    dash = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", "-", "-p", "cse"],
        input=PROGRAM, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (dash.returncode, dash.stdout, dash.stderr) == (0, ok.stdout, "")


def test_plain_xdsl_opt_sees_the_graph_dialect() -> None:
    """The `xdsl.universe` entry point registers graph ops and the dot target."""
    xdsl_opt = Path(sys.executable).with_name("xdsl-opt")
    if not xdsl_opt.exists():
        pytest.skip("xdsl-opt is not installed next to this Python")
    result = subprocess.run(
        [str(xdsl_opt), "-t", "dot"], input=PROGRAM, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert 'label="graph.mul\\n4x8xf32"' in result.stdout


BRANCHES = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  cf.br ^next
^next:
  %n = graph.neg %e : tensor<4xf32>
  func.return %n : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["-p", "graph-split"], "{path}:2:1: error: graph-split: @f has 2 blocks"),
        (
            ["-p", "convert-groups-to-gpu"],
            "{path}:2:1: error: convert-groups-to-gpu: @f has 2 blocks",
        ),
        (["-p", "graph-partition{ops=graph.*}"], None),  # left as it is
        (["-t", "dot"], None),  # every block drawn
    ],
)
def test_functions_with_control_flow(
    tmp_path: Path, options: list[str], expected: str | None
) -> None:
    path = tmp_path / "branches.mlir"
    path.write_text(BRANCHES)
    code, out, err = run([str(path), *options])
    if expected is None:
        assert (code, err) == (0, "")
        assert "graph.neg" in out
    else:
        assert code == 1
        assert expected.format(path=path) in err
        assert "only single-block functions (no control flow) are supported" in err


def test_time_passes_reports_on_stderr(program: Path) -> None:
    # the report once went to stdout, into the IR
    code, out, err = run([str(program), "-p", "cse,graph-fuse,cse", "--time-passes"])
    assert code == 0
    assert str(fxdsl.parse(out)) == str(
        fxdsl.apply(fxdsl.parse(PROGRAM), "cse,graph-fuse,cse")
    )
    assert "Execution time report" in err
    steps = [line.split(")", 1)[1].strip() for line in err.splitlines() if "%)" in line]
    assert steps == ["Parser", "cse", "graph-fuse", "cse #2", "Output", "Total"]


def test_version_names_fxdsl_and_xdsl() -> None:
    code, out, _ = run(["--version"])
    assert code == 0
    assert fxdsl.__version__ == importlib.metadata.version("fxdsl")
    xdsl = importlib.metadata.version("xdsl")
    assert out == f"fxdsl-opt {fxdsl.__version__} (xDSL {xdsl})\n"


def test_list_passes_gives_each_pass_a_summary() -> None:
    from fxdsl.pipeline.universe import PASSES

    code, out, _ = run(["--list-passes"])
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines() if line[:2] == "  "}
    assert "graph-fuse" in lines["graph-fuse"]
    assert "fusion_group" in lines["graph-fuse"]
    assert set(PASSES) <= set(lines)
    assert "cse" in lines
    assert sum("(no description)" in lines[name] for name in PASSES) == 0
    code, out, _ = run(["--help"])
    assert "--help-pass" in out
    assert "graph-dedup," not in out


def test_help_pass_shows_the_options() -> None:
    code, out, _ = run(["--help-pass", "graph-fuse"])
    assert code == 0
    assert out.startswith("graph-fuse: Form `graph.fusion_group`s")
    assert "  max-args: an integer (default: 128)\n" in out
    assert "  horizontal: true or false (default: true)\n" in out
    code, _, err = run(["--help-pass", "graph-fusse"])
    assert code == 1
    assert err == "error: unknown pass 'graph-fusse' (see fxdsl-opt --list-passes)\n"


def test_a_crashing_pass_is_an_error_naming_it(
    program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # upstream apply-pdl-interp asserts on IR without a matcher function
    code, out, err = run([str(program), "-p", "cse,apply-pdl-interp"])
    assert (code, out) == (1, "")
    assert err == (
        f"{program}: error: pass 'apply-pdl-interp' failed: AssertionError: matcher "
        "function not found (FXDSL_TRACEBACK=1 shows the traceback)\n"
    )
    # a long reason (a KeyError's text is an op's repr) is cut short
    from fxdsl.transforms.graph_fuse import GraphFusePass

    def crash(*_: object) -> None:
        raise KeyError("x" * 1000)

    monkeypatch.setattr(GraphFusePass, "apply", crash)
    _, _, err = run([str(program), "-p", "graph-fuse"])
    assert err.startswith(f"{program}: error: pass 'graph-fuse' failed: KeyError: ")
    assert "x" * 150 + "..." in err
    assert "x" * 160 not in err
    monkeypatch.setenv("FXDSL_TRACEBACK", "1")
    _, _, err = run([str(program), "-p", "apply-pdl-interp"])
    assert err.startswith("Traceback")
    assert "apply_pdl_interp" in err


# Two copies of neg -> exp around unknown ops (one without results): region
# finders (dedup, partition, fuse) see repeats and a barrier in between;
# graph-split gets two partitions.
UNKNOWN_OPS = """\
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.neg %x {graph.partition = 0} : tensor<4xf32>
  %b = graph.exp %a {graph.partition = 0} : tensor<4xf32>
  %u = "foo.bar"(%b) {graph.partition = 0} : (tensor<4xf32>) -> tensor<4xf32>
  "foo.print"(%b) {graph.partition = 1} : (tensor<4xf32>) -> ()
  %c = graph.neg %u {graph.partition = 1} : tensor<4xf32>
  %d = graph.exp %c {graph.partition = 1} : tensor<4xf32>
  %e = graph.neg %x {graph.partition = 0} : tensor<4xf32>
  %f = graph.exp %e {graph.partition = 0} : tensor<4xf32>
  %g = graph.add %d, %f {graph.partition = 1} : tensor<4xf32>
  func.return %g : tensor<4xf32>
}
"""


def _fxdsl_pass_names() -> list[str]:
    from fxdsl.pipeline.universe import PASSES

    return list(PASSES)


@pytest.mark.parametrize("name", _fxdsl_pass_names())
def test_graph_passes_treat_unknown_ops_as_barriers(tmp_path: Path, name: str) -> None:
    # xDSL answers has_trait(...) True for an unregistered op: passes took
    # one for a terminator (KeyError) or a constant (moved above its operand)
    path = tmp_path / "unknown.mlir"
    path.write_text(UNKNOWN_OPS)
    code, out, err = run([str(path), "--allow-unregistered-dialect", "-p", name])
    if code == 1:  # lowering refuses them (or needs other passes first)
        assert re.fullmatch(rf"{re.escape(str(path))}:\d+:3: error: [^\n]+\n", err)
        return
    assert (code, err) == (0, "")  # the output verified, dominance included
    assert out.count('"foo.bar"') == out.count('"foo.print"') == 1
