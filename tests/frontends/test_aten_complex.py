"""Complex tensors inside imported programs (`aten_complex`): the FFTs as
dense DFTs, complex arithmetic and layout ops on (re, im) pairs, against
torch eager at both import levels; through the GPU pipeline on the IR
emulator; through `torch.compile(backend="fxdsl")` (FNet's mixing layer
compiled whole, forward and backward); complex values crossing a
program's and an island's boundary as real views; complex32's refusal."""

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
from fxdsl.testing.torch_models import function_module  # noqa: E402

fft = torch.fft
real = torch.view_as_real


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
    program = from_torch(function_module(CASES[name]), (x,), decompose=decompose)
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


LONG = {
    "fft-1000": ((2, 1000), lambda x: real(fft.fft(x))),
    "rfft-4096": ((1, 4096), lambda x: real(fft.rfft(x))),
    "irfft-1024": ((2, 513, 2), lambda x: fft.irfft(torch.view_as_complex(x), n=1024)),
    "irfft-odd-735": (
        (1, 368, 2),
        lambda x: fft.irfft(torch.view_as_complex(x), n=735),
    ),
    "fft-dim0-96-ortho": ((96, 5), lambda x: real(fft.fft(x, dim=0, norm="ortho"))),
    "ifft2-72x40": ((72, 40), lambda x: real(fft.ifft2(x))),
}


@pytest.mark.parametrize("name", list(LONG))
def test_long_transforms_are_as_accurate_as_torchs(name: str) -> None:
    """A long composite length takes the four-step (Cooley-Tukey) route:
    its error against a float64 transform stays within 1.5x torch's own
    (a dense DFT of 1000 points was 5x), and no n x n table is built."""
    shape, fn = LONG[name]
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(5))
    program = from_torch(function_module(fn), (x,))
    (got,) = program.run(x)
    exact = fn(x.double()).numpy()
    ours, torchs = np.abs(got - exact).max(), np.abs(fn(x).numpy() - exact).max()
    assert ours <= 1.5 * torchs + 1e-7, (ours, torchs)
    n = max(shape[:2])
    constants = [op for op in program.module.walk() if op.name == "graph.constant"]
    assert max(np.prod(op.result.type.get_shape()) for op in constants) < n * n / 4


@pytest.mark.parametrize("name", ["fnet", "irfft-padded", "polar-mul-div"])
def test_gpu_pipeline_on_the_emulator_matches_eager(name: str) -> None:
    x = _x()
    program = from_torch(function_module(CASES[name]), (x,))
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    (got,) = Emulator(lowered).run("forward", x.numpy())
    _assert_matches(got, CASES[name](x))


@pytest.mark.parametrize("decompose", [False, True])
def test_complex_inputs_and_outputs_cross_as_real_views(decompose: bool) -> None:
    """The function takes and returns a complex value as its real view
    (shape + [2]); `run` converts numpy's and torch's complex arrays both
    ways, complex128 too."""

    def fn(z: Any, x: Any) -> Any:
        return fft.fft(z * x), (z.conj() * 2).abs(), torch.polar(x, x)

    x = _x()
    z = torch.complex(x, x.flip(0))
    program = from_torch(function_module(fn), (z, x), decompose=decompose)
    arguments = program.module.body.block.ops.first.args  # type: ignore[union-attr]
    assert [
        tuple(a.type.shape.data[i].data for i in range(4)) for a in arguments[:1]
    ] == [(3, 8, 6, 2)]
    assert program.complex_outputs == {0, 2}
    for given in (z, z.numpy()):
        got = program.run(given, x)
        for g, w in zip(got, fn(z, x), strict=True):
            assert g.dtype == w.numpy().dtype
            _assert_matches(g, w)
    z64 = z.to(torch.complex128)
    (got, *_), want = (
        from_torch(function_module(fn), (z64, x.double())).run(z64, x.double()),
        fn(z64, x.double()),
    )
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, want[0].numpy(), rtol=1e-12, atol=1e-12)


