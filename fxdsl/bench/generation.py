"""The `generate` workloads: greedy token generation with Hugging Face
`generate` and a static KV cache, the path HF documents for a compiled
decoder, timed per variant:

* `torch-eager`: `generate` as is;
* `torch-compile`, `torch-compile-reduce-overhead`: `model.forward`
  compiled by Inductor (default mode, and CUDA graphs);
* `fxdsl-backend`, `fxdsl-cudagraph`: `model.forward` compiled by
  `torch.compile(backend="fxdsl")`, the second with its `cuda_graph`
  option (CUDA only); `fxdsl-backend-sdpa`: attention left to torch's
  SDPA kernels (`variants.SDPA_IN_TORCH`);
* `copy`: a device copy moving the bytes one decode step must read at
  least (every weight once, the whole static cache once: the
  memory-bandwidth limit of a step, as the other workloads' copy row).

Each row's time (`median_ms`) is the per-step decode latency: the median
wall-clock time of a `model.forward` call after the prefill (the device
synchronised after each; `generate` itself syncs every step to pick the
token); `tokens_per_s` is batch x new tokens over the median time of a
whole `generate`. The fxdsl rows are checked against
eager's tokens (`testing.generation`: bf16 tokens may part only at a tie of
eager's own logits). `fxdsl` alone (a graph module through
`fxdsl.compile`) has no generate loop and is skipped with that reason.

Torch and transformers are imported inside: the workloads are listed
without them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from statistics import median
from typing import Any

from fxdsl.bench.timing import Device
from fxdsl.bench.variants import SDPA_IN_TORCH, Skipped
from fxdsl.bench.workloads import Dims

TIE_ULPS = 2.0
"""bf16 tokens may part from eager's where eager's two logits are this close."""


@dataclass(frozen=True)
class GenerateWorkload:
    """One generate benchmark: a decoder (`testing.generation.DECODERS`)
    with config `sizes`, and per scale `B` prompts of `prompt` tokens and
    `new` generated tokens (plus the config overrides of that scale)."""

    name: str
    description: str
    model: str
    dims: dict[str, Dims]


def _scales(batch: int, full: Dims, small: Dims) -> dict[str, Dims]:
    return {
        "full": {"B": batch, "prompt": 128, "new": 256, **full},
        "small": {"B": batch, "prompt": 16, "new": 16, **small},
        "tiny": {"B": 1, "prompt": 8, "new": 4},
    }


_GPT2 = {"n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257}
_LLAMA_1B = {
    "num_hidden_layers": 16, "hidden_size": 2048, "intermediate_size": 8192,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "tie_word_embeddings": True,
}  # fmt: skip
_POSITIONS = {"gpt2": "n_positions", "llama": "max_position_embeddings"}

GENERATE_WORKLOADS: tuple[GenerateWorkload, ...] = tuple(
    GenerateWorkload(
        f"generate_{label}_bf16_b{batch}",
        f"HF generate, {title}, bf16, batch {batch}, prompt 128, 256 new tokens, "
        "static cache: per-step decode latency",
        model,
        _scales(batch, full, {**full, layer_key: 2}),
    )
    for label, title, model, full, layer_key in (
        ("gpt2", "GPT-2 124M", "gpt2", _GPT2, "n_layer"),
        ("llama1b", "Llama-3.2-1B-shaped", "llama", _LLAMA_1B, "num_hidden_layers"),
    )
    for batch in (1, 8)
)


def config_sizes(workload: GenerateWorkload, dims: Dims) -> dict[str, Any]:
    """The config overrides at `dims` (positions cover prompt + new)."""
    sizes = {k: v for k, v in dims.items() if k not in ("B", "prompt", "new")}
    sizes[_POSITIONS[workload.model]] = max(64, dims["prompt"] + dims["new"])
    return sizes


def step_bytes(model: Any, batch: int, length: int) -> int:
    """Bytes one decode step reads at least: every parameter once (tied
    ones once) and a static cache of `length` positions, keys and values
    of every layer."""
    config = model.config
    params = {p.data_ptr(): p for p in model.parameters()}.values()
    weights = sum(p.numel() * p.element_size() for p in params)
    layers = config.num_hidden_layers
    heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or (
        config.hidden_size // config.num_attention_heads
    )
    element = next(iter(params)).element_size()
    cache = 2 * layers * batch * heads * length * head_dim * element
    return weights + cache


def _forward(variant: str, device: str) -> Callable[[Any], Any] | None:
    """How `variant` compiles `model.forward` (None: eager)."""
    import torch

    if variant == "torch-eager":
        return None
    if variant in ("torch-compile", "torch-compile-reduce-overhead"):
        if device != "cuda":
            raise Skipped(
                "Inductor on the CPU compiles C++ for minutes per graph: "
                "timed on the GPU only"
            )
        mode = "reduce-overhead" if variant.endswith("overhead") else None
        return lambda f: torch.compile(f, mode=mode)
    if variant in ("fxdsl-backend", "fxdsl-cudagraph", "fxdsl-backend-sdpa"):
        if variant == "fxdsl-cudagraph" and device != "cuda":
            raise Skipped("CUDA graphs need a CUDA device")
        options = {
            "fxdsl-backend": {},
            "fxdsl-cudagraph": {"cuda_graph": True},
            "fxdsl-backend-sdpa": SDPA_IN_TORCH,
        }[variant]
        return lambda f: torch.compile(f, backend="fxdsl", options=options)
    if variant == "fxdsl-backend-cudagraph":
        raise Skipped("the fxdsl-cudagraph row is the backend with cuda_graph here")
    raise Skipped(
        "no generate loop in a graph module: generation runs through the "
        "torch.compile backend (fxdsl-backend)"
    )


def _model(workload: GenerateWorkload, scale: str, on: str) -> Any:
    return _built(workload.name, scale, on)


@functools.lru_cache(maxsize=2)
def _built(name: str, scale: str, on: str) -> Any:
    """The bf16 model of workload `name` at `scale` on device `on`, once."""
    import torch

    from fxdsl.testing.generation import build_decoder

    workload = next(w for w in GENERATE_WORKLOADS if w.name == name)
    dims = workload.dims[scale]
    model = build_decoder(
        workload.model, torch.bfloat16, **config_sizes(workload, dims)
    )
    return model.to(on)


def generate_step_bytes(workload: GenerateWorkload, scale: str, device: Device) -> int:
    """`step_bytes` of the workload's model at `scale` (cache of prompt +
    new positions)."""
    dims = workload.dims[scale]
    on = "cuda" if device.name == "cuda" else "cpu"
    model = _model(workload, scale, on)
    return step_bytes(model, dims["B"], dims["prompt"] + dims["new"])


def _timed(
    forward: Callable[..., Any], times: list[float], on: str
) -> Callable[..., Any]:
    """`forward`, appending each call's milliseconds to `times` (the
    device synchronised after the call, so a step's kernels count)."""
    import time

    import torch

    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = forward(*args, **kwargs)
        if on == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
        return out

    return call


