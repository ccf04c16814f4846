"""`lower_for_cuda`: a graph module to lowered IR and its launch plan.

Target-neutral and pure Python (no GPU, no CuPy): the CuPy executor, cuda-sim,
the IR emulator's tests and the benchmarks all lower through it. It lives in
the pipeline layer, not in `lowering/`, because it runs a pass pipeline by
name, and the pass names are resolved by the universe, which sits above the
lowering passes it lists.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from fxdsl.ir.utils import reachable_module
from fxdsl.lowering.launch_plan import LaunchPlan, build_launch_plan
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.pipeline.pass_pipeline import apply
from fxdsl.util.pipeline_syntax import has_pass, with_options, with_pass


def lower_for_cuda(
    module: ModuleOp, pipeline: str | None = None, entry: str | None = None
) -> tuple[ModuleOp, LaunchPlan]:
    """A clone of `module` lowered by `pipeline` (default `GPU_PIPELINE`; a
    pipeline of graph passes gets `convert-graph-to-gpu` appended) and its
    launch plan. Pure Python: it needs no GPU. With `entry`, only that
    function and those it calls are lowered (`reachable_module`)."""
    spec = pipeline or GPU_PIPELINE
    if not has_pass(spec, "convert-graph-to-gpu"):
        spec = with_pass(spec, "convert-graph-to-gpu")  # a pipeline of graph passes
    # verified once, at the end (`apply`), not between the lowering's stages
    spec = with_options(spec, "convert-graph-to-gpu", verify_stages=False)
    source = module.clone() if entry is None else reachable_module(module, entry)
    lowered = apply(source, spec, verify_each=False)
    return lowered, build_launch_plan(lowered, entry)
