"""ATen handlers of the ops that draw random numbers: `graph.random`
(uniform, normal or 32 random bits) and elementwise ops on it.

Each call that draws takes a fresh seed from `AtenCall.seed()` (the
program's seed input with its own offset), so two draws of one program are
independent streams and one program draws new numbers whenever its caller
passes a new seed. The in-place overloads (`uniform_`, `exponential_`...)
map like their functional forms (`uniform`, ...): the value they write is
the same; whether a mutated input may be imported is the importer's
question, not this table's. Dropouts are here too: the identity where they
do not draw (eval mode, `p = 0`), masks of `bernoulli(1 - p)` where they do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from fxdsl.frontends.aten_math import ceil
from fxdsl.frontends.aten_registry import (
    AtenCall,
    UnsupportedNode,
    aten,
    cast_to,
)
from fxdsl.frontends.aten_select import sorted_along
from fxdsl.ir import graph
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

DROPOUTS = frozenset(
    f"aten.{name}"
    for name in (
        "dropout.default",
        "dropout_.default",
        "feature_dropout.default",
        "feature_dropout_.default",
        "alpha_dropout.default",
        "alpha_dropout_.default",
        "feature_alpha_dropout.default",
        "feature_alpha_dropout_.default",
        "native_dropout.default",
    )
)
"""Dropouts: `(input, p, train)`, the identity unless they draw."""

RANDOM_OPS: set[str] = set()
"""The overloads whose handler draws (registered below with `@random_op`):
the importer refuses any other node that draws (attention with dropout),
which a handler would otherwise import without its randomness."""


def random_op(*names: str) -> Any:
    """`@aten(*names)`, and the names listed in `RANDOM_OPS`."""
    RANDOM_OPS.update(f"aten.{name}" for name in names)
    return aten(*names)


def draws_random(target: str, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether a call of an op that torch tags `nondeterministic_seeded`
    draws random numbers with these (fx) arguments: a dropout only in
    training with p > 0 (`native_dropout`'s `train=None` means training),
    attention only with `dropout_p > 0`, a recurrent net (`lstm`, `gru`,
    `rnn_tanh`, `rnn_relu`) only in training with dropout between several
    layers; every other such op always does."""

    def arg(index: int, name: str, default: Any) -> Any:
        return args[index] if index < len(args) else kwargs.get(name, default)

    if target in DROPOUTS:
        return arg(2, "train", None) is not False and float(arg(1, "p", 0.0)) > 0
    if target == "aten.scaled_dot_product_attention.default":
        return float(arg(4, "dropout_p", 0.0)) > 0
    if target in (
        "aten._scaled_dot_product_flash_attention_for_cpu.default",
        "aten._scaled_dot_product_flash_attention.default",
    ):
        return float(arg(3, "dropout_p", 0.0)) > 0
    if target in (
        "aten._scaled_dot_product_efficient_attention.default",
        "aten._scaled_dot_product_cudnn_attention.default",
    ):
        return float(arg(5, "dropout_p", 0.0)) > 0
    op, _, overload = target.removeprefix("aten.").partition(".")
    if op in RECURRENT and overload in ("input", "data"):
        # `.data` (packed sequences) has the batch sizes before the rest
        first = 4 if overload == "input" else 5
        layers, dropout, train = (arg(first + i, "", None) for i in range(3))
        return bool(train) and float(dropout) > 0 and int(layers) > 1
    return True


RECURRENT = frozenset({"lstm", "gru", "rnn_tanh", "rnn_relu"})
"""The recurrent nets' ATen ops, whose dropout acts between layers."""


# --------------------------------------------------------------------------- #
# Draws
# --------------------------------------------------------------------------- #


def _float_dtype(call: AtenCall) -> str:
    dtype = call.dtype
    if dtype not in ("f32", "f16", "bf16"):
        raise UnsupportedNode(
            f"{call.target} of dtype {dtype}: fxdsl draws f32, f16 and bf16 only"
        )
    return dtype


def uniform(call: AtenCall, shape: Sequence[int] | None = None) -> Tensor:
    """Uniform [0, 1) numbers in f32, `call`'s shape unless given."""
    return ops.random(call.seed(), "uniform", call.shape if shape is None else shape)


def normal(call: AtenCall, shape: Sequence[int] | None = None) -> Tensor:
    """Standard normal numbers in f32, `call`'s shape unless given."""
    return ops.random(call.seed(), "normal", call.shape if shape is None else shape)


@random_op("rand.default", "rand_like.default")
def _rand(call: AtenCall) -> Tensor:
    # drawn in the result's type: a f16/bf16 uniform stays below 1
    return ops.random(call.seed(), "uniform", call.shape, _float_dtype(call))


