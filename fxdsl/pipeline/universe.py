"""xDSL `Universe` entry point: the graph dialect, fxdsl passes and targets.

Registered under `[project.entry-points.'xdsl.universe']`, so plain
`xdsl-opt` sees everything `fxdsl-opt` does. Passes and targets are imported
lazily inside their factories: start-up stays cheap and a broken pass cannot
break the driver for everyone else.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target

# pass name -> "module:ClassName"; one module per pass (STYLE.md).
PASSES: dict[str, str] = {
    "graph-split": "fxdsl.transforms.graph_split:GraphSplitPass",
    "graph-pipeline-stages": (
        "fxdsl.transforms.graph_pipeline_stages:GraphPipelineStagesPass"
    ),
    "graph-partition": "fxdsl.transforms.graph_partition:GraphPartitionPass",
    "graph-fuse": "fxdsl.transforms.graph_fuse:GraphFusePass",
    "graph-decompose": "fxdsl.transforms.graph_decompose:GraphDecomposePass",
    "graph-fold-constants": (
        "fxdsl.transforms.graph_fold_constants:GraphFoldConstantsPass"
    ),
    "graph-split-k": "fxdsl.transforms.graph_split_k:GraphSplitKPass",
    "graph-fuse-attention": (
        "fxdsl.transforms.graph_fuse_attention:GraphFuseAttentionPass"
    ),
    "graph-unfuse": "fxdsl.transforms.graph_unfuse:GraphUnfusePass",
    "graph-dedup": "fxdsl.transforms.graph_dedup:GraphDedupPass",
    "graph-unflatten": "fxdsl.transforms.graph_unflatten:GraphUnflattenPass",
    "graph-flatten": "fxdsl.transforms.graph_flatten:GraphFlattenPass",
    "graph-wrap-kernels": "fxdsl.lowering.graph_wrap_kernels:GraphWrapKernelsPass",
    "graph-bufferize": "fxdsl.lowering.graph_bufferize:GraphBufferizePass",
    "convert-groups-to-gpu": (
        "fxdsl.lowering.convert_groups_to_gpu:ConvertGroupsToGpuPass"
    ),
    "convert-graph-to-gpu": "fxdsl.lowering.convert_graph_to_gpu:ConvertGraphToGpuPass",
}

PLUGINS_VARIABLE = "FXDSL_PLUGINS"
"""Comma-separated modules to import at start-up: their `register_pass`
calls (`fxdsl.pipeline.registry`) add passes to `PASSES`."""

# target name -> "module:ClassName"
TARGETS: dict[str, str] = {
    "dot": "fxdsl.targets.dot:DotTarget",
    "cuda": "fxdsl.lowering.cuda_printer:CudaTarget",
}


def _lazy(path: str) -> Callable[[], type]:
    module_name, class_name = path.split(":")

    def factory() -> type:
        return getattr(importlib.import_module(module_name), class_name)

    return factory


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def graph() -> Dialect:
        from fxdsl.ir.graph import Graph

        return Graph

    return {"graph": graph}


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory returning the pass class (imported on demand)."""
    return {name: _lazy(path) for name, path in PASSES.items()}


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    return {name: _lazy(path) for name, path in TARGETS.items()}


FXDSL_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)


def load_plugins(spec: str | None = None) -> list[str]:
    """Import the plugin modules named in `spec` (default: $FXDSL_PLUGINS,
    comma-separated dotted paths); returns the module names imported."""
    spec = os.environ.get(PLUGINS_VARIABLE, "") if spec is None else spec
    names = [name.strip() for name in spec.split(",") if name.strip()]
    for module_name in names:
        try:
            importlib.import_module(module_name)
        except Exception as error:
            raise ImportError(
                f"{PLUGINS_VARIABLE}: cannot import plugin module '{module_name}': "
                f"{type(error).__name__}: {error}"
            ) from error
    return names


# Plugins register into PASSES and FXDSL_UNIVERSE, both made above.
load_plugins()
