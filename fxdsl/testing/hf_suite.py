"""PyTorch's Hugging Face benchmark suite, tiny: the model list of
`benchmarks/dynamo/huggingface_models_list.txt`, each built from its config
class with small sizes and seeded random weights (nothing is downloaded).

`SUITE` maps the suite's name to a `Recipe` (model class, config class, the
config's sizes, the inputs it takes); `build(name, dtype)` makes the model in
eval mode, cast to `dtype`, with its example inputs. A model transformers
cannot build here would be listed in `NOT_BUILT` with the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from fxdsl.testing.torch_models import _VOCAB, SPECIAL_TOKENS, TINY_LAYERS, seeded

BATCH = 2
LENGTH = 16
"""Every model runs on `BATCH` sequences of `LENGTH` tokens."""

_POSITIONS = {"max_position_embeddings": 64}
_BERT = {**TINY_LAYERS, **_POSITIONS}
_BART = {
    "d_model": 32,
    "encoder_layers": 2,
    "decoder_layers": 2,
    "encoder_attention_heads": 4,
    "decoder_attention_heads": 4,
    "encoder_ffn_dim": 64,
    "decoder_ffn_dim": 64,
    "decoder_start_token_id": 0,
    **_POSITIONS,
}
_T5 = {
    "d_model": 32,
    "d_kv": 8,
    "d_ff": 64,
    "num_layers": 2,
    "num_heads": 4,
    "decoder_start_token_id": 0,
}
_GPT2 = {"n_embd": 32, "n_layer": 2, "n_head": 4, "n_positions": 64}
_DECODER = {**_BERT, "num_key_value_heads": 2}
"""Llama-like: grouped-query attention, 4 heads over 2 key/value heads."""


@dataclass(frozen=True)
class Recipe:
    """How to build one model of the suite."""

    model: str
    """The transformers model class."""
    config: str
    """Its config class."""
    sizes: dict[str, Any] = field(default_factory=dict)
    """Config keyword arguments (besides the vocabulary and special tokens)."""
    inputs: str = "ids"
    """"ids": `input_ids`; "seq2seq": and `decoder_input_ids`; "audio":
    Whisper's `input_features` and `decoder_input_ids`."""


