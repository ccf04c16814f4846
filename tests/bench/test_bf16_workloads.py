"""The bf16 rows of `fxdsl-bench` (issue 31) in the harness's check mode on
the CPU: every workload builds at its tiny size, its torch implementation
and fxdsl agree with the reference within the workload's tolerance, the
report carries FLOPs, achieved TFLOPS and the H100 floor, and the FLOP
counts match the models they describe."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fxdsl.bench import cli
from fxdsl.bench.bf16_workloads import BF16_WORKLOADS
from fxdsl.bench.harness import Harness, Settings
from fxdsl.bench.limits import H100_SXM
from fxdsl.bench.timing import CpuDevice
from fxdsl.bench.variants import default_variants
from fxdsl.bench.workloads import bytes_moved, workload_inputs, workload_named
from fxdsl.interpreters.run import entry_function
from fxdsl.ir.graph import PARAM, shape_of
from fxdsl.ir.utils import arg_attr
from fxdsl.testing.optional import need

KERNELS = "gemm_bf16,gemm_bias_gelu_bf16,gemm_bias_relu_bf16,attention_bf16_t512"


def named(name: str) -> Any:
    return workload_named(name, BF16_WORKLOADS)


def test_kernel_rows_in_check_mode(tmp_path: Path) -> None:
    """The GEMM, epilogue and attention rows at tiny size on the CPU: fxdsl
    and torch (cuBLASLt's addmm_activation included) pass the numerics
    check, the torch.compile rows are there (skipped off the device), and
    the report shows FLOPs, TFLOPS and the tensor-core floor."""
    need("torch")
    argv = ["--backend", "cpu", "--scale", "tiny", "--out", str(tmp_path),
            "--date", "2026-01-02", "--tag", "bf16", "--quiet", "--runs", "2",
            "--warmup", "0", "--workloads", KERNELS]  # fmt: skip
    assert cli.run_bench(argv) == 0
    document = json.loads((tmp_path / "2026-01-02-bf16.json").read_text())
    assert [w["name"] for w in document["workloads"]] == KERNELS.split(",")
    for entry in document["workloads"]:
        workload = named(entry["name"])
        rows = {row["variant"]: row for row in entry["rows"]}
        assert entry["element"] == "bf16"
        assert entry["flops"] == workload.flops(workload.dims["tiny"]) > 0
        assert entry["bytes_moved"] == bytes_moved(workload.module("tiny"))
        checked = ["fxdsl", "fxdsl-unfused", "torch-eager"]
        if workload.epilogue:
            checked.append("torch-addmm-activation")
        for name in checked:
            assert rows[name]["status"] == "ok", rows[name]
            assert rows[name]["numerics_ok"] is True
            assert rows[name]["tflops"] == pytest.approx(
                entry["flops"] / rows[name]["median_ms"] / 1e9
            )
        assert rows["copy"]["tflops"] is None  # a copy does no arithmetic
        # beside torch.compile's default and reduce-overhead (on the device)
        compiled = ["torch-compile", "torch-compile-reduce-overhead"]
        if workload.max_autotune:
            compiled.append("torch-compile-max-autotune")
        assert all(rows[name]["status"] == "skipped" for name in compiled)
    markdown = (tmp_path / "2026-01-02-bf16.md").read_text()
    assert "| GB/s | TFLOPS |" in markdown
    assert "(H100 SXM: 989.4 TFLOPS bf16 dense, 3.35 TB/s)" in markdown


def test_bf16_workloads_are_bf16_and_count_two_bytes() -> None:
    """Every traced bf16 workload's arguments and results are bf16 tensors,
    its inputs bf16 values, its bytes two per element."""
    for workload in BF16_WORKLOADS:
        if workload.name.startswith(("hf_", "llama")):
            continue  # imported from torch: the model test below
        module = workload.module("tiny")
        function = entry_function(module)
        types = [*function.function_type.inputs, *function.function_type.outputs]
        assert {str(t.element_type) for t in types} == {"bf16"}, workload.name
        elements = sum(math.prod(shape_of(t)) for t in types)
        assert bytes_moved(module) == 2 * elements
        for array in workload_inputs(module):
            bits = array.astype(np.float32).view(np.uint32)
            assert not np.any(bits & 0xFFFF), workload.name  # bf16 values


def test_full_size_gemm_floor_is_the_tensor_core_peak() -> None:
    """4096³ bf16: 137 GFLOP at 989.4 TFLOPS (0.139 ms) outlasts its 100 MB
    at 3.35 TB/s (0.030 ms); without FLOPs the floor is the bandwidth's."""
    gemm = named("gemm_bf16")
    flops = gemm.flops(gemm.dims["full"])
    assert flops == 2 * 4096**3
    nbytes = 3 * 4096 * 4096 * 2
    assert H100_SXM.floor_ms(flops, nbytes, "bf16") == pytest.approx(
        1e3 * flops / 989.4e12
    )
    assert H100_SXM.floor_ms(None, nbytes, "bf16") == pytest.approx(
        1e3 * nbytes / 3.35e12
    )


def weight_elements(module: Any, embeddings: tuple[str, ...]) -> int:
    """Elements of the 2-D weights a model multiplies by (not its embeddings)."""
    function = entry_function(module)
    total = 0
    for index, arg in enumerate(function.args):
        name = arg_attr(function, index, PARAM)
        if name and len(shape_of(arg)) == 2 and not name.endswith(embeddings):
            total += math.prod(shape_of(arg))
    return total


@pytest.mark.parametrize(
    ("name", "embeddings"),
    [
        ("hf_gpt2_bf16_b1_t64", ("wte.weight", "wpe.weight")),
        ("llama_1b_4layers_bf16", ("embed_tokens.weight",)),
    ],
)
def test_model_rows_in_check_mode(name: str, embeddings: tuple[str, ...]) -> None:
    """The Hugging Face rows at tiny size: fxdsl and torch eager (the same
    model on the same weights through functional_call) agree with the
    reference within the model tolerance, and the FLOP count's dense part
    is 2 x tokens x the model's own weight elements."""
    need("torch")
    need("transformers")
    workload = named(name)
    dims = workload.dims["tiny"]
    module = workload.module("tiny")
    function = entry_function(module)
    assert str(function.function_type.outputs.data[0].element_type) == "bf16"
    heads = dims["heads"]
    attention = 2 * dims["B"] * heads * dims["T"] ** 2 * (dims["D"] // heads)
    dense = 2 * dims["B"] * dims["T"] * weight_elements(module, embeddings)
    assert workload.flops(dims) == dense + dims["layers"] * attention

    chosen = {"fxdsl", "torch-eager", "copy"}
    variants = [v for v in default_variants() if v.name in chosen]
    harness = Harness(CpuDevice(), variants, Settings("tiny", "tiny", 1, 0))
    (result,) = harness.run([workload])
    rows = {row.variant: row for row in result.rows}
    for variant in ("fxdsl", "torch-eager"):
        assert rows[variant].status == "ok", rows[variant]
        assert rows[variant].numerics_ok is True
    # eager's outputs were measured against the reference (GPT-2's are now
    # equal bit for bit: GEMM biases and attention round as eager's do)
    assert rows["torch-eager"].max_abs_err is not None


def test_fxdsl_rows_hand_cuda_bf16_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """On CUDA the fxdsl rows give the executor bf16 inputs as their bits
    and ask for bits back (bf16_bits), so no conversion kernel is timed and
    one CUDA graph replays; the numerics check still sees float32 values.
    On the CPU the reference gets values and no such option."""
    import types

    import fxdsl
    from fxdsl.ir.dtypes import bf16_bits

    workload = named("gemm_bf16")
    module = workload.module("tiny")
    arrays = workload_inputs(module)
    product = arrays[0].astype(np.float64) @ arrays[1]
    calls: list[tuple[dict[str, Any], tuple[Any, ...]]] = []

    def compile(_module: Any, **options: Any) -> Any:
        def run(*inputs: Any) -> tuple[np.ndarray, ...]:
            calls.append((options, inputs))
            out = product.astype(np.float32)
            return (bf16_bits(out) if options.get("bf16_bits") else out,)

        return run

    monkeypatch.setattr(fxdsl, "compile", compile)
    fxdsl_variant = next(v for v in default_variants() if v.name == "fxdsl")
    for name in ("cuda", "cpu"):
        device = types.SimpleNamespace(
            name=name, to_device=np.array, to_host=np.asarray,
            time=None, synchronize=lambda: None,
        )  # fmt: skip
        compiled = fxdsl_variant.compile(device, workload, module, {})
        (out,) = compiled.outputs(compiled.fn(*compiled.inputs(arrays)))
        options, inputs = calls[-1]
        if name == "cuda":
            assert options["bf16_bits"] is True
            for given, array in zip(inputs, arrays, strict=True):
                np.testing.assert_array_equal(given, bf16_bits(array))
        else:
            assert "bf16_bits" not in options
            assert all(g.dtype == np.float32 for g in inputs)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, product, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_the_sdpa_variant_leaves_attention_to_torch(dtype: str) -> None:
    """`fxdsl-backend-sdpa`'s options: SDPA's kernel runs in torch, the rest
    in fxdsl, and the result is eager's. On the CPU torch's core
    decompositions turn SDPA's kernel into math that fxdsl takes: an op in
    `torch_executed_ops` is kept out of the decompositions."""
    torch = need("torch")
    from fxdsl.bench.variants import SDPA_IN_TORCH
    from fxdsl.testing.generation import recording_plans

    def block(q: Any, k: Any, v: Any) -> Any:
        attended = torch.nn.functional.scaled_dot_product_attention(
            q * 0.5, k, v, is_causal=True
        )
        return torch.tanh(attended) * 2.0 + 1.0

    q, k, v = torch.randn(3, 1, 2, 8, 16, dtype=getattr(torch, dtype)).unbind(0)
    torch._dynamo.reset()
    plans: list[Any] = []
    options = {"device": "cpu", "min_block_size": 1, **SDPA_IN_TORCH}
    with recording_plans(plans):
        got = torch.compile(block, backend="fxdsl", options=options)(q, k, v)
    torch._dynamo.reset()
    torch.testing.assert_close(got, block(q, k, v))
    (plan,) = plans
    in_torch = [target for target, _, _ in plan.fallbacks.values()]
    assert any("scaled_dot_product" in t for t in in_torch), plan.report()
    assert plan.islands, plan.report()


def test_the_first_flash_variant_prints_the_first_kernel() -> None:
    """`fxdsl-flash-v1` lowers bf16 attention to the flash kernel without
    `cp.async` or `ldmatrix`; `fxdsl` to the pipelined one (the two are
    timed side by side on a GPU)."""
    from fxdsl.api import apply
    from fxdsl.lowering.cuda_printer import kernel_source

    workload = workload_named("attention_bf16_t512", BF16_WORKLOADS)
    variants = {v.name: v for v in default_variants()}
    sources = {}
    for name in ("fxdsl", "fxdsl-flash-v1"):
        assert variants[name].applies(workload)
        pipeline = variants[name].kernel_pipeline
        assert pipeline is not None
        lowered = apply(workload.module("full"), pipeline)  # tiny: decomposed
        sources[name] = kernel_source(lowered)  # type: ignore[arg-type]
    assert all("_flash_attention(" in text for text in sources.values())
    assert "fx_cp_async16(" in sources["fxdsl"]
    assert "fx_cp_async16(" not in sources["fxdsl-flash-v1"]
