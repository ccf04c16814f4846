"""Structure of the lowered IR: kernels per group, block reductions, upstream
validity, determinism and error paths of `convert-graph-to-gpu`."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i32
from xdsl.printer import Printer

from fxdsl.api import apply, parse
from fxdsl.ir import graph
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.kernel_builder import VECTOR_WIDTH

EXAMPLES = Path(__file__).parents[2] / "examples"
_spec = importlib.util.spec_from_file_location(
    "cases", Path(__file__).with_name("cases.py")
)
assert _spec is not None
assert _spec.loader is not None
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
MLIR_OPT = shutil.which("mlir-opt") or next(
    (str(p) for p in sorted(Path("/usr/lib").glob("llvm-*/bin/mlir-opt"))), None
)

FUSED5 = """
func.func @fused5(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %g = graph.fusion_group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %a = graph.add %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %m = graph.mul %a, %a : tensor<4x8xf32>
    %t = graph.tanh %m : tensor<4x8xf32>
    %s = graph.sub %t, %p : tensor<4x8xf32>
    %r = graph.relu %s : tensor<4x8xf32>
    graph.yield %r : tensor<4x8xf32>
  }
  func.return %g : tensor<4x8xf32>
}
"""

ROW_GROUPS = """
func.func @softmax(%x: tensor<2x3x16xbf16>) -> tensor<2x3x16xbf16> {
  %g = graph.fusion_group (%x) : (tensor<2x3x16xbf16>) -> tensor<2x3x16xbf16> {
  ^bb0(%p: tensor<2x3x16xbf16>):
    %c = graph.full value 0.5 : tensor<bf16>
    %m = graph.mul %p, %c : (tensor<2x3x16xbf16>, tensor<bf16>) -> tensor<2x3x16xbf16>
    %s = graph.softmax %m dim 2 : tensor<2x3x16xbf16>
    graph.yield %s : tensor<2x3x16xbf16>
  }
  func.return %g : tensor<2x3x16xbf16>
}
func.func @residual_layer_norm(%x: tensor<4x64xf16>, %r: tensor<4x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %g:2 = graph.fusion_group (%x, %r, %w, %b) : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  ^bb0(%p: tensor<4x64xf16>, %q: tensor<4x64xf16>, %pw: tensor<64xf16>, %pb: tensor<64xf16>):
    %a = graph.add %p, %q : tensor<4x64xf16>
    %n = graph.layer_norm %a, %pw, %pb eps 1.0e-05 : (tensor<4x64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
    graph.yield %a, %n : tensor<4x64xf16>, tensor<4x64xf16>
  }
  func.return %g#0, %g#1 : tensor<4x64xf16>, tensor<4x64xf16>
}
"""


GPU = "graph-decompose,graph-fuse,convert-graph-to-gpu"


def lower(text: str, pipeline: str = "convert-graph-to-gpu") -> ModuleOp:
    return apply(parse(text), pipeline)


def kernels(module: ModuleOp) -> dict[str, gpu.FuncOp]:
    return {f.sym_name.data: f for f in module.walk() if isinstance(f, gpu.FuncOp)}


def count(op: gpu.FuncOp | ModuleOp, kind: type) -> int:
    return sum(isinstance(o, kind) for o in op.walk())


def test_fused_group_of_five_ops_is_one_kernel() -> None:
    module = lower(FUSED5)
    (kernel,) = kernels(module).values()
    assert count(module, gpu.LaunchFuncOp) == 1
    assert count(kernel, scf.ForOp) == 1  # one grid-stride loop, all ops inside
    source = kernel_source(module)
    assert source.count("__global__") == 1
    # 4 lanes per iteration (innermost dim 8): each op once per lane
    assert source.count("tanhf(") == VECTOR_WIDTH
    assert source.count("*reinterpret_cast<float4*>") == 1  # one vector store


def test_row_groups_use_block_reductions_not_atomics() -> None:
    module = lower(ROW_GROUPS)
    found = kernels(module)
    assert sorted(found) == ["residual_layer_norm_0_layer_norm", "softmax_0_softmax"]
    # softmax: max then sum of exp; layer_norm: mean then variance
    assert count(found["softmax_0_softmax"], gpu.AllReduceOp) == 2
    assert count(found["residual_layer_norm_0_layer_norm"], gpu.AllReduceOp) == 2
    source = kernel_source(module)
    assert "__shfl_xor_sync" in source
    assert "__shared__" in source
    assert "atomic" not in source
    # bf16/f16 storage, f32 accumulation
    assert "__bfloat162float(" in source
    assert "__half2float(" in source
    assert "fx_block_reduce_add_float" in source


def test_layer_norm_group_writes_both_outputs_in_its_row_loop() -> None:
    module = lower(ROW_GROUPS)
    kernel = kernels(module)["residual_layer_norm_0_layer_norm"]
    stores = [o for o in kernel.walk() if o.name == "memref.store"]
    # f16 buffers: a scalar store per lane (4 lanes) for each of the 2 outputs
    assert len({store.operands[1] for store in stores}) == 2
    assert len(stores) == 2 * VECTOR_WIDTH
    # all inside the same (last) thread-strided loop of the row
    assert len({store.parent_op() for store in stores}) == 1


def test_gpt2_block_fused_kernels() -> None:
    text = (EXAMPLES / "gpt2_block.mlir").read_text()
    fused = apply(parse(text), "graph-decompose,graph-fuse")
    groups = count(fused, graph.FusionGroupOp)
    module = apply(fused, "convert-graph-to-gpu")
    found = kernels(module)
    # one kernel per group, plus one-op kernels for what graph-fuse left alone
    assert len(found) >= groups
    assert count(module, gpu.LaunchFuncOp) == len(found)
    # the two layer norms and the softmax are row kernels (2 block reductions)
    rows = [n for n, k in found.items() if count(k, gpu.AllReduceOp)]
    assert sum("layer_norm" in n for n in rows) == 2
    assert any("softmax" in n for n in rows)
    assert count(module, graph.MatmulOp) == 0
    assert str(module).count('library_call = "cublas_gemm_strided_batched"') == 6


def test_lowering_is_deterministic() -> None:
    text = (EXAMPLES / "gpt2_block.mlir").read_text()
    first = kernel_source(
        lower(text, "graph-decompose,graph-fuse,convert-graph-to-gpu")
    )
    second = kernel_source(
        lower(text, "graph-decompose,graph-fuse,convert-graph-to-gpu")
    )
    assert first == second


def _program(name: str) -> str:
    if name == "gpt2":
        return (EXAMPLES / "gpt2_block.mlir").read_text()
    if name in cases.THEMES:
        return cases.module(cases.THEMES[name]())
    return {"fused5": FUSED5, "rows": ROW_GROUPS}[name]


@pytest.mark.skipif(MLIR_OPT is None, reason="upstream mlir-opt is not installed")
@pytest.mark.parametrize(
    "name", ["fused5", "rows", "gpt2", "unary", "binary", "reduction", "movement"]
)
def test_lowered_ir_is_valid_upstream_mlir(name: str, tmp_path: Path) -> None:
    text = _program(name)
    lowered = tmp_path / "lowered.mlir"
    lowered.write_text(
        str(lower(text, "graph-decompose,graph-fuse,convert-graph-to-gpu"))
    )
    assert MLIR_OPT is not None
    result = subprocess.run([MLIR_OPT, str(lowered)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]


def run_opt(text: str, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "input.mlir"
    source.write_text(text)
    opt = Path(sys.executable).with_name("fxdsl-opt")
    return subprocess.run(
        [str(opt), str(source), *args], capture_output=True, text=True
    )


def test_column_reductions_are_serial_per_thread() -> None:
    """Reductions that do not share one trailing row space (here a row sum and
    a column max over 20 rows in one group) lower to one pointwise kernel
    whose threads each reduce their own slice: no block reduction, no
    atomics. (Innermost dim 6: not vectorized, one element per iteration.)
    Over at most 16 rows the column max is a serial reduction (unrolled),
    and the row sum gets its row kernel."""
    template = """
