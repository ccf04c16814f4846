"""Gradients torch has no decomposition for, compiled by fxdsl: a training
step through `torch.compile(backend="fxdsl")` runs every operator in fxdsl
and gives autograd's gradients.

* `cdist` and `pdist` (`aten_distance_backward`) for every p torch's
  kernels tell apart (0, below 1, below 2, 2, above 2, inf), with zero
  distances (a row repeated) and ties of the max-norm, and an empty
  batch;
* `masked_scatter`'s source (`aten_masked_scatter_backward`), the mask
  broadcast, the source longer than the mask's count;
* antialiased bilinear resizing (`_upsample_bilinear2d_aa_backward`);
* `segment_reduce`'s data (`aten_segment_reduce_backward`) for every
  reduction, with ties (split only where the gradient is positive, as
  torch's kernel does), one and two zeros in a product, an empty segment,
  offsets that skip elements, and segments batched over a leading dim;
* a known-zero gradient (`_efficientzerotensor`: `sgn`'s backward)."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
F = torch.nn.functional


def _check(loss: Any, *inputs: Any, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    loss(*inputs).backward()
    want = [t.grad for t in inputs]
    for t in inputs:
        t.grad = None
    outcome = Outcome()
    with counting_plans(outcome):
        torch.compile(loss, backend="fxdsl")(*inputs).backward()
    for w, t in zip(want, inputs, strict=True):
        torch.testing.assert_close(t.grad, w, rtol=rtol, atol=atol)
    assert outcome.compiled == outcome.total, outcome.summary()


def _rows(*shape: int) -> Any:
    """Rows on a coarse grid (ties in a coordinate, a zero distance: the
    last row repeats the first)."""
    torch.manual_seed(0)
    x = torch.randint(-3, 4, shape).float() / 2
    x[..., -1, :] = x[..., 0, :]
    return x


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_cdist_gradients(p: float) -> None:
    x1 = _rows(2, 5, 3).requires_grad_(True)
    x2 = torch.cat([x1.detach()[:, :2], _rows(2, 4, 3) + 0.25], 1).requires_grad_(True)
    weight = torch.linspace(0.5, 1.5, 6)

    def loss(x1: Any, x2: Any) -> Any:
        return (torch.cdist(x1, x2, p=p) * weight).sum()

    _check(loss, x1, x2)


def test_cdist_gradient_of_an_empty_batch() -> None:
    """x1 (3, 5) broadcast against x2 (0, 4, 5): torch's kernel gives x1
    zeros of its own shape, not of the (empty) broadcast one (OpInfo's
    10th sample: the importer's shape check refused it)."""
    x1 = torch.randn(3, 5, requires_grad=True)
    x2 = torch.randn(0, 4, 5, requires_grad=True)

    def loss(x1: Any, x2: Any) -> Any:
        return torch.cdist(x1, x2).sum() + x1.sum()

    _check(loss, x1, x2)


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 3.0, float("inf")])
def test_pdist_gradients(p: float) -> None:
    x = _rows(6, 4).requires_grad_(True)
    weight = torch.linspace(0.5, 1.5, 15)

    def loss(x: Any) -> Any:
        return (F.pdist(x, p=p) * weight).sum()

    _check(loss, x)


def test_masked_scatter_source_gradient() -> None:
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    source = torch.randn(20, requires_grad=True)  # more than the 8 taken
    mask = torch.tensor([True, False, True, True])  # broadcast over rows

    def loss(x: Any, source: Any) -> Any:
        out = x.masked_scatter(mask, source.view(4, 5))
        return (out * torch.arange(12.0).view(3, 4)).sum()

    _check(loss, x, source)


@pytest.mark.parametrize(
    ("size", "align_corners"), [((5, 7), False), ((11, 3), True), ((16, 12), False)]
)
def test_antialiased_resize_gradient(
    size: tuple[int, int], align_corners: bool
) -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 3, 9, 8, requires_grad=True)
    weight = torch.randn(size)

    def loss(x: Any) -> Any:
        out = F.interpolate(
            x, size=size, mode="bilinear", antialias=True, align_corners=align_corners
        )
        return (out * weight).sum()

    _check(loss, x)


