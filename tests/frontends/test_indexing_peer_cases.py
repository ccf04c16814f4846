"""Cases in the manner of PyTorch's indexing, scatter/gather and
sort/select suites (`test/test_indexing.py`, `test/test_scatter_gather.py`,
`test/test_sort_and_select.py`), run through
`torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})` on the
CPU and compared with eager.

Each row is a small program from one of those suites, restated (not
copied) at a small size: advanced indexing with several index tensors that
broadcast against each other, index tensors split by a slice (eager moves
the indexed dims to the front), negative indices, bool masks of a constant
shape, None/Ellipsis mixes, `index_put_` and `x[idx] = v` with
`accumulate=True`, duplicate indices and broadcast values, index_add/
index_copy/index_fill with negative dims and `alpha`, masked_fill/
masked_scatter, scatter/scatter_add/scatter_reduce (sum, prod, mean, amax,
amin, `include_self=False`) with duplicate indices, gather with a negative
dim, take/take_along_dim/put, sort (stable, descending, with NaN and ties),
stable argsort, topk (largest and smallest, sorted), kthvalue, msort,
searchsorted (`right`, `sorter`), bucketize, cummax/cummin with ties and
NaN, integer cumsum/cumprod, and narrow/select/unfold/diagonal with
offsets. The function runs once in eager and twice compiled (the second
call reuses the compiled graph), each time under `torch.no_grad()` on
arguments made afresh from the same seed; every output and every argument
afterwards (the mutated ones) must match eager's: dtypes, integers and
indices exactly, floats tightly with NaNs equal. Where eager's answer is
not unique (the order of ties in an unstable sort, the indices of tied
topk/kthvalue values, the write that wins among duplicate indices of a
plain `index_put_`/`scatter`/`put`), a row compares only what is defined:
values, a stable sort, or duplicate-free indices. A row whose graph went
to torch whole still passes, with a warning naming it (`pytest -rw` lists
them): fxdsl did not run it.

Not ported, and why:
- Error checks (out-of-range indices, mismatched index dtypes/shapes,
  overlapping writes, `index_put_` with a bool value of the wrong size):
  eager raises, and what a compiled graph raises is not the point here.
- Devices and dtypes in bulk (the suites loop over CUDA, complex, and all
  integer/float dtypes, and compare against numpy): a few dtypes per op
  are kept as rows.
- Data-dependent output shapes (bool mask indexing of a mask computed from
  the data, `nonzero`, `unique`, `masked_select`): their shapes are unbacked
  SymInts in Dynamo; only masks of a constant shape through constant
  indexing are kept.
- Deterministic-algorithm switches, `out=` variants, large-tensor and
  performance tests, autograd (gradients of index ops), and sparse/quantized
  inputs.

What it found: no wrong answers, crashes or refusals; no graph went to
torch whole. One node runs in torch (fxdsl says so in its log): the
`index_put` of `setitem_bool_mask`, whose bool mask is over a non-leading
dim (`x[:, mask] = v`); fxdsl takes only one mask over the leading dims.
"""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need
from fxdsl.testing.peer_cases import Case, case, compare_with_eager, warn_whole_graphs

torch = need("torch")

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

SEED = 1234
NAN, INF = float("nan"), float("inf")
OPTIONS = {"min_block_size": 1}


def rn(*shape: int, dtype: Any = torch.float32) -> Any:
    return torch.randn(shape, dtype=dtype)


def ri(low: int, high: int, *shape: int, dtype: Any = torch.int64) -> Any:
    return torch.randint(low, high, shape, dtype=dtype)


def perm(n: int) -> Any:
    return torch.randperm(n)


def T(data: Any, dtype: Any = None) -> Any:
    return torch.tensor(data, dtype=dtype)


# --------------------------------------------------------------------------
# advanced indexing (test_indexing.py)


def _broadcast_indices(x: Any, i: Any, j: Any) -> Any:
    # i (3, 1) and j (4,) broadcast to (3, 4)
    return x[i, j], x[i, j, 1:], x[i, :, j]


def _split_by_slice(x: Any, i: Any, j: Any) -> Any:
    # index tensors not adjacent: the broadcast dims go first
    return x[i, :, j], x[:, i, :, j], x[i, 1:3, j, ::2]


def _adjacent_in_middle(x: Any, i: Any, j: Any) -> Any:
    return x[:, i, j], x[:, i, j, 0], x[1, i, j]


