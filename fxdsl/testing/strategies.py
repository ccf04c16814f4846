"""Random, valid, numerically tame graph-dialect programs.

One generator, driven by a `Draw` callback, builds every program: hypothesis
drives it through `graphs()` (so examples shrink), `random.Random` drives it
through `random_graph()` (fast, for benchmarks and scale tests). Each program
is a module with one public `func.func @main` whose body has exactly the
drawn number of ops, built with the graph op constructors (result types are
inferred).

Numerics: every value carries a rough magnitude bound; an op whose bound grows
past `MAX_BOUND` is followed by `tanh`, `exp` only sees small values, and
log/sqrt/rsqrt/reciprocal/div/pow only see `abs(x) + 1`. layer_norm inputs get
a ramp added so that their variance is never ~0 (which would amplify rounding
noise by 1/sqrt(eps)). Results therefore compare stably at rtol 1e-5.

Structure: with `repeated_blocks`, a random sub-program (a "template") is
applied 2-4 times, chained or to different inputs, each copy exposing its own
internal values; with `scoped`, every module call is a template instance whose
ops carry `scope` (`layers.0`, `layers.0.attn`, re-calls with call index 1...)
and whose weights are function arguments with `graph.param = "<fqn>.<name>"`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from fxdsl.ir import graph as g
from fxdsl.ir.graph import ScopeFrame, shape_of, tensor
from fxdsl.ir.shape_rules import (
    Shape,
    ShapeError,
    broadcast_shapes,
)
from fxdsl.ir.utils import unique_name
from fxdsl.testing.graph_builder import (
    _GROUP_NAMES,
    DTYPES,
    INPUT_BOUND,
    MAX_BOUND,
    MAX_NUMEL,
    Draw,
    GraphInfo,
    GraphOptions,
    _Builder,
    _create,
    _numel,
    _Template,
)


@dataclass
class _Generator:
    """Builds one module; shared state across the function and its templates."""

    draw: Draw
    options: GraphOptions
    group_names: list[str] = field(default_factory=list[str])
    info: GraphInfo = field(default_factory=GraphInfo)

    def param_name(self, builder: _Builder, kind: str) -> str:
        """A fresh weight name relative to the builder's module."""
        return unique_name(kind, builder.params, separator="")

    def group_name(self) -> str:
        base = _GROUP_NAMES[len(self.group_names) % len(_GROUP_NAMES)]
        if len(self.group_names) >= len(_GROUP_NAMES):
            base += str(len(self.group_names))
        self.group_names.append(base)
        return base

    def template(self, parent: _Builder, type_name: str, size: int) -> _Template:
        """Generate a module body of about `size` ops whose data inputs have the
        shapes of one or two of the parent's values."""
        shapes = [shape_of(parent.pick())]
        if parent.chance(40):
            shapes.append(shape_of(parent.pick()))
        block = Block(arg_types=[tensor(s, g.f32) for s in shapes])
        frames: tuple[ScopeFrame, ...] = ()
        if self.options.scoped:
            frames = (("", 0, type_name),)
        # Inputs are assumed large, so the body squashes: it is re-used with
        # inputs other than the ones it was generated for.
        body = _Builder(self, block, frames, parent.depth + 1, MAX_BOUND)
        body.run(size)
        first = block.args[0]
        target = shape_of(first)
        residual = first
        for value in reversed(body.values):
            try:
                fits = broadcast_shapes(shape_of(value), target) == target
            except ShapeError:
                fits = False
            if fits and value is not first:
                residual = value
                break
        squashed = body.emit(g.TanhOp(residual), 1.0)
        # The output keeps the first input's shape, so copies can be chained.
        output = body.emit(_create(g.AddOp, [first, squashed]), MAX_BOUND, squash=False)
        return _Template(
            block=block,
            n_data=len(shapes),
            param_names=list(body.param_order),
            output=output,
            type_name=type_name,
            bound=body.bound,
            n_ops=body.n_ops,
        )

    def input_shapes(self, count: int) -> list[Shape]:
        base = self.shape()
        shapes = [base]
        for _ in range(count - 1):
            kind = self.draw(0, 3)
            if kind == 0:
                shapes.append(base)
            elif kind == 1:
                shapes.append(base[self.draw(0, len(base) - 1) :])
            elif kind == 2:
                shapes.append(tuple(1 if self.draw(0, 1) else d for d in base))
            else:
                shapes.append(self.shape())
        return shapes

    def shape(self) -> Shape:
        rank = self.draw(1, 4)
        dims = [self.draw(1, 8) for _ in range(rank)]
        while _numel(tuple(dims)) > MAX_NUMEL // 4:
            dims[dims.index(max(dims))] //= 2
        return tuple(dims)

    def module(self) -> ModuleOp:
        opts = self.options
        n_ops = self.draw(opts.min_ops, opts.max_ops)
        n_inputs = self.draw(1, opts.max_inputs)
        shapes = self.input_shapes(n_inputs)
        block = Block(arg_types=[tensor(s, self.dtype()) for s in shapes])
        top = _Builder(self, block, (), 0, INPUT_BOUND)
        for arg in block.args:
            if g.dtype_of(arg) != g.f32:
                top.emit(g.CastOp(arg, g.f32), INPUT_BOUND)
        if opts.repeated_blocks:
            n_groups = self.draw(0, 1 + n_ops // 100)
            # Groups start in the first two thirds: room is left for copies.
            last = max(0, 2 * n_ops // 3)
            starts = sorted(self.draw(0, last) for _ in range(n_groups))
            for start in starts:
                top.run(start, exact=True)
                top.group(n_ops - top.n_ops)
        top.run(n_ops, exact=True)
        outputs = [self.cast(top, v) for v in self.outputs(top)]
        block.add_op(func.ReturnOp(*outputs))
        arg_attrs = None
        if opts.scoped:
            names = {arg: name for name, arg in top.params.items()}
            arg_attrs = ArrayAttr(
                DictionaryAttr({g.PARAM: StringAttr(names[a])} if a in names else {})
                for a in block.args
            )
        function = func.FuncOp(
            "main",
            ([a.type for a in block.args], [v.type for v in outputs]),
            Region(block),
            arg_attrs=arg_attrs,
        )
        return ModuleOp([function])

    def dtype(self) -> Attribute:
        dtypes = self.options.dtypes
        if len(dtypes) == 1:  # no draw: f32 graphs stay as they were
            return DTYPES[dtypes[0]]
        return DTYPES[dtypes[self.draw(0, len(dtypes) - 1)]]

    def cast(self, top: _Builder, value: SSAValue) -> SSAValue:
        dtype = self.dtype()
        if dtype == g.f32:
            return value
        return top.emit(g.CastOp(value, dtype), top.bound[value])

    def outputs(self, top: _Builder) -> list[SSAValue]:
        """The last value, exposed values, then other unused values."""
        exposed = {id(v) for v in top.exposed}
        sinks = [v for v in top.values if not v.uses and id(v) not in exposed]
        outputs = [top.values[-1]]
        wanted = self.draw(1, self.options.max_outputs)
        for value in [*top.exposed, *sinks[::-1]]:
            if len(outputs) >= wanted:
                break
            if value not in outputs:
                outputs.append(value)
        return outputs


def graphs(
    min_ops: int = 1,
    max_ops: int = 40,
    max_inputs: int = 4,
    max_outputs: int = 3,
    repeated_blocks: bool = True,
    scoped: bool = False,
    allow_matmul: bool = True,
    dtypes: tuple[str, ...] = ("f32",),
) -> Any:
    """Hypothesis strategy of random valid graph programs (`ModuleOp`s with one
    public `func.func @main`).

    Ops: elementwise unary/binary with broadcasting, guarded log/sqrt/rsqrt/
    reciprocal/div/pow, comparisons + select, reductions, softmax/log_softmax,
    layer_norm (weights as arguments), matmul/linear, reshape, transpose,
    broadcast_to, slice, concat, split, constant, full. Shapes: rank 1-4,
    dims 1-8. `repeated_blocks`: sometimes 2-4 identical sub-programs
    (chained or on different inputs). `scoped`: `scope` attributes and
    `graph.param` weight arguments. `dtypes`: element types of inputs and
    outputs ("f32", "f16", "bf16"; the body computes in f32 between casts).
    Sizes are drawn first, so shrinking removes ops and structure. `@main`
    has a drawn number of ops in [min_ops, max_ops] (graph ops, not counting
    `func.return`), plus one cast per input or output of a dtype other than
    f32.
    """
    from hypothesis import strategies as st

    options = GraphOptions(
        min_ops, max_ops, max_inputs, max_outputs, repeated_blocks, scoped,
        allow_matmul, tuple(dtypes),
    )  # fmt: skip

    _register_pretty_printer()

    @st.composite
    def strategy(draw_fn: Any) -> ModuleOp:
        def draw(lo: int, hi: int) -> int:
            return lo if lo >= hi else draw_fn(st.integers(lo, hi))

        return _Generator(draw, options).module()

    return strategy()


def pool_windows() -> Any:
    """Hypothesis strategy of 2-D pooling cases: an NCHW `shape` (H, W up
    to 11), `kernel`, `stride`, `padding` (sometimes more than half the
    kernel, which torch and fxdsl both reject), `dilation` (each an (h, w)
    list), `ceil_mode`, `count_include_pad` and a `seed` for the input."""
    from hypothesis import strategies as st

    small = st.integers(1, 3)

    @st.composite
    def strategy(draw: Any) -> dict[str, Any]:
        pair = lambda values: [draw(values), draw(values)]
        return {
            "shape": (draw(st.integers(1, 2)), draw(small), *pair(st.integers(1, 11))),
            "kernel": pair(st.integers(1, 4)),
            "stride": pair(small),
            "padding": pair(st.integers(0, 2)),
            "dilation": pair(st.integers(1, 2)),
            "ceil_mode": draw(st.booleans()),
            "count_include_pad": draw(st.booleans()),
            "seed": draw(st.integers(0, 2**16)),
        }

    return strategy()


def _register_pretty_printer() -> None:
    """Falsifying examples print as IR text, not as xDSL's (huge) repr."""
    try:
        from hypothesis.vendor.pretty import for_type_by_name
    except ImportError:  # pragma: no cover - an older or newer hypothesis
        return

    def print_module(module: ModuleOp, printer: Any, cycle: bool) -> None:
        printer.text("\n" + str(module))

    for_type_by_name(ModuleOp.__module__, ModuleOp.__name__, print_module)


def random_graph(seed: int, **options: Any) -> ModuleOp:
    """The same programs as `graphs(**options)`, from `random.Random(seed)`:
    deterministic per seed and fast (benchmarks, scale tests)."""
    return random_graph_with_info(seed, **options)[0]


def random_graph_with_info(seed: int, **options: Any) -> tuple[ModuleOp, GraphInfo]:
    """`random_graph` plus where its groups of identical copies are."""
    generator = _Generator(random.Random(seed).randint, GraphOptions(**options))
    return generator.module(), generator.info


__all__ = [
    "Draw",
    "GraphInfo",
    "GraphOptions",
    "graphs",
    "random_graph",
    "random_graph_with_info",
]


__all__ = [
    "GraphInfo",
    "GraphOptions",
    "graphs",
    "pool_windows",
    "random_graph",
    "random_graph_with_info",
]
