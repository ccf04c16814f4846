"""Shape and dtype rules of the graph dialect, on plain tuples.

One place states what shape every op produces; the dialect verifiers, the
tracer and the interpreter all call these functions, so the three cannot drift.
Every rule raises `ShapeError` with a message that names what it expected and
what it got; callers prefix the op name.
"""

from __future__ import annotations

from collections.abc import Sequence

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """An operand shape or an op parameter that the op's rule rejects."""


def broadcast_shapes(*shapes: Shape) -> Shape:
    """numpy broadcasting of any number of shapes (trailing dims aligned)."""
    rank = max((len(s) for s in shapes), default=0)
    result: list[int] = []
    for axis in range(rank):
        size = 1
        for shape in shapes:
            offset = axis - (rank - len(shape))
            if offset < 0:
                continue
            dim = shape[offset]
            if dim == size or dim == 1:
                continue
            if size != 1:
                raise ShapeError(f"shapes {_fmt_all(shapes)} do not broadcast")
            size = dim
        result.append(size)
    return tuple(result)


def can_broadcast_to(shape: Shape, target: Shape) -> bool:
    """True when numpy's broadcast_to(shape -> target) is legal."""
    if len(shape) > len(target):
        return False
    tail = target[len(target) - len(shape) :]
    return all(s == t or s == 1 for s, t in zip(shape, tail))


def check_dims(dims: Sequence[int], rank: int) -> None:
    """Dims must be distinct and in [0, rank)."""
    for dim in dims:
        if not 0 <= dim < rank:
            raise ShapeError(f"dim {dim} out of range for rank {rank}")
    if len(set(dims)) != len(dims):
        raise ShapeError(f"dims {list(dims)} repeat a dim")


def reduce_shape(shape: Shape, dims: Sequence[int], keepdim: bool) -> Shape:
    """Shape after reducing `dims` (all dims when `dims` is empty)."""
    check_dims(dims, len(shape))
    reduced = set(dims) if dims else set(range(len(shape)))
    if keepdim:
        return tuple(1 if i in reduced else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in reduced)


def matmul_dims(
    lhs: Shape, rhs: Shape, names: tuple[str, str] = ("lhs", "rhs")
) -> tuple[Shape, int, int]:
    """numpy.matmul's (batch, M, N) with 1-D operands promoted (a 1-D lhs is
    one row, a 1-D rhs one column): the product is `batch + (M, N)` before
    `matmul_shape` drops the promoted dims.

    `names` describe the operands in messages (the verifier passes their types).
    """
    if not lhs or not rhs:
        raise ShapeError(f"operands must have rank >= 1: {names[0]}, {names[1]}")
    lhs2 = (1, *lhs) if len(lhs) == 1 else lhs
    rhs2 = (*rhs, 1) if len(rhs) == 1 else rhs
    if lhs2[-1] != rhs2[-2]:
        raise ShapeError(
            f"contracting dims differ: {names[0]} has {lhs2[-1]}, "
            f"{names[1]} has {rhs2[-2]}"
        )
    return broadcast_shapes(lhs2[:-2], rhs2[:-2]), lhs2[-2], rhs2[-1]


def matmul_shape(
    lhs: Shape, rhs: Shape, names: tuple[str, str] = ("lhs", "rhs")
) -> Shape:
    """numpy.matmul: 1-D operands are promoted and the promoted dim dropped."""
    batch, m, n = matmul_dims(lhs, rhs, names)
    rows = (m,) if len(lhs) > 1 else ()
    cols = (n,) if len(rhs) > 1 else ()
    return (*batch, *rows, *cols)


def linear_shape(x: Shape, weight: Shape, bias: Shape | None) -> Shape:
    """x @ weight^T (+ bias): weight is (out, in), bias (out,)."""
    if len(weight) != 2:
        raise ShapeError(f"weight must be 2-D (out, in), got rank {len(weight)}")
    if not x or x[-1] != weight[1]:
        raise ShapeError(
            f"input features {x[-1] if x else None} != weight in-features {weight[1]}"
        )
    if bias is not None and bias != (weight[0],):
        raise ShapeError(f"bias must have shape ({weight[0]},), got {bias}")
    return (*x[:-1], weight[0])


def transpose_shape(shape: Shape, perm: Sequence[int]) -> Shape:
    if sorted(perm) != list(range(len(shape))):
        raise ShapeError(f"perm {list(perm)} is not a permutation of rank {len(shape)}")
    return tuple(shape[p] for p in perm)


