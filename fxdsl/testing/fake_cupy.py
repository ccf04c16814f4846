"""A stand-in for CuPy on the host, for the CUDA executor's tests without a
GPU: numpy under CuPy's names (`numpy_cupy`), streams that capture CUDA
graphs (`FakeStreams`) and kernels that a capture records
(`CapturableKernel`). What the kernels compute is the caller's (the IR
emulator through `cuda_executor.HostKernel`, usually).

    cp = numpy_cupy()
    streams = FakeStreams(cp)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    kernels = {name: CapturableKernel(HostKernel(cp, machine, name), streams)}
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

NUMPY_NAMES = (
    "zeros", "empty", "asarray", "ascontiguousarray", "matmul", "ndarray",
    "uint16", "uint32", "float32", "where", "isnan", "lib",
    "linalg", "tri", "eye", "swapaxes", "broadcast_to", "isfinite", "stack",
    "float64", "int32", "tile", "arange", "argmax", "abs", "sqrt", "sum",
    "ones", "concatenate", "empty_like",
)  # fmt: skip
"""What the executor and the cuBLAS binding use of CuPy's numpy-like API."""


def numpy_cupy() -> types.ModuleType:
    """numpy under CuPy's names, on device 0 of compute capability 9.0;
    without streams until `FakeStreams` gives it some."""
    cp = types.ModuleType("cupy")
    for name in NUMPY_NAMES:
        setattr(cp, name, getattr(np, name))
    cp.asnumpy = np.asarray
    cp.from_dlpack = np.from_dlpack
    device = types.SimpleNamespace(id=0, compute_capability="90")
    cp.cuda = types.SimpleNamespace(Device=lambda: device)
    return cp


class FakeStreams:
    """`cupy.cuda` streams and graphs, installed into `cp`: while a stream
    captures, launches are recorded (`recording`, not run); `Graph.launch`
    runs them. Counts captures, replays and allocations (`cp.empty`)."""

    def __init__(self, cp: types.ModuleType) -> None:
        self.recording: list[Any] | None = None
        self.captures = self.replays = self.allocations = 0
        streams = self

        class Graph:
            def __init__(self, work: list[Any]) -> None:
                self.work = work

            def launch(self, _stream: Any) -> None:
                streams.replays += 1
                for run in self.work:
                    run()

        class Stream:
            ptr = 0x51

            def __init__(self, non_blocking: bool = False) -> None:
                pass

            def __enter__(self) -> object:
                return self

            def __exit__(self, *_: object) -> None:
                pass

            def record(self) -> object:
                return object()

            def wait_event(self, _event: object) -> None:
                pass

            def begin_capture(self) -> None:
                streams.recording = []

            def end_capture(self) -> Graph:
                assert streams.recording is not None
                work, streams.recording = streams.recording, None
                streams.captures += 1
                return Graph(work)

        def empty(*args: Any, **kwargs: Any) -> np.ndarray:
            streams.allocations += 1
            return np.empty(*args, **kwargs)

        self.Stream = Stream
        cp.cuda.Stream = Stream
        cp.cuda.get_current_stream = lambda: Stream()
        cp.empty = empty

    def run_or_record(self, run: Any) -> None:
        """`run()` now, or on the graph's replay while a stream captures."""
        if self.recording is not None:
            self.recording.append(run)
        else:
            run()


class CapturableKernel:
    """A device kernel as CUDA graphs see it: recorded while a stream
    captures, else run at once."""

    def __init__(self, kernel: Any, streams: FakeStreams) -> None:
        self.kernel, self.streams = kernel, streams

    def __call__(self, grid: Any, block: Any, args: tuple[Any, ...]) -> None:
        self.streams.run_or_record(lambda: self.kernel(grid, block, args))
