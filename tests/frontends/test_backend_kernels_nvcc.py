"""Every kernel the torch.compile backend makes for a 16-bit HF decoder
compiles with `nvcc -cubin -arch=sm_90` and fits an SM at its launch's
block size.

On an H100 (2026-11-27, torch 2.11) NVRTC refused every kernel of the bf16
GPT-2 the backend compiled: a bf16 constant array was printed with
`__float2bfloat16()` in a `__device__` initializer, so the whole module ran
on the host emulator. The lowering's own cases now hold 16-bit constants
(tests/lowering/cases.py, `constant_bf16`); this test holds the backend's
real kernels, for GPT-2 and Llama in bf16 and f16, to the same compiler.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends import torch_compile  # noqa: E402, F401  (the backend)


@pytest.mark.nvcc
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("arch", ["gpt2", "llama"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_16_bit_decoder_kernels_compile(
    arch: str, dtype: object, tmp_path: Path
) -> None:
    need("transformers")
    from xdsl.dialects import gpu

    from fxdsl.api import apply, parse
    from fxdsl.lowering.cuda_printer import kernel_source
    from fxdsl.lowering.launch_plan import build_launch_plan
    from fxdsl.lowering.pipeline import GPU_PIPELINE
    from fxdsl.testing.generation import build_decoder
    from fxdsl.testing.nvcc import kernel_resources, launch_problems

    model = build_decoder(arch, dtype)
    ids = torch.randint(0, 100, (1, 16))
    with torch.no_grad():
        compiled = torch.compile(
            model, backend="fxdsl", options={"dump_ir": str(tmp_path / "ir")}
        )
        compiled(ids, use_cache=False)
    dumps = sorted((tmp_path / "ir").glob("*.mlir"))
    assert dumps
    for dump in dumps:
        lowered = apply(parse(dump.read_text()), GPU_PIPELINE)
        kernels = {
            op.sym_name.data for op in lowered.walk() if isinstance(op, gpu.FuncOp)
        }
        resources = kernel_resources(kernel_source(lowered), tmp_path, dump.stem)
        assert set(resources) == kernels, dump.name
        # and the GPU would launch them: registers and threads fit an SM
        plan = build_launch_plan(lowered)
        assert launch_problems(plan, resources) == [], dump.name
