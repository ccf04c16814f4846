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


def _ids(vocab: int, batch: int, length: int) -> Any:
    import torch

    return torch.randint(0, vocab, (batch, length))


def gpt2(layers: int = 2, batch: int = 1, length: int = 8, width: int = 32) -> Example:
    """HF `GPT2LMHeadModel` (causal mask built by transformers, folded)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(
        n_layer=layers,
        n_embd=width,
        n_head=4,
        vocab_size=128,
        n_positions=max(64, length),
        bos_token_id=0,
        eos_token_id=0,
    )
    model = GPT2LMHeadModel(config).eval()
    return model, (_ids(128, batch, length),), {"use_cache": False}


def bert(batch: int = 1, length: int = 8) -> Example:
    """HF `BertModel` (all-true padding mask, folded away)."""
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=128,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    return BertModel(config).eval(), (_ids(128, batch, length),), {}


def _decoder(config_cls: Any, model_cls: Any, batch: int, length: int) -> Example:
    import torch

    torch.manual_seed(0)
    config = config_cls(
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    model = model_cls(config).eval()
    return model, (_ids(128, batch, length),), {"use_cache": False}


def llama(batch: int = 1, length: int = 8) -> Example:
    """HF `LlamaForCausalLM`, grouped-query attention (4 heads, 2 kv)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    return _decoder(LlamaConfig, LlamaForCausalLM, batch, length)


def qwen2(batch: int = 1, length: int = 8) -> Example:
    """HF `Qwen2ForCausalLM`, grouped-query attention (4 heads, 2 kv)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    return _decoder(Qwen2Config, Qwen2ForCausalLM, batch, length)


def t5_encoder(batch: int = 1, length: int = 8) -> Example:
    """HF `T5EncoderModel` (relative position bias, folded)."""
    import torch
    from transformers import T5Config, T5EncoderModel

    torch.manual_seed(0)
    config = T5Config(
        vocab_size=128,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
    )
    return T5EncoderModel(config).eval(), (_ids(128, batch, length),), {}


def transformer_encoder_layer(batch: int = 2, length: int = 8) -> Example:
    """`nn.TransformerEncoderLayer` (batch first, no mask)."""
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=32, nhead=4, dim_feedforward=64, batch_first=True
    ).eval()
    return layer, (torch.randn(batch, length, 32),), {}


def mlp(batch: int = 4) -> Example:
    """Linear-GELU-Linear-SiLU-Linear."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 64),
        torch.nn.GELU(),
        torch.nn.Linear(64, 64),
        torch.nn.SiLU(),
        torch.nn.Linear(64, 8),
    ).eval()
    return model, (torch.randn(batch, 16),), {}


def mixtral(batch: int = 1, length: int = 8) -> Example:
    """HF `MixtralForCausalLM`, 4 experts, 2 per token: its router's `topk`,
    `sort`, `histc`, `index_put` and the grouped-matmul custom op have no
    graph-dialect mapping (the torch.compile backend leaves them to torch)."""
    import torch
    from transformers import MixtralConfig, MixtralForCausalLM

    torch.manual_seed(0)
    config = MixtralConfig(
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_local_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=64,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    model = MixtralForCausalLM(config).eval()
    return model, (_ids(128, batch, length),), {"use_cache": False}


def _qr_model() -> Any:
    import torch

    class WithQR(torch.nn.Module):
        """An MLP with `torch.linalg.qr` in the middle (an op fxdsl will
        never have)."""

        def __init__(self) -> None:
            super().__init__()
            self.up = torch.nn.Linear(16, 16)
            self.down = torch.nn.Linear(16, 8)

        def forward(self, x: Any) -> Any:
            h = torch.nn.functional.gelu(self.up(x))
            q, _ = torch.linalg.qr(h.reshape(-1, 4, 4))
            return self.down(torch.tanh(h + q.reshape(h.shape)) * 2.0 + 1.0)

    return WithQR


def with_qr(batch: int = 4) -> Example:
    """An MLP with `torch.linalg.qr` in the middle."""
    import torch

    torch.manual_seed(0)
    return _qr_model()().eval(), (torch.randn(batch, 16),), {}


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
    "with_qr": with_qr,
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