def run_generate(
    workload: GenerateWorkload,
    scale: str,
    device: Device,
    variant: str,
    runs: int,
    warmup: int,
) -> dict[str, Any]:
    """One variant's row fields: `median_ms` (per decode step),
    `tokens_per_s`, `numerics_ok` (fxdsl rows), or raises `Skipped`."""
    import torch

    from fxdsl.testing.generation import Generated, greedy, prompts

    on = "cuda" if device.name == "cuda" else "cpu"
    dims = workload.dims[scale]
    model = _model(workload, scale, on)
    if variant == "copy":
        nbytes = generate_step_bytes(workload, scale, device)
        copy = device.copy_fn(nbytes // 2)  # reads and writes: moves nbytes
        return {"median_ms": median(device.time(copy, runs, warmup))}
    compile_forward = _forward(variant, on)
    inputs = {k: v.to(on) for k, v in prompts(dims["B"], dims["prompt"], False).items()}
    original = model.forward
    torch._dynamo.reset()
    forward = original if compile_forward is None else compile_forward(original)
    steps: list[float] = []
    model.forward = _timed(forward, steps, on)
    try:
        generated = greedy(model, inputs, dims["new"])  # compiles both graphs
        steps.clear()
        whole = median(
            device.time(lambda: greedy(model, inputs, dims["new"]), runs, warmup)
        )
    finally:
        model.forward = original
        torch._dynamo.reset()
    # each generate calls forward once for the prefill, then once per step
    calls = dims["new"]
    decode = [t for i, t in enumerate(steps) if i % calls != 0]
    fields: dict[str, Any] = {
        "median_ms": median(decode) if decode else whole,
        "tokens_per_s": dims["B"] * dims["new"] / (whole * 1e-3),
    }
    if variant.startswith("fxdsl"):
        eager = greedy(model, inputs, dims["new"])
        check = Generated(eager, generated)
        parted = check.first_difference()
        gap = None if parted is None else check.tie_gap(*parted, torch.bfloat16)
        fields["numerics_ok"] = gap is None or gap <= TIE_ULPS
    return fields


__all__ = [
    "GENERATE_WORKLOADS",
    "GenerateWorkload",
    "config_sizes",
    "generate_step_bytes",
    "run_generate",
    "step_bytes",
]
