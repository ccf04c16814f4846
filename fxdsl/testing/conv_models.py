"""Convolutional models for the importer's tests: torchvision's ResNet-18
and MobileNetV3-Small, HF's ViT and the Whisper encoder.

torchvision cannot be installed beside this project's CPU torch (the
registry's wheel is a CUDA build whose native library does not load with
it, and a broken torchvision breaks `transformers` too), so the two
torchvision architectures are written here from their published structure:
the same module names (`conv1`, `bn1`, `layer1.0.downsample.0`,
`features.4.block.2.fc1`, `classifier.3`...), layer order, channel counts,
strides and hyper-parameters (MobileNetV3's batch-norm eps 1e-3,
squeeze-excite widths rounded to multiples of 8), so that `torch.export`
gives the graph torchvision's models give (ResNet-18: 20 `conv2d`, one
`max_pool2d`; MobileNetV3-Small: 52 `conv2d`). They are checked against
that structure, not against torchvision's code; nothing is copied from it.

Each builder returns `(model, args, kwargs)` like `fxdsl.testing.
torch_models`: eval mode, seeded random weights, and batch-norm running
statistics and affine parameters drawn at random too (the defaults, mean 0
and variance 1, would hide a wrong batch norm).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fxdsl.testing.torch_models import (
    SPECIAL_TOKENS,
    TINY_LAYERS,
    Example,
    seeded,
)


def _randomise_batch_norms(model: Any) -> Any:
    import torch

    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            channels = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(channels) * 0.1)
                module.running_var.copy_(torch.rand(channels) + 0.5)
                module.weight.copy_(torch.rand(channels) + 0.5)
                module.bias.copy_(torch.randn(channels) * 0.1)
    return model


def _resnet_classes() -> tuple[type[Any], type[Any]]:
    import torch
    from torch import nn

    class BasicBlock(nn.Module):
        """Two 3x3 conv + batch norm, ReLU between, the input (projected
        by a strided 1x1 conv + batch norm when the shape changes) added
        before the last ReLU."""

        expansion = 1

        def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample: nn.Module | None = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(
                    nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                    nn.BatchNorm2d(planes),
                )
            self.stride = stride

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        """Stem (7x7/2 conv, batch norm, ReLU, 3x3/2 max pool), four stages
        of blocks (64, 128, 256, 512 channels; the last three start with
        stride 2), global average pool, linear classifier."""

        def __init__(self, layers: list[int], num_classes: int = 1000) -> None:
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._make_layer(64, layers[0])
            self.layer2 = self._make_layer(128, layers[1], 2)
            self.layer3 = self._make_layer(256, layers[2], 2)
            self.layer4 = self._make_layer(512, layers[3], 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(
                        m.weight, mode="fan_out", nonlinearity="relu"
                    )

        def _make_layer(
            self, planes: int, blocks: int, stride: int = 1
        ) -> nn.Sequential:
            layers = [BasicBlock(self.inplanes, planes, stride)]
            self.inplanes = planes
            layers += [BasicBlock(planes, planes) for _ in range(1, blocks)]
            return nn.Sequential(*layers)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return BasicBlock, ResNet


def resnet18(batch: int = 1, size: int = 64, num_classes: int = 1000) -> Example:
    """torchvision's `resnet18(weights=None)`: BasicBlocks [2, 2, 2, 2]."""
    import torch

    _, resnet = _resnet_classes()
    model = seeded(lambda: resnet([2, 2, 2, 2], num_classes))
    return _randomise_batch_norms(model), (torch.randn(batch, 3, size, size),), {}


