"""The bf16 benchmark workloads: what real GPU inference runs.

* `gemm_bf16`: x @ w at 4096³, the tensor-core GEMM alone;
* `gemm_bias_gelu_bf16`, `gemm_bias_relu_bf16`: the same GEMM with a bias
  and an activation, timed beside `torch._addmm_activation` (on CUDA that is
  cuBLASLt with the bias + GELU / ReLU epilogue fused into the GEMM): the
  rows that decide whether fxdsl should use cuBLASLt epilogues instead of
  cuBLAS + its own fused epilogue kernel (the `fxdsl` row). Keep fxdsl's
  kernel unless `torch-addmm-activation` is clearly faster (say > 5 %);
* `attention_bf16_t512`, `attention_bf16_t2048`: causal SDPA, B=8, H=12,
  D=64, against torch's SDPA (FlashAttention on an H100);
* `hf_gpt2_bf16_b1_t64`, `hf_gpt2_bf16_b8_t512`: Hugging Face GPT-2 124M
  (12 layers, 768 wide, 50257-token LM head) in bf16;
* `llama_1b_4layers_bf16`: a Llama-3.2-1B-shaped stack of 4 decoder layers
  (2048 wide, MLP 8192, 32 query and 8 KV heads of 64, RoPE, RMSNorm).

The Hugging Face models are imported with `torch.export` (weights as
arguments, drawn like every workload's by `workload_inputs`) and take
`inputs_embeds`: the token-embedding gather is the one op left out (GPT-2's
tied LM head still reads the embedding table). The torch side runs the same
model with the same weights through `torch.func.functional_call`.

Every workload is tiny at the `tiny` scale (CI, the CPU reference) and names
its FLOPs, so the report shows achieved TFLOPS and the H100 floor.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from fxdsl.bench.workloads import Dims, Workload, gemm_module
from fxdsl.interpreters.run import entry_function
from fxdsl.ir.graph import PARAM
from fxdsl.ir.utils import arg_attr
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor, TensorSpec, trace

KERNEL_TOLERANCE = (2e-2, 2e-2)
"""(rtol, atol) of one bf16 op against the reference: a few bf16 ulps."""
MODEL_TOLERANCE = (5e-2, 5e-2)
"""(rtol, atol) of a bf16 model's outputs: rounding differs op by op."""


def _gemm_dims(full: int) -> dict[str, Dims]:
    return {
        "full": {"M": full, "K": full, "N": full},
        "small": {"M": 256, "K": 256, "N": 256},
        "tiny": {"M": 8, "K": 16, "N": 32},
    }


def _gemm_flops(d: Dims) -> int:
    return 2 * d["M"] * d["N"] * d["K"]


def _torch_gemm(_d: Dims) -> Callable[..., Any]:
    return lambda x, w: x @ w


def _torch_epilogue(kind: str) -> Callable[[Dims], Callable[..., Any]]:
    def build(_d: Dims) -> Callable[..., Any]:
        import torch.nn.functional as F

        if kind == "relu":
            return lambda x, w, b: F.relu(x @ w + b)
        return lambda x, w, b: F.gelu(x @ w + b, approximate="tanh")

    return build


# --------------------------------------------------------------------------- #
# attention
# --------------------------------------------------------------------------- #


def _attention(d: Dims) -> ModuleOp:
    def attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        return ops.scaled_dot_product_attention(q, k, v, is_causal=True)

    spec = TensorSpec((d["B"], d["H"], d["T"], d["D"]), "bf16")
    return trace(attention, spec, spec, spec)


def _torch_attention(_d: Dims) -> Callable[..., Any]:
    import torch.nn.functional as F

    return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _causal_attention_flops(batch: int, heads: int, length: int, head: int) -> int:
    """q @ k^T and p @ v over the causal half: 2 GEMMs x 2 flops x B H T² D / 2."""
    return 2 * batch * heads * length * length * head


def _attention_dims(length: int) -> dict[str, Dims]:
    return {
        "full": {"B": 8, "H": 12, "T": length, "D": 64},
        "small": {"B": 1, "H": 2, "T": 128, "D": 64},
        "tiny": {"B": 1, "H": 2, "T": 16, "D": 16},
    }


