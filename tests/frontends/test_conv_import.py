"""The torch.export importer on convolutional networks: torchvision's
ResNet-18 and MobileNetV3-Small (defined in `fxdsl.testing.conv_models`,
torchvision itself does not install here), HF's ViT and the Whisper encoder.
Each imports at both IR levels to the same IR and matches torch eager on the
reference interpreter; small modules pin the importer's conv and pooling
arguments (the N-D, transposed and index-returning forms:
tests/frontends/test_aten_conv_pooling.py).

torch and transformers are the `fxdsl[torch]` extra: skipped where missing,
a failure under CI."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import (  # noqa: E402
    ImportedProgram,
    from_torch,
    to_numpy,
)
from fxdsl.ir import graph  # noqa: E402
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.conv_models import CONV_MODELS  # noqa: E402
from fxdsl.testing.torch_models import ImportCache, eager_outputs  # noqa: E402
from fxdsl.transforms.op_cost import op_cost  # noqa: E402

LEVELS = ("default", "core")
nn = torch.nn


@pytest.fixture(scope="module")
def imported() -> ImportCache:
    return ImportCache(CONV_MODELS)


def _assert_matches_eager(got: Any, example: Any, tolerance: float) -> None:
    """Within `tolerance` relative to each output's largest magnitude (when
    below 1: MobileNet's logits here are about 0.08)."""
    want = eager_outputs(example)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        scale = min(1.0, float(np.abs(w).max()))
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance * scale)


def _ops(program: ImportedProgram) -> list[Any]:
    (function,) = program.module.body.block.ops
    return list(function.walk())


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(CONV_MODELS))
def test_reference_matches_eager(imported: Any, name: str, level: str) -> None:
    example, program = imported[name, level]
    _assert_matches_eager(program.run(*example[1]), example, 1e-5)


@pytest.mark.parametrize("name", list(CONV_MODELS))
def test_both_levels_give_the_same_ir(imported: Any, name: str) -> None:
    """convolution, max_pool2d_with_indices, the no-training batch norm, the
    mean that replaces a 1x1 adaptive pool and the decomposed hardswish and
    hardsigmoid import as the default level's ops."""
    default, core = imported[name, "default"][1], imported[name, "core"][1]
    assert [op.name for op in _ops(core)] == [op.name for op in _ops(default)]


EXPECTED_COUNTS = {
    # torchvision's graphs: ResNet-18 exports to 69 call_function nodes,
    # MobileNetV3-Small to 157 (issue 24's measurements)
    "resnet18": {
        "graph.conv2d": 20,
        "graph.batch_norm": 20,
        "graph.max_pool2d": 1,
        "graph.relu": 17,
        "graph.add": 8,
        "graph.mean": 1,
        "graph.linear": 1,
    },
    "mobilenet_v3_small": {
        "graph.conv2d": 52,
        "graph.batch_norm": 34,
        "graph.hardswish": 19,
        "graph.hardsigmoid": 9,
        "graph.mean": 10,  # 9 squeeze-excites and the classifier's pool
        "graph.mul": 9,
        "graph.linear": 2,
    },
    "vit": {"graph.conv2d": 1, "graph.attention": 2, "graph.layer_norm": 5},
    "whisper_encoder": {"graph.conv1d": 2, "graph.attention": 2, "graph.gelu": 4},
}


@pytest.mark.parametrize("name", list(CONV_MODELS))
def test_conv_net_op_counts(imported: Any, name: str) -> None:
    counts = Counter(op.name for op in _ops(imported[name, "core"][1]))
    assert {k: counts[k] for k in EXPECTED_COUNTS[name]} == EXPECTED_COUNTS[name]


def test_patch_embedding_is_a_stride_equals_kernel_conv(imported: Any) -> None:
    (conv,) = [
        op for op in _ops(imported["vit", "core"][1]) if isinstance(op, graph.Conv2dOp)
    ]
    kernel = graph.shape_of(conv.weight)[2:]
    assert conv.stride_list == kernel == (8, 8)
    assert conv.padding_list == (0, 0)
    assert conv.bias is not None


def test_whisper_convs(imported: Any) -> None:
    convs = [
        op
        for op in _ops(imported["whisper_encoder", "core"][1])
        if isinstance(op, graph.Conv1dOp)
    ]
    assert [(c.stride_list, c.padding_list) for c in convs] == [
        ((1,), (1,)),
        ((2,), (1,)),
    ]


EMULATED_SIZES = {"resnet18": 8, "mobilenet_v3_small": 8}
"""Input sizes for the emulator runs (the pure-Python emulator runs every
GPU thread: ResNet-18 at 32x32 takes minutes). At 8x8 every layer still
runs (the last ones on 1x1 maps, where taps that read only padding drop)."""


def _emulated(example: Any, program: ImportedProgram) -> list[Any]:
    """The program through the default GPU pipeline, on the IR emulator."""
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    inputs = [to_numpy(a) for a in example[1]]
    return Emulator(lowered).run("forward", *program.weights, *inputs)


