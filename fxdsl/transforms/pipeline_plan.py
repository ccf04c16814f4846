"""Where to cut a function into pipeline stages (the planner of
`graph-pipeline-stages`).

Each op of the function's block gets a stage by cutting the op sequence into
N contiguous pieces, so that the most expensive stage (its ops' roofline
time, `op_cost`, plus the time to receive its inputs) is as cheap as
possible, then as even as possible at that cost; or at the scopes the user
names.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.graph import PARAM
from fxdsl.ir.utils import arg_attr
from fxdsl.transforms.op_cost import DEVICES, Device, op_time, value_bytes
from fxdsl.transforms.outlining import is_constant
from fxdsl.transforms.scope_tree import scope_frames

PASS = "graph-pipeline-stages"
"""The pass this plans for (its errors name it)."""


@dataclass
class StagePlan:
    """Where the cuts go and what each stage is predicted to cost."""

    ops: list[Operation]
    """The function's ops that get a stage (constants do not), in order."""
    starts: list[int]
    """Index in `ops` of each stage's first op (`starts[0] == 0`)."""
    compute: list[float]
    """Predicted seconds of each stage's ops."""
    receive: list[float]
    """Predicted seconds to receive each stage's activations (0 for stage 0)."""
    sent_bytes: list[int] = field(default_factory=list[int])
    """Bytes of activations going into each stage (stage 0: the user inputs)."""

    @property
    def times(self) -> list[float]:
        return [c + r for c, r in zip(self.compute, self.receive)]

    @property
    def balance(self) -> float:
        """max / mean of the stage times: 1.0 is a perfect split."""
        times = self.times
        return max(times) / (sum(times) / len(times))

    def stage_of(self, op: Operation) -> int:
        return bisect.bisect_right(self.starts, self._index[op]) - 1

    def __post_init__(self) -> None:
        self._index = {op: i for i, op in enumerate(self.ops)}


def is_weight(function: func.FuncOp, value: SSAValue) -> bool:
    return (
        isinstance(value, BlockArgument)
        and value.owner is function.body.block
        and arg_attr(function, value.index, PARAM) is not None
    )


def _live_bytes(function: func.FuncOp, ops: list[Operation]) -> list[int]:
    """Bytes of activations live across each cut: entry k is what a stage
    starting at ops[k] receives (weights and constants are never sent)."""
    block = function.body.block
    index = {op: i for i, op in enumerate(ops)}
    n = len(ops)
    delta = [0] * (n + 2)

    def last_use(value: SSAValue) -> int:
        users = (block.find_ancestor_op_in_block(u.operation) for u in value.uses)
        return max((index.get(u, n) for u in users if u is not None), default=-1)

    values = [(a, 0) for a in block.args if not is_weight(function, a)]
    values += [(r, i + 1) for i, op in enumerate(ops) for r in op.results]
    for value, first in values:
        last = last_use(value)
        if last >= first:
            delta[first] += value_bytes(value)
            delta[last + 1] -= value_bytes(value)
    return [int(x) for x in np.cumsum(delta[: n + 1])]


def _balanced_starts(
    times: Sequence[float], receive: Sequence[float], stages: int
) -> list[int]:
    """Contiguous split of `times` into `stages` pieces (a piece costs its
    times plus `receive` at its start): the smallest bottleneck first, then,
    among the splits that reach it, the one with the least sum of squared
    piece costs (the other stages as even as they can be). Exact dynamic
    programming, O(stages * n^2) with the inner loop vectorised."""
    prefix = np.concatenate([[0.0], np.cumsum(times)])
    recv = _cheap_cuts_only(np.asarray(receive, dtype=np.float64), stages)
    bottleneck = _split(prefix, recv, stages, None)[0]
    # relative slack: the same sums in another order differ in the last bits
    return _split(prefix, recv, stages, bottleneck * (1 + 1e-9))[1]


