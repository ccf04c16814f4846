"""The building blocks of `fxdsl.testing.strategies`: the options and
facts of a random graph, and `_Builder`, which appends one well-typed,
numerically tame op at a time (its steps: elementwise, reductions, views,
contractions, module scopes); the strategy drives it."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from fxdsl.ir import graph as g
from fxdsl.ir.graph import ScopeAttr, ScopeFrame, shape_of, tensor
from fxdsl.ir.shape_rules import (
    Shape,
    ShapeError,
    broadcast_shapes,
    matmul_shape,
)
from fxdsl.ir.utils import unique_name

MAX_BOUND = 10.0
"""Values whose magnitude bound exceeds this get squashed with tanh."""
INPUT_BOUND = 3.0
"""Assumed magnitude of random inputs (fxdsl.interpreters.run.random_inputs)."""
MAX_NUMEL = 512
"""No value grows beyond this many elements: the interpreter stays fast."""
MAX_DEPTH = 3
"""Deepest module nesting in scoped graphs."""
# No value has rank 0: every shape has 1-4 dims.

_MODULE_KINDS = (
    ("attn", "Attention"),
    ("mlp", "MLP"),
    ("ln", "LayerNorm"),
    ("proj", "Linear"),
    ("act", "Activation"),
    ("norm", "Norm"),
)
_GROUP_NAMES = ("layers", "h", "blocks")
DTYPES: dict[str, Attribute] = {"f32": g.f32, "f16": g.f16, "bf16": g.bf16}
"""Element types `dtypes` may name; the program computes in f32, inputs of
other types are cast to f32 first and outputs may be cast back."""
OpT = TypeVar("OpT", bound=g.GraphOp)


class Draw(Protocol):
    """The one source of randomness: an integer in [lo, hi]."""

    def __call__(self, lo: int, hi: int, /) -> int: ...


@dataclass(frozen=True)
class GraphOptions:
    """Options shared by `graphs()` and `random_graph()` (see `graphs`)."""

    min_ops: int = 1
    max_ops: int = 40
    max_inputs: int = 4
    max_outputs: int = 3
    repeated_blocks: bool = True
    scoped: bool = False
    allow_matmul: bool = True
    dtypes: tuple[str, ...] = ("f32",)

    def __post_init__(self) -> None:
        if not 0 <= self.min_ops <= self.max_ops:
            raise ValueError(f"need 0 <= min_ops <= max_ops, got {self}")
        if self.max_inputs < 1 or self.max_outputs < 1:
            raise ValueError("max_inputs and max_outputs must be >= 1")
        if not self.dtypes or set(self.dtypes) - set(DTYPES):
            raise ValueError(
                f"dtypes must be among {sorted(DTYPES)}, got {self.dtypes}"
            )


@dataclass
class GraphInfo:
    """What the generator built, for tests that check what a pass finds."""

    groups: list[list[tuple[int, int]]] = field(
        default_factory=list[list[tuple[int, int]]]
    )
    """Per group of identical copies: each copy's [start, end) op indices in
    `@main`'s body."""


@dataclass
class _Template:
    """A sub-program applied several times (one module's code)."""

    block: Block
    n_data: int
    param_names: list[str]
    output: SSAValue
    type_name: str
    bound: dict[SSAValue, float]
    n_ops: int

    @property
    def cost(self) -> int:
        """Most ops one copy adds: the body plus a `sin` per data input when
        no fresh value of its shape exists (`_Builder.other`)."""
        return self.n_ops + self.n_data


def _join(prefix: str, name: str) -> str:
    return name if not prefix else prefix if not name else f"{prefix}.{name}"


def _create(cls: type[OpT], operands: Sequence[SSAValue], **props: Attribute) -> OpT:
    """`cls` with the result types the dialect infers."""
    return cls.create_inferred(operands, props)


_REDUCTIONS: tuple[type[g.ReductionOp], ...] = tuple(
    op
    for op in g.GRAPH_OPS
    if issubclass(op, g.ReductionOp) and not issubclass(op, g.BoolOperands)
)
"""The reductions `reduce` draws from (any and all take i1, which the
generated programs do not make)."""


def _reduction(
    cls: type[g.ReductionOp], x: SSAValue, dims: Sequence[int], keepdim: bool
) -> g.ReductionOp:
    props: dict[str, Attribute] = {"dims": g.ints(dims)}
    if keepdim:
        props["keepdim"] = UnitAttr()
    return _create(cls, [x], **props)


