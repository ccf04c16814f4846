"""`graph-pipeline-stages`: cut a function into balanced, linear pipeline stages.

The planner (`pipeline_plan`) gives each op of the function a stage by
cutting the block's op sequence into N contiguous pieces, so that the most
expensive stage (its ops' roofline time, `op_cost`, plus the time to receive
its inputs) is as cheap as possible, or at scopes the user names;
`graph-split` (fx `split_module`) then outlines the stages, and each is
relinked so that the stages form a chain, as a pipeline schedule runs them:
stage p's activations are exactly stage p-1's results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.graph import PARAM
from fxdsl.ir.utils import arg_attr, entry_function, erase_unused
from fxdsl.transforms.graph_split import split_function
from fxdsl.transforms.op_cost import DEVICES, Device
from fxdsl.transforms.outlining import unique_symbol
from fxdsl.transforms.pipeline_plan import PASS, StagePlan, is_weight, plan_stages


def _linearise(function: func.FuncOp, calls: list[func.CallOp]) -> None:
    """Relink the outlined stages into a chain (see the pass docstring)."""
    block = function.body.block
    module = function.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    terminator = block.last_op
    assert terminator is not None
    needed_later: list[set[SSAValue]] = []
    later: set[SSAValue] = set(terminator.operands)
    for call in reversed(calls):
        needed_later.append(set(later))
        later.update(call.operands)
    needed_later.reverse()
    for value in terminator.operands:
        if is_weight(function, value) or not (
            isinstance(value, BlockArgument) or value.owner in calls
        ):
            raise PassFailedException(
                f"{PASS}: @{function.sym_name.data} returns a weight or a constant; "
                "a pipeline returns only what its last stage computes"
            )
    carried: list[SSAValue] = [a for a in block.args if not is_weight(function, a)]
    current: dict[SSAValue, SSAValue] = {a: a for a in block.args}
    taken: set[str] = set()
    for p, call in enumerate(calls):
        outputs = [v for v in carried if v in needed_later[p]] + list(call.results)
        if p == len(calls) - 1:
            # the last stage's results are the function's, in return order
            outputs = list(terminator.operands)
        callee = SymbolTable.lookup_symbol(module, call.callee)
        assert isinstance(callee, func.FuncOp)
        # In the function's argument order, as the import gives weights.
        weights = [
            a for a in block.args if a in call.operands and is_weight(function, a)
        ]
        name = unique_symbol(module, f"stage_{p}", taken)
        stage = _relinked(function, callee, call, name, weights, carried, outputs)
        module.body.block.insert_op_after(stage, callee)
        module.body.block.erase_op(callee)
        new_call = func.CallOp(
            name,
            [*weights, *(current[v] for v in carried)],
            [v.type for v in outputs],
        )
        new_call.location = call.location
        block.insert_op_before(new_call, terminator)
        current.update(zip(outputs, new_call.results))
        carried = outputs
    terminator.operands = new_call.results  # pyright: ignore[reportPossiblyUnbound]
    for call in reversed(calls):
        block.erase_op(call)


def _relinked(
    function: func.FuncOp,
    callee: func.FuncOp,
    call: func.CallOp,
    name: str,
    weights: list[SSAValue],
    carried: list[SSAValue],
    outputs: list[SSAValue],
) -> func.FuncOp:
    """The stage function: weights, then the previous stage's results."""
    inputs = [*weights, *carried]
    body = Block(arg_types=[v.type for v in inputs])
    arg_of: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for value, arg in arg_of.items():
        arg.name_hint = value.name_hint
    old = callee.body.block
    for old_arg, operand in zip(old.args, call.operands):
        old_arg.replace_all_uses_with(arg_of[operand])
    returned = old.last_op
    assert isinstance(returned, func.ReturnOp)
    produced = dict(zip(call.results, returned.arguments))
    for op in list(old.ops)[:-1]:
        old.detach_op(op)
        body.add_op(op)
    body.add_op(
        func.ReturnOp(*(produced[v] if v in produced else arg_of[v] for v in outputs))
    )
    attrs = [
        DictionaryAttr({PARAM: StringAttr(arg_attr(function, w.index, PARAM) or "")})
        for w in weights
        if isinstance(w, BlockArgument)
    ] + [DictionaryAttr({}) for _ in carried]
    return func.FuncOp(
        name,
        (body.arg_types, [v.type for v in outputs]),
        Region(body),
        "private",
        arg_attrs=ArrayAttr(attrs),
    )