def _negative_indices(x: Any) -> Any:
    return (
        x[T([-1, 0, -3])],
        x[:, T([-1, -2])],
        x[T([[-1], [0]]), T([-2, 1, -4])],
        x[-1, T([-1, 2])],
    )


def _const_bool_masks(x: Any) -> Any:
    m = T([True, False, True, True, False])
    m2 = T([[True, False, True, False], [False, False, True, True]])
    return x[m], x[:, :, m2[0]], x[0, :2][m2], x[..., T([False, True, True, False])]


def _none_ellipsis(x: Any, i: Any) -> Any:
    return (
        x[None, ..., i],
        x[..., None, i, :],
        x[i, None, ..., None],
        x[None, i, None, :, i],
        x[..., 1, None],
        x[None, ..., None, 0],
    )


def _index_int_and_tensor(x: Any, i: Any) -> Any:
    # an int between index tensors also counts as an advanced index
    return x[i, 1, i], x[1, :, i], x[i, :, 1]


def _index_of_index(x: Any, i: Any) -> Any:
    return x[i][:, i], x[:, i][i], x.t()[i, i.flip(0)]


def _index_int32(x: Any, i: Any) -> Any:
    return x[i], x[i.long(), i]


def _index_put_accumulate(x: Any, i: Any, v: Any) -> Any:
    x.index_put_((i,), v, accumulate=True)
    return x


def _index_put_accumulate_2d(x: Any, i: Any, j: Any, v: Any) -> Any:
    # duplicate (i, j) pairs add up
    return x.index_put((i, j), v, accumulate=True), torch.index_put(
        x, (i,), torch.ones(()), accumulate=True
    )


def _index_put_broadcast_value(x: Any, i: Any, j: Any) -> Any:
    y = x.clone()
    y[i, j] = T([10.0, 20.0, 30.0])  # values broadcast against (2, 3)
    z = x.clone()
    z[i] = 5.0
    w = x.clone()
    w[:, j] = T([[1.0], [2.0], [3.0], [4.0]])
    return y, z, w


def _setitem_accumulate_mutates(x: Any, i: Any, v: Any) -> Any:
    x[i] += v  # not accumulate: i has no duplicates here
    x.index_put_((T([0, 0, 2]),), T([1.0, 2.0, 3.0]).unsqueeze(1), accumulate=True)
    return x.sum()


def _setitem_negative(x: Any) -> Any:
    x[T([-1, -3])] = 0.0
    x[:, T([-2])] = -1.0
    x[-1, -1] = 7.0
    return x * 2


def _setitem_bool_mask(x: Any) -> Any:
    m = T([True, False, True, False])
    x[m] = 3.0
    x[:, T([False, True, True])] = T([[-1.0, -2.0]])
    return x


def _index_put_int(x: Any, i: Any, v: Any) -> Any:
    return x.index_put((i,), v, accumulate=True), x.index_put((T([1, -1]),), v[:1])


def _index_add_copy_fill(x: Any, s: Any, i: Any, j: Any) -> Any:
    return (
        x.index_add(-1, i, s, alpha=2.5),
        x.index_add(0, j, x.flip(0), alpha=-1),
        x.index_copy(-1, perm_idx(x.shape[-1]), x.flip(-1)),
        x.index_fill(-2, T([0, -1]), -3.0),
        x.index_fill(1, T([1, 1]), NAN),
    )


def perm_idx(n: int) -> Any:
    return T(list(range(n - 1, -1, -1)))


def _index_add_int_dup(x: Any, s: Any, i: Any) -> Any:
    return x.index_add(0, i, s), x.index_add(1, T([2, 2, 0]), x[:, 1:], alpha=3)


def _index_add_(x: Any, s: Any, i: Any) -> Any:
    x.index_add_(-2, i, s, alpha=0.5)
    x.index_fill_(-1, T([0]), 1.0)
    return x


def _index_copy_(x: Any, s: Any, i: Any) -> Any:
    x.index_copy_(0, i, s)
    return x.sum(0)


def _masked(x: Any, m: Any, src: Any) -> Any:
    return (
        x.masked_fill(m, -INF),
        x.masked_fill(m, T(2.5)),
        x.masked_fill(m[0], 0.0),  # the mask broadcasts
        x.masked_scatter(m, src),
        x.masked_scatter(m[:, :1], src),
    )


def _masked_(x: Any, m: Any, src: Any) -> Any:
    x.masked_fill_(m, 1.0)
    x.masked_scatter_(~m, src)
    return x


