"""Padded batches of Hugging Face models: the attention mask as a folded
pattern (causal plus one row of keys per sequence) or as an input, against
torch eager on the reference and on the fused attention kernel (IR
emulator), and at a size where the default pipeline picks that kernel.

torch and transformers are the `fxdsl[torch]` extra: skipped where they are
missing, except under CI (`fxdsl.testing.optional.need`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects import gpu, memref

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import from_torch, to_numpy  # noqa: E402
from fxdsl.ir import graph  # noqa: E402
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.torch_models import bert, eager_outputs, gpt2, padded  # noqa: E402

EVERY_ATTENTION_FUSED = GPU_PIPELINE.replace(
    "graph-fuse-attention", "graph-fuse-attention{min-rows=1}"
).replace("graph-decompose", "graph-decompose{attention-min-rows=1}")
"""The default pipeline with the fused attention kernel at any size, so a
small model exercises it."""


def _inputs(example: Any) -> list[np.ndarray]:
    """The user inputs in export order: positional, then tensor kwargs."""
    _, args, kwargs = example
    tensors = [v for v in kwargs.values() if isinstance(v, torch.Tensor)]
    return [to_numpy(a) for a in (*args, *tensors)]


def _attention_masks(module: Any) -> list[tuple[str | None, bool]]:
    return [
        (None if op.mask is None else str(op.mask.type), op.is_causal)
        for op in module.walk()
        if isinstance(op, graph.AttentionOp)
    ]


def _assert_matches(got: Any, example: Any, tolerance: float) -> None:
    want = eager_outputs(example)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance)


CASES = {
    # left padding under the causal mask: the pad rows keep no key at all
    "gpt2_left_folded": (lambda: gpt2(layers=1, batch=3, length=16), True, True),
    "gpt2_right_input": (lambda: gpt2(layers=1, batch=3, length=16), False, False),
    "bert_right_folded": (lambda: bert(batch=3, length=16), False, True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_padded_batch_matches_eager_on_the_fused_kernel(case: str) -> None:
    build, left, folded = CASES[case]
    example = padded(build(), [16, 9, 3], left=left, folded=folded)
    program = from_torch(*example)
    masks = _attention_masks(program.module)
    if folded:  # one i1 row of keys per sequence; causal where GPT-2 has it
        causal = case.startswith("gpt2")
        assert set(masks) == {("tensor<3x1x1x16xi1>", causal)}
    else:  # HF's mask construction over the input runs as graph ops
        assert set(masks) == {("tensor<3x1x16x16xi1>", False)}
    _assert_matches(program.run(*_inputs(example)), example, 1e-5)
    lowered = fxdsl.apply(program.module.clone(), EVERY_ATTENTION_FUSED)
    kernels = [k.sym_name.data for k in lowered.walk() if isinstance(k, gpu.FuncOp)]
    assert any(k.endswith("_attention") for k in kernels)  # one per outlined layer
    with np.errstate(divide="ignore"):  # 1 / l of a row without keys, unused
        got = Emulator(lowered).run("forward", *program.weights, *_inputs(example))
    _assert_matches(got, example, 1e-4)


def test_padded_hf_attention_reaches_the_fused_attention_kernel() -> None:
    """GPT-2 at B=8, T=512 (4 heads: 16384 query rows, the default
    `attention-min-rows` of graph-decompose and `min-rows` of
    graph-fuse-attention) on a right-padded batch: the folded mask is
    causal plus an (8, 1, 1, 512) row of keys, and the default pipeline
    lowers the attention to one attention kernel that reads it."""
    lengths = [512, 500, 384, 256, 511, 100, 37, 512]
    example = padded(gpt2(layers=1, batch=8, length=512), lengths)
    program = from_torch(*example)
    assert _attention_masks(program.module) == [("tensor<8x1x1x512xi1>", True)]
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    kernels = [k for k in lowered.walk() if isinstance(k, gpu.FuncOp)]
    (attention,) = [k for k in kernels if k.sym_name.data.endswith("_attention")]
    mask_type = "memref<8x1x1x512xi1>"
    assert mask_type in [str(a.type) for a in attention.body.block.args]
    loads = [op for op in attention.walk() if isinstance(op, memref.LoadOp)]
    assert any(str(op.memref.type) == mask_type for op in loads)


def test_mask_patterns() -> None:
    """What a folded mask is read as: the cheapest form that equals it."""
    from fxdsl.frontends.torch_nodes import _mask_pattern

    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    keys = torch.tensor([[True, True, True, False], [False, True, True, True]])
    per_key = keys[:, None, None, :].expand(2, 1, 4, 4)
    additive = torch.zeros(2, 1, 4, 4).masked_fill(~per_key, float("-inf"))
    assert _mask_pattern(torch.ones(2, 1, 4, 4, dtype=torch.bool)) == "none"
    assert _mask_pattern(causal.expand(2, 1, 4, 4)) == "causal"
    assert _mask_pattern(per_key) == "keys"
    assert _mask_pattern(additive) == "keys"
    assert _mask_pattern(per_key & causal) == "causal keys"
    # a padded query row is not a per-key mask; finfo.min is not -inf
    rows = per_key & keys[:, None, :, None]
    assert _mask_pattern(rows) == "operand"
    assert _mask_pattern(additive.clamp(min=torch.finfo(torch.float32).min)) == (
        "operand"
    )


@pytest.mark.gpu
def test_padded_gpt2_on_gpu_matches_eager() -> None:
    """The padded B=8, T=512 GPT-2 through the default pipeline on the GPU
    (the masked fused attention kernel) equals torch eager."""
    lengths = [512, 500, 384, 256, 511, 100, 37, 512]
    example = padded(gpt2(layers=1, batch=8, length=512), lengths, left=True)
    program = from_torch(*example)
    run = fxdsl.compile(program.module, backend="cuda")
    got = [np.asarray(a.get()) for a in run(*program.weights, *_inputs(example))]
    _assert_matches(got, example, 1e-3)
