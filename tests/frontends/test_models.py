"""Model builders: structure, scopes, weights, numerics against numpy."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from fxdsl.ir.graph import PARAM, SCOPE, ScopeAttr
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from fxdsl.frontends import models
from fxdsl.interpreters.run import entry_function, run_reference

# f32 interpreter against the float64 numpy reference; outputs are O(1)
# (residual stream, layer norm), the worst error seen is 5e-7 (8e-7 at D=768).
RTOL, ATOL = 1e-5, 5e-6


def params(module: ModuleOp) -> list[str | None]:
    fn = entry_function(module)
    assert fn.arg_attrs is not None
    found: list[str | None] = []
    for attrs in fn.arg_attrs.data:
        value = attrs.data.get(PARAM)
        found.append(value.data if isinstance(value, StringAttr) else None)
    return found


def compute_ops(module: ModuleOp) -> list[Operation]:
    return [
        op
        for op in entry_function(module).body.ops
        if not isinstance(op, func.ReturnOp)
    ]


def frames(op: Operation) -> tuple[tuple[str, int, str], ...]:
    attr = op.attributes.get(SCOPE)
    assert isinstance(attr, ScopeAttr), f"{op.name} has no scope"
    return attr.data


def test_gpt2_stack_arguments_in_hf_names_and_torch_layout() -> None:
    module = models.gpt2_stack(2, T=16, D=64, heads=4)
    assert params(module) == [None, *models.gpt2_param_names(2)]
    assert models.gpt2_param_names(1, final_ln=False)[:4] == [
        "transformer.h.0.ln_1.weight", "transformer.h.0.ln_1.bias",
        "transformer.h.0.attn.c_attn.weight", "transformer.h.0.attn.c_attn.bias",
    ]  # fmt: skip
    types = dict(zip(params(module), entry_function(module).function_type.inputs.data))
    assert str(types[None]) == "tensor<1x16x64xf32>"
    # Linear weights are (out, in), as torch.nn.Linear.
    assert str(types["transformer.h.1.attn.c_attn.weight"]) == "tensor<192x64xf32>"
    assert str(types["transformer.h.0.mlp.c_fc.weight"]) == "tensor<256x64xf32>"
    assert str(types["transformer.h.0.mlp.c_proj.weight"]) == "tensor<64x256xf32>"
    assert str(types["transformer.ln_f.bias"]) == "tensor<64xf32>"
    assert (
        len(params(models.gpt2_block(T=16, D=64, heads=4)))
        == 1 + models.PARAMS_PER_BLOCK
    )


def test_gpt2_scopes_follow_the_module_tree() -> None:
    ops = compute_ops(models.gpt2_stack(2, T=16, D=64, heads=4))
    stacks = [frames(op) for op in ops]
    assert all(s[0] == ("transformer", 0, "GPT2Model") for s in stacks)
    modules = {frame[::2] for s in stacks for frame in s}
    for i in range(2):
        h = f"transformer.h.{i}"
        assert {
            (h, "GPT2Block"), (f"{h}.ln_1", "LayerNorm"), (f"{h}.ln_2", "LayerNorm"),
            (f"{h}.attn", "GPT2Attention"), (f"{h}.attn.c_attn", "Linear"),
            (f"{h}.attn.c_proj", "Linear"), (f"{h}.mlp", "GPT2MLP"),
            (f"{h}.mlp.c_fc", "Linear"), (f"{h}.mlp.act", "NewGELUActivation"),
            (f"{h}.mlp.c_proj", "Linear"),
        } <= modules  # fmt: skip
    assert ("transformer.ln_f", "LayerNorm") in modules
    # Each module is called once; every frame's fqn extends its parent's.
    assert {frame[1] for s in stacks for frame in s} == {0}
    for stack in stacks:
        for outer, inner in itertools.pairwise(stack):
            assert inner[0].startswith(outer[0] + ".")
    # The residual adds belong to the block itself, as in HF's GPT2Block.
    adds = [s for op, s in zip(ops, stacks) if op.name == "graph.add"]
    assert [s[-1][0] for s in adds] == ["transformer.h.0"] * 2 + ["transformer.h.1"] * 2


def _block_signature(ops: list[Operation], fqn: str) -> list[str]:
    """Each op of block `fqn` as text without SSA names or the block index."""
    lines: list[str] = []
    for op in ops:
        if any(frame[0] == fqn for frame in frames(op)):
            text = re.sub(r"%[\w.$-]+", "%", str(op))
            lines.append(text.replace(f"{fqn}", "BLOCK"))
    return lines


def test_gpt2_blocks_are_structurally_identical() -> None:
    ops = compute_ops(models.gpt2_stack(3, T=16, D=64, heads=4))
    first = _block_signature(ops, "transformer.h.0")
    assert len(first) >= 25
    assert _block_signature(ops, "transformer.h.1") == first
    assert _block_signature(ops, "transformer.h.2") == first
    # Blocks read their own weights: no block shares a weight argument.
    fn = entry_function(models.gpt2_stack(3, T=16, D=64, heads=4))
    for arg in fn.args[1:]:
        users = {frames(use.operation)[1][0] for use in arg.uses}
        assert len(users) == 1


def test_gpt2_attention_ops_and_finite_mask() -> None:
    module = models.gpt2_block(T=16, D=64, heads=4)
    counts: dict[str, int] = {}
    for op in compute_ops(module):
        counts[op.name] = counts.get(op.name, 0) + 1
    assert counts["graph.linear"] == 4
    assert counts["graph.layer_norm"] == 2
    assert counts["graph.matmul"] == 2
    assert (counts["graph.softmax"], counts["graph.split"], counts["graph.gelu"]) == (
        1,
        1,
        1,
    )
    assert counts["graph.select"] == 1
    text = str(module)
    assert "value -1.000000e+09" in text
    assert "inf" not in text
    assert 'approximate "tanh"' in text


def test_gpt2_matches_numpy_reference() -> None:
    module = models.gpt2_stack(2, T=16, D=64, heads=4)
    for seed in (0, 1):
        inputs = models.example_inputs(module, seed)
        (got,) = run_reference(module, *inputs)
        want = models.gpt2_numpy(*inputs, heads=4)
        assert got.shape == want.shape == (1, 16, 64)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_gpt2_batched_block_without_final_norm() -> None:
    module = models.gpt2_block(B=2, T=8, D=32, heads=2)
    inputs = models.example_inputs(module, 3)
    (got,) = run_reference(module, *inputs)
    want = models.gpt2_numpy(*inputs, heads=2, final_ln=False)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    # The final norm matters: without matching final_ln the numbers differ.
    with pytest.raises(ValueError, match="do not form blocks"):
        models.gpt2_numpy(*inputs, heads=2, final_ln=True)


@pytest.mark.parametrize("run", ["traced", "numpy"])
def test_gpt2_is_causal(run: str) -> None:
    module = models.gpt2_stack(1, T=16, D=64, heads=4)
    inputs = models.example_inputs(module, 0)
    changed = [a.copy() for a in inputs]
    # Random, not constant: a constant shift is what layer norm removes.
    noise = np.random.default_rng(1).standard_normal(changed[0][:, 10:].shape)
    changed[0][:, 10:] += noise.astype(np.float32)

    def forward(arrays: list[np.ndarray]) -> np.ndarray:
        if run == "traced":
            return run_reference(module, *arrays)[0]
        return models.gpt2_numpy(*arrays, heads=4)

    before, after = forward(inputs), forward(changed)
    np.testing.assert_array_equal(before[:, :10], after[:, :10])
    assert np.abs(before[:, 10:] - after[:, 10:]).min() > 0


def test_mlp_structure_and_numerics() -> None:
    module = models.mlp(B=8, D=16, H=32)
    assert [op.name for op in compute_ops(module)] == [
        "graph.linear", "graph.gelu", "graph.linear", "graph.add", "graph.layer_norm",
    ]  # fmt: skip
    assert params(module) == [
        None, "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "norm.weight",
        "norm.bias",
    ]  # fmt: skip
    inputs = models.example_inputs(module, 0, weight_scale=0.3)
    (got,) = run_reference(module, *inputs)
    np.testing.assert_allclose(got, models.mlp_numpy(*inputs), rtol=RTOL, atol=ATOL)


def test_builders_are_deterministic_and_validate() -> None:
    assert str(models.gpt2_stack(2, T=16, D=64, heads=4)) == str(
        models.gpt2_stack(2, T=16, D=64, heads=4)
    )
    with pytest.raises(ValueError, match="not divisible by heads"):
        models.gpt2_stack(1, D=30, heads=4)
