"""Every kernel the lowering generates compiles with `nvcc -ptx -arch=sm_90`.

One nvcc call per module (all its kernels in one translation unit) keeps the
test fast. Skipped only when nvcc is not installed. The PTX must contain one
`.entry` per `gpu.func`, so a kernel the printer dropped is a failure too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import ModuleOp

from fxdsl.api import apply, parse
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.testing.modules import load_file
from fxdsl.testing.nvcc import (
    Resources,
    compile_ptx,
    kernel_resources,
    launch_problems,
)


def load_cases() -> ModuleType:
    """tests/lowering/cases.py (pytest's importlib mode has no test packages)."""
    return load_file(Path(__file__).with_name("cases.py"))


cases = load_cases()
NVCC = shutil.which("nvcc")
EXAMPLES = Path(__file__).parents[2] / "examples"


def lowered(text: str, pipeline: str = "convert-graph-to-gpu") -> tuple[list[str], str]:
    names, source, _ = lowered_module(text, pipeline)
    return names, source


def lowered_module(text: str, pipeline: str) -> tuple[list[str], str, ModuleOp]:
    module = apply(parse(text), pipeline)
    names = [op.sym_name.data for op in module.walk() if isinstance(op, gpu.FuncOp)]
    return names, kernel_source(module), module


def launching_functions(module: ModuleOp) -> set[str]:
    return {
        f.sym_name.data
        for f in module.body.block.ops
        if isinstance(f, func.FuncOp)
        and any(isinstance(op, gpu.LaunchFuncOp) for op in f.walk())
    }


@pytest.mark.nvcc
@pytest.mark.parametrize("theme", sorted(cases.THEMES))
def test_theme_kernels_compile(theme: str, tmp_path: Path) -> None:
    programs = cases.THEMES[theme]()
    names, source, module = lowered_module(
        cases.module(programs), "convert-graph-to-gpu"
    )
    # every case launches its own kernel, except a reshape of a dense argument
    # (returned as a view of the argument: no copy)
    assert launching_functions(module) == set(programs) - cases.VIEW_ONLY
    ptx = compile_ptx(source, tmp_path, theme)
    entries = [
        line.split()[-1].rstrip("(") for line in ptx.splitlines() if ".entry" in line
    ]
    assert sorted(entries) == sorted(names)


@pytest.mark.nvcc
@pytest.mark.parametrize(
    "pipeline",
    ["convert-graph-to-gpu", "graph-decompose,graph-fuse,convert-graph-to-gpu"],
)
def test_gpt2_block_kernels_compile(pipeline: str, tmp_path: Path) -> None:
    names, source = lowered((EXAMPLES / "gpt2_block.mlir").read_text(), pipeline)
    ptx = compile_ptx(source, tmp_path, "gpt2_block")
    assert ptx.count(".entry") == len(names)
    # a block reduction, never atomics
    assert "shfl.sync.bfly" in ptx
    assert re.search(r"\b(atom|red)\.", ptx) is None


def _flash_module(dtype: str, head: int) -> str:
    flash = load_file(Path(__file__).with_name("test_flash_attention.py"))
    return flash._module(dtype, head)


LAUNCH_MODULES = {
    "gpt2_block": lambda: (EXAMPLES / "gpt2_block.mlir").read_text(),
    "reduction": lambda: cases.module(cases.reduction_cases()),
    "attention": lambda: cases.module(cases.attention_cases()),
    "flash_bf16_128": lambda: _flash_module("bf16", 128),
    "flash_f16_64": lambda: _flash_module("f16", 64),
}


@pytest.mark.nvcc
@pytest.mark.parametrize("name", sorted(LAUNCH_MODULES))
def test_every_launch_fits_an_sm(name: str, tmp_path: Path) -> None:
    """ptxas's registers and shared memory per kernel against the launch
    plan's blocks: what the GPU would refuse at launch ("too many resources
    requested for launch") fails here, without one."""
    from fxdsl.lowering.launch_plan import build_launch_plan
    from fxdsl.lowering.pipeline import GPU_PIPELINE

    module = parse(LAUNCH_MODULES[name]())
    lowered = apply(module, GPU_PIPELINE)
    resources = kernel_resources(kernel_source(lowered), tmp_path, name)
    for entry in launching_functions(lowered):
        plan = build_launch_plan(lowered, entry)
        assert set(plan.kernels) <= set(resources)
        assert launch_problems(plan, resources) == [], entry


def test_launch_problems_names_what_the_gpu_would_refuse() -> None:
    from fxdsl.lowering.launch_plan import Launch

    class Plan:
        steps = (
            Launch("fits", (4096, 1, 1), (256, 1, 1), ()),
            Launch("heavy", (8, 1, 1), (1024, 1, 1), ()),
            Launch("wide", (1, 70000, 1), (2048, 1, 1), ()),
            Launch("long", (2**31, 1, 1), (32, 1, 1), ()),
        )

    resources = {
        "fits": Resources(255, 0),  # 255 x 256 = 65280 registers: fits
        "heavy": Resources(128, 0),
        "wide": Resources(16, 0),
        "long": Resources(16, 0),
    }
    assert launch_problems(Plan(), resources) == [
        "heavy: 128 registers x 1024 threads > 65536",
        "wide: 2048 threads per block",
        "wide: grid (1, 70000, 1)",
        "long: grid (2147483648, 1, 1)",
    ]


@pytest.mark.nvcc
def test_module_without_kernels_is_an_empty_translation_unit(tmp_path: Path) -> None:
    # `func.return %x` needs no kernel; -t cuda said "run convert-graph-to-gpu
    # first" right after it ran
    identity = """
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      func.return %x : tensor<4xf32>
    }
    """
    names, source = lowered(identity)
    assert names == []
    assert source.endswith("// no kernels: this module needs none\n")
    assert ".entry" not in compile_ptx(source, tmp_path, "empty")


@pytest.mark.nvcc
def test_random_graph_kernels_compile(tmp_path: Path) -> None:
    """Kernels of random graphs from the shared strategy (fused, all float
    dtypes) compile; all examples in one nvcc call."""
    from hypothesis import HealthCheck, given, settings

    from fxdsl.testing import graphs

    sources: list[tuple[str, int]] = []

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
    @given(graphs(max_ops=20, dtypes=("f32", "f16", "bf16")))
    def collect(module: ModuleOp) -> None:
        lowered = apply(
            module.clone(), "graph-decompose,graph-fuse,convert-graph-to-gpu"
        )
        count = sum(isinstance(op, gpu.FuncOp) for op in lowered.walk())
        if count:
            sources.append((kernel_source(lowered), count))

    collect()
    assert sources
    files = []
    for k, (source, _) in enumerate(sources):
        files.append(tmp_path / f"example{k}.cu")
        files[-1].write_text(source)
    assert NVCC is not None
    result = subprocess.run(
        [NVCC, "-ptx", "-arch=sm_90", *map(str, files), "--output-directory", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    for k, (_, count) in enumerate(sources):
        assert (tmp_path / f"example{k}.ptx").read_text().count(".entry") == count


def ptxas_registers(source: str, tmp_path: Path) -> dict[str, int]:
    """Registers per thread of each kernel, from `nvcc -cubin -Xptxas -v`."""
    cu = tmp_path / "kernels.cu"
    cu.write_text(source)
    assert NVCC is not None
    result = subprocess.run(
        [NVCC, "-cubin", "-arch=sm_90", "-Xptxas", "-v", str(cu),
         "-o", str(tmp_path / "kernels.cubin")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    found = re.findall(
        r"Compiling entry function '(\w+)'.*?Used (\d+) registers", result.stderr, re.S
    )
    return {name: int(count) for name, count in found}


@pytest.mark.nvcc
def test_attention_min_blocks_per_sm_caps_registers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`attention_kernel.MIN_BLOCKS_PER_SM` becomes `__launch_bounds__` and
    ptxas fits that many blocks of the GPT-2 attention (q bias folded into
    its prologue) on an SM: 64K registers / (6 x 64 threads) = 170."""
    from fxdsl.frontends.models import gpt2_block
    from fxdsl.lowering import attention_kernel
    from fxdsl.lowering.pipeline import GPU_PIPELINE

    pipeline = GPU_PIPELINE.replace(
        "graph-fuse-attention", "graph-fuse-attention{min-rows=1}"
    )
    plain = kernel_source(apply(gpt2_block(B=1, T=64), pipeline))
    assert "__launch_bounds__" not in plain
    monkeypatch.setattr(attention_kernel, "MIN_BLOCKS_PER_SM", 6)
    source = kernel_source(apply(gpt2_block(B=1, T=64), pipeline))
    (bounded,) = re.findall(r"__launch_bounds__\(64, 6\) void (\w+)\(", source)
    assert bounded.endswith("_attention")
    assert source.count("__launch_bounds__") == 1
    assert ptxas_registers(source, tmp_path)[bounded] <= 65536 // (6 * 64)