def _masked_int(x: Any, m: Any) -> Any:
    return x.masked_fill(m, -7), x.masked_fill(m, 3.9), torch.where(m, x, 0)


def _take_put(x: Any, i: Any, j: Any) -> Any:
    return (
        torch.take(x, i),
        torch.take(x, T([[-1, 0], [-12, 5]])),
        x.put(j, T([1.0, 2.0, 3.0]), accumulate=True),
        x.put(T([-1, 0, 4]), T([9.0, 8.0, 7.0])),
    )


def _put_(x: Any, j: Any) -> Any:
    x.put_(j, T([1.0, 2.0, 3.0]) * 10, accumulate=True)
    return x


def _take_along_dim(x: Any, i: Any) -> Any:
    return (
        torch.take_along_dim(x, i, dim=1),
        torch.take_along_dim(x, i[:1], dim=-1),  # broadcasts on dim 0
        torch.take_along_dim(x, x.argsort(dim=0, stable=True), dim=0),
        torch.take_along_dim(x, T([5, 0, 11, 5])),  # flat
    )


# --------------------------------------------------------------------------
# scatter and gather (test_scatter_gather.py)


def _gather(x: Any, i: Any) -> Any:
    return (
        torch.gather(x, -1, i),
        torch.gather(x, -2, i[:2] % 3),
        x.gather(0, i[:, :2] % 3),
    )


def _scatter(x: Any, i: Any, s: Any) -> Any:
    # i has unique entries along dim 1 (a permutation per row)
    return (
        x.scatter(1, i, s),
        x.scatter(-1, i, 2.0),
        x.scatter(1, i[:, :2], s),  # index smaller than src
    )


def _scatter_add(x: Any, i: Any, s: Any) -> Any:
    return (
        x.scatter_add(0, i, s),
        x.scatter_add(-1, i, s),
        torch.scatter_add(x, 1, i[:1], s),
    )


def _scatter_add_(x: Any, i: Any, s: Any) -> Any:
    x.scatter_add_(0, i, s)
    return x


def _scatter_reduce(reduce: str, include_self: bool) -> Any:
    def fn(x: Any, i: Any, j: Any, s: Any) -> Any:
        return (
            x.scatter_reduce(0, i, s, reduce, include_self=include_self),
            x.scatter_reduce(-1, j, s, reduce, include_self=include_self),
        )

    return fn


def _scatter_reduce_inputs(dtype: Any) -> Any:
    def make() -> tuple[Any, ...]:
        if dtype.is_floating_point:
            x, s = rn(4, 5, dtype=dtype), rn(6, 7, dtype=dtype)
        else:
            x, s = ri(-5, 5, 4, 5, dtype=dtype), ri(-5, 5, 6, 7, dtype=dtype)
        return x, ri(0, 4, 6, 5), ri(0, 5, 4, 7), s

    return make


def _scatter_reduce_empty_rows(x: Any, i: Any, s: Any) -> Any:
    # row 3 never written: include_self=False keeps x there
    return (
        x.scatter_reduce(0, i, s, "mean", include_self=False),
        x.scatter_reduce(0, i, s, "amax", include_self=False),
        x.scatter_reduce(0, i, s, "prod", include_self=False),
    )


def _scatter_reduce_string(x: Any, i: Any, s: Any) -> Any:
    return x.scatter(0, i, s, reduce="add"), x.scatter(0, i, s, reduce="multiply")


def _scatter_reduce_(x: Any, i: Any, s: Any) -> Any:
    x.scatter_reduce_(1, i, s, "amin", include_self=True)
    return x


# --------------------------------------------------------------------------
# sort and select (test_sort_and_select.py)


def _sort_stable(x: Any) -> Any:
    return (
        torch.sort(x, stable=True),
        torch.sort(x, dim=0, descending=True, stable=True),
        torch.sort(x, stable=True, descending=True),
        torch.argsort(x, dim=-1, stable=True),
    )


def _sort_values(x: Any) -> Any:
    # unstable sort: only the values are defined when there are ties
    return (
        torch.sort(x).values,
        torch.sort(x, 0, descending=True).values,
        torch.msort(x),
    )


def _sort_nan(x: Any) -> Any:
    # NaNs sort last ascending, first descending
    return (
        torch.sort(x, stable=True),
        torch.sort(x, descending=True, stable=True),
        torch.argsort(x, stable=True),
    )