SUITE: dict[str, Recipe] = {
    "AlbertForMaskedLM": Recipe("AlbertForMaskedLM", "AlbertConfig", _BERT),
    "AlbertForQuestionAnswering": Recipe(
        "AlbertForQuestionAnswering", "AlbertConfig", _BERT
    ),
    "AllenaiLongformerBase": Recipe(
        "LongformerForMaskedLM",
        "LongformerConfig",
        {**_BERT, "attention_window": 8},
    ),
    "BartForCausalLM": Recipe("BartForCausalLM", "BartConfig", _BART),
    "BartForConditionalGeneration": Recipe(
        "BartForConditionalGeneration", "BartConfig", _BART, "seq2seq"
    ),
    "BertForMaskedLM": Recipe("BertForMaskedLM", "BertConfig", _BERT),
    "BertForQuestionAnswering": Recipe("BertForQuestionAnswering", "BertConfig", _BERT),
    "BlenderbotForCausalLM": Recipe("BlenderbotForCausalLM", "BlenderbotConfig", _BART),
    "BlenderbotForConditionalGeneration": Recipe(
        "BlenderbotForConditionalGeneration", "BlenderbotConfig", _BART, "seq2seq"
    ),
    "BlenderbotSmallForCausalLM": Recipe(
        "BlenderbotSmallForCausalLM", "BlenderbotSmallConfig", _BART
    ),
    "BlenderbotSmallForConditionalGeneration": Recipe(
        "BlenderbotSmallForConditionalGeneration",
        "BlenderbotSmallConfig",
        _BART,
        "seq2seq",
    ),
    "CamemBert": Recipe("CamembertForMaskedLM", "CamembertConfig", _BERT),
    "DebertaV2ForMaskedLM": Recipe("DebertaV2ForMaskedLM", "DebertaV2Config", _BERT),
    "DebertaV2ForQuestionAnswering": Recipe(
        "DebertaV2ForQuestionAnswering", "DebertaV2Config", _BERT
    ),
    "DistilBertForMaskedLM": Recipe(
        "DistilBertForMaskedLM",
        "DistilBertConfig",
        {"dim": 32, "hidden_dim": 64, "n_layers": 2, "n_heads": 4, **_POSITIONS},
    ),
    "DistilBertForQuestionAnswering": Recipe(
        "DistilBertForQuestionAnswering",
        "DistilBertConfig",
        {"dim": 32, "hidden_dim": 64, "n_layers": 2, "n_heads": 4, **_POSITIONS},
    ),
    "DistillGPT2": Recipe("GPT2LMHeadModel", "GPT2Config", _GPT2),
    "ElectraForCausalLM": Recipe(
        "ElectraForCausalLM",
        "ElectraConfig",
        {**_BERT, "embedding_size": 16, "is_decoder": True},
    ),
    "ElectraForQuestionAnswering": Recipe(
        "ElectraForQuestionAnswering", "ElectraConfig", {**_BERT, "embedding_size": 16}
    ),
    "GPT2ForSequenceClassification": Recipe(
        "GPT2ForSequenceClassification", "GPT2Config", _GPT2
    ),
    "GPTJForCausalLM": Recipe(
        "GPTJForCausalLM", "GPTJConfig", {**_GPT2, "rotary_dim": 4}
    ),
    "GPTJForQuestionAnswering": Recipe(
        "GPTJForQuestionAnswering", "GPTJConfig", {**_GPT2, "rotary_dim": 4}
    ),
    "GPTNeoForCausalLM": Recipe(
        "GPTNeoForCausalLM",
        "GPTNeoConfig",
        {
            "hidden_size": 32,
            "num_layers": 2,
            "num_heads": 4,
            "attention_types": [[["global", "local"], 1]],
            "window_size": 8,
            **_POSITIONS,
        },
    ),
    "GPTNeoForSequenceClassification": Recipe(
        "GPTNeoForSequenceClassification",
        "GPTNeoConfig",
        {
            "hidden_size": 32,
            "num_layers": 2,
            "num_heads": 4,
            "attention_types": [[["global", "local"], 1]],
            "window_size": 8,
            **_POSITIONS,
        },
    ),
    "GoogleFnet": Recipe(
        "FNetForMaskedLM",
        "FNetConfig",
        {k: v for k, v in _BERT.items() if k != "num_attention_heads"},
    ),
    "LayoutLMForMaskedLM": Recipe("LayoutLMForMaskedLM", "LayoutLMConfig", _BERT),
    "LayoutLMForSequenceClassification": Recipe(
        "LayoutLMForSequenceClassification", "LayoutLMConfig", _BERT
    ),
    "M2M100ForConditionalGeneration": Recipe(
        "M2M100ForConditionalGeneration", "M2M100Config", _BART, "seq2seq"
    ),
    "MBartForCausalLM": Recipe("MBartForCausalLM", "MBartConfig", _BART),
    "MBartForConditionalGeneration": Recipe(
        "MBartForConditionalGeneration", "MBartConfig", _BART, "seq2seq"
    ),
    "MT5ForConditionalGeneration": Recipe(
        "MT5ForConditionalGeneration", "MT5Config", _T5, "seq2seq"
    ),
    "MegatronBertForCausalLM": Recipe(
        "MegatronBertForCausalLM", "MegatronBertConfig", {**_BERT, "is_decoder": True}
    ),
    "MegatronBertForQuestionAnswering": Recipe(
        "MegatronBertForQuestionAnswering", "MegatronBertConfig", _BERT
    ),
    "MobileBertForMaskedLM": Recipe(
        "MobileBertForMaskedLM",
        "MobileBertConfig",
        {**_BERT, "embedding_size": 16, "intra_bottleneck_size": 16},
    ),
    "MobileBertForQuestionAnswering": Recipe(
        "MobileBertForQuestionAnswering",
        "MobileBertConfig",
        {**_BERT, "embedding_size": 16, "intra_bottleneck_size": 16},
    ),
    "OPTForCausalLM": Recipe(
        "OPTForCausalLM",
        "OPTConfig",
        {
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "ffn_dim": 64,
            "word_embed_proj_dim": 32,
            **_POSITIONS,
        },
    ),
    "PLBartForCausalLM": Recipe("PLBartForCausalLM", "PLBartConfig", _BART),
    "PLBartForConditionalGeneration": Recipe(
        "PLBartForConditionalGeneration", "PLBartConfig", _BART, "seq2seq"
    ),
    "PegasusForCausalLM": Recipe("PegasusForCausalLM", "PegasusConfig", _BART),
    "PegasusForConditionalGeneration": Recipe(
        "PegasusForConditionalGeneration", "PegasusConfig", _BART, "seq2seq"
    ),
    "RobertaForCausalLM": Recipe(
        "RobertaForCausalLM", "RobertaConfig", {**_BERT, "is_decoder": True}
    ),
    "RobertaForQuestionAnswering": Recipe(
        "RobertaForQuestionAnswering", "RobertaConfig", _BERT
    ),
    "T5ForConditionalGeneration": Recipe(
        "T5ForConditionalGeneration", "T5Config", _T5, "seq2seq"
    ),
    "T5Small": Recipe(
        "T5ForConditionalGeneration",
        "T5Config",
        {**_T5, "feed_forward_proj": "gated-gelu"},
        "seq2seq",
    ),
    "TrOCRForCausalLM": Recipe(
        "TrOCRForCausalLM",
        "TrOCRConfig",
        {
            "d_model": 32,
            "decoder_layers": 2,
            "decoder_attention_heads": 4,
            "decoder_ffn_dim": 64,
            "decoder_start_token_id": 0,
            **_POSITIONS,
        },
    ),
    "XGLMForCausalLM": Recipe(
        "XGLMForCausalLM",
        "XGLMConfig",
        {
            "d_model": 32,
            "num_layers": 2,
            "attention_heads": 4,
            "ffn_dim": 64,
            "decoder_start_token_id": 0,
            **_POSITIONS,
        },
    ),
    "XLNetLMHeadModel": Recipe(
        "XLNetLMHeadModel",
        "XLNetConfig",
        {"d_model": 32, "n_layer": 2, "n_head": 4, "d_inner": 64},
    ),
    "YituTechConvBert": Recipe(
        "ConvBertForMaskedLM", "ConvBertConfig", {**_BERT, "embedding_size": 16}
    ),
    "meta-llama/Llama-3.2-1B": Recipe("LlamaForCausalLM", "LlamaConfig", _DECODER),
    "google/gemma-2-2b": Recipe(
        "Gemma2ForCausalLM", "Gemma2Config", {**_DECODER, "head_dim": 8}
    ),
    "google/gemma-3-4b-it": Recipe(
        "Gemma3ForCausalLM",
        "Gemma3TextConfig",
        {**_DECODER, "head_dim": 8, "sliding_window": 8},
    ),
    "openai/whisper-tiny": Recipe(
        "WhisperForConditionalGeneration",
        "WhisperConfig",
        {
            **{k: v for k, v in _BART.items() if k != "max_position_embeddings"},
            "num_mel_bins": 8,
            "max_source_positions": LENGTH,
            "max_target_positions": 64,
        },
        "audio",
    ),
    "Qwen/Qwen3-0.6B": Recipe(
        "Qwen3ForCausalLM", "Qwen3Config", {**_DECODER, "head_dim": 8}
    ),
    "mistralai/Mistral-7B-Instruct-v0.3": Recipe(
        "MistralForCausalLM", "MistralConfig", _DECODER
    ),
    "openai/gpt-oss-20b": Recipe(
        "GptOssForCausalLM",
        "GptOssConfig",
        {
            **_DECODER,
            "head_dim": 8,
            "num_local_experts": 4,
            "num_experts_per_tok": 2,
            "sliding_window": 8,
        },
    ),
}
"""The suite's models by the suite's name (its class where that differs)."""

