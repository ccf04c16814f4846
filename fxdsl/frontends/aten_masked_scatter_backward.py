"""`masked_scatter_backward` (the gradient of `masked_scatter`'s source)
for `aten_decompositions.OWN`, in torch ops: the source's k-th element
went to the k-th true position of the mask (row-major, the mask broadcast
to the output's shape), so its gradient is the output's gradient there;
source elements past the mask's count got nowhere and get zeros. The k of
each true position is a cumulative sum of the mask, so the gather is a
`scatter_add` into the flat source (false positions add zero at 0).
"""

from __future__ import annotations

import math
from typing import Any


def _masked_scatter_backward(grad: Any, mask: Any, sizes: list[int]) -> Any:
    import torch

    flat = torch.broadcast_to(mask, grad.shape).reshape(-1)
    order = torch.cumsum(flat.long(), 0) - 1
    count = math.prod(int(n) for n in sizes)
    # a true position past the source's size takes nothing (torch checks
    # that the source is large enough; this only keeps the index in range)
    taken = flat & (order < count)
    values = torch.where(taken, grad.reshape(-1), 0)
    source = grad.new_zeros((count,))
    return source.scatter_add(0, torch.where(taken, order, 0), values).reshape(sizes)


DECOMPOSITIONS = {"aten.masked_scatter_backward.default": _masked_scatter_backward}