def _sort_int(x: Any, b: Any) -> Any:
    return (
        torch.sort(x, stable=True),
        torch.sort(x, descending=True, stable=True),
        torch.sort(b, stable=True),
        torch.msort(x),
    )


def _topk_distinct(x: Any) -> Any:
    return (
        torch.topk(x, 3),
        torch.topk(x, 2, dim=0, largest=False),
        torch.topk(x, 4, dim=-1, largest=False, sorted=True),
        torch.topk(x, 1),
    )


def _topk_ties(x: Any) -> Any:
    return (
        torch.topk(x, 3).values,
        torch.topk(x, 2, dim=0, largest=False).values,
        torch.topk(x, 5, largest=False).values,
    )


def _topk_nan(x: Any) -> Any:
    # NaN is the largest for topk
    return torch.topk(x, 2).values, torch.topk(x, 2, largest=False).values


def _kthvalue(x: Any) -> Any:
    return (
        torch.kthvalue(x, 2),
        torch.kthvalue(x, 1, dim=0),
        torch.kthvalue(x, 4, -1, keepdim=True),
    )


def _kthvalue_ties(x: Any) -> Any:
    return torch.kthvalue(x, 3).values, torch.kthvalue(x, 2, 0).values


def _searchsorted(seq: Any, v: Any, unsorted: Any, sorter: Any) -> Any:
    return (
        torch.searchsorted(seq, v),
        torch.searchsorted(seq, v, right=True),
        torch.searchsorted(seq, v, side="right"),
        torch.searchsorted(seq, v, out_int32=True),
        torch.searchsorted(unsorted, v, sorter=sorter),
        torch.searchsorted(unsorted, v, right=True, sorter=sorter),
    )


def _searchsorted_inputs() -> tuple[Any, ...]:
    seq = T([1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0])
    v = T([[0.0, 2.0, 5.0], [8.0, 9.0, 4.0]])
    unsorted = T([5.0, 1.0, 8.0, 2.0, 5.0, 3.0])
    return seq, v, unsorted, torch.argsort(unsorted, stable=True)


def _searchsorted_nd(seq: Any, v: Any) -> Any:
    return torch.searchsorted(seq, v), torch.searchsorted(seq, v, right=True)


def _bucketize(v: Any, b: Any) -> Any:
    return (
        torch.bucketize(v, b),
        torch.bucketize(v, b, right=True),
        torch.bucketize(v, b, out_int32=True),
        torch.bucketize(T(3.0), b),
    )


def _cum_ties(x: Any) -> Any:
    return torch.cummax(x, 0), torch.cummin(x, -1), torch.cummax(x, 1)


def _cum_int(x: Any, b: Any, s: Any) -> Any:
    return (
        x.cumsum(0),
        x.cumprod(1),
        b.cumsum(-1),
        s.cumsum(1),
        s.cumprod(0),
        torch.cummax(x, 1),
        torch.cummin(s, 0),
    )


# --------------------------------------------------------------------------
# views with offsets


def _views(x: Any) -> Any:
    return (
        x.narrow(-1, 1, 3),
        x.narrow(0, -2, 2),
        torch.narrow(x, 1, T(1), 2),
        x.select(-2, -1),
        x.select(0, 1),
        x.unfold(-1, 2, 1),
        x.unfold(1, 2, 2),
        x.unfold(0, 3, 1),
    )


def _diagonals(x: Any, y: Any) -> Any:
    return (
        x.diagonal(),
        x.diagonal(1),
        x.diagonal(-2),
        x.diagonal(offset=3),
        y.diagonal(0, -1, 0),
        y.diagonal(-1, 1, 2),
        y.diagonal(2, 2, 0),
        torch.diag(x, -1),
        torch.diag_embed(x.diagonal(1), offset=-1),
    )


def _views_then_compute(x: Any) -> Any:
    u = x.unfold(-1, 3, 2)
    return (
        u.sum(-1),
        x.diagonal(-1).cumsum(0),
        x.narrow(1, 2, 2) * x.select(1, -1)[:, None],
    )


def _write_through_views(x: Any) -> Any:
    x.narrow(1, 1, 2).mul_(2)
    x.diagonal(1).fill_(-1.0)
    x.select(0, -1).add_(10)
    return x


def _unique_rows(n: int, k: int, m: int) -> Any:
    return torch.stack([perm(m)[:k] for _ in range(n)])


