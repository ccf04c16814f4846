"""Greedy generation with HF `generate` and a static KV cache, through the
fxdsl backend, for the decoder architectures of `transformers` that
support the static cache beyond `generation.DECODERS`: the tokens are
eager's, and the prefill and the decode step each compile 100 % with the
cache update inside an island.

Each model is a tiny config (2 layers, width 64, 4 heads, vocabulary 128,
seeded random weights, f32), registered as an `hf_suite.SUITE` recipe for
the test so that `generation.build_decoder` builds it as it builds the
suite's decoders."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

from fxdsl.testing.generation import (  # noqa: E402
    build_decoder,
    cache_updates,
    generate_both,
    prompts,
)
from fxdsl.testing.hf_suite import SUITE, Recipe  # noqa: E402

NEW_TOKENS = 12
PROMPT = 8
WINDOW = 8
"""Sliding windows shorter than prompt plus new tokens, so they mask."""
LOGITS = {"rtol": 1e-4, "atol": 1e-5}
"""How close each step's logits are to eager's (the two sum in other
orders)."""

_LAYERS: dict[str, Any] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
}
"""Llama's names for the sizes; grouped-query attention, 4 heads over 2."""
_HEADS_16 = {**_LAYERS, "head_dim": 16}
_MHA = {**_LAYERS, "num_key_value_heads": 4}
_GPT2_NAMES = {"n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64}
_SLIDING_THEN_FULL = {
    "sliding_window": WINDOW,
    "layer_types": ["sliding_attention", "full_attention"],
}
"""A windowed layer and a global one (with 2 layers, several configs'
default patterns would make both windowed)."""
_EXPERTS = {"num_local_experts": 4, "num_experts_per_tok": 2}
_QWEN_EXPERTS = {
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
}
_DEEPSEEK_EXPERTS = {
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "n_group": 1,
    "topk_group": 1,
    "first_k_dense_replace": 1,
}
"""Layer 0 dense, layer 1 routed (group-limited top-k with one group)."""
_LATENT_ATTENTION = {
    "kv_lora_rank": 16,
    "q_lora_rank": 32,
    "qk_rope_head_dim": 8,
    "qk_nope_head_dim": 8,
    "v_head_dim": 16,
}
"""Multi-head latent attention (DeepSeek-V2/3, MiniCPM3): as many key/value
heads as query heads."""

RECIPES: dict[str, Recipe] = {
    "gemma": Recipe("GemmaForCausalLM", "GemmaConfig", _HEADS_16),
    "gemma2": Recipe(
        "Gemma2ForCausalLM", "Gemma2Config", {**_HEADS_16, **_SLIDING_THEN_FULL}
    ),
    "gemma3": Recipe(
        "Gemma3ForCausalLM", "Gemma3TextConfig", {**_HEADS_16, **_SLIDING_THEN_FULL}
    ),
    "gemma3n": Recipe(
        "Gemma3nForCausalLM",
        "Gemma3nTextConfig",
        {
            **_HEADS_16,
            **_SLIDING_THEN_FULL,
            "intermediate_size": [128, 128],
            "activation_sparsity_pattern": [0.0, 0.0],
            "num_kv_shared_layers": 0,
            "laurel_rank": 8,
            "hidden_size_per_layer_input": 8,
            "vocab_size_per_layer_input": 128,
        },
    ),
    "vaultgemma": Recipe("VaultGemmaForCausalLM", "VaultGemmaConfig", _HEADS_16),
    "phi": Recipe("PhiForCausalLM", "PhiConfig", _LAYERS),
    "phi3": Recipe("Phi3ForCausalLM", "Phi3Config", _LAYERS),
    "gpt-neox": Recipe("GPTNeoXForCausalLM", "GPTNeoXConfig", _LAYERS),
    "gpt-j": Recipe("GPTJForCausalLM", "GPTJConfig", {**_GPT2_NAMES, "rotary_dim": 8}),
    "gpt-bigcode": Recipe("GPTBigCodeForCausalLM", "GPTBigCodeConfig", _GPT2_NAMES),
    "codegen": Recipe(
        "CodeGenForCausalLM",
        "CodeGenConfig",
        {**_GPT2_NAMES, "n_ctx": 64, "rotary_dim": 8},
    ),
    "opt": Recipe(
        "OPTForCausalLM",
        "OPTConfig",
        {
            "hidden_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "ffn_dim": 128,
            "word_embed_proj_dim": 64,
            "max_position_embeddings": 64,
        },
    ),
    "xglm": Recipe(
        "XGLMForCausalLM",
        "XGLMConfig",
        {
            "d_model": 64,
            "num_layers": 2,
            "attention_heads": 4,
            "ffn_dim": 128,
            "max_position_embeddings": 64,
        },
    ),
    "biogpt": Recipe("BioGptForCausalLM", "BioGptConfig", _LAYERS),
    "bloom": Recipe(
        "BloomForCausalLM",
        "BloomConfig",
        {"hidden_size": 64, "n_layer": 2, "n_head": 4},
    ),
    # Falcon-7B's multi-query parallel block; Falcon-40B's grouped one
    "falcon": Recipe(
        "FalconForCausalLM",
        "FalconConfig",
        {
            "hidden_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "max_position_embeddings": 64,
        },
    ),
    "falcon-new-decoder": Recipe(
        "FalconForCausalLM",
        "FalconConfig",
        {
            "hidden_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_kv_heads": 2,
            "new_decoder_architecture": True,
            "max_position_embeddings": 64,
        },
    ),
    "stablelm": Recipe("StableLmForCausalLM", "StableLmConfig", _LAYERS),
    "persimmon": Recipe("PersimmonForCausalLM", "PersimmonConfig", _LAYERS),
    "starcoder2": Recipe("Starcoder2ForCausalLM", "Starcoder2Config", _LAYERS),
    "olmo": Recipe("OlmoForCausalLM", "OlmoConfig", _LAYERS),
    "olmo2": Recipe("Olmo2ForCausalLM", "Olmo2Config", _LAYERS),
    "olmo3": Recipe("Olmo3ForCausalLM", "Olmo3Config", _LAYERS),
    "cohere": Recipe("CohereForCausalLM", "CohereConfig", _LAYERS),
    "cohere2": Recipe(
        "Cohere2ForCausalLM", "Cohere2Config", {**_LAYERS, **_SLIDING_THEN_FULL}
    ),
    "granite": Recipe("GraniteForCausalLM", "GraniteConfig", _LAYERS),
    "smollm3": Recipe("SmolLM3ForCausalLM", "SmolLM3Config", _LAYERS),
    "qwen2": Recipe("Qwen2ForCausalLM", "Qwen2Config", _LAYERS),
    "ministral": Recipe(
        "MinistralForCausalLM",
        "MinistralConfig",
        {**_HEADS_16, **_SLIDING_THEN_FULL},
    ),
    "exaone4": Recipe(
        "Exaone4ForCausalLM", "Exaone4Config", {**_LAYERS, **_SLIDING_THEN_FULL}
    ),
    "helium": Recipe("HeliumForCausalLM", "HeliumConfig", _HEADS_16),
    "glm": Recipe("GlmForCausalLM", "GlmConfig", _HEADS_16),
    "glm4": Recipe("Glm4ForCausalLM", "Glm4Config", _HEADS_16),
    "ernie4.5": Recipe("Ernie4_5ForCausalLM", "Ernie4_5Config", _HEADS_16),
    "seed-oss": Recipe("SeedOssForCausalLM", "SeedOssConfig", _HEADS_16),
    "arcee": Recipe("ArceeForCausalLM", "ArceeConfig", _LAYERS),
    "apertus": Recipe("ApertusForCausalLM", "ApertusConfig", _LAYERS),
    "nemotron": Recipe("NemotronForCausalLM", "NemotronConfig", _LAYERS),
    "hunyuan-dense": Recipe(
        "HunYuanDenseV1ForCausalLM", "HunYuanDenseV1Config", _HEADS_16
    ),
    "diffllama": Recipe("DiffLlamaForCausalLM", "DiffLlamaConfig", _LAYERS),
    "bitnet": Recipe("BitNetForCausalLM", "BitNetConfig", _LAYERS),
    "minicpm3": Recipe(
        "MiniCPM3ForCausalLM", "MiniCPM3Config", {**_MHA, **_LATENT_ATTENTION}
    ),
    # a short-convolution layer (its state in the cache) before attention
    "lfm2": Recipe(
        "Lfm2ForCausalLM",
        "Lfm2Config",
        {**_LAYERS, "layer_types": ["conv", "full_attention"]},
    ),
    # mixtures of experts
    "mixtral": Recipe("MixtralForCausalLM", "MixtralConfig", {**_LAYERS, **_EXPERTS}),
    "phimoe": Recipe("PhimoeForCausalLM", "PhimoeConfig", {**_LAYERS, **_EXPERTS}),
    "granite-moe": Recipe(
        "GraniteMoeForCausalLM", "GraniteMoeConfig", {**_LAYERS, **_EXPERTS}
    ),
    "qwen2-moe": Recipe(
        "Qwen2MoeForCausalLM",
        "Qwen2MoeConfig",
        {**_LAYERS, **_QWEN_EXPERTS, "shared_expert_intermediate_size": 64},
    ),
    "qwen3-moe": Recipe(
        "Qwen3MoeForCausalLM", "Qwen3MoeConfig", {**_HEADS_16, **_QWEN_EXPERTS}
    ),
    "olmoe": Recipe(
        "OlmoeForCausalLM",
        "OlmoeConfig",
        {**_LAYERS, "num_experts": 4, "num_experts_per_tok": 2},
    ),
    "ernie4.5-moe": Recipe(
        "Ernie4_5_MoeForCausalLM",
        "Ernie4_5_MoeConfig",
        {**_HEADS_16, "moe_num_experts": 4, "moe_k": 2, "moe_intermediate_size": 32},
    ),
    "glm4-moe": Recipe(
        "Glm4MoeForCausalLM", "Glm4MoeConfig", {**_HEADS_16, **_DEEPSEEK_EXPERTS}
    ),
    "deepseek-v2": Recipe(
        "DeepseekV2ForCausalLM",
        "DeepseekV2Config",
        {**_MHA, **_LATENT_ATTENTION, **_DEEPSEEK_EXPERTS},
    ),
    "deepseek-v3": Recipe(
        "DeepseekV3ForCausalLM",
        "DeepseekV3Config",
        {**_MHA, **_LATENT_ATTENTION, **_DEEPSEEK_EXPERTS},
    ),
    "llama4-text": Recipe(
        "Llama4ForCausalLM",
        "Llama4TextConfig",
        {**_HEADS_16, "num_local_experts": 4, "intermediate_size_mlp": 128},
    ),
    # a gated-delta-net linear-attention layer (its state in the cache)
    # before a full-attention one, experts in both
    "qwen3-next": Recipe(
        "Qwen3NextForCausalLM",
        "Qwen3NextConfig",
        {
            **_HEADS_16,
            **_QWEN_EXPERTS,
            "layer_types": ["linear_attention", "full_attention"],
        },
    ),
}
"""Short name -> the tiny recipe of each decoder checked here."""

FAST = ("gemma3", "phi", "bloom", "falcon", "gpt-neox", "mixtral")
"""Models whose padded batch runs in the fast suite, one per trait
(windowed + global layers, partial rotary and a parallel block, ALiBi,
multi-query attention, GPT-NeoX's fused QKV, experts); everything else is
`slow`."""

CASES = [
    pytest.param(
        name,
        batch,
        padded,
        id=f"{name}-b{batch}{'-padded' if padded else ''}",
        marks=() if name in FAST and padded else pytest.mark.slow,
    )
    for name in RECIPES
    for batch, padded in ((1, False), (2, True))
]


def _build(name: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    # build_decoder builds from the suite's recipes: lend it ours
    monkeypatch.setitem(SUITE, name, RECIPES[name])
    return build_decoder(name)


@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize(("name", "batch", "padded"), CASES)
def test_greedy_generation_equals_eager(
    name: str, batch: int, padded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eager's tokens (f32), from two graphs (prefill and the decode step,
    each compiled once) that run 100 % in fxdsl, every cache update inside
    an island. Eager's logits too, up to f32 reassociation: several tiny
    random models repeat one token whatever the context, where equal tokens
    alone would let a wrong cache pass."""
    model = _build(name, monkeypatch)
    got = generate_both(model, prompts(batch, PROMPT, padded), NEW_TOKENS)
    assert got.equal, (got.eager.sequences, got.compiled.sequences)
    torch.testing.assert_close(
        torch.stack(got.compiled.logits), torch.stack(got.eager.logits), **LOGITS
    )
    assert len(got.plans) == 2, [p.report() for p in got.plans]
    for plan in got.plans:
        assert plan.compiled == plan.total, plan.report()
        inside, outside = cache_updates(plan)
        assert inside, plan.report()
        assert not outside, plan.report()