def test_known_zero_gradient() -> None:
    x = torch.randn(6, requires_grad=True)

    def loss(x: Any) -> Any:
        return (torch.sgn(x) * 3 + x * x).sum()

    _check(loss, x)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(reduction="mean"),
        dict(reduction="sum", ignore_index=2),
        dict(reduction="mean", weight=True, bias=True),
    ],
    ids=["mean", "sum-ignore", "weighted-bias"],
)
def test_chunked_linear_cross_entropy_trains(kwargs: dict[str, Any]) -> None:
    """`F.linear_cross_entropy(..., options=...)`'s chunked op computes the
    gradients it is asked for in its forward (its backward only scales
    them): fxdsl computes them too, with the loss."""
    torch.manual_seed(0)
    x = torch.randn(6, 8, requires_grad=True)
    w = torch.randn(5, 8, requires_grad=True)
    b = torch.randn(5, requires_grad=True) if kwargs.get("bias") else None
    target = torch.tensor([0, 2, 4, 1, 2, 3])
    weight = torch.rand(5) + 0.5 if kwargs.get("weight") else None
    options = torch.nn.LinearCrossEntropyOptions()
    extra = {k: v for k, v in kwargs.items() if k in ("reduction", "ignore_index")}

    def loss(*inputs: Any) -> Any:
        x, w, *rest = inputs
        return F.linear_cross_entropy(
            x, w, target, linear_bias=rest[0] if rest else None, weight=weight,
            options=options, **extra,
        ) * 2.5  # fmt: skip

    _check(loss, *(t for t in (x, w, b) if t is not None))


_SEGMENTED = [2.0, 5.0, 5.0, 0.0, 3.0, 0.0, 0.0, 4.0, -2.0, 1.0]
"""Segments of lengths (3, 3, 0, 2, 2): a tied maximum, two zeros (a tied
minimum), an empty one, one zero, and a plain pair."""
_SEGMENT_BOUNDS = {
    "lengths": {"lengths": torch.tensor([3, 3, 0, 2, 2])},
    "offsets": {"offsets": torch.tensor([0, 3, 6, 6, 8, 10])},
    "offsets skipping": {"offsets": torch.tensor([1, 3, 6, 9])},
}


@pytest.mark.parametrize("bounds", sorted(_SEGMENT_BOUNDS))
@pytest.mark.parametrize(
    ("reduce", "initial"),
    [("sum", None), ("mean", None), ("max", None), ("min", None),
     ("max", 4.0), ("prod", None), ("prod", 2.0)],
)  # fmt: skip
def test_segment_reduce_gradient(reduce: str, initial: Any, bounds: str) -> None:
    data = torch.tensor(_SEGMENTED, requires_grad=True)
    kwargs = dict(_SEGMENT_BOUNDS[bounds], initial=initial)
    segments = torch.segment_reduce(data.detach(), reduce, **kwargs).shape[0]
    # mixed signs: a negative gradient is not split among ties
    weight = torch.linspace(-1.0, 1.5, segments)

    def loss(data: Any) -> Any:
        out = torch.segment_reduce(data, reduce, **kwargs)
        return (torch.where(out.isfinite(), out, 0) * weight).sum()

    _check(loss, data)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce_gradient_batched(reduce: str) -> None:
    """Lengths per row of the leading dim, segments along axis 1 of a 3-D
    tensor (its last dim rides along)."""
    torch.manual_seed(0)
    data = (torch.randint(-2, 3, (2, 6, 3)).float() / 2).requires_grad_(True)
    lengths = torch.tensor([[2, 0, 4], [3, 3, 0]])
    weight = torch.linspace(-1.0, 1.0, 18).reshape(2, 3, 3)

    def loss(data: Any) -> Any:
        out = torch.segment_reduce(data, reduce, lengths=lengths, axis=1)
        return (torch.where(out.isfinite(), out, 0) * weight).sum()

    _check(loss, data)
