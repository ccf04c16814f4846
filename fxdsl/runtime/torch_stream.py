"""Run fxdsl's kernels on torch's current CUDA stream.

The CUDA executor launches on CuPy's current stream (and CUDA graphs order
themselves after it). Making that stream torch's current one orders fxdsl's
kernels with torch's work around them, also while torch captures a CUDA
graph (then torch's current stream is the capturing one). CuPy is imported
here, in `fxdsl.runtime`, and only when a CUDA island runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def on_torch_stream() -> Iterator[None]:
    """CuPy's current stream is torch's current CUDA stream inside."""
    import cupy  # type: ignore[import-not-found]
    import torch

    stream = torch.cuda.current_stream()
    with cupy.cuda.ExternalStream(stream.cuda_stream, stream.device_index):
        yield