def _with_nan(x: Any, *spots: tuple[int, ...]) -> Any:
    for s in spots:
        x[s] = NAN
    return x


def _ties_grid() -> Any:
    return ri(0, 4, 4, 7).float()


def _index_put_slices_between(x: Any, i: Any, j: Any, v: Any) -> Any:
    # a None between index tensors is a full slice: the broadcast dims go first
    return (
        torch.ops.aten.index_put(x, [i, None, j], v, accumulate=True),
        torch.ops.aten.index_put(x, [None, i], v[:1, :1, :1], accumulate=True),
    )


def _more_index_forms(x: Any, i: Any) -> Any:
    return (
        x[[0, -1]],
        x[T(True)],
        x[T(False)],
        x[i, ..., i],
        x[..., i, :][:, None],
        torch.index_select(x, -1, i.abs().int()),
        x.transpose(0, 2)[i],
    )


def _scatter_reduce_nan(x: Any, i: Any, s: Any) -> Any:
    return (
        x.scatter_reduce(0, i, s, "amax"),
        x.scatter_reduce(0, i, s, "amin", include_self=False),
        x.scatter_reduce(0, i, s, "sum"),
    )


def _scatter_value_reduce(x: Any, i: Any) -> Any:
    return x.scatter(1, i, 2.0, reduce="add"), x.scatter(1, i, 3.0, reduce="multiply")


def _signed_zero_sort(x: Any) -> Any:
    return torch.sort(x, stable=True), torch.sort(x, descending=True, stable=True)


def _kthvalue_nan(x: Any) -> Any:
    return torch.kthvalue(x, 4).values, torch.kthvalue(x, 1).values, torch.msort(x.t())


def _cumprod_overflow(x: Any) -> Any:
    return x.cumprod(0), x.int().cumprod(0), x.to(torch.uint8).cumsum(0)


def _noncontig_views(x: Any) -> Any:
    y = x.transpose(0, 1)
    return (
        y.diagonal(1),
        y.diagonal(-1).sum(),
        y.unfold(0, 2, 3),
        y.narrow(0, 1, 2).select(1, -2),
        y[::2].diagonal(),
    )


INDEXING = [
    case("broadcast_index_tensors", _broadcast_indices, lambda: (rn(5, 6, 4), ri(0, 5, 3, 1), ri(-4, 4, 4))),
    case("index_tensors_split_by_slice", _split_by_slice, lambda: (rn(4, 5, 6, 3), T([[0], [-1]]), T([2, 0, -3]))),
    case("adjacent_index_tensors_in_middle", _adjacent_in_middle, lambda: (rn(3, 5, 6, 2), T([[0, 4], [-1, 2]]), T([5, -6]))),
    case("negative_indices", _negative_indices, lambda: (rn(4, 5),)),
    case("constant_bool_masks", _const_bool_masks, lambda: (rn(5, 2, 4),)),
    case("none_and_ellipsis", _none_ellipsis, lambda: (rn(3, 4, 5), T([2, 0, -1]))),
    case("int_beside_index_tensors", _index_int_and_tensor, lambda: (rn(4, 3, 4), T([3, -1, 0]))),
    case("index_of_index", _index_of_index, lambda: (rn(5, 5), T([4, 0, 2, 2]))),
    case("int32_index_tensor", _index_int32, lambda: (rn(6, 6), T([5, -2, 0], torch.int32))),
    case("index_put_accumulate_duplicates_", _index_put_accumulate, lambda: (rn(5, 3), T([0, 4, 0, 0, -1]), rn(5, 3))),
    case("index_put_accumulate_pairs", _index_put_accumulate_2d, lambda: (rn(4, 4), T([1, 1, 3, 1]), T([2, 2, 0, -2]), rn(4))),
    case("index_put_broadcast_values", _index_put_broadcast_value, lambda: (rn(4, 3), T([[0], [3]]), T([2, 0, 1]))),
    case("setitem_add_then_accumulate", _setitem_accumulate_mutates, lambda: (rn(4, 2), T([3, 1]), rn(2, 2))),
    case("setitem_negative_indices", _setitem_negative, lambda: (rn(4, 3),)),
    case("setitem_bool_mask", _setitem_bool_mask, lambda: (rn(4, 3),)),
    case("index_put_int_accumulate", _index_put_int, lambda: (ri(-9, 9, 5, 2), T([1, -1, 1, 1]), ri(-3, 3, 4, 2))),
    case("index_add_copy_fill_negative_dims", _index_add_copy_fill, lambda: (rn(3, 4), rn(3, 2), T([3, 3]), T([0, 2, 0]))),
    case("index_add_int_duplicates", _index_add_int_dup, lambda: (ri(-5, 5, 4, 4), ri(-5, 5, 3, 4), T([3, 0, 3]))),
    case("index_add_fill_in_place", _index_add_, lambda: (rn(4, 3), rn(3, 3), T([2, 0, 2]))),
    case("index_copy_in_place", _index_copy_, lambda: (rn(5, 2), rn(3, 2), T([4, 0, 2]))),
    case("masked_fill_and_scatter", _masked, lambda: (rn(3, 4), rn(3, 4) > 0, rn(3, 4))),
    case("masked_in_place", _masked_, lambda: (rn(3, 4), rn(3, 4) > 0, rn(12))),
    case("masked_fill_int", _masked_int, lambda: (ri(-9, 9, 3, 4, dtype=torch.int32), rn(3, 4) > 0)),
    case("take_and_put", _take_put, lambda: (rn(3, 4), ri(-12, 12, 2, 3), T([1, 1, -1]))),
    case("put_accumulate_in_place", _put_, lambda: (rn(2, 3), T([5, 0, 5]))),
    case("take_along_dim", _take_along_dim, lambda: (rn(3, 4), ri(0, 4, 3, 2))),
]  # fmt: skip

