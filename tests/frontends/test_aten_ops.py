"""Handlers of the ATen table (`fxdsl/frontends/aten_ops.py`) whose
arguments change the result, imported at both IR levels (`from_torch` and
`decompose=True`) and run on the reference against torch eager: the variants
of var/std (dims, keepdim, correction, unbiased) and `_safe_softmax` on a row
with no finite score."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.aten_ops import ATEN  # noqa: E402
from fxdsl.frontends.torch_export import (  # noqa: E402
    TorchImportError,
    from_torch,
)
from fxdsl.frontends.torch_nodes import _mutates_a_shared_value  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402


def _assert_imports_as_torch(fn: Callable[[Any], Any], x: Any, decompose: bool) -> None:
    want = fn(x)
    (got,) = from_torch(function_module(fn), (x,), decompose=decompose).run(x)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


VARIANCES = {
    "var keepdim": lambda x: torch.var(x, dim=1, keepdim=True),
    "std keepdim": lambda x: torch.std(x, dim=(0, 2), keepdim=True),
    "var unbiased=False keepdim": lambda x: torch.var(x, 1, False, True),
    "std unbiased=False": lambda x: torch.std(x, -1, unbiased=False),
    "var correction=0 keepdim": lambda x: torch.var(x, 2, correction=0, keepdim=True),
    "std correction=2": lambda x: torch.std(x, 1, correction=2),
    "var correction=None": lambda x: torch.var(x, 1, correction=None),
    "var all": lambda x: torch.var(x),
    "std all keepdim": lambda x: torch.std(x, None, keepdim=True),
    "tensor.var": lambda x: x.var(-1, keepdim=True) + x.std(0, keepdim=True).sum(),
    "var unbiased=False all": lambda x: torch.var(x, False),
    "var_mean keepdim": lambda x: torch.stack(torch.var_mean(x, 1, keepdim=True)),
    "std_mean correction=0": lambda x: torch.stack(torch.std_mean(x, 2, correction=0)),
    "std_mean all unbiased": lambda x: torch.stack(torch.std_mean(x, True)),
    # a float correction (OpInfo's var_mean samples); N - c <= 0 is inf or NaN
    "var_mean correction=1.3": lambda x: torch.stack(
        torch.var_mean(x, 1, correction=1.3)
    ),
    "std correction=7.5 (more than N)": lambda x: torch.std(x, 2, correction=7.5),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(VARIANCES))
def test_var_and_std_variants_match_torch(name: str, decompose: bool) -> None:
    x = torch.randn(3, 5, 7, generator=torch.Generator().manual_seed(1))
    _assert_imports_as_torch(VARIANCES[name], x, decompose)


def _safe_softmax(x: Any) -> Any:
    return torch.ops.aten._safe_softmax.default(x, -1)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_safe_softmax_of_a_row_without_a_finite_score_is_zero(decompose: bool) -> None:
    x = torch.randn(2, 3, 6, generator=torch.Generator().manual_seed(2))
    x[0, 1] = -torch.inf  # every score masked: 0, where softmax gives NaN
    x[1, 2, :4] = -torch.inf  # partly masked: an ordinary softmax
    _assert_imports_as_torch(_safe_softmax, x, decompose)
    assert bool((_safe_softmax(x)[0, 1] == 0).all())


DECOMPOSED = {
    "masked_fill": lambda x: x.masked_fill(x > 0.5, -2.0),
    "tril": lambda x: torch.tril(x, diagonal=1),
    "einsum": lambda x: torch.einsum("abc,adc->abd", x, x),
    "stack": lambda x: torch.stack([x, x * 2], dim=1),
    "square": lambda x: torch.square(x),
    "clamp_min": lambda x: torch.clamp_min(x, 0.1),
    "rms_norm": lambda x: torch.nn.functional.rms_norm(x, [7]),
    "logsumexp": lambda x: torch.logsumexp(x, dim=1),
    "cross_entropy": lambda x: torch.nn.functional.cross_entropy(
        x.reshape(15, 7), torch.arange(15) % 7
    ),
    "bilinear": lambda x: torch.nn.functional.interpolate(
        x[None], scale_factor=2.0, mode="bilinear"
    ),
    "multiply": lambda x: torch.multiply(x, x),
    # a decomposition that edits its list of indices
    "_unsafe_masked_index": lambda x: torch.ops.aten._unsafe_masked_index(
        x,
        torch.tensor([[[True], [False], [True]], [[False], [True], [True]]]),
        [torch.tensor([[2], [0]]), torch.tensor([[1, 4, 4]])],
        -1.0,
    ),
    # CompositeImplicitAutograd ops the export leaves whole
    "view_as": lambda x: x.view_as(x.reshape(5, 3, 7)) * 2,
    "movedim": lambda x: torch.movedim(x, 0, -1),
    "atleast_3d": lambda x: torch.atleast_3d(x[0, 0]) + 1,
    # an in-place op inside a decomposition: its functional op's handler
    "cosine_similarity": lambda x: torch.nn.functional.cosine_similarity(x, x.flip(0)),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(DECOMPOSED))
def test_an_op_without_a_mapping_imports_as_torchs_decomposition(
    name: str, decompose: bool
) -> None:
    """The default export graph keeps these ops whole; with no handler of
    their own, they import as torch's decomposition of them, at both levels
    alike."""
    x = torch.randn(3, 5, 7, generator=torch.Generator().manual_seed(3))
    _assert_imports_as_torch(DECOMPOSED[name], x, decompose)


def test_a_decomposition_that_does_not_import_names_the_op_inside() -> None:
    # linalg.eigvals decomposes to linalg_eig, which has no mapping
    with pytest.raises(
        TorchImportError,
        match=r"aten\.linalg_eigvals\.default has no graph-dialect mapping, and "
        r"in torch's decomposition of it aten\.linalg_eig\.default does not import",
    ):
        from_torch(function_module(torch.linalg.eigvals), (torch.randn(3, 3),))


def test_a_decomposition_mutating_a_value_it_reads_again_is_refused() -> None:
    """An in-place op of a decomposition imports as an op with a result;
    where the value it overwrites is read again, that would be wrong."""

    def graph(x: Any, read_base_again: bool) -> Any:
        y = torch.ops.aten.mul.Tensor(x, 2.0)
        z = torch.ops.aten.relu_.default(torch.ops.aten.view.default(y, [6]))
        # make_fx reads z (relu_'s result) for y's view, not y's old value
        return torch.ops.aten.add.Tensor(y if read_base_again else z, 1.0)

    def relu_of(read_base_again: bool) -> Any:
        made = torch.fx.experimental.proxy_tensor.make_fx(
            lambda x: graph(x, read_base_again)
        )(torch.randn(2, 3))
        return next(n for n in made.graph.nodes if "relu_" in str(n.target))

    assert _mutates_a_shared_value(relu_of(read_base_again=True))
    assert not _mutates_a_shared_value(relu_of(read_base_again=False))


REDUCED_SCALARS = {
    "sum dim 0": lambda x: torch.sum(x, 0),
    "mean dim -1 keepdim": lambda x: torch.mean(x, -1, keepdim=True),
    "amax dim 0": lambda x: torch.amax(x, 0),
    "any dim 0": lambda x: torch.any(x > 0, 0),
    "cumsum dim 0": lambda x: torch.cumsum(x, 0),
    "softmax dim -1": lambda x: torch.softmax(x, -1),
    "log_softmax dim 0": lambda x: torch.log_softmax(x, 0),
    "logsumexp dim 0": lambda x: torch.logsumexp(x, 0),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(REDUCED_SCALARS))
def test_a_0d_tensor_reduces_along_dim_0_or_minus_1(name: str, decompose: bool) -> None:
    _assert_imports_as_torch(REDUCED_SCALARS[name], torch.tensor(0.7), decompose)


def test_a_program_returning_a_number_is_a_clear_error() -> None:
    """torch.broadcast_shapes returns ints: the importer says so (it raised
    a KeyError)."""
    with pytest.raises(TorchImportError, match="an output is 3, not a tensor"):
        from_torch(
            function_module(lambda x: torch.broadcast_shapes(x.shape, (1, 1))[0]),
            (torch.randn(3, 1),),
        )


def _awkward_values() -> Any:
    """Ties, negative ties, tiny, large (beyond 2^23), inf and NaN."""
    values = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.0, 1e-7, -3e-8]
    values += [1e9 + 0.5, -8388609.0, 12345.678, -0.7, 0.3, 7.0]
    values += [math.inf, -math.inf, math.nan, 3.25]
    return torch.tensor(values).reshape(4, 5)


def _histogramdd(x: Any, bins: Any, **kwargs: Any) -> tuple[Any, ...]:
    """torch.histogramdd's histogram and edges as one flat tuple."""
    result = torch.histogramdd(x, bins, **kwargs)
    return (result.hist, *result.bin_edges)