NOT_BUILT: dict[str, str] = {}
"""Models of the list that transformers cannot build here, with the reason
(none: transformers 5 builds every one)."""

NOT_RUN: dict[tuple[str, str], str] = {
    ("GoogleFnet", "bf16"): "torch's CPU FFT has no bf16 kernel (eager fails)",
    ("GoogleFnet", "f16"): "torch's CPU FFT has no f16 kernel (eager fails)",
}
"""(model, dtype) pairs that eager PyTorch itself cannot run, with the reason."""


TARGET = 99.0
"""Percent of its operators every model compiles through the backend, with
`use_cache` False and True (its `TORCH_ONLY` operators aside)."""

TORCH_ONLY: dict[str, frozenset[str]] = {}
"""Operators a model leaves to torch by design, by model: none. (FNet's
complex64 FFT compiles since `frontends.aten_complex`, GPT-OSS's grouped
matmul, the model library's own custom op, since
`frontends.aten_grouped_mm`.)"""

BELOW_TARGET: dict[str, str] = {}
"""Models under `TARGET` with both `use_cache` settings, with the reason
(the slow test fails when one reaches it: delete the entry)."""


def compiled_share(name: str, outcome: Outcome) -> float:
    """`outcome`'s compiled operators in percent, `TORCH_ONLY[name]`'s left
    out of the count."""
    allowed = TORCH_ONLY.get(name, frozenset())
    excused = sum(n for target, n in outcome.in_torch.items() if target in allowed)
    total = outcome.total - excused
    return 100.0 * outcome.compiled / total if total else 100.0


