"""16-bit SDPA through `torch.compile(backend="fxdsl")`: torch's math
decomposition computes it in f32 on upcast q, k, v and casts the result
back; eager runs a flash kernel on the 16-bit operands, which rounds the
softmax numerators to bf16 (f16) for the product with v. The importer
imports the decomposed form as `graph.attention` on the 16-bit operands
(so the GPU gets the tensor-core kernel), and the reference computes it as
eager does: small attentions equal eager's bit for bit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends import torch_compile  # noqa: E402, F401  (the backend)

F = torch.nn.functional


def _causal(q: Any, k: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _masked(q: Any, k: Any, v: Any, m: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


def _gqa(q: Any, k: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)


def _hf_gqa(q: Any, k: Any, v: Any, m: Any) -> Any:
    # Hugging Face's repeat_kv (expand + reshape) before SDPA with a mask
    b, h, s, d = k.shape
    k = k[:, :, None].expand(b, h, 2, s, d).reshape(b, 2 * h, s, d)
    v = v[:, :, None].expand(b, h, 2, s, d).reshape(b, 2 * h, s, d)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


def _case(name: str, dtype: Any) -> tuple[Any, tuple[Any, ...]]:
    torch.manual_seed(0)
    q = torch.randn(2, 4, 8, 16, dtype=dtype)
    kv = [torch.randn(2, 4, 8, 16, dtype=dtype) for _ in range(2)]
    half = [torch.randn(2, 2, 8, 16, dtype=dtype) for _ in range(2)]
    keep = torch.rand(8, 8) > 0.3
    keep[:, 0] = True
    decode = torch.randn(1, 4, 1, 16, dtype=dtype)
    bias = torch.where(keep[:1], 0.0, -1e4).to(dtype)[None, None]
    cases = {
        "causal": (_causal, (q, *kv)),
        "bool_mask": (_masked, (q, *kv, keep)),
        "additive_mask": (_masked, (q, *kv, torch.where(keep, 0.0, -1e4).to(dtype))),
        "decode": (_masked, (decode, *(x[:1] for x in kv), bias)),
        "gqa": (_gqa, (q, *half)),
        "hf_gqa": (_hf_gqa, (q, *half, keep)),
    }
    return cases[name]


NAMES = ["causal", "bool_mask", "additive_mask", "decode", "gqa", "hf_gqa"]


@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_16_bit_sdpa_is_16_bit_attention_and_equals_eager(
    tmp_path: Path, name: str, dtype: Any
) -> None:
    fn, args = _case(name, dtype)
    want = fn(*args)
    compiled = torch.compile(fn, backend="fxdsl", options={"dump_ir": str(tmp_path)})
    got = compiled(*args)
    assert got.dtype == want.dtype
    assert torch.equal(got, want), (got != want).sum().item()
    (dump,) = tmp_path.glob("*.mlir")
    lines = [
        line for line in dump.read_text().splitlines() if "graph.attention" in line
    ]
    element = "bf16" if dtype == torch.bfloat16 else "f16"
    assert lines, "the attention was not imported whole"
    assert all(f"x{element}>" in line and "xf32>" not in line for line in lines), lines


@pytest.mark.usefixtures("fresh_dynamo")
def test_f32_attention_on_upcast_inputs_stays_f32(tmp_path: Path) -> None:
    """A user's own f32 SDPA on upcast bf16 inputs, kept in f32: eager runs
    it in f32, and so does fxdsl (only a result cast back to 16 bits marks
    torch's decomposition of a 16-bit SDPA)."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 8, 16, dtype=torch.bfloat16) for _ in range(3))

    def fn(q: Any, k: Any, v: Any) -> Any:
        return _causal(q.float(), k.float(), v.float())

    compiled = torch.compile(fn, backend="fxdsl", options={"dump_ir": str(tmp_path)})
    got, want = compiled(q, k, v), fn(q, k, v)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    (dump,) = tmp_path.glob("*.mlir")
    (line,) = [x for x in dump.read_text().splitlines() if "graph.attention" in x]
    assert "xf32>" in line
    assert "bf16" not in line


@pytest.mark.usefixtures("fresh_dynamo")
def test_bf16_gpt2_through_the_backend_gets_the_flash_kernel(tmp_path: Path) -> None:
    """A bf16 HF GPT-2 (head dim 64) through torch.compile: its attention is
    bf16, so the GPU lowering picks the tensor-core flash kernel (the f32
    attention of torch's decomposition got the scalar kernel)."""
    need("transformers")
    from fxdsl.api import apply, parse
    from fxdsl.lowering.launch_plan import build_launch_plan
    from fxdsl.lowering.pipeline import GPU_PIPELINE
    from fxdsl.testing.generation import build_decoder

    model = build_decoder("gpt2", torch.bfloat16, n_embd=128, n_head=2)
    ids = torch.randint(0, 100, (1, 64))
    with torch.no_grad():
        compiled = torch.compile(
            model, backend="fxdsl", options={"dump_ir": str(tmp_path)}
        )
        compiled(ids, use_cache=False)
    (dump,) = tmp_path.glob("*.mlir")
    plan = build_launch_plan(apply(parse(dump.read_text()), GPU_PIPELINE))
    attention = [k for k in plan.kernels if "attention" in k]
    assert attention
    assert all(k.endswith("flash_attention") for k in attention), attention
