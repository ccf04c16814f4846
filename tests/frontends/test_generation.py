"""Greedy generation with HF `generate`, a static KV cache and
`model.forward` compiled by the fxdsl backend (CPU): the tokens are eager's
and every graph, the decode step included, runs 100 % in fxdsl with the
cache update inside an island."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

from fxdsl.testing.generation import (  # noqa: E402
    DECODERS,
    build_decoder,
    cache_updates,
    generate_both,
    prompts,
)

NEW_TOKENS = 32
PROMPT = 8
MAX_TIE_ULPS = 2.0
"""bf16 tokens may part from eager's only where eager's own two candidate
logits are this close (in bf16 ulps): a tie the rounding order decides."""


def _check_plans(plans: list[Any]) -> None:
    """Prefill and decode: 100 % compiled, every cache update in an island."""
    assert len(plans) == 2, [p.report() for p in plans]  # prefill, decode step
    for plan in plans:
        assert plan.compiled == plan.total, plan.report()
        inside, outside = cache_updates(plan)
        assert inside, plan.report()
        assert not outside, plan.report()


@pytest.mark.usefixtures("fresh_dynamo")
def test_gpt2_generates_eagers_tokens_with_the_decode_step_compiled() -> None:
    model = build_decoder("gpt2")
    got = generate_both(model, prompts(2, PROMPT, padded=True), new_tokens=6)
    assert got.equal, (got.eager.sequences, got.compiled.sequences)
    _check_plans(got.plans)
    # the decode step's graph takes one token per row
    decode = got.plans[1]
    assert len(decode.islands) == 1, decode.report()


CASES = [
    (name, dtype, batch, padded)
    for name, dtype, (batch, padded) in itertools.product(
        DECODERS, ("f32", "bf16"), ((1, False), (4, False), (4, True))
    )
]


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize(("name", "dtype", "batch", "padded"), CASES)
def test_greedy_generation_equals_eager(
    name: str, dtype: str, batch: int, padded: bool
) -> None:
    """f32: exactly eager's tokens. bf16: eager's tokens up to a step where
    eager's own logits of the two candidates tie within `MAX_TIE_ULPS`
    (the reference rounds each op to bf16, torch's CPU kernels round in
    their own order, so a one-ulp difference can flip an exact tie; after
    that the sequences continue from different tokens)."""
    model = build_decoder(name, torch.float32 if dtype == "f32" else torch.bfloat16)
    got = generate_both(model, prompts(batch, PROMPT, padded), NEW_TOKENS)
    _check_plans(got.plans)
    if dtype == "f32":
        assert got.equal, (got.eager.sequences, got.compiled.sequences)
        return
    first = got.first_difference()
    if first is not None:
        gap = got.tie_gap(*first)
        assert gap <= MAX_TIE_ULPS, f"tokens part at {first}: not a tie ({gap} ulps)"