def build(
    name: str, dtype: Any = None, use_cache: bool = False
) -> tuple[Any, dict[str, Any]]:
    """`SUITE[name]`'s model (eval mode, seeded weights, cast to `dtype`
    when given) and its keyword inputs, drawn after its weights; with
    `use_cache`, as Hugging Face's decoders run by default (returning a
    key/value cache, the first step of generation)."""
    import torch
    import transformers

    recipe = SUITE[name]
    config_cls = getattr(transformers, recipe.config)
    config = config_cls(
        vocab_size=_VOCAB, use_cache=use_cache, **SPECIAL_TOKENS, **recipe.sizes
    )
    model_cls = getattr(transformers, recipe.model)
    model = seeded(lambda: model_cls(config))
    ids = torch.randint(1, _VOCAB, (BATCH, LENGTH))
    inputs: dict[str, Any] = {"input_ids": ids}
    if recipe.inputs == "audio":
        frames = 2 * config.max_source_positions
        features = torch.randn(BATCH, config.num_mel_bins, frames)
        inputs = {"input_features": features}
    if recipe.inputs in ("seq2seq", "audio"):
        inputs["decoder_input_ids"] = torch.randint(1, _VOCAB, (BATCH, LENGTH))
    if dtype is not None:
        model = model.to(dtype)
        inputs = {
            k: v.to(dtype) if v.is_floating_point() else v for k, v in inputs.items()
        }
    return model, inputs


@dataclass
class Outcome:
    """One model through `torch.compile(backend="fxdsl")` in one dtype,
    counted over every ATen graph the backend was given."""

    compiled: int = 0
    """Operators fxdsl runs (`Plan.compiled`)."""
    total: int = 0
    """Operators (`Plan.total`)."""
    in_torch: Counter[str] = field(default_factory=Counter[str])
    """The ATen overloads of the operators left to torch, counted (a graph
    the importer refused whole counts every operator)."""
    reasons: dict[str, str] = field(default_factory=dict[str, str])
    """Each overload of `in_torch`: why (its first node's reason; "whole
    graph" when its graph ran in torch whole)."""
    refused: list[str] = field(default_factory=list[str])
    """Why each graph the backend left to torch whole was refused (the
    dry-run report's reason)."""
    draws: bool = False
    """Whether a graph has a node that draws random numbers (its values
    differ from eager's, as two eager calls differ)."""
    accurate: bool = False
    """Whether the outputs pass the dynamo suite's check against fp64."""

    @property
    def share(self) -> float:
        """Compiled operators in percent."""
        return 100.0 * self.compiled / self.total if self.total else 0.0

    def count(self, plan: Any) -> None:
        self.compiled += plan.compiled
        self.total += plan.total
        for target, reason, _ in plan.fallbacks.values():
            self.in_torch[target] += 1
            self.reasons.setdefault(target, reason)

    def count_refused(self, module: Any, reason: str) -> None:
        from fxdsl.frontends.torch_islands import _is_operator

        operators = [str(n.target) for n in module.graph.nodes if _is_operator(n)]
        self.total += len(operators)
        self.in_torch.update(operators)
        self.refused.append(reason)
        for target in operators:
            self.reasons.setdefault(target, "whole graph")

    def summary(self, limit: int = 3) -> str:
        """`"<n> of <total> operators ran in torch: <overload> (<why>), ..."`,
        the most frequent first; empty when fxdsl ran them all."""
        if not self.in_torch:
            return ""
        kinds = [
            f"{target} x{count} ({self.reasons.get(target, '?')})"
            for target, count in self.in_torch.most_common(limit)
        ]
        more = len(self.in_torch) - limit
        tail = f", and {more} more kind(s)" if more > 0 else ""
        whole = "".join(f"; a whole graph: {why}" for why in self.refused)
        left = self.in_torch.total()
        return f"{left} of {self.total} operators ran in torch: " + (
            ", ".join(kinds) + tail + whole
        )


