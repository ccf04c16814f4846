"""`convert-graph-to-gpu`: run the GPU lowering stages of `pipeline.py` in
order (graph-wrap-kernels, graph-bufferize, convert-groups-to-gpu). Input:
any graph-dialect module, fused or not; output: host functions on memrefs
launching kernels of one `gpu.module @kernels` (print them with `-t cuda`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from fxdsl.lowering.pipeline import stage_names


@dataclass(frozen=True)
class ConvertGraphToGpuPass(ModulePass):
    """Lower graph IR to host functions + `gpu.module` kernels."""

    name = "convert-graph-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from fxdsl.api import parse_pipeline

        parse_pipeline(",".join(stage_names())).apply(ctx, op)