def pipeline_stages(
    module: ModuleOp,
    stages: int,
    cuts: Sequence[str] = (),
    device: Device | str = "h100",
    entry: str | None = None,
) -> StagePlan:
    """Cut function `entry` (default: the first public one) of `module` into
    stages in place (see `GraphPipelineStagesPass`); returns the plan."""
    _check_options(stages, cuts, device)
    try:
        function = entry_function(module, entry)
    except ValueError as error:
        raise PassFailedException(f"{PASS}: {error}") from error
    if len(function.body.blocks) != 1:
        raise PassFailedException(
            f"{PASS}: @{function.sym_name.data} must have a single block"
        )
    erase_unused(function.body.block)
    plan = plan_stages(function, stages if not cuts else len(cuts) + 1, cuts, device)
    split_function(function, plan.stage_of, keep_original_order=True)
    calls = [op for op in function.body.block.ops if isinstance(op, func.CallOp)]
    if len(calls) != len(plan.starts):
        raise PassFailedException(
            f"{PASS}: {len(plan.starts)} stages planned but {len(calls)} remain "
            "(a stage whose results nothing uses was dropped)"
        )
    _linearise(function, calls)
    return plan


def _check_options(stages: object, cuts: Sequence[str], device: object) -> None:
    if isinstance(stages, bool) or not isinstance(stages, int) or stages < 1:
        raise PassFailedException(
            f"{PASS}: stages must be a positive integer, got {stages!r}"
        )
    if cuts and stages not in (2, len(cuts) + 1):
        raise PassFailedException(
            f"{PASS}: {len(cuts)} cuts make {len(cuts) + 1} stages, but stages={stages}"
        )
    if isinstance(device, str) and device not in DEVICES:
        raise PassFailedException(
            f"{PASS}: unknown device '{device}' (known: {', '.join(DEVICES)})"
        )


@dataclass(frozen=True)
class GraphPipelineStagesPass(ModulePass):
    """Cut the public function into `stages` pipeline stages.

    Options: `stages` (>= 1, default 2); `cuts`, scope names in program order
    (`cuts=transformer.h.2,transformer.h.4`): stage p > 0 then starts at the
    first op in scope `cuts[p-1]`, and `stages` may be left at its default or
    must equal len(cuts) + 1; `device` (`h100`, `cpu`): the cost model's
    roofline numbers.

    * Without cuts, the op sequence (block order) is split into contiguous
      stages (`plan_stages`). A stage's predicted time is its ops' roofline
      time (`fxdsl.transforms.op_cost`) plus receiving its activations over
      the device link. The split minimises the slowest stage, then, among
      splits as fast, the sum of squared stage times; it cuts only where at
      most CHEAP_CUT times the fewest bytes of any cut cross (in a
      transformer: the residual stream, never a layer's attention scores).
      Constants get no stage.
    * The stages are outlined by `graph-split` into private
      `func.func @stage_p`, called in order by the function.
    * Linear: stage 0's activations are the function's non-weight arguments;
      stage p's are exactly stage p-1's results: the values a later stage (or
      the return) needs, those passed through first, in the order received,
      then the values stage p computes, in order of definition. The last
      stage returns exactly what the function returns, in its order.
    * Weights (`graph.param` arguments) are arguments of every stage that uses
      them, first, keeping their `graph.param`; they are never a stage's
      result. Constants are cloned into the stages that use them.
    * Errors: stages < 1, more stages than ops, an unknown cut scope or cuts
      out of order, a function that returns a weight or a constant. Dead
      ops (pure, results unused) are erased first.
    """

    name = PASS

    stages: int = 2
    cuts: tuple[str, ...] = ()
    device: str = "h100"

    def __post_init__(self) -> None:
        _check_options(self.stages, self.cuts, self.device)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pipeline_stages(op, self.stages, self.cuts, self.device)
