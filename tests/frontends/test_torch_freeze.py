"""The importer's `freeze=True` and `graph-fold-constants` on conv nets:
parameters become constants, every batch norm folds into its conv, and the
result matches both the unfrozen import and torch eager (torchvision's
ResNet-18 and MobileNetV3-Small as `fxdsl.testing.conv_models` defines them).

torch is the `fxdsl[torch]` extra: skipped where missing, a failure under CI."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.ir.graph import PARAM  # noqa: E402

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.ir import graph  # noqa: E402
from fxdsl.ir.utils import arg_attr, functions  # noqa: E402
from fxdsl.testing.conv_models import mobilenet_v3_small, resnet18  # noqa: E402
from fxdsl.testing.torch_models import eager_outputs  # noqa: E402

nn = torch.nn


def count(module: Any, op_type: type) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


class ConvBlocks(nn.Module):
    """conv1d + bn (no conv bias), grouped conv2d with a bias + bn, and a
    conv whose output a second user reads (its bn must not fold)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(3, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm1d(4)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2, groups=2)
        self.bn2 = nn.BatchNorm2d(6, eps=1e-3)
        self.conv3 = nn.Conv2d(6, 6, 1)
        self.bn3 = nn.BatchNorm2d(6)

    def forward(self, x: Any) -> Any:
        y = torch.relu(self.bn1(self.conv1(x)))
        z = self.bn2(self.conv2(y.reshape(1, 4, 4, 4)))
        c = self.conv3(z)
        return self.bn3(c) + c


def _conv_blocks() -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    torch.manual_seed(0)
    model = ConvBlocks().eval()
    for module in model.modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                module.running_mean.uniform_(-1, 1)
                module.running_var.uniform_(0.5, 2)
                module.weight.uniform_(0.5, 2)
                module.bias.uniform_(-1, 1)
    return model, (torch.randn(1, 3, 16),), {}


def test_freeze_makes_parameters_constants() -> None:
    example = _conv_blocks()
    model, args, kwargs = example
    unfrozen = from_torch(model, args, kwargs)
    frozen = from_torch(model, args, kwargs, freeze=True)
    assert frozen.weights == []
    assert len(unfrozen.weights) == 11  # 3 conv weights, 2 biases, 6 bn affine
    assert frozen.input_names == unfrozen.input_names == ["x"]
    (function,) = functions(frozen.module)
    assert len(function.args) == 1
    assert arg_attr(function, 0, PARAM) is None
    params = [op for op in function.walk() if PARAM in op.attributes]
    assert len(params) == 11
    frozen.module.verify()
    (got,) = frozen.run(*args)
    (want,) = unfrozen.run(*args)
    np.testing.assert_array_equal(got, want)


def test_folding_a_frozen_import_folds_conv_bn() -> None:
    example = _conv_blocks()
    model, args, kwargs = example
    program = from_torch(model, args, kwargs, freeze=True)
    assert count(program.module, graph.BatchNormOp) == 3
    fxdsl.apply(program.module, "graph-fold-constants")
    # bn3's conv has a second user: that one stays
    assert count(program.module, graph.BatchNormOp) == 1
    assert count(program.module, graph.Conv1dOp) == 1
    assert count(program.module, graph.Conv2dOp) == 2
    (got,) = program.run(*args)
    (want,) = eager_outputs(example)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _max_error(got: Any, want: Any) -> float:
    return float(np.abs(np.asarray(got) - np.asarray(want)).max())


@pytest.mark.parametrize(
    ("build", "decompose"),
    [
        (resnet18, False),
        # the core-ATen import of ResNet-18 twice over: `make test-all`
        pytest.param(resnet18, True, marks=pytest.mark.slow),
        (mobilenet_v3_small, False),
    ],
    ids=["resnet18", "resnet18-core", "mobilenet_v3_small"],
)
def test_frozen_folded_model_matches_unfrozen_and_eager(
    build: Any, decompose: bool
) -> None:
    """No batch norm is left; the folded model is as close to eager as the
    unfrozen import is (1e-5 relative to the logits' scale, capped at 1)."""
    example = build()
    model, args, kwargs = example
    unfrozen = from_torch(model, args, kwargs, decompose=decompose)
    frozen = from_torch(model, args, kwargs, decompose=decompose, freeze=True)
    norms = count(frozen.module, graph.BatchNormOp)
    convs = count(frozen.module, graph.Conv2dOp)
    assert norms > 0
    fxdsl.apply(frozen.module, "graph-fold-constants")
    assert count(frozen.module, graph.BatchNormOp) == 0
    assert count(frozen.module, graph.Conv2dOp) == convs
    (want,) = eager_outputs(example)
    (reference,) = unfrozen.run(*args)
    (folded,) = frozen.run(*args)
    scale = min(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(folded, want, rtol=1e-5, atol=1e-5 * scale)
    np.testing.assert_allclose(folded, reference, rtol=1e-5, atol=1e-5 * scale)


def test_frozen_gpt2_folds_its_position_embedding() -> None:
    """wpe[arange(T)] depends only on a weight: frozen, it is one constant."""
    need("transformers")
    from fxdsl.testing.torch_models import gpt2

    example = gpt2()
    model, args, kwargs = example
    program = from_torch(model, args, kwargs, freeze=True)
    assert count(program.module, graph.EmbeddingOp) == 2
    fxdsl.apply(program.module, "graph-fold-constants")
    assert count(program.module, graph.EmbeddingOp) == 1
    tensors = [v for v in kwargs.values() if isinstance(v, torch.Tensor)]
    got = program.run(*args, *tensors)
    for g, w in zip(got, eager_outputs(example), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
