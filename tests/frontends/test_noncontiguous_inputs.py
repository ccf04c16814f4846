"""Non-contiguous inputs through `torch.compile(backend="fxdsl")`, against
torch eager: a model hands the backend transposed, sliced, expanded and
channels-last tensors (torch's test_ops runs every OpInfo sample also as
`SampleInput.noncontiguous()`; `python -m fxdsl.testing.opinfo
--noncontiguous` is that sweep). Each row checks the values, the output
strides (eager's: an elementwise result in its transposed or channels-last
input's layout, a view of an input; code after a graph break may `.view()`
it) and that fxdsl's islands ran every operator (a fallback to torch would
match eager too).

torch is the `fxdsl[torch]` extra: skipped where it is missing, except
under CI (`fxdsl.testing.optional.need`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import fxdsl  # noqa: E402, F401  (registers the "fxdsl" backend)
from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402


def _transposed(rows: int, cols: int) -> Any:
    """A (rows, cols) tensor stored column-major (strides (1, rows))."""
    return torch.randn(cols, rows).t()


def _every_other_column(rows: int, cols: int) -> Any:
    """A (rows, cols) view of every other column of a (rows, 2 * cols) buffer."""
    return torch.randn(rows, 2 * cols)[:, ::2]


def _expanded(rows: int, cols: int) -> Any:
    """A (rows, cols) broadcast of one column (stride 0 along `cols`)."""
    return torch.randn(rows, 1).expand(rows, cols)


def _channels_last(*shape: int) -> Any:
    return torch.randn(*shape).to(memory_format=torch.channels_last)


CASES: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
    # name: (function, inputs)
    "matmul_transposed_lhs": (
        lambda a, b: a @ b,
        lambda: (_transposed(5, 7), torch.randn(7, 3)),
    ),
    "matmul_transposed_rhs": (
        lambda a, b: torch.mm(a, b),
        lambda: (torch.randn(5, 7), _transposed(7, 3)),
    ),
    "bmm_permuted": (
        lambda a, b: torch.bmm(a, b) + 1,
        lambda: (
            torch.randn(4, 2, 5).permute(1, 0, 2),
            torch.randn(2, 3, 5).transpose(1, 2),
        ),
    ),
    "addmm_strided_bias": (
        lambda bias, a, b: torch.addmm(bias, a, b),
        lambda: (_every_other_column(1, 3)[0], _transposed(4, 6), torch.randn(6, 3)),
    ),
    "sum_of_strided_slice": (
        lambda x: x.sum(1),
        lambda: (_every_other_column(6, 5),),
    ),
    "softmax_of_strided_slice": (
        lambda x: torch.softmax(x, -1),
        lambda: (_every_other_column(4, 9),),
    ),
    "amax_var_transposed": (
        lambda x: (x.amax(0), x.var(1)),
        lambda: (_transposed(6, 5),),
    ),
    "cumsum_transposed": (
        lambda x: torch.cumsum(x, 1),
        lambda: (_transposed(4, 6),),
    ),
    "expanded_broadcast_input": (
        lambda x, y: x * y + x.sum(),
        lambda: (_expanded(4, 5), torch.randn(4, 5)),
    ),
    "expanded_into_matmul": (
        lambda x, w: x @ w,
        lambda: (_expanded(3, 6), torch.randn(6, 2)),
    ),
    "elementwise_keeps_transposed_layout": (
        lambda x: torch.exp(x) * 2,
        lambda: (_transposed(5, 7),),
    ),
    "elementwise_keeps_channels_last": (
        lambda x: torch.relu(x) + 1,
        lambda: (_channels_last(2, 3, 4, 5),),
    ),
    "transpose_view_of_strided_input": (
        lambda x: x.transpose(0, 1),
        lambda: (_every_other_column(3, 4),),
    ),
    "conv2d_channels_last": (
        lambda x, w, b: torch.nn.functional.conv2d(x, w, b, padding=1),
        lambda: (_channels_last(2, 3, 6, 6), torch.randn(4, 3, 3, 3), torch.randn(4)),
    ),
    "layer_norm_transposed": (
        lambda x, w, b: torch.nn.functional.layer_norm(x, (4,), w, b),
        lambda: (torch.randn(4, 3, 5).permute(2, 1, 0), torch.randn(4), torch.randn(4)),
    ),
    "cat_of_strided_inputs": (
        lambda a, b: torch.cat([a, b], 1) * 3,
        lambda: (_transposed(3, 4), _every_other_column(3, 2)),
    ),
    "gather_strided_index": (
        lambda x, i: torch.gather(x, 1, i),
        lambda: (_transposed(4, 5), torch.randint(0, 5, (4, 6))[:, ::2]),
    ),
    # Dynamo hands `diagonal` and `unfold` over as `as_strided` of the
    # strided input itself: its storage has gaps, each read maps back to
    # the input element holding it (was refused: only a dense input)
    "diagonal_of_strided_slice": (
        lambda x: torch.diagonal(x) * 2,
        lambda: (_every_other_column(5, 5),),
    ),
    "trace_of_transposed_slice": (
        lambda x: torch.trace(x),
        lambda: (_every_other_column(4, 4).t(),),
    ),
    "unfold_of_strided_slice": (
        lambda x: x.unfold(1, 3, 2) + 1,
        lambda: (_every_other_column(3, 7),),
    ),
    # torch's decomposition keeps a transposed (dense) input's layout with
    # `prims.copy_strided` (was: no mapping, a fallback to torch)
    "index_fill_of_transposed": (
        lambda x, i: x.index_fill(1, i, -1.0),
        lambda: (_transposed(4, 5), torch.tensor([0, 3])),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_eager(name: str) -> None:
    function, inputs = CASES[name]
    torch.manual_seed(0)
    args = inputs()
    assert not all(a.is_contiguous() for a in args), "a row needs a strided input"
    expected = function(*args)
    counted = Outcome()
    torch._dynamo.reset()
    try:
        compiled = torch.compile(function, backend="fxdsl", fullgraph=True)
        with counting_plans(counted), torch.no_grad():
            got = compiled(*args)
    finally:
        torch._dynamo.reset()
    want = expected if isinstance(expected, tuple) else (expected,)
    have = got if isinstance(got, tuple) else (got,)
    assert len(have) == len(want)
    for g, w in zip(have, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
        assert g.stride() == w.stride(), (g.stride(), w.stride())
    assert not counted.in_torch, counted.summary()