SCATTER_GATHER = [
    case("gather_negative_dims", _gather, lambda: (rn(3, 5), ri(0, 5, 3, 4))),
    case("scatter_unique_indices", _scatter, lambda: (rn(3, 5), _unique_rows(3, 4, 5), rn(3, 4))),
    case("scatter_add_duplicates", _scatter_add, lambda: (rn(4, 4), ri(0, 4, 3, 4), rn(3, 4))),
    case("scatter_add_in_place", _scatter_add_, lambda: (ri(-5, 5, 4, 3), ri(0, 4, 5, 3), ri(-5, 5, 5, 3))),
    case("scatter_reduce_sum", _scatter_reduce("sum", True), _scatter_reduce_inputs(torch.float32)),
    case("scatter_reduce_sum_exclude_self", _scatter_reduce("sum", False), _scatter_reduce_inputs(torch.float64)),
    case("scatter_reduce_prod", _scatter_reduce("prod", True), _scatter_reduce_inputs(torch.float64)),
    case("scatter_reduce_prod_exclude_self_int", _scatter_reduce("prod", False), _scatter_reduce_inputs(torch.int64)),
    case("scatter_reduce_mean", _scatter_reduce("mean", True), _scatter_reduce_inputs(torch.float32)),
    case("scatter_reduce_mean_exclude_self", _scatter_reduce("mean", False), _scatter_reduce_inputs(torch.float32)),
    case("scatter_reduce_mean_int", _scatter_reduce("mean", True), _scatter_reduce_inputs(torch.int64)),
    case("scatter_reduce_amax", _scatter_reduce("amax", True), _scatter_reduce_inputs(torch.float32)),
    case("scatter_reduce_amax_exclude_self", _scatter_reduce("amax", False), _scatter_reduce_inputs(torch.float32)),
    case("scatter_reduce_amin_int_exclude_self", _scatter_reduce("amin", False), _scatter_reduce_inputs(torch.int32)),
    case("scatter_reduce_untouched_rows", _scatter_reduce_empty_rows, lambda: (rn(4, 3), ri(0, 3, 5, 3), rn(5, 3))),
    case("scatter_reduce_string_modes", _scatter_reduce_string, lambda: (rn(3, 3), ri(0, 3, 4, 3), rn(4, 3))),
    case("scatter_reduce_amin_in_place", _scatter_reduce_, lambda: (rn(3, 4), ri(0, 4, 3, 6), rn(3, 6))),
]  # fmt: skip

