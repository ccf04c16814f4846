"""`torch.nn`'s Transformer fast path through the backend (inference: eval
mode, no grad, batch first): `nn.TransformerEncoderLayer` and
`nn.MultiheadAttention` call one fused ATen op each
(`_transformer_encoder_layer_fwd`, `_native_multi_head_attention`), which
torch does not decompose; `aten_transformer_fast_path` does, so the layer
compiles whole (before, the op ran in torch) and matches eager."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
nn = torch.nn

X = torch.randn(3, 7, 16, generator=torch.Generator().manual_seed(0))
PADDING = torch.zeros(3, 7, dtype=torch.bool)
PADDING[1, 5:] = PADDING[2, 3:] = True
MASKS: dict[str, dict[str, Any]] = {
    "none": {},
    "key padding": {"src_key_padding_mask": PADDING},
    "causal": {"src_mask": nn.Transformer.generate_square_subsequent_mask(7)},
}


def _compiled(module: Any, *args: Any, **kwargs: Any) -> tuple[Any, Outcome]:
    outcome = Outcome()
    with torch.no_grad(), counting_plans(outcome):
        got = torch.compile(module, backend="fxdsl")(*args, **kwargs)
    return got, outcome


@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
def test_an_encoder_layer_on_the_fast_path_compiles(
    norm_first: bool, activation: str, mask: str
) -> None:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        16, 4, 32, batch_first=True, norm_first=norm_first, activation=activation
    ).eval()
    with torch.no_grad():
        want = layer(X, **MASKS[mask])
    got, outcome = _compiled(layer, X, **MASKS[mask])
    assert outcome.total > 0
    assert outcome.compiled == outcome.total, outcome.summary()
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_the_fused_op_itself_imports() -> None:
    """The op called directly, so the test does not rest on the module
    choosing its fast path."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True).eval()
    weights = [
        layer.self_attn.in_proj_weight,
        layer.self_attn.in_proj_bias,
        layer.self_attn.out_proj.weight,
        layer.self_attn.out_proj.bias,
    ]
    norms = [layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias]
    ffn = [
        layer.linear1.weight,
        layer.linear1.bias,
        layer.linear2.weight,
        layer.linear2.bias,
    ]
    mask = torch.zeros(3, 7).masked_fill(PADDING, -torch.inf)

    def fused(x: Any) -> Any:
        return torch._transformer_encoder_layer_fwd(
            x, 16, 4, *weights, True, False, 1e-5, *norms, *ffn, mask, 1
        )

    with torch.no_grad():
        want = fused(X)
    got, outcome = _compiled(fused, X)
    assert outcome.total > 0
    assert outcome.compiled == outcome.total, outcome.summary()
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("need_weights", [False, True])
def test_multi_head_attention_on_the_fast_path_compiles(need_weights: bool) -> None:
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    with torch.no_grad():
        want = attention(X, X, X, key_padding_mask=PADDING, need_weights=need_weights)
    got, outcome = _compiled(
        attention, X, X, X, key_padding_mask=PADDING, need_weights=need_weights
    )
    assert outcome.total > 0
    assert outcome.compiled == outcome.total, outcome.summary()
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
    if need_weights:
        torch.testing.assert_close(got[1], want[1], rtol=1e-5, atol=1e-5)
    else:  # eager's fast path gives None, though its fake kernel a tensor
        assert want[1] is None
        assert got[1] is None


@pytest.mark.parametrize("mask_type", [1, 2], ids=["key-padding", "merged"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_a_boolean_mask_is_added_in_the_scores_type(dtype: Any, mask_type: int) -> None:
    """A boolean mask becomes -inf where True, in the scores' own type: a
    merged (B, H, T, S) mask and a (B, S) key padding mask, f32 and bf16
    (an f32 mask beside bf16 scores would promote them)."""
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(16, 4, batch_first=True).eval().to(dtype)
    weights = [
        attention.in_proj_weight,
        attention.in_proj_bias,
        attention.out_proj.weight,
        attention.out_proj.bias,
    ]
    merged = torch.rand(3, 4, 7, 7, generator=torch.Generator().manual_seed(1)) > 0.6
    merged[..., 0] = False  # every query keeps a key
    mask = merged if mask_type == 2 else PADDING
    x = X.to(dtype)

    def fused(x: Any) -> Any:
        return torch._native_multi_head_attention(
            x, x, x, 16, 4, *weights, mask, True, False, mask_type
        )

    with torch.no_grad():
        want = fused(x)
    got, outcome = _compiled(fused, x)
    assert outcome.compiled == outcome.total > 0, outcome.summary()
    tolerance = 1e-5 if dtype == torch.float32 else 2e-2
    for mine, eager in zip(got, want, strict=True):
        assert mine.dtype == dtype
        torch.testing.assert_close(mine, eager, rtol=tolerance, atol=tolerance)


def test_the_op_without_weights_returns_none_as_eager() -> None:
    """Called directly with need_weights=False, torch's op returns None for
    the weights (its fake kernel gives an empty tensor, which the compiled
    op returned before). Inductor's test_multihead_attention_cpu."""
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    weights = [
        attention.in_proj_weight,
        attention.in_proj_bias,
        attention.out_proj.weight,
        attention.out_proj.bias,
    ]

    def fused(x: Any) -> Any:
        return torch._native_multi_head_attention(x, x, x, 16, 4, *weights, None, False)

    with torch.no_grad():
        want = fused(X)
    got, outcome = _compiled(fused, X)
    assert outcome.compiled == outcome.total > 0, outcome.summary()
    assert want[1] is None
    assert got[1] is None
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