def _numel(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class _Owner(Protocol):
    """What a builder asks of the generator that runs it (`strategies`)."""

    draw: Draw
    options: GraphOptions
    info: GraphInfo

    def param_name(self, builder: _Builder, kind: str) -> str: ...

    def group_name(self) -> str: ...

    def template(self, parent: _Builder, type_name: str, size: int) -> _Template: ...


class _Builder:
    """Emits random ops into one block (the function or a template body)."""

    def __init__(
        self,
        gen: _Owner,
        block: Block,
        frames: tuple[ScopeFrame, ...],
        depth: int,
        data_bound: float,
    ):
        self.gen, self.draw = gen, gen.draw
        self.block, self.frames, self.depth = block, frames, depth
        self.values: list[SSAValue] = []
        self.by_shape: dict[Shape, list[SSAValue]] = {}
        self.bound: dict[SSAValue, float] = {}
        self.conds: list[SSAValue] = []
        self.params: dict[str, SSAValue] = {}
        self.param_order: list[str] = []
        self.exposed: list[SSAValue] = []
        self.children: dict[str, _Template] = {}
        self.counters: dict[str, int] = {}
        self.n_ops = 0
        for arg in block.args:
            self._add(arg, data_bound)

    # ----------------------------------------------------------------- draws
    def chance(self, percent: int) -> bool:
        # Shrinks (towards 0) to "no": optional structure disappears first.
        return self.draw(0, 99) >= 100 - percent

    def choice(self, items: Sequence[Any]) -> Any:
        return items[self.draw(0, len(items) - 1)]

    def pick(self) -> SSAValue:
        """An operand: often a recent value (deep chains), else any value."""
        n = len(self.values)
        if self.chance(25):
            # Prefer a recent value nobody uses yet: less dead code.
            unused = [v for v in self.values[-8:] if not v.uses]
            if unused:
                return self.choice(unused)
        if self.chance(50):
            return self.values[self.draw(max(0, n - 4), n - 1)]
        return self.values[self.draw(0, n - 1)]

    def pick_dim(self) -> tuple[SSAValue, int] | None:
        """An operand and one of its dims; None when the operand has none
        (rank 0: the caller emits a unary op instead)."""
        x = self.pick()
        rank = len(shape_of(x))
        return (x, self.draw(0, rank - 1)) if rank else None

    # -------------------------------------------------------------- emitting
    def _add(self, value: SSAValue, bound: float) -> None:
        if g.dtype_of(value) == g.i1:
            self.conds.append(value)
            return
        if g.dtype_of(value) != g.f32:
            return  # graph inputs and outputs of other dtypes are cast
        self.values.append(value)
        self.by_shape.setdefault(shape_of(value), []).append(value)
        self.bound[value] = bound

    def _insert(self, op: Operation, scope: tuple[ScopeFrame, ...]) -> None:
        if scope:
            op.attributes[g.SCOPE] = ScopeAttr(scope)
        self.block.add_op(op)
        self.n_ops += 1

    def emit(self, op: Operation, bound: float, squash: bool = True) -> SSAValue:
        """Append `op`; its results join the pool. Returns result 0, squashed
        with tanh when its bound is too large."""
        self._insert(op, self.frames)
        for result in op.results:
            self._add(result, bound)
        value = op.results[0]
        if squash and bound > MAX_BOUND and g.dtype_of(value) != g.i1:
            value = self.emit(g.TanhOp(value), 1.0)
        return value

    def param(self, name: str, shape: Shape) -> SSAValue:
        """The weight argument `name` (shared when a module is re-called)."""
        if name not in self.params:
            arg = self.block.insert_arg(tensor(shape, g.f32), len(self.block.args))
            self.params[name] = arg
            self.param_order.append(name)
            self.bound[arg] = INPUT_BOUND
        return self.params[name]

    def constant(self, shape: Shape) -> SSAValue:
        # Multiples of 1/8 in [-1, 1]: exact in f32, so the text round-trips.
        seed = self.draw(0, 2**16)
        rng = random.Random(seed)
        data = [rng.randint(-8, 8) / 8 for _ in range(_numel(shape))]
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(g.f32, shape), data)
        return self.emit(g.ConstantOp(attr), 1.0)

    def full(self, shape: Shape) -> SSAValue:
        return self.emit(g.FullOp(shape, self.draw(-8, 8) / 4), 2.0)

    def positive(self, x: SSAValue) -> SSAValue:
        """`abs(x) + 1`: a safe operand for log, sqrt, div, pow..."""
        magnitude = self.emit(g.AbsOp(x), self.bound[x])
        one = self.emit(g.FullOp((1,), 1.0), 1.0)
        return self.emit(_create(g.AddOp, [magnitude, one]), self.bound[magnitude] + 1)

    def partner(self, a: SSAValue) -> SSAValue:
        """A value that broadcasts with `a` (same shape, a suffix, size-1 dims)."""
        shape = shape_of(a)
        kind = self.draw(0, 4)
        if kind == 1 and shape:
            return self.constant((shape[-1],) if self.chance(70) else (1,))
        if kind == 2:
            return self.full((1,) * self.draw(1, max(1, len(shape))))
        if kind == 3 and shape:
            dims = [d for d in range(len(shape)) if self.chance(50)] or [0]
            return self.emit(_reduction(g.MeanOp, a, dims, True), self.bound[a])
        if kind == 4:
            for candidate in self._broadcast_shapes(shape):
                if candidate in self.by_shape:
                    return self.choice(self.by_shape[candidate])
        return self.choice(self.by_shape[shape])

    def _broadcast_shapes(self, shape: Shape) -> list[Shape]:
        ones = tuple(1 if self.chance(50) else d for d in shape)
        return [s for s in (ones, shape[1:], shape[-1:], shape[-2:]) if s]

    def other(self, shape: Shape, avoid: Sequence[SSAValue]) -> SSAValue:
        """A value of `shape` not in `avoid` (made with sin when none exists)."""
        # Only recent values: keeps generation linear in the graph size.
        recent = self.by_shape.get(shape, [])[-8:]
        candidates = [v for v in recent if all(v is not a for a in avoid)]
        if candidates:
            return self.choice(candidates)
        return self.emit(g.SinOp(self.choice(self.by_shape[shape])), 1.0)

    # ----------------------------------------------------------- op families
    def unary(self) -> None:
        x = self.pick()
        b = self.bound[x]
        op_type, bound = self.choice(_UNARY)
        if op_type is g.GeluOp and self.chance(50):
            self.emit(g.GeluOp(x, "tanh"), b)
            return
        if self.chance(10):
            self.emit(g.ClampOp(x, -0.5, 0.75), 0.75)
            return
        self.emit(op_type(x), b if bound is None else bound)

    def exp(self) -> None:
        x = self.pick()
        if self.bound[x] > 2:
            x = self.emit(g.TanhOp(x), 1.0)
        self.emit(g.ExpOp(x), 2.72 ** self.bound[x])

    def guarded_unary(self) -> None:
        x = self.positive(self.pick())
        op_type = self.choice((g.LogOp, g.SqrtOp, g.RsqrtOp, g.ReciprocalOp))
        self.emit(op_type(x), self.bound[x])

    def binary(self) -> None:
        a = self.pick()
        b = self.partner(a)
        if self.chance(30):
            a, b = b, a
        op_type = self.choice((g.AddOp, g.SubOp, g.MulOp, g.MaximumOp, g.MinimumOp))
        ba, bb = self.bound[a], self.bound[b]
        bound = ba * bb if op_type is g.MulOp else ba + bb
        self.emit(_create(op_type, [a, b]), bound)

    def div_pow(self) -> None:
        a = self.pick()
        b = self.positive(self.partner(a))
        if self.chance(50):
            self.emit(_create(g.DivOp, [a, b]), self.bound[a])
            return
        exponent = self.emit(g.TanhOp(a), 1.0)
        self.emit(_create(g.PowOp, [b, exponent]), self.bound[b])

    def bits(self) -> None:
        """A bitwise op, shift or gcd of i32 values, back in f32 (squashed): the
        i32 operands are exact integers in [-64, 64] (constants times 64,
        so no backend's rounding moves them), the shift amounts include
        negative ones and ones past 32. Up to 10 ops."""
        shape = shape_of(self.pick())
        sixty_four = self.full_of(64.0)

        def integers(constant: SSAValue) -> SSAValue:
            product = _create(g.MulOp, [constant, sixty_four])
            scaled = self.emit(product, 64.0, squash=False)
            return self.emit(g.CastOp(scaled, g.i32), 64.0, squash=False)

        left = integers(self.constant(shape or (1,)))
        right = integers(self.constant((shape[-1],) if shape else (1,)))
        op_type = self.choice(
            (g.BitwiseAndOp, g.BitwiseOrOp, g.BitwiseXorOp, g.ShiftLeftOp,
             g.ShiftRightOp, g.BitwiseNotOp, g.GcdOp)
        )  # fmt: skip
        if op_type is g.BitwiseNotOp:
            mixed = self.emit(g.BitwiseNotOp(left), 65.0, squash=False)
        else:
            mixed = self.emit(_create(op_type, [left, right]), 2.0**31, squash=False)
        self.emit(g.CastOp(mixed, g.f32), 2.0**31)

    def index_update(self) -> None:
        """`graph.index_add` or `graph.index_copy` of source slices into a
        value along one dim, at a constant index with repeats (up to twice
        the dim's size entries; a repeated position sums or keeps the last
        slice); an index_add may carry the index's stable argsort."""
        picked = self.pick_dim()
        if picked is None:
            return self.unary()
        x, dim = picked
        shape = shape_of(x)
        count = self.draw(1, 2 * shape[dim])
        source_shape = tuple(count if d == dim else n for d, n in enumerate(shape))
        if _numel(source_shape) > MAX_NUMEL:
            return self.unary()
        rng = random.Random(self.draw(0, 2**16))
        positions = [rng.randrange(shape[dim]) for _ in range(count)]
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, (count,)), positions)
        index = self.emit(g.ConstantOp(attr), float(shape[dim]), squash=False)
        source = self.constant(source_shape)
        if self.chance(50):
            order = None
            if self.chance(50):  # the binary-searched form
                ranks = sorted(range(count), key=lambda k: positions[k])
                ranked = TensorType(i64, (count,))
                attr = DenseIntOrFPElementsAttr.from_list(ranked, ranks)
                order = self.emit(g.ConstantOp(attr), float(count), squash=False)
            op: Operation = g.IndexAddOp(x, index, source, dim, order)
            bound = self.bound[x] + count * self.bound[source]
        else:
            op, bound = g.IndexCopyOp(x, index, source, dim), self.bound[x]
        self.emit(op, bound)

    def full_of(self, value: float) -> SSAValue:
        """A one-element `graph.full` of `value` (never squashed)."""
        return self.emit(g.FullOp((1,), value), abs(value), squash=False)

    def logical(self, cond: SSAValue) -> SSAValue:
        """`cond` negated, or combined with an earlier i1 value of the same
        shape (a shape that keeps the select's operands broadcasting)."""
        others = [c for c in self.conds if shape_of(c) == shape_of(cond)]
        if self.chance(30):
            return self.emit(g.LogicalNotOp(cond), 1.0)
        op_type = self.choice((g.LogicalAndOp, g.LogicalOrOp))
        return self.emit(_create(op_type, [cond, self.choice(others)]), 1.0)

    def select(self) -> None:
        a = self.pick()
        b = self.partner(a)
        if self.conds and self.chance(30):
            cond = self.choice(self.conds)
            try:
                broadcast_shapes(shape_of(cond), shape_of(a), shape_of(b))
            except ShapeError:
                cond = None
        else:
            cond = None
        if cond is None:
            cmp = self.choice((g.GtOp, g.LtOp, g.GeOp, g.LeOp, g.EqOp, g.NeOp))
            cond = self.emit(_create(cmp, [a, b]), 1.0)
        if self.chance(30):
            cond = self.logical(cond)
        bound = max(self.bound[a], self.bound[b])
        self.emit(_create(g.SelectOp, [cond, a, b]), bound)

    def reduce(self) -> None:
        x = self.pick()
        shape = shape_of(x)
        dims = [d for d in range(len(shape)) if self.chance(40)]
        count = _numel(tuple(shape[d] for d in dims) if dims else shape)
        # Rank-0 values are left out (a full reduction keeps its dims).
        keepdim = self.chance(50) or len(dims) in (0, len(shape))
        op_type = self.choice(_REDUCTIONS)
        if op_type is g.VarOp and count < 2:
            op_type = g.MeanOp
        bound = self.bound[x]
        bounds: dict[type[Operation], float] = {
            g.SumOp: bound * count,
            g.VarOp: bound * bound * 2,
        }
        op = _reduction(op_type, x, dims, keepdim)
        self.emit(op, bounds.get(op_type, bound))

    def softmax(self) -> None:
        if (picked := self.pick_dim()) is None:
            return self.unary()
        x, dim = picked
        if self.chance(50):
            self.emit(g.SoftmaxOp(x, dim), 1.0)
        else:
            self.emit(g.LogSoftmaxOp(x, dim), 2 * self.bound[x] + shape_of(x)[dim])

    def layer_norm(self) -> None:
        x = self.pick()
        shape = shape_of(x)
        if not shape:
            return self.unary()
        trailing = shape[len(shape) - self.draw(1, min(2, len(shape))) :]
        # A ramp keeps the variance away from 0 (see the module docstring).
        ramp = [(i % 8) / 4 - 1 for i in range(_numel(trailing))]
        ramp_attr = DenseIntOrFPElementsAttr.from_list(
            TensorType(g.f32, trailing), ramp
        )
        shifted = self.emit(
            _create(g.AddOp, [x, self.emit(g.ConstantOp(ramp_attr), 1.0)]), 1.0
        )
        weight = self.param(self.gen.param_name(self, "weight"), trailing)
        bias = self.param(self.gen.param_name(self, "bias"), trailing)
        self.emit(g.LayerNormOp(shifted, weight, bias), INPUT_BOUND * 3)

    def matmul(self) -> None:
        x = self.pick()
        shape = shape_of(x)
        if not self.gen.options.allow_matmul or not shape:
            return self.binary()
        k = shape[-1]
        kind = self.draw(0, 3)
        if kind == 0 and len(shape) >= 2:
            perm = [*range(len(shape) - 2), len(shape) - 1, len(shape) - 2]
            rhs = self.emit(_transpose(x, perm), self.bound[x])
        elif kind == 1:
            rhs = self.constant((k, self.draw(1, 8)))
        elif kind == 2:
            rhs = self.param(self.gen.param_name(self, "weight"), (k, self.draw(1, 8)))
        else:
            out = self.draw(1, 8)
            weight = self.param(self.gen.param_name(self, "weight"), (out, k))
            bias = None
            if self.chance(50):
                bias = self.param(self.gen.param_name(self, "bias"), (out,))
            bound = self.bound[x] * INPUT_BOUND * k + INPUT_BOUND
            operands = [x, weight] if bias is None else [x, weight, bias]
            self.emit(_create(g.LinearOp, operands), bound)
            return
        result = matmul_shape(shape, shape_of(rhs))
        if _numel(result) > MAX_NUMEL:
            return self.unary()
        bound = self.bound[x] * self.bound[rhs] * k
        half = [DTYPES[d] for d in self.gen.options.dtypes if d in ("f16", "bf16")]
        if half and self.chance(40):
            # a 16-bit GEMM whose product stays f32 (addmm's, before its bias)
            element = self.choice(half)
            lhs, rhs = (
                self.emit(g.CastOp(v, element), self.bound[v], squash=False)
                for v in (x, rhs)
            )
            self.emit(g.MatmulOp(lhs, rhs, g.f32), bound)
            return
        self.emit(_create(g.MatmulOp, [x, rhs]), bound)

    def attention(self) -> None:
        """`graph.attention` with q a value of rank >= 2, k and v weights or
        values of the matching shapes; the scale (a power of two) keeps the
        scores within [-1, 1], so the softmax never saturates and near-ties
        cannot flip between summation orders."""
        x = self.pick()
        if len(shape_of(x)) < 2:  # a recent value of rank >= 2, if any
            ranked = [vs[-1] for sh, vs in self.by_shape.items() if len(sh) >= 2 and vs]
            x = self.choice(ranked) if ranked else x
        shape = shape_of(x)
        if not self.gen.options.allow_matmul or len(shape) < 2:
            return self.softmax()
        # self-attention shapes mostly (the result has q's shape, as in models)
        *batch, rows, head = shape
        keys = rows if self.chance(70) else self.draw(1, 8)
        dv = head if self.chance(70) else self.draw(1, 8)
        key_shape, value_shape = (*batch, keys, head), (*batch, keys, dv)
        if _numel(value_shape) > MAX_NUMEL or _numel(key_shape) > MAX_NUMEL:
            return self.softmax()

        def operand(kind: str, operand_shape: Shape) -> SSAValue:
            if operand_shape in self.by_shape and self.chance(50):
                return self.choice(self.by_shape[operand_shape])
            return self.param(self.gen.param_name(self, kind), operand_shape)

        if key_shape == value_shape == shape and self.chance(30):
            x, key, value = self._packed_qkv(x)
        else:
            key, value = operand("key", key_shape), operand("value", value_shape)
        largest = max(self.bound[x] * self.bound[key] * head, 1.0)
        scale = 2.0 ** -math.ceil(math.log2(largest))
        causal = self.chance(50)
        mask = self.attention_mask((*batch, rows, keys), g.dtype_of(x))
        self.emit(
            g.AttentionOp(x, key, value, scale, causal, mask=mask), self.bound[value]
        )

    def attention_mask(self, scores: Shape, dtype: Attribute) -> SSAValue | None:
        """None, or torch's attn_mask for scores of this shape: i1 (a random
        one has rows without keys: zeros) or additive (of the query's type)."""
        if not self.chance(25):
            return None
        source = self.param(self.gen.param_name(self, "mask"), scores[-2:])
        if dtype == g.f32 and self.chance(50):
            return source
        zero = self.emit(g.FullOp((), 0.0), 0.0)
        return self.emit(_create(g.GtOp, [source, zero]), 1.0)

    def _packed_qkv(self, x: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """q, k, v as GPT-2 makes them: a split of one biased (..., T, 3d)
        projection (`x` beside two weights), the form whose bias
        `graph-fuse-attention` folds. The bias is per feature (it folds),
        per token (it differs between key rows: it does not) or a scalar."""
        shape = shape_of(x)
        rows, head = shape[-2:]
        if g.dtype_of(x) != g.f32:
            x = self.emit(g.CastOp(x, g.f32), self.bound[x])
        weights = [
            self.param(self.gen.param_name(self, kind), shape) for kind in "kv"
        ]  # fmt: skip
        packed = self.emit(g.ConcatOp([x, *weights], len(shape) - 1), self.bound[x])
        bias_shape = self.choice([(3 * head,), (rows, 1), ()])
        bias = self.param(self.gen.param_name(self, "qkv_bias"), bias_shape)
        biased = self.emit(g.AddOp(packed, bias), self.bound[packed] + INPUT_BOUND)
        split = g.SplitOp(biased, len(shape) - 1, [head] * 3)
        self.emit(split, self.bound[biased])
        return split.results[0], split.results[1], split.results[2]

    def reshape(self) -> None:
        x = self.pick()
        self.emit(g.ReshapeOp(x, self._reshaped(shape_of(x))), self.bound[x])

    def _reshaped(self, shape: Shape) -> Shape:
        kind = self.draw(0, 4)
        rank = len(shape)
        if kind == 0:
            return (_numel(shape),)
        if kind == 1 and rank >= 2:
            i = self.draw(0, rank - 2)
            return (*shape[:i], shape[i] * shape[i + 1], *shape[i + 2 :])
        if kind == 2 and rank < 4:
            i = self.draw(0, rank)
            return (*shape[:i], 1, *shape[i:])
        if kind == 3 and 1 in shape and rank > 1:
            i = shape.index(1)
            return shape[:i] + shape[i + 1 :]
        splittable = [i for i, d in enumerate(shape) if d in (4, 6, 8)]
        if rank < 4 and splittable:
            i = self.choice(splittable)
            return (*shape[:i], 2, shape[i] // 2, *shape[i + 1 :])
        return tuple(reversed(shape))  # same element count, another shape

    def transpose(self) -> None:
        x = self.pick()
        perm = list(range(len(shape_of(x))))
        for i in range(len(perm) - 1, 0, -1):
            j = self.draw(0, i)
            perm[i], perm[j] = perm[j], perm[i]
        self.emit(_transpose(x, perm), self.bound[x])

    def broadcast(self) -> None:
        x = self.pick()
        shape = shape_of(x)
        target = [self.draw(2, 4) if d == 1 and self.chance(60) else d for d in shape]
        if len(target) < 4 and self.chance(50):
            target.insert(0, self.draw(2, 3))
        if _numel(tuple(target)) > MAX_NUMEL:
            return self.unary()
        self.emit(g.BroadcastToOp(x, target), self.bound[x])

    def slice(self) -> None:
        x = self.pick()
        start, limit, step = [], [], []
        for size in shape_of(x):
            lo = self.draw(0, size - 1)
            start.append(lo)
            limit.append(self.draw(lo + 1, size))
            step.append(self.draw(1, 2))
        props = {k: g.ints(v) for k, v in zip(_SLICE, (start, limit, step))}
        self.emit(_create(g.SliceOp, [x], **props), self.bound[x])

    def concat(self) -> None:
        if (picked := self.pick_dim()) is None:
            return self.unary()
        a, dim = picked
        shape = shape_of(a)
        size = self.draw(1, 8)
        other = (*shape[:dim], size, *shape[dim + 1 :])
        b = self.choice(self.by_shape.get(other) or self.by_shape[shape])
        pieces = [a, b] if self.chance(70) else [b, a]
        result = (*shape[:dim], shape[dim] + shape_of(b)[dim], *shape[dim + 1 :])
        if _numel(result) > MAX_NUMEL:
            return self.unary()
        op = _create(g.ConcatOp, pieces, dim=IntegerAttr(dim, i64))
        self.emit(op, max(self.bound[a], self.bound[b]))

    def split(self) -> None:
        x = self.pick()
        shape = shape_of(x)
        dims = [d for d, size in enumerate(shape) if size >= 2]
        if not dims:
            return self.unary()
        dim = self.choice(dims)
        first = self.draw(1, shape[dim] - 1)
        sizes = [first, shape[dim] - first]
        if sizes[1] >= 2 and self.chance(30):
            cut = self.draw(1, sizes[1] - 1)
            sizes = [first, cut, sizes[1] - cut]
        self.emit(g.SplitOp(x, dim, sizes), self.bound[x])

    # ----------------------------------------------------------------- loops
    def run(self, budget: int, exact: bool = False) -> None:
        """Emit ops (and, in scoped graphs, module calls) until `budget` ops;
        with `exact`, exactly `budget` (the last few are bounded unary ops)."""
        while self.n_ops < budget:
            left = budget - self.n_ops
            # A module call's size is known before it is copied in, so it may
            # use all that is left; the last steps before `budget` are fills.
            scoped = self.gen.options.scoped and self.depth < MAX_DEPTH
            room = left if exact else 10**9
            if scoped and self.chance(30) and self.module_call(left, room):
                continue
            if exact and left < _SLACK:
                self.fill()
                continue
            _, step = _STEPS[_pick_weighted(self.draw, _STEP_TOTAL)]
            step(self)

    def fill(self) -> None:
        """One op with a result bounded by 1: never followed by a squash."""
        op_type = self.choice((g.TanhOp, g.SigmoidOp, g.SinOp, g.CosOp, g.ErfOp))
        self.emit(op_type(self.pick()), 1.0)

    def module_call(self, left: int, room: int) -> bool:
        """Call a new child module of about `left` ops at most, or re-call an
        existing one (call index +1), adding at most `room` ops; False
        (nothing added) if none fits."""
        recallable = [
            (name, t) for name, t in self.children.items()
            if all(shape_of(a) in self.by_shape for a in t.block.args[: t.n_data])
            and t.cost <= room
        ]  # fmt: skip
        if recallable and self.chance(60):
            name, template = self.choice(recallable)
        else:
            # Leave room for the residual (2 ops) and two input fixes.
            if room < 5:
                return False
            kind, type_name = self.choice(_MODULE_KINDS)
            name = unique_name(kind, self.children, separator="")
            size = self.draw(1, min(8, left, room - 4))
            template = self.gen.template(self, type_name, size)
            if template.cost > room:
                return False
            self.children[name] = template
        self.instantiate(template, name, [])
        return True

    def instantiate(
        self,
        template: _Template,
        fqn: str,
        avoid: list[SSAValue],
        first: SSAValue | None = None,
    ) -> tuple[SSAValue, list[SSAValue], int]:
        """Copy `template` here as module call `fqn`; returns its output, the
        copies of its internal values and the index of its first op. The
        first data input is `first` if given; other data inputs avoid `avoid`
        (which they are appended to)."""
        mapping: dict[SSAValue, SSAValue] = {}
        args = template.block.args
        inputs = [self.other(shape_of(a), avoid) for a in args[: template.n_data]]
        if first is not None:
            inputs[0] = first
        avoid.extend(inputs)
        mapping.update(zip(args[: template.n_data], inputs))
        for arg, name in zip(args[template.n_data :], template.param_names):
            mapping[arg] = self.param(_join(fqn, name), shape_of(arg))
        call_index: dict[tuple[str, int], int] = {}
        internals: list[SSAValue] = []
        start = self.n_ops
        for op in template.block.ops:
            copy = op.clone(mapping)
            self._insert(copy, self._scope_of(op, fqn, call_index))
            for old, new in zip(op.results, copy.results):
                if g.dtype_of(new) == g.f32:  # not i1, nor a 16-bit GEMM operand
                    internals.append(new)
                    self.bound[new] = template.bound[old]
        # No squash: chained copies grow by at most 1 each (`input + tanh`).
        output = mapping[template.output]
        self._add(output, self.bound[inputs[0]] + 1)
        return output, internals, start

    def _scope_of(
        self, op: Operation, fqn: str, call_index: dict[tuple[str, int], int]
    ) -> tuple[ScopeFrame, ...]:
        scope = op.attributes.get(g.SCOPE)
        if not isinstance(scope, ScopeAttr):
            return ()
        frames = list(self.frames)
        for rel, local, type_name in scope.data:
            name = _join(fqn, rel)
            if (name, local) not in call_index:
                call_index[name, local] = self.counters.get(name, 0)
                self.counters[name] = call_index[name, local] + 1
            frames.append((name, call_index[name, local], type_name))
        return tuple(frames)

    def group(self, room: int) -> None:
        """2-4 structurally identical copies of one template, chained or not,
        adding at most `room` ops; each copy may expose a different internal
        value."""
        copies = self.draw(2, 4)
        size = self.draw(1, max(1, min(40, room // copies - 4)))
        template = self.gen.template(self, "Block", size)
        while copies > 2 and copies * template.cost > room:
            copies -= 1
        if copies * template.cost > room:
            return
        base = self.gen.group_name()
        chained = self.chance(50)
        previous: SSAValue | None = None
        used: list[SSAValue] = []
        ranges: list[tuple[int, int]] = []
        self.gen.info.groups.append(ranges)
        for i in range(copies):
            first = previous if chained else None
            output, internals, start = self.instantiate(
                template, f"{base}.{i}", used, first
            )
            ranges.append((start, start + template.n_ops))
            used.append(output)
            previous = output
            if internals and self.chance(40):
                value = self.choice(internals)
                self._add(value, self.bound[value])
                self.exposed.append(value)


_SLICE = ("start", "limit", "step")
_SLACK = 12
"""More ops than any one step adds (div_pow: up to 10): an exact run switches
to single fill ops below it."""


def _transpose(x: SSAValue, perm: Sequence[int]) -> g.TransposeOp:
    return _create(g.TransposeOp, [x], perm=g.ints(perm))


# (op type, result bound or None for "same as the input")
_UNARY: tuple[tuple[type[g.UnaryOp], float | None], ...] = (
    (g.TanhOp, 1.0),
    (g.NegOp, None),
    (g.AbsOp, None),
    (g.ReluOp, None),
    (g.SigmoidOp, 1.0),
    (g.GeluOp, None),
    (g.SiluOp, None),
    (g.ErfOp, 1.0),
    (g.SinOp, 1.0),
    (g.CosOp, 1.0),
    (g.HardswishOp, None),
    (g.HardsigmoidOp, 1.0),
)

# (weight, step); the first entry is what hypothesis shrinks towards.
_STEPS: tuple[tuple[int, Callable[[_Builder], None]], ...] = (
    (6, _Builder.unary),
    (6, _Builder.binary),
    (1, _Builder.exp),
    (2, _Builder.guarded_unary),
    (2, _Builder.div_pow),
    (2, _Builder.select),
    (3, _Builder.reduce),
    (1, _Builder.softmax),
    (1, _Builder.layer_norm),
    (2, _Builder.matmul),
    (1, _Builder.attention),
    (2, _Builder.reshape),
    (1, _Builder.transpose),
    (1, _Builder.broadcast),
    (1, _Builder.slice),
    (1, _Builder.concat),
    (1, _Builder.split),
    (1, _Builder.bits),
    (1, _Builder.index_update),
)
_STEP_TOTAL = sum(w for w, _ in _STEPS)


def _pick_weighted(draw: Draw, total: int) -> int:
    roll = draw(0, total - 1)
    for index, (weight, _) in enumerate(_STEPS):
        if roll < weight:
            return index
        roll -= weight
    raise AssertionError("unreachable")
