"""The generate workloads: what they time, and one step's bytes."""

from __future__ import annotations

import pytest

from fxdsl.bench.generation import GENERATE_WORKLOADS, config_sizes, step_bytes
from fxdsl.testing.optional import need


def test_the_workloads_are_the_issue_rows() -> None:
    full = {w.name: w.dims["full"] for w in GENERATE_WORKLOADS}
    assert set(full) == {
        "generate_gpt2_bf16_b1",
        "generate_gpt2_bf16_b8",
        "generate_llama1b_bf16_b1",
        "generate_llama1b_bf16_b8",
    }
    for name, dims in full.items():
        assert (dims["prompt"], dims["new"]) == (128, 256)
        assert dims["B"] == (1 if name.endswith("_b1") else 8)
    assert full["generate_gpt2_bf16_b1"]["n_layer"] == 12
    assert full["generate_llama1b_bf16_b1"]["hidden_size"] == 2048


@pytest.mark.parametrize("scale", ["full", "small", "tiny"])
def test_every_scales_config_builds(scale: str) -> None:
    """The config of each workload at each scale (the model itself only on
    the GPU at full scale): the 2026-11-28 GPU check found the full-scale
    GPT-2 config refused (`vocab_size` given twice), which the dry run's tiny
    scale never passes."""
    need("transformers")
    from fxdsl.testing.generation import decoder_config

    for workload in GENERATE_WORKLOADS:
        sizes = config_sizes(workload, workload.dims[scale])
        config = decoder_config(workload.model, **sizes)
        for key, value in sizes.items():
            assert getattr(config, key) == value, (workload.name, key)


def test_a_step_reads_every_weight_once_and_the_whole_cache() -> None:
    torch = need("torch")
    need("transformers")
    from fxdsl.testing.generation import build_decoder

    workload = next(w for w in GENERATE_WORKLOADS if w.name.startswith("generate_l"))
    dims = workload.dims["tiny"]
    model = build_decoder("llama", torch.bfloat16, **config_sizes(workload, dims))
    config = model.config
    weights = 2 * sum(p.numel() for p in model.parameters())  # bf16, tied once
    head = config.hidden_size // config.num_attention_heads
    length = 40
    cache = 2 * config.num_hidden_layers * 3 * config.num_key_value_heads
    cache *= length * head * 2
    assert step_bytes(model, 3, length) == weights + cache
    assert config.max_position_embeddings >= dims["prompt"] + dims["new"]


@pytest.mark.parametrize("variant", ["fxdsl", "torch-compile"])
def test_variants_that_cannot_run_here_say_why(variant: str) -> None:
    need("torch")
    need("transformers")
    from fxdsl.bench.generation import run_generate
    from fxdsl.bench.timing import CpuDevice
    from fxdsl.bench.variants import Skipped

    workload = GENERATE_WORKLOADS[0]
    with pytest.raises(Skipped, match="generation runs through|timed on the GPU"):
        run_generate(workload, "tiny", CpuDevice(1), variant, 1, 0)
