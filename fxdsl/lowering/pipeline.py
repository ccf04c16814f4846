"""The lowering from the graph dialect to GPU kernels, as named stages.

Each stage is a pass; `fxdsl-opt -p <stage>` stops after it, so every step
is printable IR with its own FileCheck test (tests/filecheck/lowering/).
`convert-graph-to-gpu` runs `GPU_STAGES` in order; the default compile
pipeline puts the graph-level passes in front.
"""

from __future__ import annotations

GPU_STAGES: tuple[tuple[str, str], ...] = (
    # every kernel comes from a fusion group; matmul stays a library call
    ("graph-wrap-kernels", "one-op groups for unfused ops, copies for views"),
    # host functions on memrefs; views are strided memrefs, no copies
    ("graph-bufferize", "tensors -> memrefs, memref.alloc per kernel output"),
    # each group -> gpu.func in gpu.module @kernels + gpu.launch_func
    ("convert-groups-to-gpu", "pointwise / row-reduction kernels"),
)
"""(pass name, what it does) in the order `convert-graph-to-gpu` runs them."""

GPU_PIPELINE = "graph-decompose,graph-fuse,cse,convert-graph-to-gpu"
"""The full pipeline from graph IR to kernels (`-t cuda` prints the result)."""


def stage_names() -> list[str]:
    return [name for name, _ in GPU_STAGES]