SORT_SELECT = [
    case("sort_stable_ties", _sort_stable, lambda: (_ties_grid(),)),
    case("sort_values_with_ties", _sort_values, lambda: (_ties_grid(),)),
    case("sort_nan_and_inf", _sort_nan, lambda: (T([[3.0, NAN, -INF, 1.0, NAN, INF, 1.0], [NAN, 0.0, -0.0, 2.0, -1.0, NAN, 2.0]]),)),
    case("sort_int_and_bool", _sort_int, lambda: (ri(-3, 3, 3, 8), rn(2, 6) > 0)),
    case("sort_float64_descending", lambda x: torch.sort(x, -1, True), lambda: (rn(4, 9, dtype=torch.float64),)),
    case("argsort_descending_stable", lambda x: torch.argsort(x, dim=0, descending=True, stable=True), lambda: (_ties_grid(),)),
    case("topk_distinct", _topk_distinct, lambda: (rn(4, 6),)),
    case("topk_ties_values", _topk_ties, lambda: (_ties_grid(),)),
    case("topk_nan_values", _topk_nan, lambda: (_with_nan(rn(3, 5), (0, 1), (2, 4)),)),
    case("topk_int", lambda x: torch.topk(x, 3), lambda: (perm(20).reshape(4, 5),)),
    case("kthvalue_distinct", _kthvalue, lambda: (rn(4, 5),)),
    case("kthvalue_ties_values", _kthvalue_ties, lambda: (_ties_grid(),)),
    case("msort_float", torch.msort, lambda: (rn(5, 3),)),
    case("searchsorted_right_and_sorter", _searchsorted, _searchsorted_inputs),
    case("searchsorted_batched", _searchsorted_nd, lambda: (torch.sort(ri(0, 6, 2, 5).float()).values, ri(-1, 7, 2, 3).float())),
    case("bucketize", _bucketize, lambda: (T([[-1.0, 1.0, 3.0], [5.0, 7.0, 9.0]]), T([1.0, 3.0, 5.0, 7.0]))),
    case("bucketize_int", _bucketize, lambda: (ri(0, 10, 2, 5), T([1, 3, 3, 7]))),
    case("cummax_cummin_ties", _cum_ties, lambda: (_ties_grid(),)),
    case("cummax_cummin_nan", _cum_ties, lambda: (_with_nan(rn(4, 5), (1, 1), (2, 3), (0, 4)),)),
    case("cumsum_cumprod_ints", _cum_int, lambda: (ri(-3, 4, 3, 6), rn(2, 7) > 0, ri(-2, 3, 4, 5, dtype=torch.int32))),
]  # fmt: skip

VIEWS = [
    case("narrow_select_unfold", _views, lambda: (rn(4, 5, 6),)),
    case("diagonal_offsets", _diagonals, lambda: (rn(4, 5), rn(3, 4, 5))),
    case("views_then_compute", _views_then_compute, lambda: (rn(5, 7),)),
    case("write_through_views", _write_through_views, lambda: (rn(4, 5),)),
]  # fmt: skip

EXTRAS = [
    case("index_put_none_between_tensors", _index_put_slices_between, lambda: (rn(4, 3, 5), T([[0], [0], [-1]]), T([4, -1]), rn(3, 2, 3))),
    case("list_0d_bool_and_int32_index", _more_index_forms, lambda: (rn(4, 5, 4), T([3, 0, -1]))),
    case("scatter_reduce_nan_src", _scatter_reduce_nan, lambda: (rn(3, 4), T([[0, 1, 1, 2], [0, 1, 1, 2]]), T([[NAN, 1.0, NAN, -2.0], [5.0, NAN, 3.0, INF]]))),
    case("scatter_scalar_reduce", _scatter_value_reduce, lambda: (rn(3, 4), T([[0, 0, 3], [1, 1, 1], [2, 3, 2]]))),
    case("sort_signed_zeros", _signed_zero_sort, lambda: (T([0.0, -0.0, 1.0, -0.0, 0.0, -1.0, -0.0]),)),
    case("kthvalue_with_nan", _kthvalue_nan, lambda: (_with_nan(rn(3, 6), (0, 2), (1, 0), (1, 5)),)),
    case("cumprod_int_overflow", _cumprod_overflow, lambda: (T([[2**20, 3], [2**20, -7], [2**30, 11], [5, 13]]),)),
    case("views_of_transposed", _noncontig_views, lambda: (rn(5, 6),)),
]  # fmt: skip

CASES = INDEXING + SCATTER_GATHER + SORT_SELECT + VIEWS + EXTRAS


@pytest.mark.parametrize("c", CASES)
def test_matches_eager(c: Case) -> None:
    """All under `torch.no_grad()`; floats within torch.testing's defaults."""
    messages = compare_with_eager(c, SEED, options=OPTIONS, grad=False)
    warn_whole_graphs(messages)


def test_case_names_are_unique() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))
