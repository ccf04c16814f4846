"""Small models of the architecture families in PyTorch's TorchBench that
neither the Hugging Face, TIMM nor torchvision suites cover, written here
(TorchBench's own code needs its repository and weights): a recommender
with embedding bags (DLRM), a flow warp (Super SloMo), a graph attention
layer (PyG-style scatter ops), an image-to-image GAN generator (pix2pix:
reflection pads, instance norm, transposed convs), a YOLO head, a U-Net,
a soft actor-critic policy, a float64 ocean-model kernel (pyhpc: in-place
slice updates), quantization-aware training (fused observers and fake
quantization), an audio separator's conv front end (Demucs), attention
with decomposed relative positions (SAM's image encoder), a Stable
Diffusion-style block (group norm, SiLU, cross-attention), per-sample
gradients with `torch.func` (Opacus-style DP training), and a SELU
autoencoder (NVIDIA's DeepRecommender).

`MODELS` maps a name to a function returning `(model, inputs)`; each is
checked by `hf_suite.compile_and_check`, in inference and (where it
trains) one training step: `TRAINS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _torch() -> Any:
    import torch

    return torch


def dlrm() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn

    class Dlrm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tables = nn.ModuleList(
                nn.EmbeddingBag(50, 8, mode="sum") for _ in range(3)
            )
            self.bottom = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
            self.top = nn.Sequential(nn.Linear(8 + 6, 8), nn.ReLU(), nn.Linear(8, 1))

        def forward(self, dense: Any, indices: Any, offsets: Any) -> Any:
            x = self.bottom(dense)
            bags = [t(indices[i], offsets[i]) for i, t in enumerate(self.tables)]
            features = torch.stack([x, *bags], 1)
            dots = features @ features.transpose(1, 2)
            rows, cols = torch.tril_indices(4, 4, offset=-1)
            return torch.sigmoid(self.top(torch.cat([x, dots[:, rows, cols]], 1)))

    inputs = dict(
        dense=torch.randn(4, 4),
        indices=torch.randint(0, 50, (3, 12)),
        offsets=torch.tensor([[0, 3, 6, 9]] * 3),
    )
    return Dlrm(), inputs


def flow_warp() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    F = torch.nn.functional

    class Warp(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.flow = torch.nn.Conv2d(3, 2, 3, padding=1)

        def forward(self, image: Any) -> Any:
            flow = self.flow(image)
            _, _, h, w = image.shape
            ys, xs = torch.meshgrid(
                torch.arange(h, dtype=image.dtype),
                torch.arange(w, dtype=image.dtype),
                indexing="ij",
            )
            x = 2 * (xs + flow[:, 0]) / (w - 1) - 1
            y = 2 * (ys + flow[:, 1]) / (h - 1) - 1
            return F.grid_sample(image, torch.stack([x, y], -1), align_corners=True)

    return Warp(), dict(image=torch.randn(2, 3, 8, 10))


def graph_attention() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Gat(nn.Module):
        """A GAT layer as PyG computes it: per-edge scores, a softmax over
        each node's incoming edges (scatter max, exp, scatter sum), and
        the messages summed per node; plus a degree-normalised skip."""

        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(8, 8)
            self.score = nn.Linear(16, 1)

        def forward(self, x: Any, edges: Any) -> Any:
            src, dst = edges[0], edges[1]
            h = self.linear(x)
            e = F.leaky_relu(
                self.score(torch.cat([h[src], h[dst]], -1)).squeeze(-1), 0.2
            )
            nodes = x.shape[0]
            top = torch.full((nodes,), float("-inf")).scatter_reduce(0, dst, e, "amax")
            e = (e - top[dst]).exp()
            total = torch.zeros(nodes).index_add(0, dst, e)
            share = e / total[dst]
            out = torch.zeros_like(h).index_add(0, dst, h[src] * share[:, None])
            degree = torch.zeros(nodes).scatter_add(0, dst, torch.ones_like(e))
            mean = torch.zeros_like(h).scatter_reduce(
                0, dst[:, None].expand(-1, 8), h[src], "mean", include_self=False
            )
            return out + mean + h / (degree[:, None] + 1)

    return Gat(), dict(x=torch.randn(10, 8), edges=torch.randint(0, 10, (2, 30)))


def pix2pix() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    generator = nn.Sequential(
        nn.ReflectionPad2d(3),
        nn.Conv2d(3, 8, 7),
        nn.InstanceNorm2d(8),
        nn.ReLU(True),
        nn.Conv2d(8, 16, 3, 2, 1),
        nn.InstanceNorm2d(16, affine=True),
        nn.ReLU(True),
        nn.ConvTranspose2d(16, 8, 3, 2, 1, output_padding=1),
        nn.InstanceNorm2d(8),
        nn.ReLU(True),
        nn.ReplicationPad2d(1),
        nn.Conv2d(8, 3, 3),
        nn.Tanh(),
    )
    return generator, dict(input=torch.randn(2, 3, 16, 16))


def yolo_head() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Yolo(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, 2, 1, bias=False)
            self.norm = nn.BatchNorm2d(8)
            self.head = nn.Conv2d(16, 3 * 7, 1)

        def forward(self, x: Any) -> Any:
            a = F.leaky_relu(self.norm(self.conv(x)), 0.1)
            b = F.interpolate(F.max_pool2d(a, 2), scale_factor=2, mode="nearest")
            p = self.head(torch.cat([a, b], 1))
            n, _, h, w = p.shape
            p = p.view(n, 3, 7, h, w).permute(0, 1, 3, 4, 2).contiguous()
            grid = torch.arange(w).repeat(h, 1).view(1, 1, h, w).float()
            xy = torch.sigmoid(p[..., 0]) + grid
            wh = torch.exp(p[..., 2:4]) * torch.tensor([10.0, 13.0])
            parts = [xy.unsqueeze(-1), p[..., 1:2], wh, torch.sigmoid(p[..., 4:])]
            return torch.cat(parts, -1).view(n, -1, 7)

    return Yolo().eval(), dict(x=torch.randn(2, 3, 16, 16))


def unet() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class UNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.down = nn.Conv2d(3, 8, 3, padding=1)
            self.middle = nn.Conv2d(8, 16, 3, padding=1)
            self.out = nn.Conv2d(24, 2, 1)

        def forward(self, x: Any) -> Any:
            a = F.relu(self.down(x))
            b = F.relu(self.middle(F.max_pool2d(a, 2)))
            b = F.interpolate(b, scale_factor=2, mode="bilinear", align_corners=True)
            missing = a.shape[-1] - b.shape[-1]
            b = F.pad(b, [missing // 2, missing - missing // 2, 0, 0])
            return self.out(torch.cat([a, b], 1))

    return UNet(), dict(x=torch.randn(2, 3, 16, 18))


def soft_actor_critic() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Policy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hidden = nn.Linear(6, 16)
            self.mean = nn.Linear(16, 2)
            self.log_std = nn.Linear(16, 2)

        def forward(self, state: Any, noise: Any) -> Any:
            h = F.relu(self.hidden(state))
            mean = self.mean(h)
            std = self.log_std(h).clamp(-20, 2).exp()
            action = mean + std * noise
            normal = torch.distributions.Normal(mean, std)
            squash = 2 * (
                torch.log(torch.tensor(2.0)) - action - F.softplus(-2 * action)
            )
            return torch.tanh(action), normal.log_prob(action).sum(-1) - squash.sum(-1)

    return Policy(), dict(state=torch.randn(5, 6), noise=torch.randn(5, 2))


def ocean_kernel() -> tuple[Any, dict[str, Any]]:
    torch = _torch()

    class Kernel(torch.nn.Module):
        """pyhpc-style float64 stencil: slices of a zeroed field written in
        place, a where, a boundary copied from its neighbour."""

        def forward(self, u: Any, v: Any, w: Any) -> Any:
            a = torch.zeros_like(u)
            a[1:-1, :, :] = 0.5 * (u[2:, :, :] - u[:-2, :, :]) * v[1:-1]
            a[:, 1:-1, :] += 0.25 * (w[:, 2:, :] + w[:, :-2, :])
            b = torch.where(a > 0, a, -a * 1e-3)
            b[..., 0] = b[..., 1]
            return b.sum(-1), torch.maximum(b, w).mean()

    fields = {k: torch.randn(6, 5, 4, dtype=torch.float64) for k in "uvw"}
    return Kernel(), fields


def qat() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    from torch.ao import quantization

    model = nn.Sequential(
        nn.Conv2d(3, 8, 3),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(288, 4),
    )
    model.qconfig = quantization.get_default_qat_qconfig("fbgemm")
    return quantization.prepare_qat(model.train()), dict(input=torch.rand(2, 3, 8, 8))


def demucs_front() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Front(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encode = nn.Conv1d(2, 16, 8, 4)
            self.gate = nn.Conv1d(16, 32, 1)
            self.decode = nn.ConvTranspose1d(16, 2, 8, 4)

        def forward(self, audio: Any) -> Any:
            h = F.glu(self.gate(F.relu(self.encode(audio))), 1)
            return self.decode(h)

    return Front(), dict(audio=torch.randn(2, 2, 64))


def relative_position_attention() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Attention(nn.Module):
        """SAM's image-encoder attention: decomposed relative positions
        (tables resized with a linear interpolation, gathered by offset,
        einsum'd with the queries) added to the scores."""

        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(16, 48)
            self.rel_h = nn.Parameter(torch.randn(7, 8))
            self.rel_w = nn.Parameter(torch.randn(7, 8))

        def _table(self, size: int, table: Any) -> Any:
            resized = F.interpolate(
                table.reshape(1, table.shape[0], -1).permute(0, 2, 1),
                size=2 * size - 1,
                mode="linear",
            )
            resized = resized.reshape(-1, 2 * size - 1).permute(1, 0)
            offsets = torch.arange(size)[:, None] - torch.arange(size)[None, :]
            return resized[(offsets + size - 1).long()]

        def forward(self, x: Any) -> Any:
            b, h, w, _ = x.shape
            qkv = self.qkv(x).reshape(b, h * w, 3, 2, 8).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.reshape(3, b * 2, h * w, 8).unbind(0)
            scores = (q * 8**-0.5) @ k.transpose(-2, -1)
            rq = q.reshape(b * 2, h, w, 8)
            rh = torch.einsum("bhwc,hkc->bhwk", rq, self._table(h, self.rel_h))
            rw = torch.einsum("bhwc,wkc->bhwk", rq, self._table(w, self.rel_w))
            scores = scores.view(b * 2, h, w, h, w) + rh[..., None] + rw[:, :, :, None]
            scores = scores.view(b * 2, h * w, h * w)
            out = (scores.softmax(-1) @ v).view(b, 2, h, w, 8)
            return out.permute(0, 2, 3, 1, 4).reshape(b, h, w, 16)

    return Attention(), dict(x=torch.randn(2, 4, 4, 16))


def diffusion_block() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.GroupNorm(4, 16)
            self.conv = nn.Conv2d(16, 16, 3, padding=1)
            self.query = nn.Linear(16, 16)
            self.key_value = nn.Linear(12, 32)

        def forward(self, x: Any, context: Any) -> Any:
            h = self.conv(F.silu(self.norm(x))) + x
            n, c, height, width = h.shape
            tokens = h.flatten(2).transpose(1, 2)
            q = self.query(tokens).view(n, -1, 2, 8).transpose(1, 2)
            kv = self.key_value(context).view(n, -1, 2, 16).transpose(1, 2)
            k, v = kv.chunk(2, -1)
            out = F.scaled_dot_product_attention(q, k, v).transpose(1, 2)
            out = out.reshape(n, height * width, c).transpose(1, 2)
            return out.view(n, c, height, width) + h

    return Block(), dict(x=torch.randn(2, 16, 4, 4), context=torch.randn(2, 5, 12))


def per_sample_gradients() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    F = torch.nn.functional

    class PerSample(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(6, 3)

        def forward(self, x: Any, y: Any) -> Any:
            from torch.func import functional_call, grad, vmap

            params = dict(self.linear.named_parameters())

            def loss(p: Any, xi: Any, yi: Any) -> Any:
                logits = functional_call(self.linear, p, (xi[None],))
                return F.cross_entropy(logits, yi[None])

            grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
            return grads["weight"].norm(dim=(1, 2)), grads["bias"]

    return PerSample(), dict(x=torch.randn(5, 6), y=torch.randint(0, 3, (5,)))


def selu_autoencoder() -> tuple[Any, dict[str, Any]]:
    torch = _torch()
    nn = torch.nn
    model = nn.Sequential(nn.Linear(20, 8), nn.SELU(), nn.Linear(8, 20))
    return model, dict(input=torch.randn(4, 20))


MODELS: dict[str, Callable[[], tuple[Any, dict[str, Any]]]] = {
    "dlrm": dlrm,
    "flow_warp": flow_warp,
    "graph_attention": graph_attention,
    "pix2pix": pix2pix,
    "yolo_head": yolo_head,
    "unet": unet,
    "soft_actor_critic": soft_actor_critic,
    "ocean_kernel": ocean_kernel,
    "qat": qat,
    "demucs_front": demucs_front,
    "relative_position_attention": relative_position_attention,
    "diffusion_block": diffusion_block,
    "per_sample_gradients": per_sample_gradients,
    "selu_autoencoder": selu_autoencoder,
}

TRAINS = frozenset(MODELS) - {"ocean_kernel", "per_sample_gradients"}
"""The models checked through a training step too (the ocean kernel has no
parameters; per-sample gradients are themselves the forward's output)."""
