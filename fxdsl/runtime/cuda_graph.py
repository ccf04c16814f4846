"""`fxdsl.compile(..., backend="cuda", cuda_graph=True)`: replay the launch
plan as CUDA graphs instead of launching kernel by kernel from Python.

The plan's steps are captured once into `cupy.cuda.Graph`s (stream capture).
Kernel launches and f32, f16 and bf16 GEMMs (cuBLAS called directly,
`fxdsl.runtime.cublas`, with a fixed workspace so that it can be captured)
are recorded; what cannot be is run eagerly between the graphs, cutting the
plan into *pieces*: GEMMs through `cupy.matmul` (which CuPy refuses to call
during a capture: "calling cuBLAS API during stream capture is currently
unsupported", CuPy 14.2) — integer GEMMs, and every GEMM where the direct
binding is unavailable (the executor warns, `CublasFallbackWarning`) — and
kernels that fell back to the host (`HostKernel`). An f32, f16 or bf16
program is one graph.

A graph bakes in buffer addresses. Scratch buffers live as long as the
executor; inputs and outputs do not. An input whose address changes from
one call to the next (an activation, a decode step's token ids: a new array
each call) is *moving*: from then on it is copied, before each replay, into
a buffer of the executor's own, whose address the graphs bake in, as
Inductor's CUDA graphs copy their non-static inputs. Inputs at the same
address call after call (weights, a static KV cache) are read where they
are. An input whose buffer the program hands back (a donated cache written
in place, an identity result) is never copied: the caller must see the
writes and get its own array back. Graphs are cached by the addresses they
bake in (`MAX_GRAPHS` of them); a new address of such a pinned input
captures a new entry, and beyond `MAX_GRAPHS` distinct sets the call runs
eagerly (correct, without the launch savings). Outputs are copied out of the entry's own
output buffers, so a later call never overwrites an array already returned;
a replay allocates nothing but those copies. An output that is an argument's
buffer (a donated KV cache the program updates in place) is the caller's
memory and comes back as it is, as from the eager path.

The work runs on a private stream ordered after the caller's current stream
(inputs written there are visible) and before it (the caller may use the
outputs right away).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fxdsl.lowering.launch_plan import Step, device_address

MAX_GRAPHS = 4
"""Distinct input address sets with a captured graph per executor."""


@dataclass
class _Entry:
    """The captured pieces for one set of input buffers."""

    buffers: list[Any]
    pieces: list[Callable[[], None]] = field(default_factory=list[Callable[[], None]])


class GraphedExecutor:
    """Wraps a `CudaExecutor`; same call signature and results."""

    def __init__(self, executor: Any):
        self.executor = executor
        self.cp = executor.cp
        self.stream = self.cp.cuda.Stream(non_blocking=True)
        self.entries: dict[tuple[int, ...], _Entry] = {}
        self.plan = executor.plan
        inputs = self.plan.num_inputs
        self.pinned = {v.slot for v in self.plan.outputs if v.slot < inputs}
        """Inputs the program hands back (written in place, or returned as
        they are): never copied."""
        self.moving: dict[int, Any] = {}
        """Moving input -> the executor's own buffer it is copied into."""
        self._last: list[int] | None = None

    def __call__(self, *inputs: Any) -> tuple[Any, ...]:
        executor = self.executor
        uploaded = executor.upload(inputs)
        addresses = [device_address(b) for b in uploaded]
        self._find_moving(uploaded, addresses)
        staged = list(uploaded)
        for index, buffer in self.moving.items():
            staged[index], addresses[index] = buffer, device_address(buffer)
        key = tuple(addresses)
        entry = self.entries.get(key)
        if entry is None and len(self.entries) >= MAX_GRAPHS:
            buffers = executor.bind(uploaded)  # eager: too many distinct inputs
            executor.run(buffers)
            return executor.outputs(buffers)
        caller = self.cp.cuda.get_current_stream()
        self.stream.wait_event(caller.record())
        with self.stream:
            for index, buffer in self.moving.items():
                buffer[...] = uploaded[index]  # on the graphs' stream, in order
            if entry is None:  # a replay needs no buffers but the entry's
                entry = self._capture(executor.bind(staged))
                self.entries[key] = entry
            for piece in entry.pieces:
                piece()
            outputs = executor.outputs(entry.buffers)
            # an argument's buffer (an identity result, a donated cache written
            # in place) is the caller's memory: handed back as the eager path
            # does, not copied; the entry's own buffers are copied
            results = tuple(
                out if view.slot < self.plan.num_inputs else out.copy()
                for out, view in zip(outputs, self.plan.outputs)
            )
        caller.wait_event(self.stream.record())
        return results

    def _find_moving(self, uploaded: list[Any], addresses: list[int]) -> None:
        """Inputs at another address than on the last call become moving
        (unless pinned), each with a buffer of its own; graphs captured with
        their old addresses are dropped (they would not replay again)."""
        last, self._last = self._last, list(addresses)
        if last is None:
            return
        moved = [
            index
            for index, (now, before) in enumerate(zip(addresses, last))
            if now != before and index not in self.pinned and index not in self.moving
        ]
        for index in moved:
            self.moving[index] = self.cp.empty_like(uploaded[index])
        if moved:
            self.entries.clear()

    def _capture(self, buffers: list[Any]) -> _Entry:
        """Capture every run of launches of the plan on `self.stream` (the
        current stream); steps the executor cannot capture (`capturable`:
        GEMMs through cupy.matmul, host kernels) stay eager pieces."""
        entry = _Entry(buffers)
        run: list[Step] = []
        for step in self.plan.steps:
            if self.executor.capturable(step):
                run.append(step)
                continue
            if run:
                entry.pieces.append(self._graph(run, buffers))
                run = []
            entry.pieces.append(self._eager(step, buffers))
        if run:
            entry.pieces.append(self._graph(run, buffers))
        return entry

    def _graph(self, run: list[Step], buffers: list[Any]) -> Callable[[], None]:
        stream = self.stream
        stream.begin_capture()
        try:
            for step in run:
                self.executor.runner(step)(buffers)
        finally:
            graph = stream.end_capture()
        return lambda: graph.launch(stream)

    def _eager(self, step: Step, buffers: list[Any]) -> Callable[[], None]:
        run = self.executor.runner(step)
        return lambda: run(buffers)
