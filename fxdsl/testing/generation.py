"""Greedy token generation with Hugging Face `generate` and a static KV
cache, eager and through `torch.compile(backend="fxdsl")` (the path HF
documents for a compiled decoder):

    model.generation_config.cache_implementation = "static"
    model.forward = torch.compile(model.forward, backend="fxdsl")
    model.generate(input_ids, max_new_tokens=N, do_sample=False)

`DECODERS` names the decoders checked (tiny configs of `hf_suite.SUITE`,
seeded random weights), `build_decoder` makes one, `prompts` draws a batch
(left-padded if asked), and `generate_both` runs eager and compiled and
returns both token tensors with the backend's plan of every graph it
compiled (prefill, then the decode step). Shared by the tests and the
`generate` bench workload.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fxdsl.testing.hf_suite import SUITE
from fxdsl.testing.torch_models import _VOCAB, SPECIAL_TOKENS, seeded

DECODERS: dict[str, str] = {
    "gpt2": "DistillGPT2",
    "llama": "meta-llama/Llama-3.2-1B",
    "qwen3": "Qwen/Qwen3-0.6B",
    "mistral": "mistralai/Mistral-7B-Instruct-v0.3",
    "gpt-oss": "openai/gpt-oss-20b",
}
"""Short name -> the `hf_suite.SUITE` entry whose tiny config is used
(GPT-OSS: mixture-of-experts layers, grouped matmuls, a sliding window)."""

SIZES: dict[str, dict[str, Any]] = {"mistral": {"sliding_window": None}}
"""Config overrides per decoder. Mistral's default window (4096 tokens)
exceeds every sequence here, so without it attention is the same; with
it, HF's cache is a `StaticSlidingWindowLayer`, whose Python-int length
counter makes the decode step shape-generic (one test runs that case)."""

PAD = SPECIAL_TOKENS["pad_token_id"]


def build_decoder(name: str, dtype: Any = None, **sizes: Any) -> Any:
    """`DECODERS[name]`'s model (or the `hf_suite.SUITE` entry `name`'s) in
    eval mode (seeded weights, `dtype` when given), with the KV cache on;
    `sizes` override the tiny config's."""
    import transformers

    recipe = SUITE[DECODERS.get(name, name)]
    config = decoder_config(name, **sizes)
    model = seeded(lambda: getattr(transformers, recipe.model)(config))
    return model if dtype is None else model.to(dtype)


def decoder_config(name: str, **sizes: Any) -> Any:
    """`build_decoder`'s config, without building the model: the tiny
    config's sizes, then `sizes` (a `vocab_size` among them included)."""
    import transformers

    recipe = SUITE[DECODERS.get(name, name)]
    config_cls = getattr(transformers, recipe.config)
    return config_cls(
        **SPECIAL_TOKENS,
        **{"vocab_size": _VOCAB, **recipe.sizes, **SIZES.get(name, {}), **sizes},
    )