@random_op("randn.default", "randn_like.default")
def _randn(call: AtenCall) -> Tensor:
    return ops.random(call.seed(), "normal", call.shape, _float_dtype(call))


@random_op("randint.default", "randint.low", "randint_like.default")
@random_op("randint_like.low_dtype")
def _randint(call: AtenCall) -> Tensor:
    """`low + bits % (high - low)` of 32 random bits (as torch's CPU
    generator does for ranges below 2**32)."""
    like = call.target.startswith("aten.randint_like")
    first = 1 if like else 0
    if call.target.endswith((".low", ".low_dtype")):
        low, high = call.arg(first, "low"), call.arg(first + 1, "high")
    else:
        low, high = 0, call.arg(first, "high")
    if isinstance(low, Tensor) or isinstance(high, Tensor):
        raise UnsupportedNode(f"{call.target} with tensor bounds")
    span = int(high) - int(low)
    if not 0 < span <= 2**32:
        raise UnsupportedNode(
            f"{call.target}: range [{low}, {high}) is empty or wider than 2**32"
        )
    bits = ops.random(call.seed(), "bits", call.shape, "i64")
    # bits % span, in integer ops (graph.remainder takes floats)
    remainder = ops.sub(bits, ops.mul(ops.div(bits, span), span))
    drawn = ops.add(remainder, int(low))
    return cast_to(drawn, call.dtype)


@random_op("bernoulli.default", "bernoulli.p", "bernoulli.Tensor")
@random_op("bernoulli_.float", "bernoulli_.Tensor")
def _bernoulli(call: AtenCall) -> Tensor:
    """1 where a uniform is below `p` (the input itself for `.default`)."""
    p = call.args[0] if call.target.endswith("bernoulli.default") else call.arg(
        1, "p", 0.5)  # fmt: skip
    p = ops.cast(p, "f32") if isinstance(p, Tensor) else float(p)
    return ops.cast(ops.lt(uniform(call), p), call.dtype)


@random_op("uniform.default", "uniform_.default")
def _uniform(call: AtenCall) -> Tensor:
    low, high = float(call.arg(1, "from", 0.0)), float(call.arg(2, "to", 1.0))
    return cast_to(ops.add(ops.mul(uniform(call), high - low), low), call.dtype)


@random_op("normal.Tensor_Tensor", "normal.Tensor_float", "normal.float_Tensor")
@random_op("normal.float_float", "normal_functional.default", "normal_.default")
def _normal(call: AtenCall) -> Tensor:
    """`mean + std * z`; `normal_` and `normal_functional` take their
    input's shape, the others the broadcast of `mean` and `std` (or `size`)."""
    first = (
        1 if call.target.startswith(("aten.normal_.", "aten.normal_functional")) else 0
    )
    mean, std = call.arg(first, "mean", 0.0), call.arg(first + 1, "std", 1.0)
    mean = ops.cast(mean, "f32") if isinstance(mean, Tensor) else float(mean)
    std = ops.cast(std, "f32") if isinstance(std, Tensor) else float(std)
    return cast_to(ops.add(ops.mul(normal(call), std), mean), _float_dtype(call))


def _one_minus_uniform(call: AtenCall, shape: Sequence[int] | None = None) -> Tensor:
    """Uniform (0, 1]: what a logarithm may take."""
    return ops.sub(1.0, uniform(call, shape))


@random_op("exponential.default", "exponential_.default")
def _exponential(call: AtenCall) -> Tensor:
    rate = float(call.arg(1, "lambd", 1.0))
    drawn = ops.mul(ops.log(_one_minus_uniform(call)), -1.0 / rate)
    return cast_to(drawn, _float_dtype(call))


@random_op("cauchy.default", "cauchy_.default")
def _cauchy(call: AtenCall) -> Tensor:
    median, sigma = float(call.arg(1, "median", 0.0)), float(call.arg(2, "sigma", 1.0))
    angle = ops.mul(ops.sub(uniform(call), 0.5), math.pi)
    drawn = ops.add(ops.mul(ops.elementwise(graph.TanOp, angle), sigma), median)
    return cast_to(drawn, _float_dtype(call))


@random_op("log_normal.default", "log_normal_.default")
def _log_normal(call: AtenCall) -> Tensor:
    mean, std = float(call.arg(1, "mean", 1.0)), float(call.arg(2, "std", 2.0))
    drawn = ops.exp(ops.add(ops.mul(normal(call), std), mean))
    return cast_to(drawn, _float_dtype(call))


