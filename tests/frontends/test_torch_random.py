"""Random ops through the PyTorch bridge: a node that draws random numbers
(torch tags its op `nondeterministic_seeded`: rand, randint, normal,
bernoulli, dropout in training, ...) imports as `graph.random` draws from a
seed input the program owns. `from_torch`'s program draws a fresh seed per
call (from torch's generator: `torch.manual_seed` makes runs reproducible),
the `torch.compile` backend runs such nodes in its islands, and a node that
draws without a handler that draws (attention with dropout) imports
through torch's decomposition, where the draw is spelled out, or is an
error, never a constant or the identity. The statistics match the distributions
(mean, variance, dropout's kept share) within sampling error."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.torch_export import TorchImportError, from_torch  # noqa: E402

F = torch.nn.functional
aten = torch.ops.aten
pytestmark = pytest.mark.usefixtures("fresh_dynamo")
N = 100_000


def _backend(fn: Callable[..., Any]) -> Callable[..., Any]:
    return torch.compile(fn, backend="fxdsl", options={"device": "cpu"})


class _Call(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _assert_dropout_statistics(y: Any, kept_value: float, p: float, units: int) -> None:
    """`y` holds 0 or `kept_value` only, and the share of zeros is p within
    sampling error over `units` independent draws."""
    values = torch.as_tensor(y).detach().flatten()
    zero = values == 0
    assert torch.allclose(values[~zero], torch.tensor(kept_value))
    share = zero.float().mean().item()
    assert abs(share - p) < 5 * math.sqrt(p * (1 - p) / units), share


def _moments(sample: np.ndarray) -> tuple[float, float]:
    values = sample.astype(np.float64).ravel()
    return float(values.mean()), float(values.var())


# (torch function of a (N,) zeros input, mean, variance) of each distribution
DISTRIBUTIONS: dict[str, tuple[Callable[[Any], Any], float, float]] = {
    "rand": (lambda x: x + torch.rand(N), 0.5, 1 / 12),
    "randn": (lambda x: x + torch.randn(N), 0.0, 1.0),
    "uniform": (lambda x: aten.uniform.default(x, -2.0, 4.0), 1.0, 3.0),
    "normal": (lambda x: torch.normal(x + 3.0, 2.0), 3.0, 4.0),
    "normal_functional": (
        lambda x: aten.normal_functional.default(x, -1.0, 0.5), -1.0, 0.25
    ),
    "bernoulli": (lambda x: torch.bernoulli(x + 0.3), 0.3, 0.21),
    "bernoulli.p": (lambda x: aten.bernoulli.p(x, 0.8), 0.8, 0.16),
    "exponential": (lambda x: aten.exponential.default(x, 2.0), 0.5, 0.25),
    "geometric": (lambda x: aten.geometric.default(x, 0.25), 4.0, 12.0),
    "log_normal": (
        lambda x: aten.log_normal.default(x, 0.0, 0.5),
        math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25),
    ),
    "randint": (lambda x: x + torch.randint(-3, 7, (N,)), 1.5, 99 / 12),
}  # fmt: skip


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_imported_draws_have_the_distributions_moments(name: str) -> None:
    """Mean and variance over 1e5 samples within 6 standard errors (the
    variance's error from the fourth moment, bounded here by 3 var^2 for
    these light tails, 30 var^2 for the log-normal's)."""
    fn, mean, variance = DISTRIBUTIONS[name]
    program = from_torch(_Call(fn), (torch.zeros(N),), decompose=name == "bernoulli")
    assert program.seeded
    (sample,) = program.run(torch.zeros(N))
    got_mean, got_variance = _moments(sample)
    kurtosis = 30 if name == "log_normal" else 9
    assert abs(got_mean - mean) < 6 * math.sqrt(variance / N), got_mean
    assert abs(got_variance - variance) < 6 * variance * math.sqrt(kurtosis / N)


def test_cauchy_has_the_median_and_quartiles_of_its_distribution() -> None:
    """A Cauchy has no mean: its quartiles are median -/+ sigma."""
    program = from_torch(
        _Call(lambda x: aten.cauchy.default(x, 2.0, 0.5)), (torch.zeros(N),)
    )
    (sample,) = program.run(torch.zeros(N))
    quartiles = np.quantile(sample, [0.25, 0.5, 0.75])
    np.testing.assert_allclose(quartiles, [1.5, 2.0, 2.5], atol=0.02)


def test_uniform_bounds_and_randint_range() -> None:
    program = from_torch(
        _Call(lambda x: (torch.rand(N) + x, torch.randint(-3, 7, (N,)))),
        (torch.zeros(N),),
    )
    uniform, integers = program.run(torch.zeros(N))
    assert uniform.min() >= 0.0
    assert uniform.max() < 1.0
    assert integers.dtype == np.int64
    assert set(np.unique(integers)) == set(range(-3, 7))


@pytest.mark.parametrize("p", [0.5, 0.2])
@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_exported_dropout_in_training_keeps_one_minus_p_scaled(
    p: float, decompose: bool
) -> None:
    x = torch.full((200, 200), 3.0)
    program = from_torch(
        _Call(lambda x: F.dropout(x * 1.0, p, training=True)), (x,), decompose=decompose
    )
    (y,) = program.run(x)
    _assert_dropout_statistics(y, 3.0 / (1 - p), p, x.numel())
    (again,) = program.run(x)
    assert not np.array_equal(y, again)  # a new mask each call


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_exported_dropout2d_drops_whole_channels(decompose: bool) -> None:
    x = torch.ones(40, 50, 3, 3)
    program = from_torch(
        _Call(lambda x: F.dropout2d(x + 0.0, 0.5, training=True)), (x,),
        decompose=decompose,
    )  # fmt: skip
    (y,) = program.run(x)
    channels = y.reshape(40 * 50, 9)
    assert bool(((channels == 0).all(1) | (channels == 2).all(1)).all())
    _assert_dropout_statistics(channels[:, 0], 2.0, 0.5, 40 * 50)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_exported_alpha_dropout_keeps_mean_and_variance(decompose: bool) -> None:
    """Alpha dropout of a standard normal input stays standard normal."""
    torch.manual_seed(0)
    x = torch.randn(N)
    program = from_torch(
        _Call(lambda x: F.alpha_dropout(x, 0.3, training=True)), (x,),
        decompose=decompose,
    )  # fmt: skip
    (y,) = program.run(x)
    mean, variance = _moments(y)
    assert abs(mean) < 0.03
    assert abs(variance - 1.0) < 0.05


def test_rrelu_in_training_scales_negatives_by_a_slope_in_its_range() -> None:
    x = torch.cat([torch.full((N,), -2.0), torch.full((10,), 3.0)])
    program = from_torch(
        _Call(lambda x: F.rrelu(x, 0.1, 0.3, training=True)), (x,), decompose=True
    )
    (y,) = program.run(x)
    slopes = y[:N] / -2.0
    assert slopes.min() >= 0.1
    assert slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.002
    np.testing.assert_array_equal(y[N:], 3.0)


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_draws_in_proportion_to_the_weights(replacement: bool) -> None:
    """The first two draws' frequencies over 4000 calls against their exact
    probabilities (without replacement the second excludes the first); a
    weight of 0 is never drawn, and draws without replacement differ."""
    weights = np.array([[0.1, 0.0, 0.6, 0.3], [1.0, 1.0, 0.0, 2.0]], np.float32)
    p = weights / weights.sum(1, keepdims=True)
    fn = lambda w: torch.multinomial(w, 2, replacement)
    program = from_torch(_Call(fn), (torch.from_numpy(weights),))
    draws = np.stack([program.run(weights)[0] for _ in range(4000)])
    if replacement:
        second = p
    else:  # P(second = j) = sum_i p_i p_j / (1 - p_i), i != j
        second = np.stack([
            sum(p[r, i] * p[r] / (1 - p[r, i]) * (np.arange(4) != i) for i in range(4))
            for r in range(2)
        ])  # fmt: skip
        assert (draws[:, :, 0] != draws[:, :, 1]).all()
    for column, expected in ((0, p), (1, second)):
        for row in range(2):
            frequency = np.bincount(draws[:, row, column], minlength=4) / 4000
            np.testing.assert_allclose(frequency, expected[row], atol=0.035)


def test_torch_manual_seed_makes_runs_reproducible_and_seed_picks_numbers() -> None:
    program = from_torch(_Call(lambda x: x + torch.randn(64)), (torch.zeros(64),))
    x = torch.zeros(64)
    torch.manual_seed(3)
    first = program.run(x)[0]
    torch.manual_seed(3)
    np.testing.assert_array_equal(program.run(x)[0], first)
    assert not np.array_equal(program.run(x)[0], first)
    np.testing.assert_array_equal(program.run(x, seed=9)[0], program.run(x, seed=9)[0])
    assert not np.array_equal(program.run(x, seed=9)[0], program.run(x, seed=10)[0])


def test_two_draws_of_one_program_are_independent() -> None:
    program = from_torch(_Call(lambda x: (x + torch.rand(64), x + torch.rand(64))),
                         (torch.zeros(64),))  # fmt: skip
    a, b = program.run(torch.zeros(64))
    assert not np.array_equal(a, b)
    assert str(program.module).count("graph.random") == 2


def test_a_program_without_draws_takes_no_seed() -> None:
    program = from_torch(_Call(lambda x: x * 2), (torch.ones(3),))
    assert not program.seeded
    with pytest.raises(ValueError, match="takes no seed"):
        program.run(torch.ones(3), seed=1)


def _attention(q: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, q, v, dropout_p=0.25)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_attention_with_dropout_drops(decompose: bool) -> None:
    """`graph.attention` has no dropout: an attention that draws imports
    through torch's decomposition (the core-ATen graph has it already),
    which spells the dropout out. With q = k = 0 and v the identity the
    output is the dropped-out probabilities, 0 or 1/(S(1 - p))."""
    s = 64
    q, v = torch.zeros(2, 8, s, s), torch.eye(s).expand(2, 8, s, s).contiguous()
    program = from_torch(_Call(_attention), (q, v), decompose=decompose)
    assert "graph.attention" not in str(program.module)
    (y,) = program.run(q, v)
    _assert_dropout_statistics(y, 1 / (s * 0.75), 0.25, y.size)


def test_a_draw_without_a_mapping_is_an_error_not_a_constant() -> None:
    """poisson draws, and neither a handler nor torch's decompositions
    express it: an error naming it, not a constant of one draw."""
    with pytest.raises(TorchImportError, match="poisson"):
        from_torch(_Call(lambda x: torch.poisson(x * 2)), (torch.ones(8),))


def test_dropout_in_eval_still_vanishes() -> None:
    def model(x: Any) -> Any:
        return F.dropout(x * 2, 0.5, training=False) + F.dropout2d(x, 0.3, False)

    for decompose in (False, True):
        program = from_torch(
            _Call(model), (torch.ones(2, 3, 4, 4),), decompose=decompose
        )
        assert not program.seeded
        (y,) = program.run(torch.ones(2, 3, 4, 4))
        assert (y == 3).all()


# --------------------------------------------------------------------------- #
# Through torch.compile(backend="fxdsl")
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_dropout_in_training_through_the_backend(p: float) -> None:
    x = torch.full((200, 200), 3.0)
    compiled = _backend(lambda x: F.dropout(x * 1.0, p, training=True) + 0.0)
    y = compiled(x)
    _assert_dropout_statistics(y, 3.0 / (1 - p), p, x.numel())
    assert not torch.equal(y, compiled(x))  # a new mask each call


def test_dropout_in_training_keeps_its_gradient() -> None:
    x = torch.full((100, 100), 2.0, requires_grad=True)
    y = _backend(lambda x: F.dropout(x * 1.0, 0.5, training=True).sum())(x)
    y.backward()
    grad = x.grad.flatten()
    # the gradient is the mask the forward drew, scaled: 0 or 1 / (1 - p)
    _assert_dropout_statistics(grad, 2.0, 0.5, grad.numel())
    assert y.item() == pytest.approx(2.0 * 2.0 * (grad != 0).sum().item())


def test_dropout2d_in_training_drops_whole_channels() -> None:
    x = torch.ones(40, 50, 3, 3)
    y = _backend(lambda x: F.dropout2d(x + 0.0, 0.5, training=True))(x)
    channels = y.reshape(40 * 50, 9)
    assert bool(((channels == 0).all(1) | (channels == 2).all(1)).all())
    _assert_dropout_statistics(channels[:, 0], 2.0, 0.5, 40 * 50)


@pytest.mark.parametrize("training", [False, True], ids=["decomposed", "whole"])
def test_attention_dropout_through_the_backend(training: bool) -> None:
    """With q = k = 0 every key gets 1/S; with v the identity the output is
    the dropped-out probabilities: 0 or 1/(S(1 - p)). Inference decomposes
    SDPA (its dropout becomes `native_dropout`, an fxdsl draw); training
    keeps it whole (in torch)."""
    s = 64
    q = torch.zeros(4, 8, s, s, requires_grad=training)
    v = torch.eye(s).expand(4, 8, s, s).contiguous()
    with torch.set_grad_enabled(training):
        y = _backend(_attention)(q, v)
    _assert_dropout_statistics(y, 1 / (s * 0.75), 0.25, y.numel())


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_random_ops_run_in_islands_and_differ_between_calls(name: str) -> None:
    """Random ops with no tensor input would fold (they depend on no input):
    they are never folded, and run in fxdsl's island with a new seed per
    call."""
    from fxdsl.testing.hf_suite import Outcome, counting_plans

    counted = Outcome()
    compiled = _backend(DISTRIBUTIONS[name][0])
    x = torch.zeros(N)
    with counting_plans(counted):
        first, second = compiled(x), compiled(x)
    assert counted.in_torch == {}, counted.summary()
    assert not torch.equal(first, second)
    torch.manual_seed(5)
    again = compiled(x)
    torch.manual_seed(5)
    assert torch.equal(again, compiled(x))


def test_the_lowered_program_draws_the_references_numbers() -> None:
    """The GPU pipeline's kernels (fused with the ops around the draws), on
    the IR emulator, give the reference's numbers for the same seed."""
    from fxdsl.api import parse
    from fxdsl.interpreters.run import run_reference
    from fxdsl.pipeline.lower import lower_for_cuda
    from fxdsl.runtime.ir_emulator import Emulator

    def model(x: Any) -> Any:
        noisy = F.dropout(x * 2, 0.3, True) + torch.randn_like(x)
        return noisy, torch.randint(3, 9, (4, 5)), torch.bernoulli(x.sigmoid())

    x = torch.randn(4, 5)
    text = str(from_torch(_Call(model), (x,)).module)
    seed = np.array([123456789, 5], np.int64)
    want = run_reference(parse(text), x.numpy(), seed)
    lowered, _ = lower_for_cuda(parse(text))
    got = Emulator(lowered).run("forward", x.numpy(), seed)
    for expected, actual in zip(want, got, strict=True):
        np.testing.assert_array_equal(actual, expected)


def test_draws_under_cuda_graph_capture_are_refused(monkeypatch: Any) -> None:
    """Under torch's CUDA-graph capture the host would draw one seed, baked
    into every replay: the backend's runner refuses rather than repeat it."""
    from fxdsl.frontends.torch_compile import _Runner

    runner = _Runner.__new__(_Runner)
    runner.device, runner.seed_buffer = "cuda", None
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    with pytest.raises(RuntimeError, match="CUDA graph capture"):
        runner._seed()
    runner.device = "cpu"  # on the CPU each call's seed is a new tensor
    first, second = runner._seed(), runner._seed()
    assert first.dtype == torch.int64
    assert first.shape == (2,)
    assert not torch.equal(first, second)


def _dropout_mlp(x: Any) -> Any:
    h = F.dropout(torch.tanh(x @ x.T), 0.3, training=True)
    return torch.rand_like(h) + F.dropout(h * 2.0, 0.5, training=True)


def test_fallback_random_gives_eagers_numbers() -> None:
    """`fallback_random`: every draw runs in torch (Inductor's option of
    that name), the rest in fxdsl, and under one `torch.manual_seed` the
    result is eager's very numbers, call after call: fxdsl then draws no
    seed of its own, which would move torch's generator between draws."""
    from fxdsl.testing.hf_suite import Outcome, counting_plans

    x = torch.randn(16, 16, generator=torch.Generator().manual_seed(0))
    compiled = torch.compile(
        _dropout_mlp,
        backend="fxdsl",
        options={"fallback_random": True, "min_block_size": 1},
    )
    counted = Outcome()
    with counting_plans(counted):
        torch.manual_seed(3)
        got = [compiled(x), compiled(x)]
    torch.manual_seed(3)
    want = [_dropout_mlp(x), _dropout_mlp(x)]
    for mine, eager in zip(got, want, strict=True):
        torch.testing.assert_close(mine, eager, rtol=1e-6, atol=1e-6)
    assert counted.compiled > 0
    assert set(counted.in_torch) == {
        "aten.native_dropout.default", "aten.rand_like.default"
    }, counted.summary()  # fmt: skip


def test_fallback_random_follows_inductors_setting() -> None:
    from torch._inductor import config

    from fxdsl.testing.hf_suite import Outcome, counting_plans

    x = torch.randn(16, 16, generator=torch.Generator().manual_seed(0))
    counted = Outcome()
    with config.patch(fallback_random=True), counting_plans(counted):
        compiled = torch.compile(
            _dropout_mlp, backend="fxdsl", options={"min_block_size": 1}
        )
        torch.manual_seed(3)
        got = compiled(x)
    torch.manual_seed(3)
    torch.testing.assert_close(got, _dropout_mlp(x), rtol=1e-6, atol=1e-6)
    assert counted.compiled > 0
    assert "aten.rand_like.default" in counted.in_torch
