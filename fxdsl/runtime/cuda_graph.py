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
executor; inputs and outputs do not, so captured graphs are cached by the
device addresses of the call's inputs (`MAX_GRAPHS` of them): calling again
with the same device arrays (the usual inference loop, and the benchmark)
replays; new addresses capture a new entry; beyond `MAX_GRAPHS` distinct
input sets the call runs eagerly (correct, without the launch savings).
Numpy inputs are uploaded to fresh device arrays on every call, so they
always take that path after the first few calls: pass CuPy arrays (or torch
tensors, zero-copy) to benefit. Outputs are copied out of the entry's own
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

    def __call__(self, *inputs: Any) -> tuple[Any, ...]:
        executor = self.executor
        uploaded = executor.upload(inputs)
        key = tuple(device_address(b) for b in uploaded)
        entry = self.entries.get(key)
        if entry is None and len(self.entries) >= MAX_GRAPHS:
            buffers = executor.bind(uploaded)  # eager: too many distinct inputs
            executor.run(buffers)
            return executor.outputs(buffers)
        caller = self.cp.cuda.get_current_stream()
        self.stream.wait_event(caller.record())
        with self.stream:
            if entry is None:  # a replay needs no buffers but the entry's
                entry = self._capture(executor.bind(uploaded))
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
