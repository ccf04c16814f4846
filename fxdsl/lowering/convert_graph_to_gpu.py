"""`convert-graph-to-gpu`: run the GPU lowering stages of `pipeline.py` in
order (graph-wrap-kernels, graph-bufferize, convert-groups-to-gpu; option
`flash-pipeline` goes to the last). Input:
any graph-dialect module, fused or not; output: host functions on memrefs
launching kernels of one `gpu.module @kernels` (print them with `-t cuda`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from fxdsl.ir.utils import verify_ssa
from fxdsl.lowering.convert_groups_to_gpu import ConvertGroupsToGpuPass
from fxdsl.lowering.graph_bufferize import GraphBufferizePass
from fxdsl.lowering.graph_wrap_kernels import GraphWrapKernelsPass
from fxdsl.lowering.pipeline import stage_names
from fxdsl.transforms.options import check_bool

# The stages by class, not through the pass registry: the registry names
# this pass too, so looking the stages up there would tie the two together.
_STAGES: dict[str, type[ModulePass]] = {
    stage.name: stage
    for stage in (GraphWrapKernelsPass, GraphBufferizePass, ConvertGroupsToGpuPass)
}


@dataclass(frozen=True)
class ConvertGraphToGpuPass(ModulePass):
    """Lower graph IR to host functions + `gpu.module` kernels."""

    name = "convert-graph-to-gpu"

    flash_pipeline: bool = True
    """Passed to `convert-groups-to-gpu` (its option of the same name)."""

    verify_stages: bool = True
    """Verify the module between the stages (as a pipeline of the three
    would); the compile paths, which verify once at the end, turn it off:
    each verification walks every op of the kernels (a quarter of lowering
    a frozen ResNet-18)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_bool(self.name, "flash-pipeline", self.flash_pipeline)
        check_bool(self.name, "verify-stages", self.verify_stages)
        stages = tuple(
            _STAGES[name](flash_pipeline=self.flash_pipeline)  # type: ignore[call-arg]
            if _STAGES[name] is ConvertGroupsToGpuPass
            else _STAGES[name]()
            for name in stage_names()
        )
        if not self.verify_stages:
            PassPipeline(stages).apply(ctx, op)
            return
        PassPipeline(stages, lambda _prev, module, _next: verify_ssa(module)).apply(
            ctx, op
        )
