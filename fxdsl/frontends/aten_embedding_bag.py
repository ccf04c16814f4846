"""`embedding_bag` in training, for `aten_decompositions.OWN`: the forward
with the three results its backward reads, and the backward ops, as torch
computes them (DLRM's sparse features train through these).

`aten_compute`'s handler imports the bags themselves as graph ops. When a
graph reads the other results (AOTAutograd saves them for the backward),
that handler defers here (`Decompose`): `_embedding_bag` in torch ops,
which the importer traces and imports like any decomposition, giving
every result as torch's CPU kernel does, so a backward that stays in
torch reads what it expects:

* `offset2bag` (L,): the bag of each index (the last of equal offsets);
  empty in sum mode without `padding_idx`, as the kernel leaves it;
* `bag_size` (B,): the indices each bag counts (padding not counted); zeros
  in sum mode;
* `max_indices`: in max mode (B, D), the weight row each maximum came from
  (the first of equal values; 0 for an empty bag); in mean mode a copy of
  `bag_size`; zeros in sum mode.

The backward, `_embedding_bag_backward`, recomputes bag membership from
the offsets (so it reads none of the quirks above but max mode's
indices): each index's row gets its bag's gradient (divided by the bag's
size in mean mode, times its per-sample weight), summed per weight row
by `index_add`; in max mode each maximum's row gets the gradient of its bag
and feature. `_embedding_bag_per_sample_weights_backward` is the dot
product of each index's bag gradient with its row. Sparse gradients
(`sparse=True`) have no graph form; `scale_grad_by_freq` stays in torch
(its CPU kernel divides by other counts than each index's frequency).

With `include_last_offset` the last offset is documented to be the end of
the indices; a shorter one is read as the end of the last bag (torch's sum
kernel reads it so; its mean and max kernels do not agree with it).
"""

from __future__ import annotations

from typing import Any

from fxdsl.frontends.aten_ops import UnsupportedNode

_SUM, _MEAN, _MAX = 0, 1, 2


def _bag_of(indices: Any, offsets: Any, bags: int, padding_idx: int) -> tuple[Any, Any]:
    """Each index's bag (the last bag whose offset it reaches) and whether
    that bag counts it: it lies in a bag (not before the first offset;
    before `offsets[bags]` with `include_last_offset`, documented to be the
    end) and is not `padding_idx`."""
    import torch

    position = torch.arange(indices.shape[0], device=indices.device)
    starts = offsets[:bags]
    bag = (starts.unsqueeze(0) <= position.unsqueeze(1)).sum(1) - 1
    kept = bag >= 0
    if offsets.shape[0] > bags:  # include_last_offset: the last offset ends it
        kept = kept & (position < offsets[bags])
    if padding_idx >= 0:
        kept = kept & (indices != padding_idx)
    return bag.clamp(min=0), kept


def _sizes(bag: Any, kept: Any, bags: int) -> Any:
    import torch

    return torch.zeros(bags, dtype=torch.int64, device=bag.device).index_add(
        0, bag, kept.long()
    )


def _embedding_bag(
    weight: Any,
    indices: Any,
    offsets: Any,
    scale_grad_by_freq: bool = False,
    mode: int = _SUM,
    sparse: bool = False,
    per_sample_weights: Any = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[Any, Any, Any, Any]:
    """`aten._embedding_bag` with all four results (the module docstring)."""
    import torch

    if indices.dim() != 1:
        raise UnsupportedNode("embedding_bag with 2-D indices in training")
    bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    bag, kept = _bag_of(indices, offsets, bags, padding_idx)
    sizes = _sizes(bag, kept, bags)
    member = (bag.unsqueeze(0) == torch.arange(bags).unsqueeze(1)) & kept  # (B, L)
    rows = weight[indices]  # (L, D)
    if mode == _MAX:
        picked = torch.where(member.unsqueeze(2), rows.unsqueeze(0), -torch.inf)
        largest, at = picked.max(1)  # (B, D): the value and its position
        empty = (sizes == 0).unsqueeze(1)
        result = torch.where(empty, 0.0, largest).to(weight.dtype)
        max_indices = torch.where(empty, 0, indices[at])
    else:
        share = member.to(weight.dtype)
        if per_sample_weights is not None:
            share = share * per_sample_weights.to(weight.dtype).unsqueeze(0)
        result = share @ rows
        if mode == _MEAN:
            result = result / sizes.clamp(min=1).unsqueeze(1).to(weight.dtype)
        max_indices = sizes if mode == _MEAN else torch.zeros_like(sizes)
    if mode == _SUM:
        sizes = torch.zeros_like(sizes)
    offset2bag = bag
    if mode == _SUM and padding_idx < 0:
        offset2bag = indices.new_empty((0,))
    return result, offset2bag, sizes, max_indices


def _embedding_bag_backward(
    grad: Any,
    indices: Any,
    offsets: Any,
    offset2bag: Any,
    bag_size: Any,
    maximum_indices: Any,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: Any,
    padding_idx: int = -1,
) -> Any:
    """The gradient of `_embedding_bag`'s weight (the module docstring)."""
    import torch

    if sparse:
        raise UnsupportedNode("embedding_bag's sparse gradient has no graph form")
    bags = grad.shape[0]
    bag, kept = _bag_of(indices, offsets, bags, padding_idx)
    table = grad.new_zeros((num_weights, grad.shape[1]))
    if scale_grad_by_freq:
        # torch's CPU kernel divides a row's gradient by another index's
        # count (indices [2, 0, 1, 1] in one bag: row 2 gets half); left to
        # torch, the gradient stays eager's
        raise UnsupportedNode(
            "embedding_bag's scale_grad_by_freq (torch's CPU kernel scales by "
            "other counts than each index's frequency)"
        )
    if mode == _MAX:
        full = (_sizes(bag, kept, bags) > 0).unsqueeze(1)
        return table.scatter_add(0, maximum_indices, torch.where(full, grad, 0.0))
    rows = grad[bag]  # (L, D)
    if mode == _MEAN:
        sizes = _sizes(bag, kept, bags).clamp(min=1)
        rows = rows / sizes[bag].unsqueeze(1).to(grad.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.to(grad.dtype).unsqueeze(1)
    return table.index_add(0, indices, torch.where(kept.unsqueeze(1), rows, 0.0))


def _per_sample_weights_backward(
    grad: Any,
    weight: Any,
    indices: Any,
    offsets: Any,
    offset2bag: Any,
    mode: int,
    padding_idx: int = -1,
) -> Any:
    """The gradient of `_embedding_bag`'s per-sample weights (sum mode):
    each index's bag gradient dotted with its weight row; 0 at padding."""
    import torch

    if mode != _SUM:
        raise UnsupportedNode("per_sample_weights are only defined in sum mode")
    bag, kept = _bag_of(indices, offsets, grad.shape[0], padding_idx)
    dots = (grad[bag] * weight[indices].to(grad.dtype)).sum(1)
    return torch.where(kept, dots, 0.0)


DECOMPOSITIONS = {
    "aten._embedding_bag.default": _embedding_bag,
    "aten._embedding_bag_forward_only.default": _embedding_bag,
    "aten._embedding_bag_backward.default": _embedding_bag_backward,
    "aten._embedding_bag_per_sample_weights_backward.default": (
        _per_sample_weights_backward
    ),
}
