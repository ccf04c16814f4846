"""The FX-style Python rewrite API on xDSL's rewriter.

Names are imported on first use from the module that defines them.
"""

from __future__ import annotations

from fxdsl.util.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    # direct editing helpers
    "ops_in_order": "fxdsl.rewrite.editing",
    "insert_before": "fxdsl.rewrite.editing",
    "insert_after": "fxdsl.rewrite.editing",
    "replace_all_uses": "fxdsl.rewrite.editing",
    "erase": "fxdsl.rewrite.editing",
    # Transformer
    "Transformer": "fxdsl.rewrite.transformer",
    # pattern matching and replacement
    "SubgraphMatcher": "fxdsl.rewrite.matcher",
    "InternalMatch": "fxdsl.rewrite.matcher",
    "replace_pattern": "fxdsl.rewrite.subgraph_rewriter",
    "replace_pattern_with_filters": "fxdsl.rewrite.subgraph_rewriter",
    "ReplacedPatterns": "fxdsl.rewrite.subgraph_rewriter",
    # pass manager
    "PassManager": "fxdsl.rewrite.pass_manager",
    "PassResult": "fxdsl.rewrite.pass_manager",
    "PassManagerError": "fxdsl.rewrite.pass_manager",
    "this_before_that_pass_constraint": "fxdsl.rewrite.pass_manager",
    # exposing Python passes to -p pipelines and fxdsl-opt
    "register_pass": "fxdsl.pipeline.registry",
    # partitioning (graph-partition issue)
    "OperatorSupport": "fxdsl.transforms.operator_support",
    "OpAllowList": "fxdsl.transforms.operator_support",
    "chain": "fxdsl.transforms.operator_support",
    "any_chain": "fxdsl.transforms.operator_support",
    "CapabilityBasedPartitioner": "fxdsl.transforms.partitioner",
    "Partition": "fxdsl.transforms.partitioner",
}

# Derived from the table so that a new export is one line there; pyright
# only reads literal lists.
__all__ = sorted(_EXPORTS)  # pyright: ignore[reportUnsupportedDunderAll]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