def slice_shape(
    shape: Shape, start: Sequence[int], limit: Sequence[int], step: Sequence[int]
) -> Shape:
    """Basic slicing with non-negative start <= limit <= size and step >= 1."""
    if not len(start) == len(limit) == len(step) == len(shape):
        raise ShapeError(
            f"start/limit/step need {len(shape)} entries each, got "
            f"{len(start)}/{len(limit)}/{len(step)}"
        )
    out: list[int] = []
    for axis, (size, lo, hi, st) in enumerate(zip(shape, start, limit, step)):
        if st < 1 or not 0 <= lo <= hi <= size:
            raise ShapeError(
                f"dim {axis}: need 0 <= start <= limit <= {size} and step >= 1, "
                f"got start {lo}, limit {hi}, step {st}"
            )
        out.append((hi - lo + st - 1) // st)
    return tuple(out)


def concat_shape(shapes: Sequence[Shape], dim: int) -> Shape:
    if not shapes:
        raise ShapeError("needs at least one input")
    first = shapes[0]
    check_dims([dim], len(first))
    for shape in shapes[1:]:
        same_rank = len(shape) == len(first)
        if not same_rank or any(
            a != b for i, (a, b) in enumerate(zip(shape, first)) if i != dim
        ):
            raise ShapeError(
                f"inputs {_fmt_all(shapes)} differ outside concat dim {dim}"
            )
    return tuple(
        sum(s[dim] for s in shapes) if i == dim else d for i, d in enumerate(first)
    )


def split_shapes(shape: Shape, dim: int, sizes: Sequence[int]) -> list[Shape]:
    check_dims([dim], len(shape))
    if sum(sizes) != shape[dim] or any(s < 0 for s in sizes):
        raise ShapeError(
            f"sizes {list(sizes)} must be >= 0 and sum to dim {dim} size {shape[dim]}"
        )
    return [tuple(s if i == dim else d for i, d in enumerate(shape)) for s in sizes]


def gather_shape(shape: Shape, dim: int, index: Shape) -> Shape:
    """torch.gather: result has the index's shape."""
    check_dims([dim], len(shape))
    if len(index) != len(shape):
        raise ShapeError(f"index rank {len(index)} != input rank {len(shape)}")
    for axis, (i, s) in enumerate(zip(index, shape)):
        if axis != dim and i > s:
            raise ShapeError(f"index dim {axis} size {i} exceeds input size {s}")
    return index


def index_shape(shape: Shape, dims: Sequence[int], indices: Sequence[Shape]) -> Shape:
    """torch's advanced indexing (`aten.index.Tensor`, numpy's rule too): the
    index tensors of increasing `dims` broadcast together; that shape
    replaces the indexed dims in place when they are adjacent, else it
    comes first, followed by the other dims."""
    if not dims:
        raise ShapeError("needs at least one index tensor")
    if len(dims) != len(indices):
        raise ShapeError(f"{len(indices)} index tensors for dims {list(dims)}")
    check_dims(dims, len(shape))
    if list(dims) != sorted(dims):
        raise ShapeError(f"dims {list(dims)} must be increasing")
    indexed = broadcast_shapes(*indices)
    first, last = dims[0], dims[-1]
    if last - first + 1 == len(dims):
        return (*shape[:first], *indexed, *shape[last + 1 :])
    return (*indexed, *(d for i, d in enumerate(shape) if i not in dims))


def embedding_shape(indices: Shape, weight: Shape) -> Shape:
    if len(weight) != 2:
        raise ShapeError(f"weight must be 2-D (num, dim), got rank {len(weight)}")
    return (*indices, weight[1])


def layer_norm_check(x: Shape, weight: Shape, bias: Shape) -> None:
    """weight and bias give the normalized trailing dims of x."""
    n = len(weight)
    if n == 0 or n > len(x) or x[len(x) - n :] != weight:
        raise ShapeError(f"weight shape {weight} is not a trailing part of {x}")
    if bias != weight:
        raise ShapeError(f"bias shape {bias} != weight shape {weight}")


def reshape_check(shape: Shape, target: Shape) -> None:
    if _numel(shape) != _numel(target):
        raise ShapeError(
            f"element count differs: {shape} has {_numel(shape)}, "
            f"{target} has {_numel(target)}"
        )


def _numel(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _fmt_all(shapes: Sequence[Shape]) -> str:
    return ", ".join(str(tuple(s)) for s in shapes)


# --------------------------------------------------------------------------- #
# Convolution and pooling (NC + spatial dims)
# --------------------------------------------------------------------------- #


def window_out_size(
    size: int, kernel: int, stride: int, padding: int, dilation: int, ceil: bool
) -> int:
    """Output length of a sliding window along one dim, torch's formula:
    `(size + 2 padding - dilation (kernel - 1) - 1) / stride + 1`, rounded
    down, or up with `ceil` (pooling's ceil_mode, where the last window must
    still start inside the input or its left padding)."""
    room = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (room + (stride - 1 if ceil else 0)) // stride + 1
    if ceil and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _check_window(
    spatial: Shape,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> None:
    rank = len(spatial)
    for name, values in (
        ("kernel", kernel),
        ("stride", stride),
        ("padding", padding),
        ("dilation", dilation),
    ):
        if len(values) != rank:
            raise ShapeError(
                f"{name} needs {rank} entries (one per spatial dim), got {list(values)}"
            )
    if any(k < 1 for k in kernel) or any(s < 1 for s in stride):
        raise ShapeError(
            f"kernel and stride must be >= 1, got {list(kernel)} and {list(stride)}"
        )
    if any(d < 1 for d in dilation) or any(p < 0 for p in padding):
        raise ShapeError(
            f"dilation must be >= 1 and padding >= 0, got {list(dilation)} and "
            f"{list(padding)}"
        )


def window_shape(
    spatial: Shape,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil: bool = False,
) -> Shape:
    """The spatial output shape of a convolution or pooling window; every
    output dim must be >= 1 (torch: "output size is too small")."""
    _check_window(spatial, kernel, stride, padding, dilation)
    out = tuple(
        window_out_size(n, k, s, p, d, ceil)
        for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)
    )
    if any(o < 1 for o in out):
        raise ShapeError(
            f"output size {out} is too small: input {spatial}, kernel {list(kernel)},"
            f" stride {list(stride)}, padding {list(padding)}, dilation "
            f"{list(dilation)}"
        )
    return out


def conv_shape(
    x: Shape,
    weight: Shape,
    bias: Shape | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Shape:
    """Convolution of x (N, C, *spatial) with weight (O, C / groups,
    *kernel) and optional bias (O,): (N, O, *out)."""
    rank = len(stride)
    if len(x) != rank + 2:
        raise ShapeError(f"input must have rank {rank + 2} (N, C, ...), got {x}")
    if len(weight) != rank + 2:
        raise ShapeError(
            f"weight must have rank {rank + 2} (out, in / groups, ...), got {weight}"
        )
    channels, out_channels = x[1], weight[0]
    if groups < 1 or channels % groups or out_channels % groups:
        raise ShapeError(
            f"groups {groups} must be >= 1 and divide the input channels "
            f"{channels} and the output channels {out_channels}"
        )
    if weight[1] * groups != channels:
        raise ShapeError(
            f"weight {weight} takes {weight[1]} channels per group, the input "
            f"has {channels} channels in {groups} groups"
        )
    if bias is not None and bias != (out_channels,):
        raise ShapeError(f"bias must have shape ({out_channels},), got {bias}")
    out = window_shape(x[2:], weight[2:], stride, padding, dilation)
    return (x[0], out_channels, *out)


def pool_shape(
    x: Shape,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil: bool,
) -> Shape:
    """Pooling of x (N, C, *spatial) per channel; padding at most half the
    kernel (undilated), as torch requires."""
    rank = len(kernel)
    if len(x) != rank + 2:
        raise ShapeError(f"input must have rank {rank + 2} (N, C, ...), got {x}")
    _check_window(x[2:], kernel, stride, padding, dilation)
    if any(2 * p > k for p, k in zip(padding, kernel)):
        raise ShapeError(
            f"padding {list(padding)} must be at most half the kernel {list(kernel)}"
        )
    return (*x[:2], *window_shape(x[2:], kernel, stride, padding, dilation, ceil))


def channel_params_check(x: Shape, params: Sequence[Shape]) -> None:
    """Per-channel operands (batch norm's statistics, weight, bias) have
    shape (C,) for x (N, C, ...)."""
    if len(x) < 2:
        raise ShapeError(f"input must have rank >= 2 (N, C, ...), got {x}")
    for shape in params:
        if shape != (x[1],):
            raise ShapeError(
                f"per-channel operands must have shape ({x[1]},), got {shape}"
            )
