"""The committed examples: up to date, canonical IR, and numerically right."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import fxdsl
from fxdsl.frontends import models
from fxdsl.interpreters.run import run_reference
from fxdsl.testing.modules import load_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = ["mlp.mlir", "gpt2_block.mlir"]
# f32 interpreter against the float64 numpy reference on O(1) outputs; the
# worst error seen on gpt2_block is 8e-7.
RTOL, ATOL = 1e-5, 5e-6


def load_generate() -> ModuleType:
    return load_file(EXAMPLES / "generate.py", "examples_generate")


def fxdsl_opt(*args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_committed_examples_equal_generator_output() -> None:
    generated = load_generate().generate()
    assert sorted(generated) == sorted(FILES)
    for name, text in generated.items():
        assert (EXAMPLES / name).read_text() == text, f"run python examples/{name}"


def test_generate_check_flags_stale_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    generate = load_generate()
    assert generate.main(["--check"]) == 0
    monkeypatch.setattr(generate, "HERE", tmp_path)
    assert generate.main([]) == 0
    assert generate.main(["--check"]) == 0
    (tmp_path / "mlp.mlir").write_text("// edited\n")
    assert generate.main(["--check"]) == 1
    assert "examples/mlp.mlir is stale" in capsys.readouterr().out


@pytest.mark.parametrize("name", FILES)
def test_example_is_a_printer_fixed_point(name: str) -> None:
    path = str(EXAMPLES / name)
    once = fxdsl_opt(path)
    assert fxdsl_opt(stdin=once) == once
    # The generic form parses back to the same custom form.
    generic = fxdsl_opt("--print-op-generic", path)
    assert '"graph.' in generic
    assert fxdsl_opt(stdin=generic) == once
    # The committed text (after its header comment) is already canonical.
    body = "".join(
        line for line in (EXAMPLES / name).read_text().splitlines(keepends=True)
        if not line.startswith("//")
    )  # fmt: skip
    assert body.strip() == once.strip()


def test_gpt2_block_example_matches_numpy() -> None:
    module = fxdsl.parse((EXAMPLES / "gpt2_block.mlir").read_text())
    for seed in (0, 1):
        inputs = models.example_inputs(module, seed)
        assert inputs[0].shape == (1, 64, 768)
        assert len(inputs) == 13
        (got,) = run_reference(module, *inputs)
        want = models.gpt2_numpy(*inputs, heads=12, final_ln=False)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_mlp_example_matches_numpy() -> None:
    module = fxdsl.parse((EXAMPLES / "mlp.mlir").read_text())
    inputs = models.example_inputs(module, 0, weight_scale=0.1)
    (got,) = run_reference(module, *inputs)
    np.testing.assert_allclose(got, models.mlp_numpy(*inputs), rtol=RTOL, atol=ATOL)
