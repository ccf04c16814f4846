"""PyTorch's TIMM benchmark suite: the model list of
`benchmarks/dynamo/timm_models_list.txt` (convnets, ViTs, Swin, MobileViT,
NFNets), built by `timm.create_model` with seeded random weights (nothing is
downloaded) at each model's own input size, batch `BATCH`.

timm needs torchvision, and the registry's torchvision wheel does not load
with the CPU build of torch the main environment uses, so these models run
in an environment of their own (`make test-timm`: torch 2.14.1 with
torchvision 0.29.1). `build(name, dtype)` gives the model in eval mode and
its keyword inputs, ready for `hf_suite.compile_and_check`.
"""

from __future__ import annotations

from typing import Any

from fxdsl.testing.torch_models import seeded

BATCH = 2

SUITE: tuple[str, ...] = (
    "adv_inception_v3",
    "beit_base_patch16_224",
    "convnextv2_nano.fcmae_ft_in22k_in1k",
    "deit_base_distilled_patch16_224",
    "deit_tiny_patch16_224.fb_in1k",
    "dm_nfnet_f0",
    "ghostnet_100",
    "inception_v3",
    "mobilenetv2_100",
    "mobilenetv3_large_100",
    "mobilevit_s",
    "nfnet_l0",
    "repvgg_a2",
    "swin_base_patch4_window7_224",
    "tf_efficientnet_b0",
    "visformer_small",
    "vit_base_patch14_dinov2.lvd142m",
    "vit_base_patch16_siglip_256",
)
"""The suite's models, as the list names them (a pretrained tag after the
dot picks the config timm builds; no weights are loaded)."""

TRAINED: tuple[str, ...] = (
    "beit_base_patch16_224",
    "mobilevit_s",
    "swin_base_patch4_window7_224",
    "tf_efficientnet_b0",
)
"""Models whose training step runs too (one of each family, chosen for
what their backward needs: BEiT's and Swin's position-bias gradient, an
`index_put` with accumulate; MobileViT's unfold/fold; EfficientNet's
depthwise convolutions and batch norm in training mode)."""


OVERFLOWS: dict[tuple[str, str], str] = {
    (name, "f16"): "random weights: activations reach about 2.5e12, past "
    "f16's range, so eager's output is NaN throughout (compared with NaN "
    "equal to NaN)"
    for name in ("adv_inception_v3", "inception_v3")
}
"""(model, dtype) pairs whose eager output is all NaN, with the reason."""


def build(name: str, dtype: Any = None) -> tuple[Any, dict[str, Any]]:
    """`name`'s model (eval mode, weights drawn after seeding torch, cast to
    `dtype` when given) and its input `{"x": images}`: `BATCH` images at
    the model's own input size, drawn after the weights."""
    import timm
    import torch

    model = seeded(lambda: timm.create_model(name, pretrained=False))
    channels, height, width = model.pretrained_cfg["input_size"]
    images = torch.randn(BATCH, channels, height, width)
    if dtype is not None:
        model, images = model.to(dtype), images.to(dtype)
    return model, {"x": images}


__all__ = ["BATCH", "OVERFLOWS", "SUITE", "TRAINED", "build"]