def test_complex32_is_a_clean_error() -> None:
    half = torch.complex(_x(), _x()).to(torch.complex32)
    with pytest.raises(TorchImportError, match="complex32 is not supported"):
        from_torch(function_module(lambda z: z * 2), (half,))
    pairs = _x().half().reshape(3, 8, 3, 2)  # f16 pairs make a complex32
    with pytest.raises(TorchImportError, match="complex32 is not supported"):
        from_torch(function_module(lambda x: torch.view_as_complex(x) * 2), (pairs,))


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


@pytest.mark.parametrize(
    "transform",
    [
        lambda x: torch.fft.rfft(x),
        lambda x: torch.fft.rfft2(x, norm="ortho"),
        lambda x: torch.fft.ihfft2(x),
    ],
    ids=["rfft", "rfft2", "ihfft2"],
)
def test_real_ffts_train_whole(fresh_dynamo: Any, transform: Any) -> None:
    """The backward of a real FFT writes its complex gradient into zeros
    (a functional `copy` of complex values): compiled, not left to torch."""
    x = _x().requires_grad_(True)
    weight = torch.linspace(0.5, 2.0, transform(x).shape[-1])

    def loss(x: Any) -> Any:
        out = transform(x)
        return (out.real * weight).sum() - (out.imag * weight).square().sum()

    loss(x).backward()
    grad, x.grad = x.grad.clone(), None
    plans: list[Any] = []
    with recording_plans(plans):
        torch.compile(loss, backend="fxdsl")(x).backward()
    torch.testing.assert_close(x.grad, grad, rtol=1e-4, atol=1e-4)
    for plan in plans:
        assert plan.compiled == plan.total, plan.report()


def test_complex_values_cross_island_boundaries(fresh_dynamo: Any) -> None:
    """A graph that takes a complex buffer (Meta's Llama rotary embedding:
    `freqs_cis`) and returns complex values compiles whole: the runner
    passes complex tensors in and out as their real views."""

    class Rotary(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            angles = torch.outer(torch.arange(8.0), 1e-2 ** torch.arange(0, 1, 1 / 3))
            self.register_buffer("freqs_cis", torch.polar(torch.ones(8, 3), angles))

        def forward(self, x: Any) -> Any:
            pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
            rotated = pairs * self.freqs_cis
            return torch.view_as_real(rotated).flatten(2) * 2, rotated.conj()

    model, x = Rotary(), _x()[:, :, :6].reshape(3, 8, 6)
    plans: list[Any] = []
    with recording_plans(plans):
        got = torch.compile(model, backend="fxdsl")(x)
    want = model(x)
    assert got[1].dtype == torch.complex64
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(
            g.resolve_conj(), w.resolve_conj(), rtol=1e-5, atol=1e-5
        )
    (plan,) = plans
    assert plan.compiled == plan.total, plan.report()


def test_a_complex_value_between_torch_and_fxdsl(fresh_dynamo: Any) -> None:
    """A node left to torch (by `torch_executed_ops`) makes a complex value
    that fxdsl reads, and reads one that fxdsl made: each crosses as its
    real view."""

    def fn(x: Any) -> Any:
        spectrum = fft.rfft(torch.tanh(x) * 2)
        return (spectrum * 1j).exp().abs().sum(-1), torch.conj_physical(spectrum + 1)

    x = _x()
    plans: list[Any] = []
    options = {"min_block_size": 1, "torch_executed_ops": ["aten._fft_r2c.default",
                                                           "aten._conj_physical.default"]}  # fmt: skip
    with recording_plans(plans):
        got = torch.compile(fn, backend="fxdsl", options=options)(x)
    for g, w in zip(got, fn(x), strict=True):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    (plan,) = plans
    assert sorted(plan.fallbacks) == ["_conj_physical", "_fft_r2c"], plan.report()
    assert plan.compiled == plan.total - 2


def test_an_empty_complex_output(fresh_dynamo: Any) -> None:
    """A complex output with no elements: the real view came back with the
    strides of its broadcast (empty tensors count as contiguous whatever
    their strides), and `view_as_complex` refused it (OpInfo `complex`)."""
    real, imag = torch.rand(0, 1, 3), torch.rand(0, 10, 3)
    got = torch.compile(torch.complex, backend="fxdsl")(real, imag)
    assert got.shape == (0, 10, 3)
    assert got.dtype == torch.complex64
