"""TorchBench's torchvision classification models: the convnets and vision
transformers `torchvision.models` builds (the ones TorchBench's model list
runs, `resnet18` to `vgg16`, and the newer families: EfficientNet, RegNet,
ConvNeXt, ViT, Swin), with seeded random weights (nothing is
downloaded), batch `BATCH`, at a small image size each model accepts.

torchvision does not load beside the main environment's CPU torch, so these
models run in the TIMM suite's environment (`make test-timm`: torch 2.14.1
with torchvision 0.29.1). `build(name, dtype)` gives the model in eval mode
and its keyword inputs, ready for `hf_suite.compile_and_check`.
"""

from __future__ import annotations

from typing import Any

from fxdsl.testing.torch_models import seeded

BATCH = 2

SUITE: dict[str, int] = {
    "alexnet": 64,
    "densenet121": 64,
    "googlenet": 64,
    "inception_v3": 80,
    "mnasnet1_0": 64,
    "mobilenet_v2": 64,
    "mobilenet_v3_large": 64,
    "resnet18": 64,
    "resnet50": 64,
    "resnext50_32x4d": 64,
    "shufflenet_v2_x1_0": 64,
    "squeezenet1_1": 64,
    "vgg16": 32,
    "wide_resnet50_2": 64,
    "efficientnet_b0": 64,
    "regnet_y_400mf": 64,
    "convnext_tiny": 64,
    "vit_b_16": 32,
    "swin_t": 64,
}
"""Model name -> the square image size it runs at: small, to keep the CPU
reference quick, and no smaller than the model takes (`inception_v3` needs
75 pixels; VGG's and AlexNet's adaptive pooling takes any size). ViT-B/16
gets a 32-pixel image (4 patches) with `image_size=32`. (MaxViT passes too,
but needs 224 pixels, 200 s of CI for both dtypes: not in the list.)"""

OPTIONS: dict[str, dict[str, Any]] = {
    "vit_b_16": {"image_size": 32},
    "inception_v3": {"aux_logits": False, "init_weights": False},
    "googlenet": {"aux_logits": False, "init_weights": False},
}
"""Keyword arguments of a model's builder: ViT's image size; no auxiliary
heads (eval mode drops them anyway) and torchvision's default init instead
of its slow truncated-normal one for the Inception models."""

TRAINED: tuple[str, ...] = ("resnet18", "swin_t")
"""Models whose training step runs too: batch norm in training mode and
residual gradients; Swin's shifted windows and relative position bias (an
`index_put` with accumulate in the backward). (MobileNetV3's, depthwise
convolutions, hardswish and squeeze-excite, passes too: 78 s, left out.)"""

OTHERS: tuple[str, ...] = (
    "fcn_resnet50",
    "deeplabv3_mobilenet_v3_large",
    "r3d_18",
    "r2plus1d_18",
    "swin3d_t",
    "raft_small",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
    "maskrcnn_resnet50_fpn",
    "retinanet_resnet50_fpn",
    "ssd300_vgg16",
)
"""Beyond classification, f32 only: segmentation (dilated convolutions,
ASPP, bilinear upsampling; a dict output), video (3-D convolutions and
Swin3D's windows), optical flow (RAFT's correlation pyramid and its
recurrent updates, two of them) and detection (Faster and Mask R-CNN:
anchors, box decoding, `nms`, top-k, `roi_align`, pasted masks; RetinaNet's
focal heads; SSD's default boxes), one image of 96 pixels a side (SSD
resizes it to its own 300)."""

IN_TORCH: dict[str, set[str]] = {}
"""The operators a model of `OTHERS` leaves to torch (none: torchvision's
own `roi_align` is mapped too)."""


FLOW_UPDATES = 2
"""RAFT's recurrent updates in the suite (its default, 12, repeats the
same graph)."""


def build(name: str, dtype: Any = None) -> tuple[Any, dict[str, Any]]:
    """`name`'s model (eval mode, weights drawn after seeding torch, cast to
    `dtype` when given) and its keyword inputs, drawn after the weights: for
    a classifier `{"x": images}`, `BATCH` RGB images of `SUITE[name]`
    pixels a side; for `OTHERS` what the model takes (`_other`)."""
    import torch
    import torchvision

    if name in SUITE:
        builder = getattr(torchvision.models, name)
        model = seeded(lambda: builder(weights=None, **OPTIONS.get(name, {})))
        size = SUITE[name]
        inputs = {"x": torch.randn(BATCH, 3, size, size)}
    else:
        model, inputs = _other(name)
    for module in model.modules():  # off as dropout is: it draws in training
        if isinstance(module, torchvision.ops.StochasticDepth):
            module.p = 0.0
    if dtype is not None:
        model = model.to(dtype)
        inputs = {key: value.to(dtype) for key, value in inputs.items()}
    return model, inputs


def _other(name: str) -> tuple[Any, dict[str, Any]]:
    """An `OTHERS` model, wrapped where its call is not `model(x)`: RAFT
    takes two images (`_Raft`), Faster R-CNN a list of them (`_Detector`)."""
    import torch
    from torchvision import models

    untrained = {"weights": None}
    backbone = {"weights": None, "weights_backbone": None}
    if name == "fcn_resnet50":
        model = seeded(lambda: models.segmentation.fcn_resnet50(**backbone))
        return model, {"x": torch.randn(BATCH, 3, 64, 64)}
    if name == "deeplabv3_mobilenet_v3_large":
        build = models.segmentation.deeplabv3_mobilenet_v3_large
        return seeded(lambda: build(**backbone)), {"x": torch.randn(BATCH, 3, 64, 64)}
    if name in ("r3d_18", "r2plus1d_18", "swin3d_t"):
        model = seeded(lambda: getattr(models.video, name)(**untrained))
        side = 64 if name == "swin3d_t" else 32
        return model, {"x": torch.randn(1, 3, 4, side, side)}
    if name == "raft_small":
        model = seeded(lambda: _Raft(models.optical_flow.raft_small(**untrained)))
        images = {key: torch.randn(1, 3, 128, 128) for key in ("first", "second")}
        return model, images  # RAFT's pyramid needs 128 pixels a side
    if hasattr(models.detection, name):
        build = getattr(models.detection, name)
        # the R-CNNs and RetinaNet resize to their min_size: keep it small
        small = {} if "320" in name or "ssd" in name else _SMALL
        model = seeded(lambda: _Detector(build(**backbone, **small)))
        return model, {"image": torch.rand(3, 96, 96)}
    raise KeyError(f"{name} is not in the torchvision suite")


_SMALL = {"min_size": 96, "max_size": 96}
"""A detector's own resize, to the suite's image size (its default, 800
pixels, costs the CPU reference minutes)."""


def _wrapper(call: Any) -> Any:
    """A torch module class around a model, whose forward is `call`."""
    import torch

    class Wrapper(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        forward = call

    return Wrapper


def _raft_forward(self: Any, first: Any, second: Any) -> Any:
    return self.model(first, second, num_flow_updates=FLOW_UPDATES)[-1]


def _detector_forward(self: Any, image: Any) -> Any:
    return self.model([image])


def _Raft(model: Any) -> Any:
    """RAFT as a module of two keyword images; its output is the last flow
    estimate after `FLOW_UPDATES` updates."""
    return _wrapper(_raft_forward)(model)


def _Detector(model: Any) -> Any:
    """Faster R-CNN as a module of one keyword image (it takes a list)."""
    return _wrapper(_detector_forward)(model)


__all__ = ["BATCH", "IN_TORCH", "OPTIONS", "OTHERS", "SUITE", "TRAINED", "build"]