# --------------------------------------------------------------------------- #
# Hugging Face models (torch and transformers imported inside: optional)
# --------------------------------------------------------------------------- #


def _key(d: Dims) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(d.items()))


@functools.lru_cache(maxsize=4)
def _model(kind: str, key: tuple[tuple[str, int], ...]) -> Any:
    """The bf16 model of `kind` ("gpt2" or "llama") at dims `key`, seeded."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaModel

    from fxdsl.testing.torch_models import seeded

    d = dict(key)
    if kind == "gpt2":
        config = GPT2Config(
            n_layer=d["layers"], n_embd=d["D"], n_head=d["heads"],
            vocab_size=d["vocab"], n_positions=max(1024, d["T"]),
            bos_token_id=0, eos_token_id=0,
        )  # fmt: skip
        build: Callable[[], Any] = lambda: GPT2LMHeadModel(config)
    else:
        config = LlamaConfig(
            num_hidden_layers=d["layers"], hidden_size=d["D"],
            intermediate_size=d["F"], num_attention_heads=d["heads"],
            num_key_value_heads=d["kv"], vocab_size=d["vocab"],
            max_position_embeddings=max(2048, d["T"]),
            bos_token_id=0, eos_token_id=0, pad_token_id=0,
        )  # fmt: skip
        build = lambda: LlamaModel(config)
    return seeded(build).to(torch.bfloat16)


def _embeddings(d: Dims) -> Any:
    import torch

    return torch.zeros(d["B"], d["T"], d["D"], dtype=torch.bfloat16)


@functools.lru_cache(maxsize=4)
def _program(kind: str, key: tuple[tuple[str, int], ...]) -> ModuleOp:
    from fxdsl.frontends.torch_export import from_torch

    model = _model(kind, key)
    kwargs = {"inputs_embeds": _embeddings(dict(key)), "use_cache": False}
    return from_torch(model, (), kwargs).module


def _hf_builder(kind: str) -> Callable[[Dims], ModuleOp]:
    return lambda d: _program(kind, _key(d)).clone()


def _hf_torch(kind: str) -> Callable[[Dims], Callable[..., Any]]:
    """The model on the same arguments as its module: the weights, by the
    parameter names the importer gave the arguments, then `inputs_embeds`."""

    def build(d: Dims) -> Callable[..., Any]:
        import torch

        model = _model(kind, _key(d))
        entry = entry_function(_program(kind, _key(d)))
        names = [arg_attr(entry, i, PARAM) for i in range(len(entry.args) - 1)]

        def run(*args: Any) -> Any:
            x = args[-1]
            if next(model.buffers(), x).device != x.device:
                model.to(x.device)  # rotary tables, GPT-2's mask buffer
            weights = dict(zip(names, args[:-1], strict=True))
            # the module takes GPT-2's tied lm_head and wte as two arguments
            out = torch.func.functional_call(
                model, weights, (), {"inputs_embeds": x, "use_cache": False},
                tie_weights=False,
            )  # fmt: skip
            return out.to_tuple()

        return run

    return build


def _gpt2_dims(batch: int, length: int) -> dict[str, Dims]:
    model = {"D": 768, "heads": 12, "vocab": 50257}
    return {
        "full": {"layers": 12, "B": batch, "T": length, **model},
        "small": {"layers": 2, "B": 1, "T": 64, **model},
        "tiny": {"layers": 1, "B": 1, "T": 8, "D": 32, "heads": 4, "vocab": 128},
    }


def _gpt2_flops(d: Dims) -> int:
    """Per token 2 x (12 D² weights per layer + the D x vocab LM head), plus
    causal attention."""
    tokens, D = d["B"] * d["T"], d["D"]
    dense = 2 * tokens * (12 * D * D * d["layers"] + D * d["vocab"])
    head = D // d["heads"]
    return dense + d["layers"] * _causal_attention_flops(
        d["B"], d["heads"], d["T"], head
    )


_LLAMA_DIMS: dict[str, Dims] = {
    # Llama 3.2 1B's layer shape; the vocabulary is unused (inputs_embeds)
    "full": {"layers": 4, "B": 8, "T": 512, "D": 2048, "F": 8192,
             "heads": 32, "kv": 8, "vocab": 128},
    "small": {"layers": 1, "B": 1, "T": 128, "D": 2048, "F": 8192,
              "heads": 32, "kv": 8, "vocab": 128},
    "tiny": {"layers": 1, "B": 1, "T": 8, "D": 32, "F": 64,
             "heads": 4, "kv": 2, "vocab": 128},
}  # fmt: skip


def _llama_flops(d: Dims) -> int:
    """q, o (D²), k, v (D x kv heads), gate, up, down (D x F) per token and
    layer, plus causal attention over the query heads."""
    tokens, D, head = d["B"] * d["T"], d["D"], d["D"] // d["heads"]
    weights = 2 * D * D + 2 * D * d["kv"] * head + 3 * D * d["F"]
    attention = _causal_attention_flops(d["B"], d["heads"], d["T"], head)
    return d["layers"] * (2 * tokens * weights + attention)


BF16_WORKLOADS: tuple[Workload, ...] = (
    Workload(
        "gemm_bf16",
        "x @ w, bf16, 4096³: the tensor-core GEMM alone",
        _gemm_dims(4096),
        lambda d: gemm_module(d, False, "bf16"),
        _torch_gemm,
        reduce_overhead=True,
        flops=_gemm_flops,
        tolerance=KERNEL_TOLERANCE,
    ),
    Workload(
        "gemm_bias_gelu_bf16",
        "gelu_tanh(x @ w + b), bf16, 4096³: cuBLAS + fxdsl's epilogue kernel "
        "against cuBLASLt's fused bias+GELU epilogue (torch-addmm-activation)",
        _gemm_dims(4096),
        lambda d: gemm_module(d, "gelu", "bf16"),
        _torch_epilogue("gelu"),
        reduce_overhead=True,
        max_autotune=True,
        flops=_gemm_flops,
        tolerance=KERNEL_TOLERANCE,
        epilogue="gelu",
    ),
    Workload(
        "gemm_bias_relu_bf16",
        "relu(x @ w + b), bf16, 4096³: as above with cuBLASLt's bias+ReLU",
        _gemm_dims(4096),
        lambda d: gemm_module(d, "relu", "bf16"),
        _torch_epilogue("relu"),
        reduce_overhead=True,
        max_autotune=True,
        flops=_gemm_flops,
        tolerance=KERNEL_TOLERANCE,
        epilogue="relu",
    ),
    *(
        Workload(
            f"attention_bf16_t{length}",
            "causal scaled_dot_product_attention, bf16, (B, H, T, D) q, k, v",
            _attention_dims(length),
            _attention,
            _torch_attention,
            reduce_overhead=True,
            torch_attention=True,
            flops=lambda d: _causal_attention_flops(d["B"], d["H"], d["T"], d["D"]),
            tolerance=KERNEL_TOLERANCE,
        )
        for length in (512, 2048)
    ),
    *(
        Workload(
            f"hf_gpt2_bf16_b{batch}_t{length}",
            "Hugging Face GPT-2 124M in bf16 (inputs_embeds in, logits out)",
            _gpt2_dims(batch, length),
            _hf_builder("gpt2"),
            _hf_torch("gpt2"),
            reduce_overhead=True,
            torch_attention=True,
            flops=_gpt2_flops,
            tolerance=MODEL_TOLERANCE,
        )
        for batch, length in ((1, 64), (8, 512))
    ),
    Workload(
        "llama_1b_4layers_bf16",
        "4 Llama-3.2-1B-shaped decoder layers in bf16 (HF LlamaModel, "
        "inputs_embeds in, hidden states out)",
        _LLAMA_DIMS,
        _hf_builder("llama"),
        _hf_torch("llama"),
        reduce_overhead=True,
        torch_attention=True,
        flops=_llama_flops,
        tolerance=MODEL_TOLERANCE,
    ),
)
