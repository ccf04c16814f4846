"""Fractional max pooling (Graham 2014), 2-D and 3-D, with its random
samples as an operand (`F.fractional_max_pool2d` draws them with
`torch.rand` before the ATen op, which `aten_random` imports).

Each (batch, channel) plane has one sample u per pooled dim; window i of a
dim of input size n, output size m and pool size k starts at

    trunc((i + u) alpha) - trunc(u alpha),  alpha = (n - k) / (m - 1),

the last at n - k (torch's `generate_intervals`, in the samples' type).
Every start is computed elementwise, the windows' elements are gathered
from the flattened plane, and the maximum is taken in window order as
torch's kernel does: a larger value or a NaN takes over, so the first
maximum (the last NaN) gives the index, flat in the plane.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from fxdsl.frontends.aten_math import trunc
from fxdsl.frontends.aten_registry import AtenCall, aten, cast_to
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}
"""Which sample of a plane each pooled dim takes (2-D: W is sample 0, H is
sample 1; 3-D: T, H, W in order), as torch's kernels read them."""


def _starts(u: Tensor, size: int, out: int, pool: int) -> Tensor:
    """The window starts along one dim: (..., out) i64 from u (...)."""
    if out == 1:
        return ops.full([*u.shape, 1], size - pool, "i64")
    alpha = ops.div(ops.full([], float(size - pool), u.dtype), float(out - 1))
    shape = [*u.shape, 1]
    u = ops.reshape(u, shape)
    positions = ops.constant([float(i) for i in range(out - 1)], u.dtype)
    first = ops.cast(trunc(ops.mul(ops.add(positions, u), alpha)), "i64")
    shift = ops.cast(trunc(ops.mul(u, alpha)), "i64")
    inner = ops.sub(first, shift)
    last = ops.full(shape, size - pool, "i64")
    return ops.concat([inner, last], -1)


def fractional_max_pool(
    x: Tensor, pool: list[int], out: list[int], samples: Tensor
) -> tuple[Tensor, Tensor]:
    """(values, flat indices) of x (N, C, *spatial) or (C, *spatial)."""
    rank = len(pool)
    batched = x.ndim == rank + 2
    if not batched:  # the samples are (1, C, rank) still
        x = ops.reshape(x, [1, *x.shape])
    lead = [int(d) for d in x.shape[:2]]
    spatial = [int(d) for d in x.shape[2:]]
    starts = []
    for d in range(rank):
        which = SAMPLE_OF_DIM[rank][d]
        start, limit = [0, 0, which], [*lead, which + 1]
        u = ops.reshape(ops.slice(samples, start, limit), lead)
        starts.append(_starts(u, spatial[d], out[d], pool[d]))
    strides = [math.prod(spatial[d + 1 :]) for d in range(rank)]
    flat_shape = [*lead, math.prod(spatial)]
    plane = ops.reshape(x, flat_shape)
    best: Any = None
    index: Any = None
    for offsets in itertools.product(*(range(k) for k in pool)):
        position = None
        for d in range(rank):
            along = ops.mul(ops.add(starts[d], offsets[d]), strides[d])
            view = [*lead, *(out[e] if e == d else 1 for e in range(rank))]
            along = ops.reshape(along, view)
            position = along if position is None else ops.add(position, along)
        position = ops.add(position, ops.full([*lead, *out], 0, "i64"))
        flat = ops.reshape(position, [*lead, math.prod(out)])
        value = ops.reshape(ops.gather(plane, 2, flat), [*lead, *out])
        if best is None:
            best, index = value, position
            continue
        take = ops.logical_or(ops.gt(value, best), ops.ne(value, value))
        best = ops.where(take, value, best)
        index = ops.where(take, position, index)
    if not batched:
        best, index = (ops.reshape(t, [*t.shape[1:]]) for t in (best, index))
    return best, index


@aten("fractional_max_pool2d.default", "fractional_max_pool3d.default")
def _fractional_max_pool(call: AtenCall) -> tuple[Tensor, Tensor]:
    x, pool, out, samples = call.args[:4]
    return fractional_max_pool(
        x, [int(k) for k in pool], [int(o) for o in out], cast_to(samples, x.dtype)
    )
