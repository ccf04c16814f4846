"""The benchmark workloads, each traced with `fxdsl.trace`, but
ResNet-18, which is imported from torch (so it needs the `fxdsl[torch]`
extra even to build).

A `Workload` has a name, the graph builder at each scale (`full` is the size
the issue names; `small` is what numerics are checked at on the device;
`tiny` is the CI size on the CPU reference), a torch implementation taking
the same arguments in the same order (built lazily: torch is imported only
when a torch variant runs) and the bytes it must move at least: every input
read once plus every output written once (`bytes_moved`), which sizes the
device-to-device copy baseline.

The workloads here are f32 (the bf16 ones are `fxdsl.bench.bf16_workloads`).
Inputs come from `models.example_inputs` (activations N(0, 1), weights at
GPT-2 initialisation scale), so softmax and layer norm see realistic values
and the numerics check tests something; `workload_inputs` gives them the
argument's storage (bf16 values rounded, f16 as float16).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType

from fxdsl.frontends.aten_select import sorted_along
from fxdsl.frontends.models import (
    LN_EPS,
    example_inputs,
    gpt2_block,
    gpt2_stack,
    mlp,
)
from fxdsl.interpreters.run import entry_function, index_bound
from fxdsl.ir.dtypes import round_to_bf16
from fxdsl.ir.graph import shape_of
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor, TensorSpec, trace

SCALES = ("full", "small", "tiny")
Dims = dict[str, int]


@dataclass(frozen=True)
class Workload:
    """One benchmark: `build(dims)` traces it at the dims of a scale."""

    name: str
    description: str
    dims: dict[str, Dims]
    """scale name -> dims passed to `build` (and shown in the report)."""
    build: Callable[[Dims], ModuleOp]
    torch_fn: Callable[[Dims], Callable[..., Any]]
    """dims -> a function on torch tensors (same arguments as the module)."""
    reduce_overhead: bool = False
    """Also time `torch.compile(mode="reduce-overhead")` (launch-bound)."""
    max_autotune: bool = False
    """Also time `torch.compile(mode="max-autotune-no-cudagraphs")`: Triton
    GEMM templates with the epilogue fused into the GEMM (the GEMM-epilogue
    study: cuBLAS + a fused epilogue kernel, fxdsl's choice, against a GEMM
    that fuses it)."""
    attention: bool = False
    """Also time fxdsl without `graph-fuse-attention` (scores through
    cuBLAS, a softmax kernel and cuBLAS again) and with the fused kernel
    but the qkv bias a kernel of its own (`fold-bias=false`), beside the
    default."""

    torch_attention: bool = False
    """Also time the torch backend with attention left to torch's own SDPA
    kernels (`fxdsl-backend-sdpa`), beside fxdsl's fused attention."""

    skinny: bool = False
    """Also time fxdsl with `graph-split-k` (few-row GEMMs split along K),
    with and without CUDA graphs, beside the default."""
    flops: Callable[[Dims], int] | None = None
    """dims -> floating-point operations the workload must do (a multiply-add
    is two), for achieved TFLOPS and the tensor-core floor in the report."""
    tolerance: tuple[float, float] | None = None
    """(rtol, atol) of the numerics check; None: the harness's f32 one."""
    epilogue: str | None = None
    """"gelu" or "relu": a GEMM + bias + activation that cuBLASLt can fuse
    into the GEMM (`torch._addmm_activation`), timed beside fxdsl's GEMM +
    epilogue kernel (the cuBLASLt-epilogue study)."""

    def module(self, scale: str) -> ModuleOp:
        return self.build(self.dims[scale])