func.func @mixed(%x: tensor<Rx6xf32>) -> (tensor<Rx1xf32>, tensor<1x6xf32>) {
  %g:2 = graph.fusion_group (%x) : (tensor<Rx6xf32>) -> (tensor<Rx1xf32>, tensor<1x6xf32>) {
  ^bb0(%p: tensor<Rx6xf32>):
    %a = graph.sum %p dims [1] keepdim : (tensor<Rx6xf32>) -> tensor<Rx1xf32>
    %b = graph.max %p dims [0] keepdim : (tensor<Rx6xf32>) -> tensor<1x6xf32>
    graph.yield %a, %b : tensor<Rx1xf32>, tensor<1x6xf32>
  }
  func.return %g#0, %g#1 : tensor<Rx1xf32>, tensor<1x6xf32>
}
"""
    (kernel,) = kernels(lower(template.replace("R", "20"))).values()
    assert count(kernel, gpu.AllReduceOp) == 0
    # the grid-stride loop and the max's loop; the 6-element sum is unrolled
    assert count(kernel, scf.ForOp) == 2
    (kernel,) = kernels(lower(template.replace("R", "16"))).values()
    assert count(kernel, gpu.AllReduceOp) == 1  # the row sum
    assert count(kernel, arith.MaximumfOp) == 16  # the column max, unrolled


def test_op_without_kernel_rule_is_an_error(tmp_path: Path) -> None:
    text = """