def prompts(batch: int, length: int, padded: bool, seed: int = 1) -> dict[str, Any]:
    """`input_ids` and `attention_mask` of `batch` prompts of `length`
    tokens; with `padded`, row `r` starts with `r + 1` pad tokens (left
    padding, as decoder-only generation needs), at most `length - 1`."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, _VOCAB, (batch, length), generator=generator)
    mask = torch.ones(batch, length, dtype=torch.int64)
    if padded:
        for row in range(batch):
            pads = min(row + 1, length - 1)
            ids[row, :pads] = PAD
            mask[row, :pads] = 0
    return {"input_ids": ids, "attention_mask": mask}


def greedy(model: Any, inputs: dict[str, Any], new_tokens: int) -> Any:
    """Greedy `generate` with a static cache (exactly `new_tokens` tokens:
    no stop at EOS, whose id is a drawn token in a tiny vocabulary); the
    `GenerateOutput` with `sequences` and the `logits` of each step.
    `disable_compile`: on a CUDA device, HF's `generate` would otherwise
    wrap the forward (compiled or not) in an Inductor `torch.compile` of its
    own when the cache is static; the caller decides what is compiled."""
    import torch

    model.generation_config.cache_implementation = "static"
    with torch.no_grad():
        return model.generate(
            **inputs,
            disable_compile=True,
            max_new_tokens=new_tokens,
            min_new_tokens=new_tokens,
            do_sample=False,
            pad_token_id=PAD,
            output_logits=True,
            return_dict_in_generate=True,
        )


@dataclass
class Generated:
    """Eager and compiled generation (`GenerateOutput`s), and the backend's
    plan of each graph it compiled."""

    eager: Any
    compiled: Any
    plans: list[Any] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        """Whether the compiled tokens are exactly eager's."""
        import torch

        return bool(torch.equal(self.eager.sequences, self.compiled.sequences))

    def first_difference(self) -> tuple[int, int] | None:
        """(step, row) of the first generated token where compiled and
        eager differ; None when none does."""
        new = len(self.eager.logits)
        eager = self.eager.sequences[:, -new:]
        compiled = self.compiled.sequences[:, -new:]
        for step in range(new):
            rows = (eager[:, step] != compiled[:, step]).nonzero()
            if len(rows):
                return step, int(rows[0])
        return None

    def tie_gap(self, step: int, row: int, dtype: Any = None) -> float:
        """How far apart eager's own logits of the two tokens chosen at
        `step` (row `row`) are, in ulps of `dtype` (default: the logits',
        which `generate` hands out in float32 whatever the model's dtype)
        at their size: 0 is an exact tie in eager, 1 the nearest neighbour."""
        import torch

        new = len(self.eager.logits)
        chosen = [
            int(self.eager.sequences[row, -new + step]),
            int(self.compiled.sequences[row, -new + step]),
        ]
        logits = self.eager.logits[step][row]
        a, b = (logits[i].float() for i in chosen)
        eps = torch.finfo(dtype or logits.dtype).eps
        ulp = eps * max(abs(a), abs(b), 1e-30)
        return float(abs(a - b) / ulp)


@contextmanager
def recording_plans(plans: list[Any]) -> Iterator[None]:
    """Append to `plans` the backend's `Plan` of each graph it compiles."""
    from fxdsl.frontends import torch_compile

    real_plan = torch_compile.plan

    def recorded(module: Any, *args: Any, **kwargs: Any) -> Any:
        found = real_plan(module, *args, **kwargs)
        plans.append(found)
        return found

    torch_compile.plan = recorded  # type: ignore[assignment]
    try:
        yield
    finally:
        torch_compile.plan = real_plan  # type: ignore[assignment]


def generate_both(
    model: Any,
    inputs: dict[str, Any],
    new_tokens: int,
    options: dict[str, Any] | None = None,
) -> Generated:
    """Greedy generation eager, then with `model.forward` compiled by the
    fxdsl backend (`options` as `torch.compile` takes them); Dynamo is
    reset around the compiled run, and `model.forward` restored."""
    import torch

    eager = greedy(model, inputs, new_tokens)
    plans: list[Any] = []
    original = model.forward
    torch._dynamo.reset()
    model.forward = torch.compile(original, backend="fxdsl", options=options or {})
    try:
        with recording_plans(plans):
            compiled = greedy(model, inputs, new_tokens)
    finally:
        model.forward = original
        torch._dynamo.reset()
    return Generated(eager, compiled, plans)


def cache_updates(plan: Any) -> tuple[list[str], list[str]]:
    """The fx nodes of `plan` that update a KV cache (`index_put`,
    `index_copy`): (those inside an fxdsl island, those left to torch)."""
    inside = [
        node
        for nodes in plan.islands.values()
        for node in nodes
        if node.startswith(("index_put", "index_copy"))
    ]
    outside = [
        node
        for node, (target, _, _) in plan.fallbacks.items()
        if "index_put" in target or "index_copy" in target
    ]
    return inside, outside


__all__ = [
    "DECODERS",
    "Generated",
    "build_decoder",
    "cache_updates",
    "generate_both",
    "greedy",
    "prompts",
    "recording_plans",
]