@random_op("geometric.default", "geometric_.default")
def _geometric(call: AtenCall) -> Tensor:
    """The number of trials to the first success: `ceil(log u / log(1 - p))`
    for u in (0, 1], at least 1."""
    p = float(call.arg(1, "p"))
    if not 0 < p <= 1:
        raise UnsupportedNode(f"{call.target}: p must be in (0, 1], got {p}")
    scale = 1.0 / math.log1p(-p) if p < 1 else 0.0
    trials = ceil(ops.mul(ops.log(_one_minus_uniform(call)), scale))
    return cast_to(ops.maximum(trials, 1.0), call.dtype)


# --------------------------------------------------------------------------- #
# Noise on an input: rrelu, dropouts
# --------------------------------------------------------------------------- #


@random_op("rrelu_with_noise_functional.default", "rrelu_with_noise.default")
@random_op("rrelu.default", "rrelu_with_noise_.default", "rrelu_.default")
def _rrelu(call: AtenCall) -> Any:
    """Training: a negative `x` times a uniform slope in [lower, upper]
    (the noise is that slope, 1 elsewhere); eval: the mean slope."""
    x = call.args[0]
    with_noise = "with_noise" in call.target
    at = 2 if with_noise else 1
    lower = float(call.arg(at, "lower", 1.0 / 8.0))
    upper = float(call.arg(at + 1, "upper", 1.0 / 3.0))
    training = bool(call.arg(at + 2, "training", False))
    negative = ops.le(x, 0.0)
    if training:
        slope = ops.add(ops.mul(uniform(call, x.shape), upper - lower), lower)
        noise = ops.where(negative, cast_to(slope, x.dtype), 1.0)
        out = ops.mul(x, noise)
    else:
        noise = call.args[1] if with_noise else None
        out = ops.where(negative, ops.mul(x, (lower + upper) / 2), x)
    if call.target.startswith("aten.rrelu_with_noise_functional"):
        return (out, noise)
    return out


_ALPHA = 1.7580993408473766
"""SELU's alpha * scale: the value alpha dropout drops to (negated)."""


def _draws(call: AtenCall) -> bool:
    return draws_random(call.target, call.args, call.kwargs)


@random_op(*(name.removeprefix("aten.") for name in DROPOUTS))
def _dropout(call: AtenCall) -> Any:
    """torch's `_dropout_impl`: keep each element (each channel, for the
    feature forms) with probability `1 - p`, scaled by `1 / (1 - p)`;
    alpha dropout sets the dropped ones to SELU's negative saturation and
    rescales to keep mean and variance. `native_dropout` returns the mask
    too."""
    x, p = call.args[0], float(call.arg(1, "p", 0.5))
    native = call.target == "aten.native_dropout.default"
    if not _draws(call):
        return (x, None) if native else x
    feature = "feature" in call.target
    if feature and x.ndim < 2:
        raise UnsupportedNode(f"{call.target} of a {x.ndim}-d input")
    shape = [*x.shape[:2], *[1] * (x.ndim - 2)] if feature else list(x.shape)
    keep = ops.lt(uniform(call, shape), 1.0 - p)
    if "alpha" in call.target:
        if p == 1:
            return ops.mul(x, 0.0)
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        mask = cast_to(ops.cast(keep, "f32"), x.dtype)
        shift = ops.add(ops.mul(ops.sub(mask, 1.0), _ALPHA * a), _ALPHA * a * p)
        return ops.add(ops.mul(x, ops.mul(mask, a)), shift)
    scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    out = ops.mul(x, cast_to(ops.mul(ops.cast(keep, "f32"), scale), x.dtype))
    return (out, keep) if native else out


@random_op("multinomial.default")
def _multinomial(call: AtenCall) -> Tensor:
    """`num_samples` category indices per row of (unnormalised) weights.
    With replacement: inverse CDF, the count of cumulative weights at or
    below `u * total`; without: the exponential race (the `k` largest
    `log(u) / p`, a category of weight 0 last), as a sort."""
    probs = ops.cast(call.args[0], "f32")
    k, replacement = int(call.arg(1, "num_samples")), bool(call.arg(2, "replacement"))
    last, n = probs.ndim - 1, probs.shape[-1]
    rows = list(probs.shape[:-1])
    if replacement:
        target = ops.mul(uniform(call, [*rows, k]), ops.sum(probs, [last], True))
        cdf = ops.reshape(ops.cumsum(probs, last), [*rows, 1, n])
        below = ops.le(cdf, ops.reshape(target, [*rows, k, 1]))
        counted = ops.sum(ops.cast(below, "i64"), [last + 1], False)
        return ops.minimum(counted, n - 1)
    if k > n:
        raise UnsupportedNode(f"{call.target}: {k} samples of {n} without replacement")
    race = ops.div(ops.log(_one_minus_uniform(call, probs.shape)), probs)
    keys = ops.where(ops.gt(probs, 0.0), race, -math.inf)
    _, order = sorted_along(keys, last, descending=True)
    return ops.slice(order, [0] * probs.ndim, [*rows, k])
