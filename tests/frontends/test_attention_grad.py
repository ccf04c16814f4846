"""Training's attention through the backend (`aten_attention_grad`): SDPA
with gradients becomes torch's CPU flash attention and its backward in
AOTAutograd's graphs; both run in fxdsl islands, every mask kind, f32 and
bf16, and the output and the gradients match eager."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

F = torch.nn.functional


def _masks(t: int) -> dict[str, Any]:
    torch.manual_seed(1)
    keep = torch.rand(2, 1, t, t) > 0.3
    keep[..., 0] = True  # every row keeps a key
    return {
        "none": None,
        "causal": "causal",
        "bool": keep,
        "additive": torch.randn(2, 1, t, t),
    }


def _attend(q: Any, k: Any, v: Any, mask: Any) -> Any:
    if isinstance(mask, str):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    if mask is not None and mask.is_floating_point():
        mask = mask.to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("kind", ["none", "causal", "bool", "additive"])
def test_attention_trains_in_fxdsl(kind: str, dtype: str) -> None:
    half = getattr(torch, dtype)
    torch.manual_seed(0)
    shape = (2, 3, 8, 16)
    leaves = [torch.randn(shape, dtype=half) for _ in range(3)]
    mask = _masks(8)[kind]
    weight = torch.randn(shape, dtype=half)

    def loss(q: Any, k: Any, v: Any) -> Any:
        return (_attend(q, k, v, mask) * weight).sum()

    def grads(fn: Any) -> tuple[Any, list[Any]]:
        inputs = [t.clone().requires_grad_() for t in leaves]
        value = fn(*inputs)
        value.backward()
        return value.detach(), [t.grad for t in inputs]

    want, want_grads = grads(loss)
    outcome = Outcome()
    with counting_plans(outcome):
        got, got_grads = grads(torch.compile(loss, backend="fxdsl"))
    assert not outcome.in_torch, outcome.summary()
    assert outcome.compiled > 0
    # bf16: eager's kernel and fxdsl's round at other steps
    tol = 1e-4 if dtype == "float32" else 3e-2
    scale = float(want.abs()) + 1
    assert abs(float(got) - float(want)) <= tol * scale
    for g, w in zip(got_grads, want_grads, strict=True):
        g, w = g.float().numpy(), w.float().numpy()
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * np.abs(w).max())


def test_a_dropout_flash_attention_draws() -> None:
    """dropout_p > 0 draws random numbers: such a flash-attention node is
    never imported as a graph op (the same numbers every call); without
    dropout it is. (Dynamo gives a dropout attention as the math path,
    whose dropout fxdsl draws itself.)"""
    from fxdsl.frontends.aten_random import draws_random

    target = "aten._scaled_dot_product_flash_attention_for_cpu.default"
    assert draws_random(target, (None, None, None, 0.5), {})
    assert not draws_random(target, (None, None, None, 0.0), {})
    assert not draws_random(target, (None, None, None), {})