def make_divisible(value: float, divisor: int = 8) -> int:
    """Round a channel count to a multiple of `divisor`, never more than 10%
    down (MobileNet's rule for widths)."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def _mobilenet_classes() -> tuple[type[Any], ...]:
    import torch
    from torch import nn

    def norm(channels: int) -> nn.Module:
        return nn.BatchNorm2d(channels, eps=0.001, momentum=0.01)

    class Conv2dNormActivation(nn.Sequential):
        """conv (no bias, "same" padding) -> batch norm -> activation."""

        def __init__(
            self,
            in_channels: int,
            out_channels: int,
            kernel_size: int = 3,
            stride: int = 1,
            groups: int = 1,
            activation: Callable[[], nn.Module] | None = nn.ReLU,
            dilation: int = 1,
        ) -> None:
            padding = (kernel_size - 1) // 2 * dilation
            layers = [
                nn.Conv2d(
                    in_channels,
                    out_channels,
                    kernel_size,
                    stride,
                    padding,
                    dilation=dilation,
                    groups=groups,
                    bias=False,
                ),
                norm(out_channels),
            ]
            if activation is not None:
                layers.append(activation())
            super().__init__(*layers)

    class SqueezeExcitation(nn.Module):
        """x * hardsigmoid(fc2(relu(fc1(mean over H, W of x)))), the fcs 1x1
        convs with bias."""

        def __init__(self, input_channels: int, squeeze_channels: int) -> None:
            super().__init__()
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
            self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
            self.activation = nn.ReLU()
            self.scale_activation = nn.Hardsigmoid()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            scale = self.activation(self.fc1(self.avgpool(x)))
            return self.scale_activation(self.fc2(scale)) * x

    class InvertedResidual(nn.Module):
        """1x1 expand (when wider), depthwise kxk, optional squeeze-excite,
        1x1 project without activation; the input added when the shape
        stays."""

        def __init__(
            self,
            input_c: int,
            kernel: int,
            expanded_c: int,
            out_c: int,
            use_se: bool,
            hardswish: bool,
            stride: int,
        ) -> None:
            super().__init__()
            self.use_res_connect = stride == 1 and input_c == out_c
            activation = nn.Hardswish if hardswish else nn.ReLU
            layers: list[nn.Module] = []
            if expanded_c != input_c:
                layers.append(
                    Conv2dNormActivation(input_c, expanded_c, 1, activation=activation)
                )
            layers.append(
                Conv2dNormActivation(
                    expanded_c, expanded_c, kernel, stride, expanded_c, activation
                )
            )
            if use_se:
                squeeze = make_divisible(expanded_c // 4, 8)
                layers.append(SqueezeExcitation(expanded_c, squeeze))
            layers.append(Conv2dNormActivation(expanded_c, out_c, 1, activation=None))
            self.block = nn.Sequential(*layers)
            self.out_channels = out_c

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            result = self.block(x)
            return result + x if self.use_res_connect else result

    class MobileNetV3(nn.Module):
        """Stem conv, inverted-residual blocks, 1x1 conv to 6x the last
        width, global average pool, classifier (linear, hardswish,
        dropout, linear)."""

        def __init__(
            self,
            settings: list[tuple[int, int, int, int, bool, bool, int]],
            last_channel: int,
            num_classes: int = 1000,
        ) -> None:
            super().__init__()
            first, last = settings[0][0], settings[-1][3]
            layers: list[nn.Module] = [
                Conv2dNormActivation(3, first, 3, 2, activation=nn.Hardswish)
            ]
            layers += [InvertedResidual(*setting) for setting in settings]
            layers.append(
                Conv2dNormActivation(last, 6 * last, 1, activation=nn.Hardswish)
            )
            self.features = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.classifier = nn.Sequential(
                nn.Linear(6 * last, last_channel),
                nn.Hardswish(inplace=True),
                nn.Dropout(p=0.2, inplace=True),
                nn.Linear(last_channel, num_classes),
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = torch.flatten(self.avgpool(self.features(x)), 1)
            return self.classifier(x)

    return Conv2dNormActivation, SqueezeExcitation, InvertedResidual, MobileNetV3


MOBILENET_V3_SMALL: list[tuple[int, int, int, int, bool, bool, int]] = [
    # input, kernel, expanded, output, squeeze-excite, hardswish, stride
    (16, 3, 16, 16, True, False, 2),
    (16, 3, 72, 24, False, False, 2),
    (24, 3, 88, 24, False, False, 1),
    (24, 5, 96, 40, True, True, 2),
    (40, 5, 240, 40, True, True, 1),
    (40, 5, 240, 40, True, True, 1),
    (40, 5, 120, 48, True, True, 1),
    (48, 5, 144, 48, True, True, 1),
    (48, 5, 288, 96, True, True, 2),
    (96, 5, 576, 96, True, True, 1),
    (96, 5, 576, 96, True, True, 1),
]
"""torchvision's MobileNetV3-Small blocks at width 1.0 (no dilation)."""


def mobilenet_v3_small(
    batch: int = 1, size: int = 64, num_classes: int = 1000
) -> Example:
    """torchvision's `mobilenet_v3_small(weights=None)`."""
    import torch

    *_, mobilenet = _mobilenet_classes()
    model = seeded(lambda: mobilenet(MOBILENET_V3_SMALL, 1024, num_classes))
    return _randomise_batch_norms(model), (torch.randn(batch, 3, size, size),), {}


def vit(batch: int = 1) -> Example:
    """HF `ViTModel` (patch embedding: a stride = kernel conv2d; pooler on)."""
    import torch
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(image_size=32, patch_size=8, num_channels=3, **TINY_LAYERS)
    return seeded(lambda: ViTModel(config)), (torch.randn(batch, 3, 32, 32),), {}


def whisper_encoder(batch: int = 1) -> Example:
    """HF Whisper's encoder (`WhisperEncoder`, what `WhisperModel.encoder`
    is): two conv1d (the second strided) with GELU, positions, transformer
    layers."""
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    config = WhisperConfig(
        vocab_size=128,
        d_model=32,
        encoder_layers=2,
        encoder_attention_heads=4,
        encoder_ffn_dim=64,
        **SPECIAL_TOKENS,
        decoder_start_token_id=0,
        num_mel_bins=16,
        max_source_positions=16,
        max_target_positions=16,
    )
    # the encoder takes exactly 2 * max_source_positions frames
    return seeded(lambda: WhisperEncoder(config)), (torch.randn(batch, 16, 32),), {}


CONV_MODELS: dict[str, Callable[..., Example]] = {
    "resnet18": resnet18,
    "mobilenet_v3_small": mobilenet_v3_small,
    "vit": vit,
    "whisper_encoder": whisper_encoder,
}
"""The conv-net issue's model list, by name."""
