"""Pipelines are edited as parsed steps, never as text: a pass with options
and an option list with commas survive every edit."""

from __future__ import annotations

import pytest
from fxdsl.pipeline.lower import lower_for_cuda

from fxdsl.api import parse
from fxdsl.bench.variants import without_fuse
from fxdsl.lowering.pipeline import GPU_PIPELINE, with_split_k
from fxdsl.util.pipeline_syntax import (
    has_pass,
    pipeline_steps,
    with_options,
    with_pass,
    without_pass,
)


def names(pipeline: str) -> list[str]:
    return [step.name for step in pipeline_steps(pipeline)]


def test_split_k_follows_a_decompose_with_options() -> None:
    """Text replacement of `graph-decompose,` missed this step."""
    pipeline = "graph-decompose{attention-min-rows=4},graph-fuse,cse"
    split = with_split_k(pipeline)
    assert split == "graph-decompose{attention-min-rows=4},graph-split-k,graph-fuse,cse"
    assert names(with_split_k(GPU_PIPELINE)) == [
        *names(GPU_PIPELINE)[:2],
        "graph-split-k",
        *names(GPU_PIPELINE)[2:],
    ]
    with pytest.raises(ValueError, match="no graph-decompose step"):
        with_split_k("graph-fuse,cse")


def test_removing_a_pass_keeps_an_option_list_whole() -> None:
    """Splitting the text on "," cut `ops=add,mul` in two."""
    pipeline = "graph-partition{ops=add,mul},graph-fuse,cse"
    assert (
        without_pass(pipeline, "graph-fuse") == 'graph-partition{ops="add","mul"},cse'
    )
    assert names(without_fuse(pipeline)) == ["graph-partition", "cse"]
    assert pipeline_steps(without_fuse(pipeline))[0].parameters == {
        "ops": ("add", "mul")
    }


def test_edits_by_name() -> None:
    pipeline = "graph-fuse-attention,graph-fuse{max-args=64}"
    assert has_pass(pipeline, "graph-fuse")
    assert not has_pass(pipeline, "graph-partition")
    assert with_pass(pipeline, "cse") == f"{pipeline},cse"
    assert (
        with_options(pipeline, "graph-fuse-attention", fold_bias=False)
        == "graph-fuse-attention{fold-bias=false},graph-fuse{max-args=64}"
    )


def test_lowering_appends_the_gpu_conversion_once() -> None:
    module = parse(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = graph.exp %x : tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n"
        "}\n"
    )
    _, plan = lower_for_cuda(module, "graph-partition{ops=add,mul},graph-fuse")
    assert plan.kernels == ("main_0_exp",)
    _, again = lower_for_cuda(module, "graph-fuse,convert-graph-to-gpu")
    assert again.kernels == plan.kernels
