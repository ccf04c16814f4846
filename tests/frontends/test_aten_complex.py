"""Complex tensors inside imported programs (`aten_complex`): the FFTs as
dense DFTs, complex arithmetic and layout ops on (re, im) pairs, against
torch eager at both import levels; through the GPU pipeline on the IR
emulator; through `torch.compile(backend="fxdsl")` (FNet's mixing layer
compiled whole, forward and backward); and the boundary a complex value
may not cross (a program's inputs and outputs), with its clean errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import fxdsl  # noqa: E402
from fxdsl.frontends.aten_complex import _twiddles  # noqa: E402
from fxdsl.frontends.torch_export import TorchImportError, from_torch  # noqa: E402
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.generation import recording_plans  # noqa: E402

fft = torch.fft
real = torch.view_as_real


class Fn(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *xs: Any) -> Any:
        return self.fn(*xs)


CASES: dict[str, Callable[[Any], Any]] = {
    "fnet": lambda x: fft.fftn(x, dim=(1, 2)).real,
    "fft-abs": lambda x: fft.fft(x).abs(),
    "fft-odd-n": lambda x: real(fft.fft(x, n=7, dim=1)),
    "rfft-ortho": lambda x: real(fft.rfft(x, norm="ortho")),
    "rfft2": lambda x: real(fft.rfft2(x)),
    "irfft-padded": lambda x: fft.irfft(x, n=10),
    "irfft-trimmed": lambda x: fft.irfft(x, n=4),
    "irfft-of-rfft-times-2j": lambda x: fft.irfft(fft.rfft(x) * 2j, n=6),
    "irfftn-odd": lambda x: fft.irfftn(fft.rfftn(x, dim=(0, 2)), s=(3, 5), dim=(0, 2)),
    "hfft": lambda x: fft.hfft(x),
    "ihfft": lambda x: real(fft.ihfft(x).resolve_conj()),
    "ifft2-forward-norm": lambda x: real(fft.ifft2(x, norm="forward")),
    "fftshift": lambda x: real(fft.fftshift(fft.fft2(x))),
    "polar-mul-div": lambda x: real(
        torch.polar(x.abs(), x) * torch.complex(x, x + 1) / torch.complex(x + 2, x)
    ),
    "broadcast-real-and-complex": lambda x: real(
        (fft.fft(x[0, 0]) + x) * (x[:, :1] - 1j) / fft.fft(x[:, :, :1] + 2, dim=0)
        - torch.where(x > 0, fft.fft(x), x[0])
    ),
    "angle-of-exact-zeros": lambda x: fft.fft(x).angle(),
    "layout-conj-exp": lambda x: real(
        fft.fft(x).permute(2, 0, 1).conj().exp()[1:, :, ::2].reshape(-1, 3)
    ),
    "cat-sum-sub-real": lambda x: real(
        torch.cat([fft.fft(x), fft.ifft(x)], 1).sum(0) - x[0].repeat(2, 1)
    ),
    "view-as-complex": lambda x: torch.view_as_complex(x.reshape(3, 8, 3, 2)).abs(),
}
"""Each takes a (3, 8, 6) float32 tensor and returns real tensors."""


def _x() -> Any:
    return torch.randn(3, 8, 6, generator=torch.Generator().manual_seed(3))


def _assert_matches(got: Any, want: Any) -> None:
    want = want.numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())


@pytest.mark.parametrize("decompose", [False, True])
@pytest.mark.parametrize("name", list(CASES))
def test_complex_programs_match_eager(name: str, decompose: bool) -> None:
    x = _x()
    program = from_torch(Fn(CASES[name]), (x,), decompose=decompose)
    (got,) = program.run(x)
    _assert_matches(got, CASES[name](x))
    assert "complex" not in str(program.module)  # pairs of reals only


def test_the_twiddles_are_exact_at_quarter_turns() -> None:
    """What torch's FFT makes exactly 0 (a real signal's Nyquist sine)
    must be 0, not sin(pi) = 1.2e-16: the angle of it differs by 2 pi."""
    cos, sin = _twiddles(8, 8, 8)
    quarter = (4 * np.outer(np.arange(8), np.arange(8))) % 8 == 0
    assert set(np.abs(sin[quarter]).tolist()) <= {0.0, 1.0}
    assert set(np.abs(cos[quarter]).tolist()) <= {0.0, 1.0}
    assert np.all((sin[quarter] == 0) | (cos[quarter] == 0))
    np.testing.assert_allclose(cos + 1j * sin, np.exp(2j * np.pi * np.outer(
        np.arange(8), np.arange(8)) / 8), atol=1e-15)  # fmt: skip


@pytest.mark.parametrize("name", ["fnet", "irfft-padded", "polar-mul-div"])
def test_gpu_pipeline_on_the_emulator_matches_eager(name: str) -> None:
    x = _x()
    program = from_torch(Fn(CASES[name]), (x,))
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    (got,) = Emulator(lowered).run("forward", x.numpy())
    _assert_matches(got, CASES[name](x))


def test_a_complex_output_or_input_is_a_clean_error() -> None:
    x = _x()
    with pytest.raises(
        TorchImportError, match="returns a complex tensor.*view_as_real"
    ):
        from_torch(Fn(fft.fft), (x,))
    with pytest.raises(TorchImportError, match="complex64 is not supported"):
        from_torch(Fn(torch.abs), (torch.complex(x, x),))


def _fnet_mixing(x: Any) -> Any:
    return torch.nn.functional.layer_norm(fft.fftn(x, dim=(1, 2)).real + x, (6,))


def test_fnet_mixing_compiles_whole_forward_and_backward(fresh_dynamo: Any) -> None:
    x = _x().requires_grad_(True)
    want = _fnet_mixing(x)
    want.sum().backward()
    grad, x.grad = x.grad.clone(), None
    plans: list[Any] = []
    with recording_plans(plans):
        got = torch.compile(_fnet_mixing, backend="fxdsl")(x)
        got.sum().backward()
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(x.grad, grad, rtol=1e-4, atol=1e-4)
    assert len(plans) == 2
    for plan in plans:
        assert plan.compiled == plan.total, plan.report()


def test_a_complex_result_leaves_only_complex_nodes_to_torch(
    fresh_dynamo: Any,
) -> None:
    """The graph returns a complex tensor: the FFT that makes it runs in
    torch, and so does what reads the complex value it made (a torch
    tensor between islands is real); the real work around them in fxdsl."""

    def fn(x: Any) -> Any:
        spectrum = fft.rfft(torch.tanh(x) * 2)
        return spectrum, spectrum.abs().sum(-1)

    x = _x()
    plans: list[Any] = []
    with recording_plans(plans):
        got = torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})(x)
    for g, w in zip(got, fn(x), strict=True):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    (plan,) = plans
    assert sorted(plan.fallbacks) == ["_fft_r2c", "abs_1"], plan.report()
    assert plan.compiled == plan.total - 2