@contextmanager
def counting_plans(outcome: Outcome) -> Iterator[None]:
    """Count into `outcome` the backend's plan of each graph it compiles."""
    from fxdsl.frontends import torch_compile
    from fxdsl.frontends.torch_nodes import draws_random

    real_plan = torch_compile.plan

    def counted(module: Any, *args: Any, **kwargs: Any) -> Any:
        outcome.draws |= any(draws_random(n) for n in module.graph.nodes)
        try:
            found = real_plan(module, *args, **kwargs)
        except Exception as error:
            outcome.count_refused(module, str(error).split("\n")[0])
            raise
        outcome.count(found)
        return found

    torch_compile.plan = counted  # type: ignore[assignment]
    try:
        yield
    finally:
        torch_compile.plan = real_plan  # type: ignore[assignment]


def compile_and_check(
    model: Any,
    inputs: dict[str, Any],
    autocast: Any = None,
    tol: float = 1e-3,
    train: bool = False,
    equal_nan: bool = False,
) -> Outcome:
    """`model(**inputs)` compiled with the fxdsl backend (CPU), its
    partition counted from the backend's own plans, and its outputs checked
    as the dynamo benchmark runner checks them: `torch._dynamo.utils.same`
    of eager and compiled outputs against the model cast to float64. With
    `autocast` (a dtype), eager and compiled run under CPU autocast. With
    `train`, one training step instead (`training_step`: dropout off, the
    forward, a loss, the backward), checked as the runner's `--training`
    does: the loss and every parameter's gradient. `equal_nan` counts NaN
    where eager has NaN as a match (a module fed values outside its domain,
    as PyTorch's own module samples do)."""
    import copy

    import torch
    from torch._dynamo.utils import same

    def mixed() -> Any:
        if autocast is None:
            return nullcontext()
        return torch.autocast("cpu", dtype=autocast)

    def run(module: Any, given: dict[str, Any]) -> list[Any]:
        if train:
            return training_step(module, given)
        with torch.no_grad():
            return _leaves(module(**given))

    outcome = Outcome()
    wide = copy.deepcopy(model).to(torch.float64)
    # float64 by default too: XGLM fills `torch.full((), finfo.min)`,
    # a float32 tensor by default, with float64's minimum
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        reference = run(wide, {k: _wide(v) for k, v in inputs.items()})
    except RuntimeError:
        # As the dynamo runner: without a float64 run (GPT-OSS's grouped
        # matmul has no float64 kernel), compare by cosine similarity.
        reference = None
    finally:
        torch.set_default_dtype(default)
    with mixed():
        eager = run(copy.deepcopy(model) if train else model, inputs)
    torch._dynamo.reset()
    try:
        with counting_plans(outcome), mixed():
            compiled = torch.compile(
                copy.deepcopy(model) if train else model, backend="fxdsl"
            )
            got = run(compiled, inputs)
    finally:
        torch._dynamo.reset()
    outcome.accurate = len(got) == len(eager) and bool(
        same(
            eager,
            got,
            reference,
            cos_similarity=reference is None,
            tol=tol,
            equal_nan=equal_nan,
        )
    )
    return outcome


def training_step(model: Any, inputs: dict[str, Any]) -> list[Any]:
    """One training step of `model` (in train mode, every dropout off, so
    that steps compare): the forward, the loss (the mean of each float
    output, summed, as the dynamo runner's `reduce_to_scalar_loss`) and
    the backward. Returns the loss and the gradient of every parameter
    that got one, in parameter order."""
    import torch

    model.train()
    config = getattr(model, "config", None)
    for name, value in (config.to_dict() if config is not None else {}).items():
        if ("dropout" in name or "layerdrop" in name) and isinstance(value, float):
            setattr(config, name, 0.0)
    for module in model.modules():
        if isinstance(module, torch.nn.modules.dropout._DropoutNd):
            module.p = 0.0
        for name, value in list(vars(module).items()):
            dropout = "dropout" in name or "layerdrop" in name
            if dropout and isinstance(value, float):  # a layer's own rate
                setattr(module, name, 0.0)
    outputs = [t for t in _leaves(model(**inputs)) if t.is_floating_point()]
    loss = sum(t.mean() for t in outputs)
    loss.backward()  # type: ignore[union-attr]
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return [loss, *grads]


def _wide(value: Any) -> Any:
    floating = getattr(value, "is_floating_point", lambda: False)()
    return value.double() if floating else value


def _leaves(returned: Any) -> list[Any]:
    import torch
    import torch.utils._pytree as pytree

    if hasattr(returned, "to_tuple"):
        returned = returned.to_tuple()
    leaves = pytree.tree_leaves(returned)
    return [t for t in leaves if isinstance(t, torch.Tensor)]
