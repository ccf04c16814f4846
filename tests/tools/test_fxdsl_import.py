"""`fxdsl-import`: a program saved with torch.export.save → IR text and a
weights file → `fxdsl-opt` → `fxdsl-run` (which picks the weights up),
matching torch; and its errors (one `error:` line, exit 1, no output)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

from fxdsl.testing.torch_models import gpt2  # noqa: E402
from fxdsl.tools import fxdsl_import, fxdsl_opt, fxdsl_run  # noqa: E402


class _Logits(torch.nn.Module):
    """HF returns a ModelOutput, which torch.export.load cannot rebuild;
    a saved program returns plain tensors."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: Any) -> Any:
        return self.model(ids, use_cache=False).logits


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Any]:
    """GPT-2 saved as .pt2, its input ids as .npy, and torch's logits."""
    folder = tmp_path_factory.mktemp("pt2")
    model, (ids,), _ = gpt2(layers=2)
    wrapped = _Logits(model).eval()
    program = torch.export.export(wrapped, (ids,), strict=False)
    torch.export.save(program, folder / "gpt2.pt2")
    np.save(folder / "ids.npy", ids.numpy())
    with torch.no_grad():
        logits = wrapped(ids).numpy()
    return folder / "gpt2.pt2", folder / "ids.npy", logits


def test_round_trip_matches_torch(saved: Any, tmp_path: Path, capsys: Any) -> None:
    pt2, ids, logits = saved
    ir = tmp_path / "gpt2.mlir"
    assert fxdsl_import.main([str(pt2), "-o", str(ir)]) == 0
    text = ir.read_text()
    assert 'graph.param = "model.transformer.h.0.attn.c_attn.weight"' in text
    assert (tmp_path / "gpt2.weights.npz").is_file()

    fused = tmp_path / "fused.mlir"
    assert (
        fxdsl_opt.main([str(ir), "-p", "graph-decompose,graph-fuse", "-o", str(fused)])
        == 0
    )
    assert "graph.fusion_group" in fused.read_text()

    out = tmp_path / "out"
    # fused.mlir has no side file of its own: name the weights.
    weights = str(tmp_path / "gpt2.weights.npz")
    args = ["--inputs", str(ids), "--weights", weights, "--save-outputs", str(out)]
    assert fxdsl_run.main([str(fused), *args]) == 0
    np.testing.assert_allclose(np.load(out / "result0.npy"), logits, atol=1e-5)

    # Beside its IR, the weights file is found without --weights.
    capsys.readouterr()
    assert fxdsl_run.main([str(ir), "--inputs", str(ids)]) == 0
    assert "result 0: tensor<1x8x128xf32>" in capsys.readouterr().out


def test_core_aten_import(saved: Any, tmp_path: Path) -> None:
    pt2, _, _ = saved
    ir = tmp_path / "core.mlir"
    assert fxdsl_import.main([str(pt2), "--decompose", "-o", str(ir)]) == 0
    assert ir.read_text().count("graph.attention") == 2


def test_random_inputs_fill_only_the_user_inputs(saved: Any, tmp_path: Path) -> None:
    pt2, _, _ = saved
    ir = tmp_path / "m.mlir"
    assert fxdsl_import.main([str(pt2), "-o", str(ir)]) == 0
    assert fxdsl_run.main([str(ir), "--check", "-p", "graph-decompose"]) == 0


class _Unmapped(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return torch.hash_tensor(x)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing", "error: no such file"),
        ("not_a_program", "error: not a torch.export program"),
        (
            "unsupported",
            "aten.hash_tensor.default (node %hash_tensor): aten.hash_tensor.default "
            "has no",
        ),
    ],
)
def test_errors_are_one_line_and_write_nothing(
    tmp_path: Path, capsys: Any, case: str, expected: str
) -> None:
    path = tmp_path / "in.pt2"
    if case == "not_a_program":
        path.write_text("hello")
    elif case == "unsupported":
        torch.export.save(torch.export.export(_Unmapped(), (torch.randn(3, 5),)), path)
    out = tmp_path / "out.mlir"
    capsys.readouterr()
    assert fxdsl_import.main([str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert expected in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()
    assert not (tmp_path / "out.weights.npz").exists()


def test_missing_weights_is_an_error(saved: Any, tmp_path: Path, capsys: Any) -> None:
    pt2, ids, _ = saved
    ir = tmp_path / "gpt2.mlir"
    assert fxdsl_import.main([str(pt2), "-o", str(ir)]) == 0
    np.savez(tmp_path / "empty.npz")
    capsys.readouterr()
    args = ["--inputs", str(ids), "--weights", str(tmp_path / "empty.npz")]
    assert fxdsl_run.main([str(ir), *args]) == 1
    assert "no array for parameter 'model.transformer.wte.weight'" in (
        capsys.readouterr().err
    )
