"""Small PyTorch models for the importer's tests and benchmarks.

Each builder returns `(model, args, kwargs)` for `torch.export.export`:
the model in eval mode with seeded random weights, built from a tiny config
(nothing is downloaded), and example inputs. Hugging Face models need
`transformers`; all need torch (the `fxdsl[torch]` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Example = tuple[Any, tuple[Any, ...], dict[str, Any]]


def function_module(fn: Callable[..., Any]) -> Any:
    """`fn` as a `torch.nn.Module` whose forward calls it with its inputs
    (what `torch.export` and `from_torch` take); an `fn` that is a module
    becomes a submodule, its parameters and buffers the model's."""
    import torch

    class FunctionModule(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fn = fn

        def forward(self, *args: Any) -> Any:
            return self.fn(*args)

    return FunctionModule()


_VOCAB = 128
"""Every tiny language model's vocabulary size (the ids are drawn below it)."""

TINY_LAYERS: dict[str, int] = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
}
"""The width, depth and heads of every tiny Hugging Face model whose config uses
the BERT names for them (others spell the same sizes in their own names)."""

SPECIAL_TOKENS: dict[str, int] = {
    "bos_token_id": 0,
    "eos_token_id": 0,
    "pad_token_id": 0,
}
"""A tiny vocabulary's special tokens: all id 0 (the defaults lie past 128)."""


def seeded(build: Callable[[], Any]) -> Any:
    """`build()` in eval mode, its weights drawn after seeding torch with 0.

    A callable, not a model, so the seed comes before the first weight."""
    import torch

    torch.manual_seed(0)
    return build().eval()


def _on_ids(
    model_cls: Any, config: Any, batch: int, length: int, **kwargs: Any
) -> Example:
    """`model_cls(config)` (`seeded`) on a `batch` of `length` random token
    ids, drawn after its weights."""
    import torch

    model = seeded(lambda: model_cls(config))
    return model, (torch.randint(0, _VOCAB, (batch, length)),), kwargs


def gpt2(layers: int = 2, batch: int = 1, length: int = 8, width: int = 32) -> Example:
    """HF `GPT2LMHeadModel` (causal mask built by transformers, folded)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        n_layer=layers,
        n_embd=width,
        n_head=4,
        vocab_size=_VOCAB,
        n_positions=max(64, length),
        bos_token_id=0,
        eos_token_id=0,
    )
    return _on_ids(GPT2LMHeadModel, config, batch, length, use_cache=False)


def bert(batch: int = 1, length: int = 8) -> Example:
    """HF `BertModel` (all-true padding mask, folded away)."""
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=_VOCAB, max_position_embeddings=64, **TINY_LAYERS)
    return _on_ids(BertModel, config, batch, length)


def _decoder(
    model_cls: Any, config_cls: Any, batch: int, length: int, **config: Any
) -> Example:
    """A Llama-like causal LM: grouped-query attention (4 heads, 2 kv)."""
    tiny = config_cls(
        vocab_size=_VOCAB,
        num_key_value_heads=2,
        max_position_embeddings=64,
        **TINY_LAYERS,
        **SPECIAL_TOKENS,
        **config,
    )
    return _on_ids(model_cls, tiny, batch, length, use_cache=False)


def llama(batch: int = 1, length: int = 8) -> Example:
    """HF `LlamaForCausalLM`, grouped-query attention (4 heads, 2 kv)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    return _decoder(LlamaForCausalLM, LlamaConfig, batch, length)