# ResNet-18 on the emulator is the longest test of `make test` (about half a
# minute of CPU even at 8x8): it runs in `make test-all`; MobileNetV3 (convs,
# depthwise convs, pooling, batch norm) stands for it in `make test`.
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.slow) if name == "resnet18" else name
        for name in CONV_MODELS
    ],
)
def test_gpu_pipeline_on_the_emulator_matches_eager(name: str) -> None:
    """All four models through GPU_PIPELINE (conv, pooling and batch norm
    decomposed to GEMMs and kernels) match torch eager on the emulator."""
    size = EMULATED_SIZES.get(name)
    example = CONV_MODELS[name](**({"size": size} if size else {}))
    program = from_torch(*example)
    _assert_matches_eager(_emulated(example, program), example, 1e-4)


def test_vit_patch_embedding_lowers_to_one_gemm(imported: Any) -> None:
    """In the whole ViT, the ops graph-decompose makes of the patch conv
    (scope embeddings.patch_embeddings) hold one matmul and no taps."""
    program = imported["vit", "default"][1]
    decomposed = fxdsl.apply(program.module.clone(), "graph-decompose")
    patch = [
        op
        for op in decomposed.walk()
        if "embeddings.patch_embeddings" in str(op.attributes.get("scope", ""))
    ]
    names = Counter(op.name for op in patch)
    assert names["graph.matmul"] == 1
    assert names["graph.slice"] == names["graph.concat"] == 0


class _BatchNormMLP(nn.Module):
    """Linear -> BatchNorm1d -> ReLU twice: batch norm over (N, C)."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(12, 16), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Linear(16, 8), nn.BatchNorm1d(8), nn.ReLU(),
        )  # fmt: skip

    def forward(self, x: Any) -> Any:
        return self.layers(x)


def test_batch_norm_mlp_lowers() -> None:
    """BatchNorm1d imports as graph.batch_norm; the pipeline lowers it to
    elementwise ops that fuse into the linear's epilogue: each layer is a
    GEMM and one kernel (bias, batch norm, relu)."""
    from xdsl.dialects import gpu

    torch.manual_seed(0)
    model = _BatchNormMLP().eval()
    for norm in (model.layers[1], model.layers[4]):
        norm.running_mean.copy_(torch.randn(norm.num_features))
        norm.running_var.copy_(torch.rand(norm.num_features) + 0.5)
    example = (model, (torch.randn(4, 12),), {})
    program = from_torch(*example)
    assert sum(isinstance(op, graph.BatchNormOp) for op in _ops(program)) == 2
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    launches = [op for op in lowered.walk() if isinstance(op, gpu.LaunchFuncOp)]
    assert len(launches) == 2
    _assert_matches_eager(_emulated(example, program), example, 1e-5)


# --------------------------------------------------------------------------- #
# Small modules: arguments and errors
# --------------------------------------------------------------------------- #


class _Convs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.same = nn.Conv2d(4, 6, (3, 5), padding="same", dilation=(2, 1))
        self.valid = nn.Conv1d(6, 3, 2, padding="valid")

    def forward(self, x: Any) -> Any:
        y = self.same(x)
        pooled = nn.functional.max_pool2d(y, 3, 2, 1, ceil_mode=True)
        averaged = nn.functional.avg_pool2d(
            y, 3, 2, 1, ceil_mode=True, count_include_pad=False
        )
        return pooled, averaged, self.valid(y.flatten(2))


class _Unbatched(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.norm = nn.BatchNorm1d(4, affine=False)

    def forward(self, x: Any) -> Any:
        y = nn.functional.adaptive_avg_pool2d(self.conv(x), (2, 3))
        pooled = nn.functional.max_pool2d(self.conv(x), 2)
        return y, self.norm(pooled.flatten(1).transpose(0, 1))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    ("module", "shape"), [(_Convs, (2, 4, 9, 10)), (_Unbatched, (3, 8, 8))]
)
def test_conv_arguments_import(module: type[Any], shape: Any, level: str) -> None:
    """padding="same"/"valid", ceil_mode, count_include_pad, unbatched
    inputs, BatchNorm1d without affine parameters, adaptive pooling."""
    torch.manual_seed(0)
    model = module().eval()
    example = (model, (torch.randn(*shape),), {})
    program = from_torch(model, example[1], decompose=level == "core")
    _assert_matches_eager(program.run(*example[1]), example, 1e-5)


@pytest.mark.parametrize(
    ("name", "multiply_adds"),
    # torchvision's model table: 1.81 GFLOPS (multiply-adds) for resnet18;
    # the MobileNetV3 paper: 56M MAdds for MobileNetV3-Small 1.0
    [("resnet18", 1.814e9), ("mobilenet_v3_small", 56.5e6)],
)
def test_conv_nets_cost_their_published_multiply_adds(
    name: str, multiply_adds: float
) -> None:
    """The cost model's conv and linear FLOPs at 224x224 (two per
    multiply-add) are the published counts: the architectures are
    torchvision's, and the cost model counts grouped convs right."""
    model, args, _ = CONV_MODELS[name](size=224)
    ops = _ops(from_torch(model, args))
    contractions = [op for op in ops if isinstance(op, graph.ConvOp | graph.LinearOp)]
    counted = sum(op_cost(op).flops for op in contractions) / 2
    assert counted == pytest.approx(multiply_adds, rel=2e-3)