def element_bytes(typ: Any) -> int:
    """Bytes per element of a tensor type as the device stores it (bf16 and
    f16 two, f32 four, i64 eight, i1 one)."""
    assert isinstance(typ, TensorType)
    return max(1, typ.element_type.bitwidth // 8)  # type: ignore[union-attr]


def bytes_moved(module: ModuleOp) -> int:
    """Bytes of every argument and every result of the entry function."""
    function = entry_function(module)
    types = [*function.function_type.inputs, *function.function_type.outputs]
    return sum(element_bytes(t) * math.prod(shape_of(t)) for t in types)


def argument_elements(module: ModuleOp) -> list[str]:
    """The element type (f32, bf16, ...) of each argument of the entry."""
    function = entry_function(module)
    return [str(t.element_type) for t in function.function_type.inputs]  # type: ignore[attr-defined]


def result_elements(module: ModuleOp) -> list[str]:
    """The element type of each result of the entry."""
    function = entry_function(module)
    return [str(t.element_type) for t in function.function_type.outputs]  # type: ignore[attr-defined]


def workload_inputs(module: ModuleOp) -> list[np.ndarray]:
    """`example_inputs`, each in its argument's storage: a bf16 argument's
    values rounded to bf16 (held as float32, as the reference and the
    executor take them), an f16 one as float16, an integer one (token ids)
    seeded and within the bound of what it indexes."""
    arrays = example_inputs(module)
    rng = np.random.default_rng(0)
    args = entry_function(module).args
    for index, element in enumerate(argument_elements(module)):
        if element == "bf16":
            arrays[index] = round_to_bf16(arrays[index])
        elif element == "f16":
            arrays[index] = arrays[index].astype(np.float16)
        elif element in ("i64", "i32"):
            bound = index_bound(module, args[index]) or 2
            ids = rng.integers(0, bound, shape_of(args[index]))
            arrays[index] = ids.astype(np.int64 if element == "i64" else np.int32)
    return arrays


def describe_dims(dims: Dims) -> str:
    return " ".join(f"{k}={v}" for k, v in dims.items())


# --------------------------------------------------------------------------- #
# graph builders
# --------------------------------------------------------------------------- #


def _elementwise(d: Dims) -> ModuleOp:
    def elementwise(x: Tensor, a: Tensor, b: Tensor) -> Tensor:
        return ops.gelu(x * a + b) * ops.sigmoid(x)

    row = TensorSpec((d["N"],))
    return trace(elementwise, TensorSpec((d["M"], d["N"])), row, row)


def _bias_relu(d: Dims) -> ModuleOp:
    def bias_relu(x: Tensor, a: Tensor, b: Tensor) -> Tensor:
        return ops.relu(x * a + b)

    row = TensorSpec((d["N"],))
    return trace(bias_relu, TensorSpec((d["M"], d["N"])), row, row)


def _softmax(d: Dims) -> ModuleOp:
    def softmax(x: Tensor) -> Tensor:
        return ops.softmax(x, dim=-1)

    return trace(softmax, TensorSpec((d["M"], d["N"])))


def _layer_norm(d: Dims) -> ModuleOp:
    def layer_norm(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return ops.layer_norm(x, w, b, LN_EPS)

    row = TensorSpec((d["N"],), param="norm.weight")
    bias = TensorSpec((d["N"],), param="norm.bias")
    return trace(layer_norm, TensorSpec((d["M"], d["N"])), row, bias)


def _gelu_bias_residual(d: Dims) -> ModuleOp:
    def gelu_bias_residual(x: Tensor, b: Tensor, r: Tensor) -> Tensor:
        return ops.gelu(x + b) + r

    full = TensorSpec((d["M"], d["N"]))
    return trace(gelu_bias_residual, full, TensorSpec((d["N"],), param="b"), full)


def gemm_module(d: Dims, epilogue: bool | str, dtype: str = "f32") -> ModuleOp:
    """x @ w; with `epilogue` (True or "gelu": tanh GELU, "relu") of x @ w + b."""

    def gemm(x: Tensor, w: Tensor) -> Tensor:
        return x @ w

    def gemm_bias_gelu(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return ops.gelu(x @ w + b, approximate="tanh")

    def gemm_bias_relu(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return ops.relu(x @ w + b)

    x = TensorSpec((d["M"], d["K"]), dtype)
    w = TensorSpec((d["K"], d["N"]), dtype, param="c_fc.weight")
    if not epilogue:
        return trace(gemm, x, w)
    bias = TensorSpec((d["N"],), dtype, param="c_fc.bias")
    return trace(gemm_bias_relu if epilogue == "relu" else gemm_bias_gelu, x, w, bias)


def _gpt2(d: Dims) -> ModuleOp:
    if d["blocks"] == 1:
        return gpt2_block(d["B"], d["T"], d["D"], d["heads"])
    return gpt2_stack(d["blocks"], d["B"], d["T"], d["D"], d["heads"])


# --------------------------------------------------------------------------- #
# torch implementations (torch imported inside: it is optional)
# --------------------------------------------------------------------------- #


def _embedding_grad(sorted_: bool) -> Callable[[Dims], ModuleOp]:
    """An embedding's gradient: K rows of D added into a (V, D) table of
    zeros at token ids; `sorted_`: with the ids' stable argsort as
    `graph.index_add`'s `order` (what the importer adds past
    `INDEX_ADD_WALK_LIMIT` pairs), else the kernel walks every id."""

    def build(d: Dims) -> ModuleOp:
        def embedding_grad(ids: Tensor, rows: Tensor) -> Tensor:
            table = ops.full([d["V"], d["D"]], 0.0)
            order = sorted_along(ids, 0, descending=False)[1] if sorted_ else None
            return ops.index_add(table, 0, ids, rows, order)

        ids = TensorSpec((d["K"],), "i64")
        return trace(embedding_grad, ids, TensorSpec((d["K"], d["D"])))

    return build


def _torch_embedding_grad(d: Dims) -> Callable[..., Any]:
    import torch

    def embedding_grad(ids: Any, rows: Any) -> Any:
        table = torch.zeros(d["V"], d["D"], device=rows.device, dtype=rows.dtype)
        return table.index_add(0, ids, rows)

    return embedding_grad


def _torch_elementwise(_d: Dims) -> Callable[..., Any]:
    import torch
    import torch.nn.functional as F

    return lambda x, a, b: F.gelu(x * a + b) * torch.sigmoid(x)


def _torch_bias_relu(_d: Dims) -> Callable[..., Any]:
    import torch

    return lambda x, a, b: torch.relu(x * a + b)


def _torch_softmax(_d: Dims) -> Callable[..., Any]:
    import torch

    return lambda x: torch.softmax(x, dim=-1)


def _torch_layer_norm(d: Dims) -> Callable[..., Any]:
    import torch.nn.functional as F

    return lambda x, w, b: F.layer_norm(x, (d["N"],), w, b, LN_EPS)


def _torch_gelu_bias_residual(_d: Dims) -> Callable[..., Any]:
    import torch.nn.functional as F

    return lambda x, b, r: F.gelu(x + b) + r


def _torch_gemm(_d: Dims) -> Callable[..., Any]:
    return lambda x, w: x @ w


def _torch_gemm_bias_gelu(_d: Dims) -> Callable[..., Any]:
    import torch.nn.functional as F

    return lambda x, w, b: F.gelu(x @ w + b, approximate="tanh")


def _torch_mlp(d: Dims) -> Callable[..., Any]:
    import torch.nn.functional as F

    def run(x: Any, w1: Any, b1: Any, w2: Any, b2: Any, g: Any, b: Any) -> Any:
        h = F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)
        return F.layer_norm(h + x, (d["D"],), g, b, LN_EPS)

    return run


def _torch_gpt2(d: Dims) -> Callable[..., Any]:
    """HF GPT-2's block with SDPA attention (HF's default attention)."""
    import torch.nn.functional as F

    D, heads = d["D"], d["heads"]

    def block(x: Any, p: tuple[Any, ...]) -> Any:
        B, T, _ = x.shape
        h = F.layer_norm(x, (D,), p[0], p[1], LN_EPS)
        q, k, v = (
            t.view(B, T, heads, D // heads).transpose(1, 2)
            for t in F.linear(h, p[2], p[3]).split(D, dim=-1)
        )
        context = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + F.linear(context.transpose(1, 2).reshape(B, T, D), p[4], p[5])
        h = F.layer_norm(x, (D,), p[6], p[7], LN_EPS)
        h = F.gelu(F.linear(h, p[8], p[9]), approximate="tanh")
        return x + F.linear(h, p[10], p[11])

    def run(x: Any, *weights: Any) -> Any:
        for i in range(d["blocks"]):
            x = block(x, weights[12 * i : 12 * (i + 1)])
        if d["blocks"] > 1:  # gpt2_stack ends with transformer.ln_f
            x = F.layer_norm(x, (D,), weights[-2], weights[-1], LN_EPS)
        return x

    return run


@functools.lru_cache(maxsize=4)
def _resnet18_model(batch: int, size: int) -> Any:
    """torchvision's ResNet-18 architecture (`fxdsl.testing.conv_models`),
    seeded random weights and batch-norm statistics, eval mode."""
    from fxdsl.testing.conv_models import resnet18

    model, _, _ = resnet18(batch=batch, size=size)
    return model


def _resnet18(d: Dims) -> ModuleOp:
    """ResNet-18 imported from torch with its weights frozen and folded
    (`graph-fold-constants`: each batch norm into its conv), so the image
    is the only input and both sides compute with the same weights."""
    import torch

    from fxdsl.frontends.torch_export import from_torch
    from fxdsl.pipeline.pass_pipeline import apply

    model = _resnet18_model(d["B"], d["S"])
    image = torch.zeros(d["B"], 3, d["S"], d["S"])
    program = from_torch(model, (image,), freeze=True)
    return apply(program.module, "graph-fold-constants")


def _torch_resnet18(d: Dims) -> Callable[..., Any]:
    """The same model in torch, moved to the image's device on first use."""
    import torch

    model = _resnet18_model(d["B"], d["S"])

    def run(image: Any) -> Any:
        if next(model.parameters()).device != image.device:
            model.to(image.device)
        with torch.no_grad():
            return model(image)

    return run


CONV_TF32_TOLERANCE = (1e-2, 1e-2)
"""(rtol, atol) of a conv net's check on CUDA, where every variant's
convolutions run in TF32 (torch's default, and fxdsl's `conv_tf32` in the
bench): 10-bit mantissa products through 18 layers."""


def _resnet_dims(batch: int) -> dict[str, Dims]:
    return {
        "full": {"B": batch, "S": 224},
        "small": {"B": min(batch, 2), "S": 64},
        "tiny": {"B": 1, "S": 32},
    }


def _rows(full: tuple[int, int], small: tuple[int, int], tiny: tuple[int, int]):
    return {
        scale: {"M": m, "N": n}
        for scale, (m, n) in zip(SCALES, (full, small, tiny), strict=True)
    }


def _gpt2_dims(blocks: int, full: tuple[int, int], small: tuple[int, int]):
    tiny = (1, 8) if full[0] == 1 else (2, 8)
    return {
        scale: {"blocks": blocks, "B": b, "T": t, "D": dd, "heads": h}
        for scale, (b, t), dd, h in zip(
            SCALES, (full, small, tiny), (768, 768, 32), (12, 12, 4), strict=True
        )
    }


_GEMM_DIMS = {
    "full": {"M": 4096, "K": 768, "N": 3072},
    "small": {"M": 256, "K": 256, "N": 1024},
    "tiny": {"M": 8, "K": 16, "N": 32},
}

WORKLOADS: tuple[Workload, ...] = (
    Workload(
        "elementwise",
        "gelu(x*a+b)*sigmoid(x), x (M,N), a and b (N,)",
        _rows((8192, 8192), (512, 1024), (32, 64)),
        _elementwise,
        _torch_elementwise,
    ),
    Workload(
        "bias_relu",
        "relu(x*a+b), x (M,N), a and b (N,): elementwise's memory traffic "
        "with a few ALU ops an element (its kernel's bandwidth alone)",
        _rows((8192, 8192), (512, 1024), (32, 64)),
        _bias_relu,
        _torch_bias_relu,
    ),
    Workload(
        "softmax",
        "softmax over the last dim",
        _rows((8192, 4096), (256, 1024), (16, 64)),
        _softmax,
        _torch_softmax,
    ),
    Workload(
        "layer_norm",
        "layer_norm over the last dim, weight and bias",
        _rows((8192, 4096), (256, 1024), (16, 64)),
        _layer_norm,
        _torch_layer_norm,
    ),
    Workload(
        "gelu_bias_residual",
        "gelu(x+b)+r, x and r (M,N), b (N,)",
        _rows((8192, 4096), (256, 1024), (16, 64)),
        _gelu_bias_residual,
        _torch_gelu_bias_residual,
    ),
    Workload(
        "mlp",
        "layer_norm(x + fc2(gelu(fc1(x)))), x (B,D), hidden H",
        {
            "full": {"B": 4096, "D": 1024, "H": 4096},
            "small": {"B": 256, "D": 256, "H": 1024},
            "tiny": {"B": 8, "D": 16, "H": 32},
        },
        lambda d: mlp(d["B"], d["D"], d["H"]),
        _torch_mlp,
    ),
    Workload(
        "gemm",
        "x @ w at the GPT-2 c_fc shape (B*T=4096, 768 -> 3072): the GEMM alone",
        _GEMM_DIMS,
        lambda d: gemm_module(d, epilogue=False),
        _torch_gemm,
        max_autotune=True,
    ),
    Workload(
        "gemm_bias_gelu",
        "gelu_tanh(x @ w + b) at the same shape: GEMM plus epilogue",
        _GEMM_DIMS,
        lambda d: gemm_module(d, epilogue=True),
        _torch_gemm_bias_gelu,
        max_autotune=True,
    ),
    Workload(
        "gpt2_block_b8_t512",
        "one GPT-2 block, causal mask, tanh gelu",
        _gpt2_dims(1, (8, 512), (2, 128)),
        _gpt2,
        _torch_gpt2,
        attention=True,
    ),
    Workload(
        "gpt2_block_b1_t64",
        "one GPT-2 block, causal mask, tanh gelu",
        _gpt2_dims(1, (1, 64), (1, 64)),
        _gpt2,
        _torch_gpt2,
        skinny=True,
    ),
    Workload(
        "gpt2_12blocks_b1_t64",
        "12 stacked GPT-2 blocks and the final layer norm",
        _gpt2_dims(12, (1, 64), (1, 64)),
        _gpt2,
        _torch_gpt2,
        reduce_overhead=True,
        skinny=True,
    ),
    *(
        Workload(
            f"embedding_grad_{form}",
            "a GPT-2 embedding's gradient: K rows of D into a (V, D) table at "
            f"token ids, graph.index_add {how} (torch: atomics)",
            {
                "full": {"V": 50257, "D": 768, "K": 64},
                "small": {"V": 4096, "D": 256, "K": 256},
                "tiny": {"V": 50, "D": 8, "K": 12},
            },
            _embedding_grad(form == "sorted"),
            _torch_embedding_grad,
        )
        for form, how in (
            ("walk", "walking every id per element"),
            ("sorted", "binary-searching the ids' stable argsort"),
        )
    ),
    Workload(
        "resnet18_b1",
        "torchvision's ResNet-18 (architecture, random weights), 224x224, "
        "weights frozen and conv-bn folded",
        _resnet_dims(1),
        _resnet18,
        _torch_resnet18,
        reduce_overhead=True,
        tolerance=CONV_TF32_TOLERANCE,
    ),
    Workload(
        "resnet18_b32",
        "ResNet-18 as above at batch 32",
        _resnet_dims(32),
        _resnet18,
        _torch_resnet18,
        tolerance=CONV_TF32_TOLERANCE,
    ),
)


def workload_named(name: str, among: Sequence[Workload] = WORKLOADS) -> Workload:
    """The workload called `name` in `among`; ValueError listing the known ones."""
    for workload in among:
        if workload.name == name:
            return workload
    known = ", ".join(w.name for w in among)
    raise ValueError(f"unknown workload '{name}' (known: {known})")