def qwen2(batch: int = 1, length: int = 8) -> Example:
    """HF `Qwen2ForCausalLM`, grouped-query attention (4 heads, 2 kv)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    return _decoder(Qwen2ForCausalLM, Qwen2Config, batch, length)


def t5_encoder(batch: int = 1, length: int = 8) -> Example:
    """HF `T5EncoderModel` (relative position bias, folded)."""
    from transformers import T5Config, T5EncoderModel

    config = T5Config(
        vocab_size=_VOCAB,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
    )
    return _on_ids(T5EncoderModel, config, batch, length)


def transformer_encoder_layer(batch: int = 2, length: int = 8) -> Example:
    """`nn.TransformerEncoderLayer` (batch first, no mask)."""
    import torch

    layer = seeded(
        lambda: torch.nn.TransformerEncoderLayer(
            d_model=32, nhead=4, dim_feedforward=64, batch_first=True
        )
    )
    return layer, (torch.randn(batch, length, 32),), {}


def mlp(batch: int = 4) -> Example:
    """Linear-GELU-Linear-SiLU-Linear."""
    import torch

    model = seeded(
        lambda: torch.nn.Sequential(
            torch.nn.Linear(16, 64),
            torch.nn.GELU(),
            torch.nn.Linear(64, 64),
            torch.nn.SiLU(),
            torch.nn.Linear(64, 8),
        )
    )
    return model, (torch.randn(batch, 16),), {}


def mixtral(batch: int = 1, length: int = 8) -> Example:
    """HF `MixtralForCausalLM`, 4 experts, 2 per token: its router's `topk`,
    `sort`, `histc`, `index_put` and the grouped-matmul custom op have no
    graph-dialect mapping (the torch.compile backend leaves them to torch)."""
    from transformers import MixtralConfig, MixtralForCausalLM

    return _decoder(
        MixtralForCausalLM,
        MixtralConfig,
        batch,
        length,
        num_local_experts=4,
        num_experts_per_tok=2,
    )


def _unmapped_model() -> Any:
    import torch

    class WithUnmapped(torch.nn.Module):
        """An MLP with `torch.special.airy_ai` in the middle (an op fxdsl
        has no mapping for)."""

        def __init__(self) -> None:
            super().__init__()
            self.up = torch.nn.Linear(16, 16)
            self.down = torch.nn.Linear(16, 8)

        def forward(self, x: Any) -> Any:
            h = torch.nn.functional.gelu(self.up(x))
            q = torch.special.airy_ai(h.reshape(-1, 4, 4))
            return self.down(torch.tanh(h + q.reshape(h.shape)) * 2.0 + 1.0)

    return WithUnmapped


def with_unmapped(batch: int = 4) -> Example:
    """An MLP with an op fxdsl has no mapping for (`special.airy_ai`) in
    the middle."""
    import torch

    return seeded(_unmapped_model()), (torch.randn(batch, 16),), {}


def padded(
    example: Example, lengths: Sequence[int], left: bool = False, folded: bool = True
) -> Example:
    """`example` (a Hugging Face model that takes `attention_mask`) on a
    padded batch: sequence b keeps `lengths[b]` tokens, its first (or, with
    `left`, its last). With `folded` the mask is a constant of a wrapping
    module (torch.export lifts it, so the importer folds HF's mask
    construction over it); else it is the `attention_mask` input."""
    import torch

    model, (ids,), kwargs = example
    length = ids.shape[1]
    positions = torch.arange(length)[None, :]
    kept = torch.tensor(list(lengths))[:, None]
    mask = (positions >= length - kept) if left else (positions < kept)
    mask = mask.long()
    if not folded:
        return model, (ids,), {**kwargs, "attention_mask": mask}

    class Padded(torch.nn.Module):
        """The model with its padding mask built in."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.mask = mask

        def forward(self, ids: Any) -> Any:
            return self.model(ids, attention_mask=self.mask, **kwargs)

    return Padded().eval(), (ids,), {}


MODELS: dict[str, Callable[..., Example]] = {
    "gpt2": gpt2,
    "bert": bert,
    "llama": llama,
    "qwen2": qwen2,
    "t5_encoder": t5_encoder,
    "transformer_encoder_layer": transformer_encoder_layer,
    "mlp": mlp,
}
"""The import issue's model list, by name."""

BACKEND_MODELS: dict[str, Callable[..., Example]] = {
    **MODELS,
    "mixtral": mixtral,
    "with_unmapped": with_unmapped,
}
"""What the torch.compile backend is tested on: those and models with ops
that fall back to torch."""


def eager_outputs(example: Example) -> list[Any]:
    """The model's outputs in eager mode as numpy arrays, flattened the way
    torch.export flattens them."""
    import torch
    import torch.utils._pytree as pytree

    from fxdsl.frontends.torch_export import to_numpy

    model, args, kwargs = example
    with torch.no_grad():
        returned = model(*args, **kwargs)
    if hasattr(returned, "to_tuple"):
        returned = returned.to_tuple()
    leaves = pytree.tree_leaves(returned)
    return [to_numpy(t) for t in leaves if isinstance(t, torch.Tensor)]


class ImportCache(dict[tuple[str, str], tuple[Example, Any]]):
    """Each model of `builders` at each IR level ("default", or "core" for
    the core-ATen graph), imported with `fxdsl.from_torch` on first use:
    `cache[name, level]` is `(example, program)`."""

    def __init__(self, builders: dict[str, Callable[..., Example]]) -> None:
        super().__init__()
        self.builders = builders

    def __missing__(self, key: tuple[str, str]) -> tuple[Example, Any]:
        from fxdsl.frontends.torch_export import from_torch

        name, level = key
        example = self.builders[name]()
        model, args, kwargs = example
        program = from_torch(model, args, kwargs, decompose=level == "core")
        self[key] = (example, program)
        return self[key]