func.func @matmul_in_group(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %g = graph.fusion_group (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8x2xf32>):
    %m = graph.matmul %p, %q : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    graph.yield %m : tensor<4x2xf32>
  }
  func.return %g : tensor<4x2xf32>
}
"""
    result = run_opt(text, "-p", "convert-graph-to-gpu", tmp_path=tmp_path)
    assert result.returncode == 1
    assert (
        "error: convert-groups-to-gpu: cannot lower graph.matmul here" in result.stderr
    )
    assert "Traceback" not in result.stderr


# upstream's own order (its gpu-lower-to-nvvm-pipeline): scf to cf, the
# kernels to NVVM (math ops it leaves, as math.absi, to LLVM); PTX from LLVM's
# NVPTX backend shows nothing is left over
NVVM_PIPELINE = (
    "builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,"
    "convert-math-to-llvm,reconcile-unrealized-casts),"
    "nvvm-attach-target{chip=sm_90},gpu-module-to-binary{format=isa})"
)


NO_UPSTREAM_LOWERING = pytest.mark.xfail(
    strict=True,
    reason="integer pow is math.ipowi, which upstream lowers only by "
    "convert-math-to-funcs on a builtin.module, not inside a gpu.module",
)


@pytest.mark.skipif(MLIR_OPT is None, reason="upstream mlir-opt is not installed")
@pytest.mark.parametrize(
    "name",
    [
        "gpt2",
        "rows",
        *(
            pytest.param(t, marks=NO_UPSTREAM_LOWERING) if t == "binary" else t
            for t in sorted(cases.THEMES)
        ),
    ],
)
def test_upstream_converts_the_kernels_to_nvvm_and_ptx(
    name: str, tmp_path: Path
) -> None:
    """mlir-opt's GPU-to-NVVM conversion takes every kernel (it crashed in
    GPUFuncOp::addWorkgroupAttribution on gpu.funcs without a
    `workgroup_attributions` count) and the PTX has one entry per gpu.func."""
    module = lower(_program(name), "graph-decompose,graph-fuse,convert-graph-to-gpu")
    kernels = [op.sym_name.data for op in module.walk() if isinstance(op, gpu.FuncOp)]
    generic = StringIO()
    Printer(generic, print_generic_format=True).print_op(module)
    lowered = tmp_path / "lowered.mlir"
    lowered.write_text(generic.getvalue())
    assert MLIR_OPT is not None
    result = subprocess.run(
        [MLIR_OPT, str(lowered), f"--pass-pipeline={NVVM_PIPELINE}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    entries = re.findall(r"\.entry (\w+)", result.stdout)
    assert sorted(entries) == sorted(kernels)


def test_cuda_target_without_kernels_is_an_error(tmp_path: Path) -> None:
    result = run_opt(FUSED5, "-t", "cuda", tmp_path=tmp_path)
    assert result.returncode == 1
    assert "error: -t cuda: the module has no gpu.module" in result.stderr


def test_cuda_target_on_a_lowered_module_needing_no_kernel(tmp_path: Path) -> None:
    identity = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    identity += "  func.return %x : tensor<4xf32>\n}\n"
    result = run_opt(
        identity, "-p", "convert-graph-to-gpu", "-t", "cuda", tmp_path=tmp_path
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "#include <cuda_fp16.h>" in result.stdout
    assert "// no kernels: this module needs none" in result.stdout


@pytest.mark.parametrize("block_size", [True, False])
def test_min_blocks_per_sm_prints_launch_bounds(
    block_size: bool, tmp_path: Path
) -> None:
    """`nvvm.minctasm` on a gpu.func is `__launch_bounds__(threads, M)`; it
    needs `gpu.known_block_size` (the threads), else `-t cuda` is an error."""
    module = apply(parse(FUSED5), "convert-graph-to-gpu")
    (kernel,) = kernels(module).values()
    kernel.attributes["nvvm.minctasm"] = IntegerAttr(3, i32)
    if block_size:
        kernel.attributes["gpu.known_block_size"] = DenseArrayBase.from_list(
            i32, [128, 2, 1]
        )
    result = run_opt(str(module), "-t", "cuda", tmp_path=tmp_path)
    if block_size:
        assert result.returncode == 0, result.stderr
        assert "__global__ __launch_bounds__(256, 3) void fused5_0_relu(" in (
            result.stdout
        )
    else:
        assert result.returncode == 1
        assert "error: -t cuda: kernel fused5_0_relu: nvvm.minctasm needs" in (
            result.stderr
        )
        assert "Traceback" not in result.stderr


def test_identical_kernels_are_emitted_once() -> None:
    """A 4-block GPT-2 stack: its blocks' kernels are textually identical, so
    the gpu.module holds as many kernels as for one block."""
    from fxdsl.frontends.models import gpt2_stack

    one = lower(gpt2_stack(1, B=1, T=8, D=32, heads=2).__str__(), GPU)
    four = lower(gpt2_stack(4, B=1, T=8, D=32, heads=2).__str__(), GPU)
    assert len(kernels(four)) == len(kernels(one))
    launches = [
        op.kernel.nested_references.data[-1].data
        for op in four.walk()
        if isinstance(op, gpu.LaunchFuncOp)
    ]
    counts = {name: launches.count(name) for name in kernels(four)}
    # per block: attention-bias add, softmax, gelu (x4; the heads are merged
    # by the P @ V GEMM writing through, no copy kernel); the residual add +
    # layer norm kernel serves ln_2 of every block and ln_1 of blocks 2-4
    # (x7); the first ln_1 and the final layer norm run once
    assert sorted(counts.values()) == [1, 1, 4, 4, 4, 7]


def test_default_pipeline_lowers_a_repeated_block_once() -> None:
    """GPU_PIPELINE starts with graph-dedup: the 12 blocks of a stack are one
    function, so the stack builds as many fusion-group kernels as one block
    plus the final layer norm (the compile-time goal: the 12-block compile
    costs about a 1-block compile). In a single block, where nothing of at
    least DEDUP_MIN_OPS ops repeats, graph-dedup changes nothing."""
    from fxdsl.frontends.models import gpt2_stack
    from fxdsl.lowering.pipeline import GPU_PIPELINE

    def built(blocks: int, pipeline: str) -> int:
        module = gpt2_stack(blocks, B=1, T=8, D=32, heads=2)
        apply(module, pipeline.replace(",convert-graph-to-gpu", ""))
        return count(module, graph.FusionGroupOp)

    one, twelve = built(1, GPU_PIPELINE), built(12, GPU_PIPELINE)
    assert twelve <= one + 2  # + ln_f, + the first block's ln_1 outside the call
    without_dedup = GPU_PIPELINE.split(",", 1)[1]
    assert built(12, without_dedup) > 6 * one
    assert one == built(1, without_dedup)
    module = apply(gpt2_stack(1, B=1, T=8, D=32, heads=2), GPU_PIPELINE)
    assert len(kernels(module)) == 6


def test_default_pipeline_fuses_large_attention_in_every_block() -> None:
    """At GPT-2 B=8 T=512 (49152 query rows, above min-rows) every block of
    the stack runs the fused attention kernel through graph-dedup's call:
    one kernel, 12 launches; no softmax kernel, no transpose or head-merge
    copies, no qkv bias kernel (folded into the attention: 5 kernels and 4
    GEMMs per block). At B=1 T=64 (768 rows) the attention stays cuBLAS +
    softmax."""
    from fxdsl.pipeline.lower import lower_for_cuda

    from fxdsl.frontends.models import gpt2_stack
    from fxdsl.lowering.launch_plan import Gemm, Launch

    _, plan = lower_for_cuda(gpt2_stack(12, B=8, T=512))
    launches = [s.kernel for s in plan.steps if isinstance(s, Launch)]
    assert [k for k in plan.kernels if "attention" in k] == ["dedup_0_1_attention"]
    assert launches.count("dedup_0_1_attention") == 12
    assert not [k for k in launches if "softmax" in k or "transpose" in k]
    assert len(launches) == 12 * 5 + 1  # + ln_f
    assert sum(isinstance(s, Gemm) for s in plan.steps) == 12 * 4
    _, small = lower_for_cuda(gpt2_stack(1, B=1, T=64))
    assert not [k for k in small.kernels if "attention" in k]
    assert [k for k in small.kernels if "softmax" in k]


def test_identical_groups_are_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without graph-dedup, a 4-block stack has 21 groups but 6 distinct
    ones (group_key): only those are built, and the result is the IR that
    building every group gives."""
    from fxdsl.frontends.models import gpt2_stack
    from fxdsl.lowering import convert_groups_to_gpu as convert

    text = str(gpt2_stack(4, B=1, T=8, D=32, heads=2))
    built: list[str] = []
    real = convert.build_kernel

    def counting(name: str, *args: object, **kwargs: object) -> object:
        built.append(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(convert, "build_kernel", counting)
    shared = lower(text, GPU)
    assert len(built) == len(kernels(shared)) == 6
    monkeypatch.setattr(convert, "group_key", lambda *_: object())  # never equal
    built.clear()
    every = lower(text, GPU)
    assert len(built) == count(every, gpu.LaunchFuncOp) == 21
    assert str(every) == str(shared)


def test_resident_row_shapes() -> None:
    from fxdsl.lowering.kernel_builder import resident_row

    assert resident_row(1024) == (256, 4)  # softmax over 4096 floats
    assert resident_row(192) == (192, 1)  # GPT-2 layer norm, D=768
    assert resident_row(320) == (160, 2)
    assert resident_row(16) is None  # fewer steps than a warp: loop
    assert resident_row(75) is None  # no multiple of 32 divides it
    assert resident_row(256 * 9) is None  # too long for registers


@pytest.mark.parametrize(
    ("inner", "loops", "loads", "threads"), [(1280, 1, 2, 160), (300, 4, 3, 96)]
)
def test_long_rows_are_read_once(
    inner: int, loops: int, loads: int, threads: int
) -> None:
    """Softmax over 1280 floats: each of 160 threads loads its 2 float4s
    once and max, sum and the store reuse them (the row loop is the only
    scf.for). Over 300 floats (75 steps, no block shape divides them) the
    kernel loops: max, sum and store each read the row (one float4 load in
    each of the three loops)."""
    t = f"tensor<2x{inner}xf32>"
    text = f"""
func.func @softmax(%x: {t}) -> {t} {{
  %y = graph.softmax %x dim 1 : {t}
  func.return %y : {t}
}}"""
    module = lower(text)
    (kernel,) = kernels(module).values()
    assert count(kernel, scf.ForOp) == loops
    from xdsl.dialects import vector

    assert count(kernel, vector.LoadOp) == loads
    (launch,) = [op for op in module.walk() if isinstance(op, gpu.LaunchFuncOp)]
    block = launch.blockSizeX.owner.value.value.data  # type: ignore[union-attr]
    assert block == threads
