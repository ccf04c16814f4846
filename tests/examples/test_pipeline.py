"""examples/pipeline.py (the README's main job) keeps working."""

from __future__ import annotations

from pathlib import Path

import pytest

from fxdsl.testing.modules import load_file

SCRIPT = Path(__file__).parents[2] / "examples" / "pipeline.py"


def load_pipeline():  # type: ignore[no-untyped-def]
    return load_file(SCRIPT, "fxdsl_example_pipeline")


def test_pipeline_dedups_fuses_and_matches(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        load_pipeline().main(
            ["--blocks", "3", "--seq", "8", "--backend", "cpu", "--source", "traced"]
        )
        == 0
    )
    out = capsys.readouterr().out
    dedup = next(line for line in out.splitlines() if line.startswith("graph-dedup"))
    assert "2 funcs, 3 calls" in dedup
    fused = next(
        line for line in out.splitlines() if line.startswith("graph-decompose")
    )
    assert "4 groups" in fused
    assert out.rstrip().endswith("ok")


def test_pipeline_on_the_imported_hf_model(capsys: pytest.CaptureFixture[str]) -> None:
    """The default main job when torch and transformers are installed (as
    in CI): HF GPT-2 imported, deduplicated, fused, run, against eager."""
    pytest.importorskip("transformers")
    argv = ["--blocks", "2", "--seq", "8", "--backend", "cpu", "--source", "hf"]
    assert load_pipeline().main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("import HF GPT-2, 2 layers")
    dedup = next(line for line in out.splitlines() if line.startswith("graph-dedup"))
    assert "2 funcs, 2 calls" in dedup
    assert "max |optimised - torch eager|" in out
    assert out.rstrip().endswith("ok")
