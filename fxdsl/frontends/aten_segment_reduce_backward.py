"""`_segment_reduce_backward` (the gradient of `torch.segment_reduce`'s
data) for `aten_decompositions.OWN`, in torch ops, as torch's CPU kernel
computes it. Which segment an element lies in is a (segment, element) mask
built from `lengths` or `offsets` (a set of segments per index of the
dims before `axis`), as the forward's mapping (`aten_counting`) builds
it; each element takes its segment's gradient:

* sum: the gradient; mean: the gradient over the segment's length;
* max / min: the gradient where the element equals the result or is NaN,
  split evenly among several such elements, but only when it is positive
  (the kernel divides the stored gradients that are > 0; a negative one
  is given whole to every tied element);
* prod: gradient x result / element; for a zero or NaN element (where that
  division fails) the gradient x the product of the segment's other
  elements, times `initial` when given.

An element outside every segment (offsets that skip some) gets zero.
torch has no decomposition of it; its kernel was one op the importer could
not take, splitting a training step's backward around it.
"""

from __future__ import annotations

from typing import Any

from fxdsl.frontends.aten_ops import UnsupportedNode


def _segment_reduce_backward(
    grad: Any,
    output: Any,
    data: Any,
    reduce: str,
    *,
    lengths: Any = None,
    offsets: Any = None,
    axis: int = 0,
    initial: Any = None,
) -> Any:
    import torch

    axis %= data.dim()
    bounds = lengths if lengths is not None else offsets
    if bounds is None or tuple(bounds.shape[:-1]) != tuple(data.shape[:axis]):
        raise UnsupportedNode(
            "segment_reduce's lengths or offsets must have the data's dims "
            "before axis, then the segments"
        )
    if lengths is not None:
        end = torch.cumsum(lengths, -1)
        start = end - lengths
    else:
        start, end = offsets[..., :-1], offsets[..., 1:]
    # (..., k, 1): the bounds' batch dims, then one per data dim after axis
    trailing = (1,) * (data.dim() - 1 - axis)
    start = start.reshape(*start.shape[:-1], *trailing, -1, 1)
    end = end.reshape(start.shape)
    position = torch.arange(data.shape[axis], device=data.device)
    hit = (position >= start) & (position < end)  # (..., k, n)
    x = data.movedim(axis, -1).unsqueeze(-2)  # (..., 1, n)
    g = grad.movedim(axis, -1).unsqueeze(-1)  # (..., k, 1)
    result = output.movedim(axis, -1).unsqueeze(-1)  # (..., k, 1)
    if reduce == "sum":
        per = g
    elif reduce == "mean":
        per = g / (end - start)
    elif reduce in ("max", "min"):
        match = hit & (torch.isnan(x) | (x == result))
        count = match.sum(-1, keepdim=True)
        per = torch.where(match, torch.where((count >= 2) & (g > 0), g / count, g), 0)
    elif reduce == "prod":
        per = torch.where(
            torch.isnan(x) | (x == 0),
            g * _others_product(x.squeeze(-2), hit, initial).unsqueeze(-2),
            (g * result) / x,
        )
    else:
        raise UnsupportedNode(f"segment_reduce's gradient with reduce={reduce!r}")
    data_grad = torch.where(hit, per, 0).sum(-2)  # each element: one segment
    return data_grad.movedim(-1, axis).to(data.dtype)


def _others_product(x: Any, hit: Any, initial: Any) -> Any:
    """(..., n): for each element, the product of the other elements of its
    segment (times `initial`, when given), over every (element, element)
    pair of one segment."""
    import torch

    k, n = hit.shape[-2:]
    index = torch.arange(k, device=x.device)[:, None]
    segment = torch.where(hit, index, 0).sum(-2)  # (..., n); -1 - j: in none
    segment = torch.where(hit.any(-2), segment, -1 - torch.arange(n, device=x.device))
    others = (segment.unsqueeze(-1) == segment.unsqueeze(-2)) & ~torch.eye(
        n, dtype=torch.bool, device=x.device
    )
    product = torch.where(others, x.unsqueeze(-2), 1).prod(-1)
    return product if initial is None else product * initial


DECOMPOSITIONS = {
    "aten._segment_reduce_backward.default": _segment_reduce_backward,
}
