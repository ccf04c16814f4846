"""`graph-fold-constants`: compute once, at compile time, what does not
depend on a function's arguments.

Every graph op whose operands are all known (results of `graph.constant`,
`graph.full` or of ops folded before it) runs on the numpy reference
interpreter and is replaced by its value: a `graph.full` when every element
is equal, else a `graph.constant` (`fxdsl.transforms.constants`). The new
op keeps the folded op's attributes (`scope`, ...). One walk in program
order decides each op after its operands, so the pass is linear in the
number of ops plus the cost of evaluating what folds. After `freeze` (which
turns weights into constants) this is what computes weight-only subgraphs:
transposes and casts of weights, and conv -> batch_norm below.

An op stays (its value may still feed a fold below it) when:
- an operand or result has more than `max-elements` elements: a broadcast of
  a scalar to a huge shape stays a broadcast, nothing that size is built;
- its result would be a bigger literal than the constants it is computed
  from (an index vector compared with its transpose into a T x T mask, a
  row broadcast to a matrix): graph-decompose keeps such masks as two small
  vectors on purpose, and folding must not grow the IR. `allow-growth=true`
  folds them anyway. A result whose elements are all equal is one scalar
  (`graph.full`) and always may fold;
- the reference cannot evaluate it (it raises): that error belongs to run
  time, not to the compiler.

conv -> batch_norm (the classic FX conv-bn fusion, option `conv-bn`): a
`graph.conv2d` / `graph.conv1d` whose only user is a `graph.batch_norm`,
with the conv's weight and bias and the norm's statistics, weight and bias
all known, becomes one conv with weight `w * s` (per output channel) and
bias `beta + (b - mean) * s`, where `s = gamma / sqrt(var + eps)`, computed
in float64. It lives in this pass rather than a pass of its own because it
needs exactly this pass's knowledge (which values are constants, also
weights that reached the conv through folded casts or reshapes), and one
pass after freezing then does both.

Options: `max-elements` (default 2^24), `allow-growth` (default false),
`conv-bn` (default true).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.utils.exceptions import InterpretationError

from fxdsl.interpreters.graph import InterpretationFailure
from fxdsl.ir import graph
from fxdsl.ir.graph import NAME, shape_of
from fxdsl.ir.utils import erase_dead, with_provenance
from fxdsl.transforms.constants import ConstantEvaluator, constant_op, splat_value
from fxdsl.transforms.options import check_bool, check_int

Array = np.ndarray[Any, Any]

MAX_ELEMENTS = 1 << 24
"""Default `max-elements`: 64 MiB of f32, above any one weight of the
models here (ResNet-18's largest conv weight has 2.4M elements)."""


def numel(value: SSAValue) -> int:
    return math.prod(shape_of(value))


def _producers(op: Operation) -> list[Operation]:
    return [o.owner for o in op.operands if isinstance(o.owner, Operation)]


def _named(new: Operation, source: Operation, index: int) -> Operation:
    """`new` (result `index` of `source`) with its provenance; a multi-result
    op's `graph.name` list gives each result its own name."""
    with_provenance([new], source)
    names = source.attributes.get(NAME)
    if isinstance(names, ArrayAttr):
        name = names.data[index] if index < len(names.data) else None
        if isinstance(name, StringAttr) and name.data:
            new.attributes[NAME] = name
        else:
            del new.attributes[NAME]
    return new


@dataclass
class ConstantFolding:
    """One walk over a module: the values known so far, what they stand for
    as literals, and the ops to replace by constants."""

    options: GraphFoldConstantsPass

    def __post_init__(self) -> None:
        self.evaluator = ConstantEvaluator()
        self.values = self.evaluator.values
        self.literal_sizes: dict[SSAValue, int] = {}
        """Known values not defined by a graph.constant: the literal elements
        they stand for (a folded one's own, an unfolded one's inputs')."""
        self.folded: list[Operation] = []
        """Ops whose results become constants, in program order."""

    def known(self, value: SSAValue) -> bool:
        return value in self.values or graph.is_graph_constant(value.owner)

    def value(self, value: SSAValue) -> Array:
        if value not in self.values:
            owner = value.owner
            assert isinstance(owner, Operation)
            assert graph.is_graph_constant(owner)
            self.evaluator.evaluate(owner)
        return self.values[value]

    def literal_size(self, value: SSAValue) -> int:
        if isinstance(value.owner, graph.ConstantOp):
            return numel(value)
        return self.literal_sizes.get(value, 0)

    def fits(self, values: list[SSAValue]) -> bool:
        return all(numel(v) <= self.options.max_elements for v in values)

    def run(self, root: Operation) -> None:
        for op in list(root.walk()):
            if op.parent is None or graph.is_graph_constant(op):
                continue
            if not isinstance(op, graph.GraphOp) or self.fold_conv_bn(op):
                continue
            self.fold(op)
        self.materialise()

    def fold(self, op: graph.GraphOp) -> None:
        """Evaluate `op` if its operands are known; decide whether it folds."""
        operands, results = list(op.operands), list(op.results)
        if not all(self.known(o) for o in operands):
            return
        if not self.fits(operands + results):
            return
        for operand in operands:
            self.value(operand)
        try:
            with np.errstate(all="ignore"):
                arrays = self.evaluator.evaluate(op)
        except (InterpretationFailure, InterpretationError):
            return
        sizes = [
            0 if splat_value(a) is not None else numel(r)
            for r, a in zip(results, arrays)
        ]
        budget = sum(self.literal_size(o) for o in operands)
        if sum(sizes) > budget and not self.options.allow_growth:
            self.literal_sizes.update((r, budget) for r in results)
            return
        self.literal_sizes.update(zip(results, sizes))
        self.folded.append(op)

    def materialise(self) -> None:
        """Replace the folded ops that something still reads by constants,
        last first: an op that only other folded ops read goes without ever
        becoming one (in a chain of constant ops only the last is built)."""
        for op in reversed(self.folded):
            if op.parent is None:
                continue
            rewriter = PatternRewriter(op)
            if not any(r.uses for r in op.results):
                erase_dead(rewriter, [op])
                continue
            arrays = [self.values[r] for r in op.results]
            new_ops = [
                _named(constant_op(a, r.type), op, i)
                for i, (r, a) in enumerate(zip(op.results, arrays))
            ]
            for new, result in zip(new_ops, op.results):
                new.results[0].name_hint = result.name_hint
            self.replace(op, new_ops, [n.results[0] for n in new_ops])

    def fold_conv_bn(self, norm: graph.GraphOp) -> bool:
        """Fold `norm` into the conv before it, if it is such a batch norm."""
        if not self.options.conv_bn or not isinstance(norm, graph.BatchNormOp):
            return False
        conv = norm.input.owner
        if not isinstance(conv, graph.ConvOp) or not norm.input.has_one_use():
            return False
        bias = [conv.bias] if conv.bias is not None else []
        params = [conv.weight, *bias, *norm.operands[1:]]
        if not all(self.known(p) for p in params) or not self.fits(params):
            return False
        weight = self.value(conv.weight).astype(np.float64)
        mean, var, gamma, beta = (
            self.value(p).astype(np.float64) for p in norm.operands[1:]
        )
        conv_bias = self.value(conv.bias).astype(np.float64) if bias else 0.0
        scale = gamma / np.sqrt(var + norm.eps_value)
        channel = (-1, *[1] * (weight.ndim - 1))
        arrays = [weight * scale.reshape(channel), beta + (conv_bias - mean) * scale]
        assert isinstance(conv.weight.type, TensorType)
        new_weight = with_provenance([constant_op(arrays[0], conv.weight.type)], conv)
        new_bias = with_provenance([constant_op(arrays[1], norm.bias.type)], norm)
        folded = type(conv).create_inferred(
            [conv.input, new_weight[0].results[0], new_bias[0].results[0]],
            dict(conv.properties),
        )
        with_provenance([folded], conv)
        new_weight[0].results[0].name_hint = conv.weight.name_hint
        new_bias[0].results[0].name_hint = norm.bias.name_hint
        self.replace(norm, [*new_weight, *new_bias, folded], [folded.result])
        return True

    def replace(
        self, op: Operation, new_ops: list[Operation], new_results: list[SSAValue]
    ) -> None:
        """Replace `op` by `new_ops` and erase what only `op` used."""
        producers = _producers(op)
        rewriter = PatternRewriter(op)
        rewriter.replace(op, new_ops, new_results)
        erase_dead(rewriter, producers)


@dataclass(frozen=True)
class GraphFoldConstantsPass(ModulePass):
    """Fold constant subgraphs and conv -> batch_norm (see the module
    docstring).

    Options: `max-elements` (largest operand or result evaluated, default
    2^24), `allow-growth` (fold even where the literal grows, default
    false), `conv-bn` (fold batch norms into convs, default true).
    """

    name = "graph-fold-constants"
    max_elements: int = MAX_ELEMENTS
    allow_growth: bool = False
    conv_bn: bool = True

    def __post_init__(self) -> None:
        check_int(self.name, "max-elements", self.max_elements, 0)
        check_bool(self.name, "allow-growth", self.allow_growth)
        check_bool(self.name, "conv-bn", self.conv_bn)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        ConstantFolding(self).run(op)


def fold_constants(module: ModuleOp, **options: Any) -> ModuleOp:
    """Run `graph-fold-constants` on `module` in place (options as keyword
    arguments: `max_elements=`, `allow_growth=`, `conv_bn=`); returns it."""
    GraphFoldConstantsPass(**options).apply(Context(), module)
    return module
