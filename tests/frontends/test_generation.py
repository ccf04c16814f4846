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
    PAD,
    build_decoder,
    cache_updates,
    generate_both,
    prompts,
    recording_plans,
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


@pytest.mark.usefixtures("fresh_dynamo")
def test_hfs_own_compile_config_takes_the_fxdsl_backend() -> None:
    """The other documented recipe (docs/torch-compile.md): HF's
    auto-compile of `generate` (on a GPU by default, forced here) with
    `CompileConfig(backend="fxdsl")`; the tokens are eager's and fxdsl
    compiled the decode step whole."""
    import transformers

    model = build_decoder("llama")
    model.generation_config.cache_implementation = "static"
    inputs = prompts(2, PROMPT, padded=True)

    def generate(**options: Any) -> Any:
        with torch.no_grad():
            return model.generate(
                **inputs, max_new_tokens=6, min_new_tokens=6, do_sample=False,
                pad_token_id=PAD, **options,
            )  # fmt: skip

    want = generate(disable_compile=True)
    config = transformers.CompileConfig(backend="fxdsl", mode="reduce-overhead")
    config._compile_all_devices = True  # HF compiles on CUDA devices only
    model.generation_config.compile_config = config
    plans: list[Any] = []
    with recording_plans(plans):
        got = generate()
    assert torch.equal(want, got), (want, got)
    assert plans, "HF's compile did not reach the fxdsl backend"
    assert all(plan.compiled == plan.total for plan in plans), plans[-1].report()


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
    (GEMM biases and attention round as eager's kernels do, but torch's
    vectorized exp/cos/rsqrt and f32 summation order differ from numpy's in
    the last f32 bit, so a one-ulp difference can flip an exact tie; after
    that the sequences continue from different tokens)."""
    model = build_decoder(name, torch.float32 if dtype == "f32" else torch.bfloat16)
    got = generate_both(model, prompts(batch, PROMPT, padded), NEW_TOKENS)
    _check_plans(got.plans)
    if dtype == "f32":
        assert got.equal, (got.eager.sequences, got.compiled.sequences)
        return
    first = got.first_difference()
    if first is not None:
        gap = got.tie_gap(*first, torch.bfloat16)
        assert gap <= MAX_TIE_ULPS, f"tokens part at {first}: not a tie ({gap} ulps)"


MORE_GENERATORS = [
    "GPTJForCausalLM",
    "GPTNeoForCausalLM",
    "OPTForCausalLM",
    "XGLMForCausalLM",
    "google/gemma-2-2b",
    "google/gemma-3-4b-it",
    "BartForConditionalGeneration",
    "T5ForConditionalGeneration",
    "M2M100ForConditionalGeneration",
]
"""More of the HF suite's generative models, decoder-only and
encoder-decoder (whose `generate` runs the encoder once, then decodes
with a self-attention and a cross-attention cache)."""


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("name", MORE_GENERATORS)
def test_more_generators_give_eagers_tokens(name: str) -> None:
    model = build_decoder(name)
    got = generate_both(model, prompts(2, PROMPT, padded=True), new_tokens=8)
    assert got.equal, (got.eager.sequences, got.compiled.sequences)
    assert len(got.plans) == 2, [p.report() for p in got.plans]
    for plan in got.plans:
        assert plan.compiled == plan.total, plan.report()


SEARCHES = {
    "beam-3": {"num_beams": 3, "do_sample": False},
    "top-k-sampling": {"do_sample": True, "top_k": 5, "temperature": 0.7},
}


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("search", list(SEARCHES))
@pytest.mark.parametrize("name", ["gpt2", "T5ForConditionalGeneration"])
def test_beam_search_and_sampling_give_eagers_tokens(name: str, search: str) -> None:
    """Beam search reorders the cache rows each step (`index_select` on the
    batch dim); sampling draws in torch from the compiled logits (same seed,
    same tokens)."""
    from fxdsl.testing.generation import PAD

    model = build_decoder(name)
    inputs = prompts(2, PROMPT, padded=True)

    def generate() -> Any:
        torch.manual_seed(0)
        with torch.no_grad():
            return model.generate(
                **inputs, max_new_tokens=8, min_new_tokens=8, pad_token_id=PAD,
                **SEARCHES[search],
            )  # fmt: skip

    eager = generate()
    original = model.forward
    model.forward = torch.compile(original, backend="fxdsl")
    try:
        compiled = generate()
    finally:
        model.forward = original
    assert torch.equal(eager, compiled), (eager, compiled)


def _decode_island(name: str, dtype: Any) -> tuple[str, Any, list[Any]]:
    """The decode step's island of `name` generating two tokens through the
    backend (CPU), with the operands the backend gave it (cloned)."""
    from xdsl.dialects import func

    from fxdsl.frontends import torch_compile

    calls: list[tuple[Any, list[Any]]] = []
    real = torch_compile.call_island

    def recording(
        run: Any, operands: list[Any], device: str, op: Any, held: Any = None
    ) -> Any:
        calls.append((op, [t.detach().clone() for t in operands]))
        return real(run, operands, device, op, held)

    torch_compile.call_island = recording
    try:
        model = build_decoder(name, dtype)
        got = generate_both(model, prompts(1, PROMPT, padded=False), new_tokens=2)
    finally:
        torch_compile.call_island = real
    decode = got.plans[1]
    module = decode.imported.module
    (island_name,) = decode.islands
    island = next(
        f
        for f in module.body.block.ops
        if isinstance(f, func.FuncOp) and f.sym_name.data == island_name
    )
    _, operands = next(
        c
        for c in calls
        if c[0].callee.string_value() == island_name
        and c[1][0].shape[1] == 1  # the decode step takes one token per row
    )
    return island_name, island, operands


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
def test_the_lowered_decode_step_updates_the_callers_cache_in_place() -> None:
    """The decode step's island, lowered for the GPU (default pipeline, so
    layers outlined by graph-dedup too) and run on the IR emulator with the
    operands the backend gave it: the cache arguments (marked writable from
    AOTAutograd's mutated inputs) hold the new cache afterwards, equal to
    the reference's result, and no cache-sized buffer is allocated."""
    import numpy as np

    from fxdsl.api import apply
    from fxdsl.frontends import torch_compile
    from fxdsl.interpreters.run import run_reference
    from fxdsl.lowering.graph_bufferize import writable_arguments
    from fxdsl.lowering.pipeline import GPU_PIPELINE
    from fxdsl.runtime.ir_emulator import Emulator

    island_name, island, operands = _decode_island("llama", torch.float32)
    caches = [
        p
        for p in writable_arguments(island)
        if len(island.args[p].type.get_shape()) == 4
    ]
    assert len(caches) == 4, island  # keys and values of 2 layers
    arrays = [t.numpy().copy() for t in operands]
    want = run_reference(torch_compile._island_module(island), *arrays)
    lowered = apply(torch_compile._island_module(island), GPU_PIPELINE)
    emulator = Emulator(lowered)
    emulator.run(island_name, *arrays)
    cache_shape = tuple(island.args[caches[0]].type.get_shape())
    assert cache_shape not in emulator.allocations
    for position in caches:
        # the caller's array now holds the new cache (kernels round as the
        # reference does up to f32 reassociation)
        new_cache = [w for w in want if w.shape == cache_shape]
        assert any(np.allclose(arrays[position], w, atol=1e-5) for w in new_cache)
        assert not np.array_equal(arrays[position], operands[position].numpy())


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
def test_a_sliding_window_cache_decodes_in_fxdsl() -> None:
    """HF's StaticSlidingWindowLayer counts its length in a Python int that
    the decode step returns plus one: Dynamo makes the step shape-generic in
    it, and fxdsl compiles that graph once for every value (the int decides
    no tensor) and returns the right int each step."""
    model = build_decoder("mistral", sliding_window=4096)
    got = generate_both(model, prompts(1, PROMPT, padded=False), new_tokens=5)
    assert got.equal, (got.eager.sequences, got.compiled.sequences)
    _check_plans(got.plans)  # once each, not once per step


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
def test_the_bf16_decode_step_is_one_cuda_graph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 35's one-graph decode, checked on the host: the bf16 GPT-2
    decode step's island lowers to a launch plan whose every step a CUDA
    graph can record (kernels, the cache scatter, GEMMs on the direct cuBLAS
    binding: no cupy.matmul, no host step), `cuda_graph` records it as one
    piece, and the replay computes the reference's logits."""
    import sys

    import numpy as np

    from fxdsl.frontends import torch_compile
    from fxdsl.interpreters.run import run_reference
    from fxdsl.ir.dtypes import from_bf16_bits
    from fxdsl.runtime.cuda_graph import GraphedExecutor
    from fxdsl.testing.fake_cublas import MemoryCublas, executor_on_host

    _, island, operands = _decode_island("gpt2", torch.bfloat16)
    module = torch_compile._island_module(island)
    library = MemoryCublas()
    executor, streams = executor_on_host(monkeypatch, module, library)
    assert executor.matmul_fallback is None
    assert all(executor.capturable(step) for step in executor.plan.steps)

    def device(t: Any) -> Any:  # bf16 as the device holds it: its bits
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16).copy()
        return t.numpy().copy()

    monkeypatch.delattr(sys.modules["cupy"], "matmul")  # no cupy.matmul step
    graphed = GraphedExecutor(executor)
    got = graphed(*[device(t) for t in operands])
    (entry,) = graphed.entries.values()
    assert len(entry.pieces) == 1
    assert streams.captures == 1
    want = run_reference(
        module,
        *[t.float().numpy() if t.is_floating_point() else t.numpy() for t in operands],
    )
    logits = max(range(len(want)), key=lambda i: want[i].size)
    value = np.asarray(got[logits])
    if value.dtype == np.uint16:
        value = from_bf16_bits(value)
    np.testing.assert_allclose(value, want[logits], rtol=0.05, atol=0.05)


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
def test_prompts_padded_to_one_length_share_the_compiled_graphs() -> None:
    """Prompts left-padded to one length (the tokenizer's
    `pad_to_multiple_of`) reuse the compiled prefill and decode step: a
    second `generate` compiles nothing, and its tokens are eager's."""
    from fxdsl.testing.generation import greedy, recording_plans

    model = build_decoder("gpt2")
    first = prompts(2, PROMPT, padded=True, seed=1)
    second = prompts(2, PROMPT, padded=True, seed=2)
    want = greedy(model, second, 4).sequences
    original = model.forward
    torch._dynamo.reset()
    model.forward = torch.compile(original, backend="fxdsl")
    plans: list[Any] = []
    try:
        with recording_plans(plans):
            greedy(model, first, 4)
            compiled_first = len(plans)
            got = greedy(model, second, 4).sequences
    finally:
        model.forward = original
    assert compiled_first == 2
    assert len(plans) == 2, "the second prompt compiled again"
    assert torch.equal(got, want)


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_dynamo")
def test_the_default_dynamic_cache_gives_eagers_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HF's default cache grows every step, so Dynamo makes the step
    shape-generic and the backend specialises it per length, by propagating
    the call's shapes through the graph (`_concrete`), not tracing again."""
    from fxdsl.frontends import torch_compile

    made: list[bool] = []
    real = torch_compile._concrete

    def counted(gm: Any, args: Any) -> Any:
        static = real(gm, args)
        made.append(static is not None)
        return static

    monkeypatch.setattr(torch_compile, "_concrete", counted)
    model = build_decoder("llama")
    inputs = prompts(1, PROMPT, padded=False)

    def run() -> Any:
        with torch.no_grad():
            return model.generate(
                **inputs, max_new_tokens=6, min_new_tokens=6, do_sample=False
            )

    want = run()
    original = model.forward
    model.forward = torch.compile(original, backend="fxdsl")
    try:
        got = run()
    finally:
        model.forward = original
    assert torch.equal(got, want)
    assert len(made) >= 3
    assert all(made)