def _put_last_columns(x: Any) -> Any:
    """`x[:, [-1, 1]] = 1` (HF's sliding-window cache writes its last slot
    so): one 1-D index, negative."""
    y = x.clone()
    y[:, torch.tensor([-1, 1])] = torch.ones(4, 2)
    return y


COMPOSITES = {
    "trunc": torch.trunc,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "round": torch.round,
    "round decimals": lambda x: torch.round(x, decimals=1),
    "sign": torch.sign,
    "isnan": torch.isnan,
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "flip": lambda x: torch.flip(x, [0, -1]),
    "index_select": lambda x: torch.index_select(x, 1, torch.tensor([4, 0, 0])),
    "pad": lambda x: torch.nn.functional.pad(x, [2, -1, 1, 0], value=-3.0),
    "prod": lambda x: torch.prod(torch.nan_to_num(x, 1.0, 2.0, -2.0) / 1e3, 1),
    "argmax": lambda x: torch.argmax(x, 1, keepdim=True),
    "argmin all": lambda x: torch.argmin(torch.nan_to_num(x)),
    "max dim": lambda x: torch.max(x, 0).values,
    "max dim indices": lambda x: torch.max(torch.nan_to_num(x), -1).indices,
    "min dim": lambda x: torch.min(x, 1, keepdim=True),
    "roll": lambda x: torch.roll(x, 2, 1),
    "roll two dims (nested decompositions)": lambda x: torch.roll(x, (1, -2), (0, 1)),
    "mT": lambda x: x.mT * 2,
    "cat with an empty cache": lambda x: torch.cat([torch.zeros(0), x], 0),
    # 0-d and empty edge cases OpInfo samples (each was refused)
    "transpose of a 0-d tensor": lambda x: x.sum().transpose(0, -1) + x,
    "gather of a 0-d tensor": lambda x: torch.gather(x.sum(), 0, torch.tensor(0)) + x,
    "gather by an empty index": lambda x: torch.gather(
        x[0], 0, torch.zeros(2, 0, dtype=torch.long)
    ),
    "fmod": lambda x: torch.fmod(x, torch.tensor([1.5, -0.75, 2.0, -3.0, 0.0])),
    # alpha scales self, the subtrahend (it scaled other: a silent wrong answer)
    "rsub with alpha": lambda x: torch.rsub(x, x.flip(-1) + 1, alpha=2),
    "remainder": lambda x: torch.remainder(
        x, torch.tensor([1.5, -0.75, 2.0, -3.0, 0.0])
    ),
    "floor divide": lambda x: torch.div(
        x, torch.tensor([1.5, -0.75, 2.0, -3.0, 0.0]), rounding_mode="floor"
    ),
    "trunc divide": lambda x: torch.div(x, -0.3, rounding_mode="trunc"),
    "atan2": lambda x: torch.atan2(x, x.flip(0)),
    "copysign": lambda x: torch.copysign(torch.ones(4, 5), x),
    "signbit": torch.signbit,
    "hypot": lambda x: torch.hypot(x, x.flip(1)),
    "fmax": lambda x: torch.fmax(x, x.flip(0)),
    "acos": lambda x: torch.acos(x / 1e10),
    "angle": torch.angle,
    "sort": lambda x: torch.sort(x, 1),
    "sort descending dim 0": lambda x: torch.sort(x, 0, descending=True),
    "topk": lambda x: torch.topk(torch.nan_to_num(x), 2, 1),
    "kthvalue": lambda x: torch.kthvalue(x, 2, 0),
    "median": torch.median,
    "nanmedian dim": lambda x: torch.nanmedian(x, 1),
    "as_strided": lambda x: torch.as_strided(x, (3, 2), (2, 5), 1),
    "diagonal_scatter": lambda x: torch.diagonal_scatter(x, torch.ones(4), 1),
    "scatter_reduce amax": lambda x: torch.scatter_reduce(
        x,
        1,
        torch.tensor([[0, 0, 4], [1, 2, 1], [3, 3, 3], [4, 0, 2]]),
        torch.ones(4, 3),
        "amax",
        include_self=False,
    ),
    "scatter": lambda x: torch.scatter(x, 0, torch.tensor([[3, 0], [1, 2]]), -7.0),
    "cummax": lambda x: torch.cummax(x, 1),
    "cummin dim 0": lambda x: torch.cummin(x, 0),
    "logcumsumexp": lambda x: torch.logcumsumexp(x, 1),
    "masked_scatter": lambda x: torch.masked_scatter(x, x > 0.4, -torch.arange(20.0)),
    # the input broadcasts to the mask's shape (it was imported at its own)
    "masked_scatter broadcasting the input": lambda x: torch.masked_scatter(
        x[0], x > 0.4, -torch.arange(20.0)
    ),
    "put accumulate": lambda x: torch.put(
        x, torch.tensor([0, -1, 0, 7]), torch.ones(4), accumulate=True
    ),
    "erfc": torch.erfc,
    "lgamma": lambda x: torch.lgamma(x / 1e3),
    "lgamma near and at the poles": lambda x: torch.lgamma(torch.round(x) - x / 1e4),
    # exactly 0 at its roots 1 and 2: the sign of lgamma of integers (an
    # Inductor CPU repro's chain) was 1 where torch's is 0
    "sign of lgamma of integers": lambda x: torch.sign(
        torch.lgamma(torch.clamp(torch.round(x.nan_to_num(0.0)), 1, 6))
    ),
    "lgamma near its roots": lambda x: torch.lgamma(
        torch.clamp(torch.round(x.nan_to_num(0.0)), 1, 2) + x.nan_to_num(0.0) / 1e3
    ),
    "digamma": lambda x: torch.digamma(x / 1e3),
    "digamma at the poles": lambda x: torch.digamma(
        x * 0 - torch.arange(20.0).reshape(4, 5) % 3
    ),
    "cdist": lambda x: torch.cdist(x[:2, :4], x[2:, 1:], p=1.5),
    "bucketize": lambda x: torch.bucketize(
        x, torch.tensor([-1.0, 0.0, 0.5, 1e3]), right=True
    ),
    "index_add alpha": lambda x: torch.index_add(
        x, 0, torch.tensor([1, 3, 1]), torch.ones(3, 5), alpha=2.0
    ),
    "index_put accumulate two indices": lambda x: torch.index_put(
        x,
        (torch.tensor([0, 0, 3]), torch.tensor([1, 1, -1])),
        torch.tensor([1.0, 2.0, 3.0]),
        accumulate=True,
    ),
    "index_put one index counting from the end": lambda x: _put_last_columns(x),
    "index_put accumulate one index": lambda x: torch.index_put(
        x, (torch.tensor([0, 3, 0, -1]),), x[:, :1] * 2, accumulate=True
    ),
    "index_put accumulate into a gathered table (Swin's bias gradient)": lambda x: (
        torch.zeros(169, 32).index_put(
            (torch.arange(2401) % 169,),
            torch.arange(2401 * 32.0).reshape(2401, 32) % 7 * x[0, 0],
            accumulate=True,
        )
    ),
    "index_put mask and one value": lambda x: x.index_put((x > 1,), torch.tensor(-1.0)),
    "index_put row mask and one row": lambda x: x.index_put(
        (torch.tensor([True, False, True, True]),), torch.arange(5.0)
    ),
    "index_put row mask and a row per true position": lambda x: x.index_put(
        (torch.tensor([True, False, True, True]),), torch.arange(15.0).reshape(3, 5)
    ),
    "index_put row mask accumulating rows": lambda x: x.index_put(
        (torch.tensor([False, True, False, True]),),
        torch.arange(10.0).reshape(2, 5),
        accumulate=True,
    ),
    "take counting from the end": lambda x: torch.take(
        x, torch.tensor([[0, -1], [7, -20]])
    ),
    "histc": lambda x: torch.histc(torch.nan_to_num(x, 0.0, 8.0, -9.0), 7, -3, 8),
    "histc of the data's range": lambda x: torch.histc(torch.nan_to_num(x), 5),
    "histogram weighted density": lambda x: torch.histogram(
        torch.nan_to_num(x),
        4,
        range=(-2.0, 4.0),
        weight=torch.arange(20.0).reshape(4, 5),
        density=True,
    ),
    "histogram at given edges": lambda x: torch.histogram(
        x, torch.tensor([-3.0, -1.5, 0.0, 1.5, 7.0])
    ),
    "histogramdd of the data's ranges": lambda x: _histogramdd(
        torch.nan_to_num(x, 0.0, 8.0, -9.0), [3, 2, 4, 1, 2]
    ),
    "histogramdd weighted density in a range": lambda x: _histogramdd(
        torch.nan_to_num(x).reshape(10, 2),
        [3, 5],
        range=[-2.0, 2.0, -1.0, 6.0],
        weight=torch.arange(10.0),
        density=True,
    ),
    "histogramdd at given edges": lambda x: _histogramdd(
        x.reshape(5, 4)[:, :2],
        [torch.tensor([-3.0, 0.0, 7.0]), torch.tensor([-1.0, 0.5, 1.0, 2.0])],
    ),
    "mode with ties": lambda x: torch.mode(torch.round(x.nan_to_num(0, 1, -1)), 1),
    "mode dim 0": lambda x: torch.mode(torch.round(x.nan_to_num(0, 1, -1)), 0),
    "nonzero_static padded": lambda x: torch.nonzero_static(torch.round(x), size=19),
    "segment_reduce max initial": lambda x: torch.segment_reduce(
        torch.nan_to_num(x)[0], "max", lengths=torch.tensor([2, 0, 3]), initial=1.0
    ),
    "segment_reduce mean offsets": lambda x: torch.segment_reduce(
        torch.nan_to_num(x), "mean", offsets=torch.tensor([0, 1, 1, 4])
    ),
    # (inf as 1: a product of float32's extremes overflows or not by order)
    "segment_reduce prod batched lengths": lambda x: torch.segment_reduce(
        torch.nan_to_num(x, 0, 1, -1),
        "prod",
        lengths=torch.tensor([[1, 0, 4]] * 4),
        axis=1,
    ),
    "segment_reduce min batched offsets": lambda x: torch.segment_reduce(
        torch.nan_to_num(x), "min", offsets=torch.tensor([[0, 2, 5]] * 4), axis=1
    ),
    "resize_ smaller": lambda x: x.clone().resize_(3, 4),
    # beta=0: the input is ignored, its NaN and inf too (Inductor's tests)
    "addmm beta=0": lambda x: torch.addmm(
        x, torch.ones(4, 3), torch.ones(3, 5), beta=0
    ),
    "baddbmm beta=0 alpha": lambda x: torch.baddbmm(
        x[3:4, 1:4], torch.ones(4, 5, 2), torch.ones(4, 2, 3), beta=0.0, alpha=2
    ),
    "addbmm beta=0": lambda x: torch.addbmm(
        x[3:4, 1:4], torch.ones(2, 5, 4), torch.ones(2, 4, 3), beta=0
    ),
    # an empty input of any rank: torch normalises nothing (OpInfo, f16)
    "batch_norm of an empty 1-d input": lambda x: torch.nn.functional.batch_norm(
        x[0, :0], x[0, :0], x[0, :0].exp()
    ),
    "mode with NaNs most frequent": lambda x: torch.mode(
        torch.tensor([[math.nan, math.nan, 1.0], [2.0, math.nan, 2.0]]) + x[0, 0] * 0, 1
    )[0],
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composites_match_torch_on_awkward_values(name: str, decompose: bool) -> None:
    """Core-ATen ops written with other graph ops: ties round to even,
    NaN and inf pass through, log1p/expm1 keep tiny values, argmax finds
    the first maximum and NaN, an empty operand of cat is skipped."""
    fn = COMPOSITES[name]
    x = _awkward_values()
    want = fn(x)
    wants = want if isinstance(want, tuple) else (want,)
    gots = from_torch(function_module(fn), (x,), decompose=decompose).run(x)
    assert len(gots) == len(wants)
    for got, w in zip(gots, wants, strict=True):
        assert got.shape == tuple(w.shape)
        np.testing.assert_allclose(got, w.numpy(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_a_decomposition_writing_into_a_view_is_functionalized(decompose: bool) -> None:
    """Circular padding decomposes into an `empty` written through slices by
    copy_ nodes nothing reads: imported as they were, the `empty` was the
    result (an OpInfo wrong result), then the importer refused them; traced
    under torch's functionalization they are slice_scatters of values."""
    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(3))
    model = function_module(
        lambda x: torch.nn.functional.pad(x, (1, 2), mode="circular")
    )
    (got,) = from_torch(model, (x,), decompose=decompose).run(x)
    np.testing.assert_array_equal(got, model(x).numpy())


def test_a_decomposition_that_does_not_trace_is_unsupported_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # torch's decomposition of adaptive_max_pool2d raises NotImplementedError
    # for windows of uneven size: without fxdsl's own mapping, the importer
    # falls back to it
    monkeypatch.delitem(ATEN, "aten.adaptive_max_pool2d.default")
    with pytest.raises(TorchImportError, match="decomposition of it does not trace"):
        from_torch(
            function_module(
                lambda x: torch.nn.functional.adaptive_max_pool2d(x, (2, 3))
            ),
            (torch.randn(1, 3, 5, 7),),
        )


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_a_decomposition_may_edit_the_list_it_is_given(decompose: bool) -> None:
    """slice_scatter off the start decomposes into `_unsafe_masked_index`,
    whose decomposition fills in its `indices` list: an fx node's immutable
    list made it fail to trace (Longformer's attention, 44 nodes in torch)."""
    x = torch.randn(3, 8, 4, generator=torch.Generator().manual_seed(4))
    src = torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(5))

    def scatter(x: Any) -> Any:
        return torch.slice_scatter(x, src, dim=1, start=2, end=6)

    _assert_imports_as_torch(scatter, x, decompose)


def _overlapping_chunks(x: Any) -> Any:
    # Longformer's chunking: overlapping windows of a contiguous tensor
    return x.reshape(2, 4, 8).as_strided((2, 3, 2, 8), (32, 8, 8, 1)) * 2


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_as_strided_of_a_dense_tensor_gathers_its_elements(
    decompose: bool,
) -> None:
    x = torch.randn(64, generator=torch.Generator().manual_seed(6))
    _assert_imports_as_torch(_overlapping_chunks, x, decompose)
    _assert_imports_as_torch(
        lambda x: torch.as_strided(x, (3, 3), (2, 1), 1), x, decompose
    )
    # of a permuted (dense) tensor: its storage in its own dim order
    _assert_imports_as_torch(
        lambda x: x.reshape(8, 8).t().as_strided((4, 5), (3, 7), 2), x, decompose
    )


def test_as_strided_of_a_view_is_refused_not_wrong() -> None:
    """A view's storage holds more than its values: reading past them, or
    a gap of a view with gaps (`x[:, ::2]`), would read what the graph does
    not hold. A contiguous slice (storage offset 6) reads its own elements,
    and so does a read of only the positions a view with gaps holds (its
    diagonal: what Dynamo hands over for `x[:, ::2].diagonal()`)."""
    x = torch.randn(4, 6)
    sliced = function_module(lambda x: x[1:].as_strided((3, 3), (1, 3)))
    (got,) = from_torch(sliced, (x,)).run(x)
    np.testing.assert_array_equal(got, sliced(x).numpy())
    held = function_module(lambda x: x[:, ::2].as_strided((3,), (8,)))
    (got,) = from_torch(held, (x,)).run(x)
    np.testing.assert_array_equal(got, held(x).numpy())
    with pytest.raises(TorchImportError, match="reads its gaps"):
        from_torch(
            function_module(lambda x: x[:, ::2].as_strided((3, 3), (1, 3))), (x,)
        )
    with pytest.raises(TorchImportError, match="reads past"):
        from_torch(function_module(lambda x: x.as_strided((5, 6), (6, 1))), (x,))


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_index_copy_into_a_0d_tensor(decompose: bool) -> None:
    """torch takes a 0-d tensor as one element along dim 0."""
    source = torch.tensor(7.0)
    index = torch.tensor(0)
    fn = lambda x: x.index_copy(0, index, source)
    _assert_imports_as_torch(fn, torch.tensor(3.0), decompose)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_an_accumulating_index_put_is_an_index_add(dtype: str) -> None:
    """`index_put(..., accumulate=True)` with one index tensor (an
    embedding's gradient: a table, the token ids, one row per token) is a
    `graph.index_add` of the flattened ids, whose cost is the rows', not
    the table's times the ids' (the dense scatter refused this size and
    left it to torch). Repeated ids sum in order, as torch's CPU kernel
    adds them on one thread (a 16-bit sum rounded at each step too; with
    more threads torch splits the ids, so the order, and the last bits,
    may differ)."""
    kind = getattr(torch, dtype)
    generator = torch.Generator().manual_seed(3)
    table = torch.zeros(5000, 8, dtype=kind)
    ids = torch.randint(0, 40, (4, 2048), generator=generator)  # many repeats
    rows = torch.randn(4, 2048, 8, generator=generator).to(kind)
    fn = lambda t, i, r: t.index_put((i,), r, accumulate=True)
    imported = from_torch(function_module(fn), (table, ids, rows))
    assert "graph.index_add" in str(imported.module)
    (got,) = imported.run(table, ids, rows)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        want = fn(table, ids, rows).float().numpy()
    finally:
        torch.set_num_threads(threads)
    np.testing.assert_array_equal(np.asarray(got, dtype=np.float32), want)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_histc_bins_as_torchs_kernel_does(dtype: str) -> None:
    """histc's bin is `trunc((x - left) * bins / (right - left))` in the
    input's type, not a comparison with linspace edges: near a boundary in
    bf16 the two differ (100 among 5 bins of [99, 101] is bin 2, not 3); a
    range that rounds to one value (bf16 300 +- 1) or a product that
    overflows f16 puts the element in bin 0, as eager does. Random data,
    scales and bin counts, against eager exactly."""
    kind = getattr(torch, dtype)
    generator = torch.Generator().manual_seed(7)
    samples = [
        (torch.tensor([100.0]), 5, {}),
        (torch.tensor([300.0]), 4, {}),
        (torch.tensor([-3000.0, -1000.0, 0.0, 2000.0, 3000.0]), 80, {}),
    ]
    for trial in range(12):
        scale = 10.0 ** (trial % 5 - 1)
        x = torch.randn(
            int(torch.randint(1, 150, (1,), generator=generator)), generator=generator
        )
        bins = int(torch.randint(1, 110, (1,), generator=generator))
        given = (
            {"min": float(x.min()) * scale / 2, "max": float(x.max()) * scale}
            if trial % 3 == 0
            else {}
        )
        samples.append(((x * scale).round() if trial % 4 == 0 else x * scale, bins, given))  # fmt: skip
    for x, bins, given in samples:
        x = x.to(kind)

        def fn(t: Any, bins: int = bins, given: Any = given) -> Any:
            return torch.histc(t, bins=bins, **given)

        (got,) = from_torch(function_module(fn), (x,)).run(x)
        want = fn(x).float().numpy()
        np.testing.assert_array_equal(
            np.asarray(got, np.float32), want, err_msg=f"{x} {bins} {given}"
        )


MAX_NORMS = {
    # the named rows (1, 2, 3; 2 twice) past the norm scaled down, row 3's
    # inf to NaN (inf * 0) as in torch, a NaN row's norm not past it
    "p=2": lambda x: torch.nn.functional.embedding(
        torch.tensor([[3, 2], [2, 1]]), x * 3, max_norm=2.5
    ),
    "p=1": lambda x: torch.nn.functional.embedding(
        torch.tensor([0, 0, 2]), x.nan_to_num(0, 1, -1), max_norm=1.0, norm_type=1
    ),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(MAX_NORMS))
def test_embedding_max_norm_renormalizes_the_named_rows(
    name: str, decompose: bool
) -> None:
    """`F.embedding(..., max_norm=...)` writes the renormalized rows into its
    table (`embedding_renorm_`, on a detached view) before the lookup. The
    core-ATen graph has the write as a value (fxdsl's decomposition of
    `embedding_renorm`); in the default graph the write into `detach(w)` is
    a write into w (a whole alias), which the lookup then reads (it once
    read the old rows: nothing there depends on the in-place node)."""
    fn = MAX_NORMS[name]
    x = _awkward_values()
    (got,) = from_torch(function_module(fn), (x,), decompose=decompose).run(x)
    np.testing.assert_allclose(got, fn(x).numpy(), rtol=1e-6, atol=0)


def test_embedding_max_norm_writes_the_callers_table() -> None:
    """At the default level the renormalized rows go back into the table
    the caller passed, as torch's in-place renorm leaves them."""

    def fn(table: Any, ids: Any) -> Any:
        return torch.nn.functional.embedding(ids, table, max_norm=1.0) + 1

    table = torch.randn(10, 4, generator=torch.Generator().manual_seed(2)) * 3
    ids = torch.tensor([1, 2, 1])
    program = from_torch(function_module(fn), (table.clone(), ids))
    ours, theirs = table.clone(), table.clone()
    (got,) = program.run(ours, ids)
    np.testing.assert_allclose(got, fn(theirs, ids).numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)
    assert not torch.equal(ours, table)  # rows 1 and 2 were renormalized


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_attention_broadcasts_batch_dims(decompose: bool) -> None:
    """A 3-D query with 4-D keys and values: the batch dims broadcast, as
    torch's math does (the default level refused: graph.attention takes
    equal batch dims)."""
    x = torch.randn(4, 4, 6, 8, generator=torch.Generator().manual_seed(3))

    def attend(kv: Any) -> Any:
        query = kv[0, :, :3] * 0.5
        return torch.nn.functional.scaled_dot_product_attention(query, kv, kv.flip(-1))

    _assert_imports_as_torch(attend, x, decompose)


def _awkward_floats() -> Any:
    """-0.0, +-inf, a subnormal, and a NaN with a payload of its own."""
    x = torch.tensor([[1.5, -0.0, math.inf, -math.inf, 0.0, 3e-39, -2.0, 0.1]])
    x.view(torch.int32)[0, 4] = 0x7FA12345
    return x


def _awkward_bf16() -> Any:
    x = _awkward_floats().to(torch.bfloat16)
    x.view(torch.int16)[0, 4] = 0x7FA1
    return x


# every result an integer view, so equality is of bits
BIT_VIEWS = {
    "f32 as i32, and back": (
        lambda x: (x.view(torch.int32), (x.view(torch.int32) ^ 1).view(torch.float32)),
        _awkward_floats,
    ),
    "bf16 as i16": (lambda x: x.view(torch.int16), _awkward_bf16),
    "f16 as i16": (lambda x: x.view(torch.int16), lambda: _awkward_floats().half()),
    "f32 as ui8 (4 per element)": (lambda x: x.view(torch.uint8), _awkward_floats),
    "f32 as bf16 (2 per element)": (
        lambda x: x.view(torch.bfloat16).view(torch.int16),
        _awkward_floats,
    ),
    "bf16 as f32 (2 into 1)": (
        lambda x: x.view(torch.float32).view(torch.int32),
        _awkward_bf16,
    ),
    "ui8 as f32 (4 into 1)": (
        lambda x: x.view(torch.float32).view(torch.int32),
        lambda: torch.arange(256, dtype=torch.uint8).reshape(4, 64),
    ),
    "f64 as i64": (lambda x: x.view(torch.int64), lambda: _awkward_floats().double()),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(BIT_VIEWS))
def test_dtype_views_keep_every_bit(name: str, decompose: bool) -> None:
    fn, make = BIT_VIEWS[name]
    x = make()
    want = fn(x)
    want = want if isinstance(want, tuple) else (want,)
    module = function_module(lambda x: fn(x))
    got = from_torch(module, (x,), decompose=decompose).run(x)
    for mine, eager in zip(got, want, strict=True):
        assert mine.shape == tuple(eager.shape)
        if eager.is_floating_point():
            mine, eager = np.asarray(mine).view(np.int32), eager.view(torch.int32)
        np.testing.assert_array_equal(mine, eager.numpy())


@pytest.mark.usefixtures("fresh_dynamo")
def test_a_bit_view_compiles_in_fxdsl() -> None:
    from fxdsl.testing.hf_suite import Outcome, counting_plans

    def fn(x: Any) -> Any:
        bits = x.view(torch.int32)
        return ((bits & 0x7FFFFFFF).view(torch.float32) * 2,)

    x = _awkward_floats()
    outcome = Outcome()
    with counting_plans(outcome):
        (got,) = torch.compile(fn, backend="fxdsl")(x)
    assert outcome.compiled == outcome.total > 0, outcome.summary()
    assert torch.equal(got.view(torch.int32), fn(x)[0].view(torch.int32))
