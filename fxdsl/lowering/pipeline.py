"""The lowering from the graph dialect to GPU kernels, as named stages.

Each stage is a pass; `fxdsl-opt -p <stage>` stops after it, so every step
is printable IR with its own FileCheck test (tests/filecheck/lowering/).
`convert-graph-to-gpu` runs `GPU_STAGES` in order; the default compile
pipeline puts the graph-level passes in front.
"""

from __future__ import annotations

from fxdsl.util.pipeline_syntax import with_pass

GPU_STAGES: tuple[tuple[str, str], ...] = (
    # every kernel comes from a fusion group; matmul stays a library call
    ("graph-wrap-kernels", "one-op groups for unfused ops, copies for views"),
    # host functions on memrefs; views are strided memrefs, no copies
    ("graph-bufferize", "tensors -> memrefs, memref.alloc per kernel output"),
    # each group -> gpu.func in gpu.module @kernels + gpu.launch_func
    ("convert-groups-to-gpu", "pointwise / row-reduction kernels"),
)
"""(pass name, what it does) in the order `convert-graph-to-gpu` runs them."""

DEDUP_MIN_OPS = 8
"""Smallest region `graph-dedup` outlines in the default pipelines.

Outlining is for compile time: the 12 blocks of a GPT-2 stack become one
function (30 graph ops) that is decomposed, fused and lowered once, so the
12-block stack lowers in about the time of one block instead of 4-6x longer.
The price is a fusion boundary at every call: a group cannot reach across
it (in the stack, a block's residual add no longer fuses into the next
block's layer norm: 73 launches instead of 61). Small repeated regions buy
no compile time for that price (in one GPT-2 block, `graph-dedup` with its
default `min-ops=2` outlines two-op pairs and the block needs 15 launches
instead of 6), so only regions of at least this many ops are outlined.

The other order, `graph-decompose,graph-fuse,cse,graph-dedup{min-ops=8}`,
outlines fused blocks (a fusion group is one unit of a region) and keeps
the 61 launches, but decomposes and fuses the whole flat graph first and
leaves the last block inline (its group yields no residual stream, so it
differs): 0.37 s to lower 12 blocks against 0.17 s (benchmarks/README.md).
The default favours the compile-time goal; pass `pipeline=` for the other."""

GRAPH_PIPELINE = (
    f"graph-dedup{{min-ops={DEDUP_MIN_OPS}}},graph-decompose,"
    "graph-fuse-attention,graph-fuse,cse"
)
"""The graph-level passes both backends run first (see DEDUP_MIN_OPS).
`graph-fuse-attention` runs before `graph-fuse` (which would fuse the
softmax with its producers and break the chain); with its default
`min-rows` it fuses large attentions only (see that pass)."""

GPU_PIPELINE = f"{GRAPH_PIPELINE},convert-graph-to-gpu"
"""The full pipeline from graph IR to kernels (`-t cuda` prints the result)."""


def with_split_k(pipeline: str) -> str:
    """`pipeline` with `graph-split-k` right after its `graph-decompose`
    (which turns linear layers into the matmuls it splits): for programs of
    few-row GEMMs (GPT-2 at B=1), opt-in until a GPU run shows it wins;
    `fxdsl.compile(m, pipeline=with_split_k(GPU_PIPELINE))`."""
    return with_pass(pipeline, "graph-split-k", after="graph-decompose")


def stage_names() -> list[str]:
    return [name for name, _ in GPU_STAGES]