CHEAP_CUT = 2.0
"""Cut only where the activations sent are at most this many times the
fewest any cut sends: GPipe holds every micro-batch's received activations
at once, and a cut inside attention would send its (T, T) scores."""


def _cheap_cuts_only(recv: np.ndarray, stages: int) -> np.ndarray:
    """`recv` with inf at the cuts that are not cheap (all stay allowed when
    fewer than stages - 1 are)."""
    inner = recv[1:-1]
    if not len(inner):
        return recv
    cheap = inner <= CHEAP_CUT * inner.min()
    if int(cheap.sum()) < stages - 1:
        return recv
    return np.concatenate([recv[:1], np.where(cheap, inner, np.inf), recv[-1:]])


def _split(
    prefix: np.ndarray, recv: np.ndarray, stages: int, limit: float | None
) -> tuple[float, list[int]]:
    """Without `limit`: minimise the largest piece; with it: minimise the sum
    of squared pieces over the splits whose pieces all fit in `limit`.
    Returns the optimum and the piece starts."""
    n = len(prefix) - 1
    if limit is None:
        best = prefix.copy()
    else:
        best = np.where(prefix <= limit, prefix**2, np.inf)
    choice: list[np.ndarray] = []
    for s in range(1, stages):
        new = np.full(n + 1, np.inf)
        arg = np.zeros(n + 1, dtype=np.int64)
        for j in range(s + 1, n + 1):
            i = np.arange(s, j)
            piece = prefix[j] - prefix[i] + recv[i]
            if limit is None:
                cost = np.maximum(best[i], piece)
            else:
                cost = np.where(piece <= limit, best[i] + piece**2, np.inf)
            k = int(np.argmin(cost))
            new[j], arg[j] = cost[k], s + k
        best = new
        choice.append(arg)
    starts, j = [], n
    for arg in reversed(choice):
        j = int(arg[j])
        starts.append(j)
    return float(best[n]), [0, *reversed(starts)]


def _manual_starts(ops: list[Operation], cuts: Sequence[str]) -> list[int]:
    starts = [0]
    for scope in cuts:
        first = next((i for i, op in enumerate(ops) if scope in _fqns(op)), None)
        if first is None:
            raise PassFailedException(f"{PASS}: no op is in scope '{scope}'")
        if first <= starts[-1]:
            raise PassFailedException(
                f"{PASS}: cut '{scope}' does not start after the previous cut "
                "(cuts must name scopes in program order)"
            )
        starts.append(first)
    return starts


def _fqns(op: Operation) -> tuple[str, ...]:
    return tuple(frame[0] for frame in scope_frames(op))


def plan_stages(
    function: func.FuncOp,
    stages: int,
    cuts: Sequence[str] = (),
    device: Device | str = "h100",
) -> StagePlan:
    """Plan `stages` stages of `function` (see `GraphPipelineStagesPass`);
    with `cuts`, stage p > 0 starts at the first op in scope `cuts[p-1]`."""
    target = DEVICES[device] if isinstance(device, str) else device
    block = function.body.block
    ops = [
        op
        for op in block.ops
        if not is_constant(op)
        and not op.has_trait(IsTerminator, value_if_unregistered=False)
    ]
    if stages > len(ops):
        raise PassFailedException(
            f"{PASS}: {stages} stages asked, but @{function.sym_name.data} has "
            f"only {len(ops)} ops"
        )
    live = _live_bytes(function, ops)
    times = [op_time(op, target) for op in ops]
    receive = [b / target.link for b in live]
    if cuts:
        starts = _manual_starts(ops, cuts)
    else:
        starts = _balanced_starts(times, receive, stages)
    ends = [*starts[1:], len(ops)]
    return StagePlan(
        ops,
        starts,
        compute=[sum(times[a:b]) for a, b in zip(starts, ends)],
        receive=[0.0 if a == 0 else receive[a] for a in starts],
        sent_bytes=[live[a] for a in starts],
    )
