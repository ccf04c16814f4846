"""Pipelines on paper: the cost model's stage times and bubbles for GPT-2.

    python -m fxdsl.distributed.scale          # the table in docs/distributed.md

`gpt2_lm` traces a whole GPT-2 language model (token and position
embeddings, the blocks of `fxdsl.frontends.models`, the final layer norm and
the lm_head tied to the token embedding) with fxdsl's tracer, attention
fused into `graph.attention` as the import of HF's model gives it: only
types, no weights, so GPT-2 1.5B costs nothing to build. `pipeline_table` plans it
with `graph-pipeline-stages` and reports, per stage count, the predicted
slowest stage and the bubble of a GPipe/1F1B step (`bubble_fraction`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from fxdsl.api import apply
from fxdsl.frontends.models import (
    _BLOCK_PARAMS,  # pyright: ignore[reportPrivateUsage]
    LN_EPS,
    PARAMS_PER_BLOCK,
    _block,  # pyright: ignore[reportPrivateUsage]
    gpt2_specs,
)
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor, TensorSpec, scope, trace
from fxdsl.transforms.graph_pipeline_stages import StagePlan, plan_stages


@dataclass(frozen=True)
class GPT2Config:
    name: str
    layers: int
    width: int
    heads: int
    vocab: int = 50257
    positions: int = 1024


GPT2_124M = GPT2Config("GPT-2 124M", 12, 768, 12)
GPT2_1_5B = GPT2Config("GPT-2 1.5B", 48, 1600, 25)


def gpt2_lm(config: GPT2Config, batch: int = 1, length: int = 1024) -> ModuleOp:
    """GPT-2 with HF's module names: input ids (batch, length) -> logits."""
    D, V = config.width, config.vocab
    specs = [
        TensorSpec((batch, length), "i64", name="input_ids"),
        TensorSpec((V, D), param="transformer.wte.weight"),
        TensorSpec((config.positions, D), param="transformer.wpe.weight"),
        *gpt2_specs(config.layers, batch, length, D)[1:],
    ]

    def model(ids: Tensor, wte: Tensor, wpe: Tensor, *weights: Tensor) -> Tensor:
        with scope("transformer", "GPT2Model"):
            with scope("transformer.wte", "Embedding"):
                x = ops.embedding(ids, wte)
            with scope("transformer.wpe", "Embedding"):
                positions = ops.constant(np.arange(length, dtype=np.int64))
                x = x + ops.embedding(positions.reshape((1, length)), wpe)
            for i in range(config.layers):
                chunk = weights[i * PARAMS_PER_BLOCK : (i + 1) * PARAMS_PER_BLOCK]
                params = {s: w for (s, _), w in zip(_BLOCK_PARAMS, chunk)}
                x = _block(x, params, f"transformer.h.{i}", config.heads)
            with scope("transformer.ln_f", "LayerNorm"):
                x = ops.layer_norm(x, weights[-2], weights[-1], LN_EPS)
        with scope("lm_head", "Linear"):
            return ops.linear(x, wte)

    module = trace(model, *specs, name="forward")
    # one `graph.attention` a layer, as the torch.export import gives (SDPA)
    return apply(module, "graph-fuse-attention{min-rows=1}")


def bubble_fraction(times: Sequence[float], microbatches: int) -> float:
    """Idle share of a forward-only GPipe/1F1B step on len(times) devices:
    the first micro-batch fills the pipe (sum of the stage times), then the
    slowest stage paces the other m - 1; each device is busy m * its time.
    (p - 1) / (m + p - 1) for equal stages."""
    step = sum(times) + (microbatches - 1) * max(times)
    return 1.0 - microbatches * sum(times) / (len(times) * step)


def plans(
    config: GPT2Config, stage_counts: Sequence[int], device: str = "h100"
) -> dict[int, StagePlan]:
    """The plan of `config` (one sequence of 1024 tokens a micro-batch) at
    each stage count."""
    module = gpt2_lm(config)
    function = next(f for f in module.ops if isinstance(f, func.FuncOp))
    return {n: plan_stages(function, n, device=device) for n in stage_counts}


def pipeline_table(
    configs: Sequence[GPT2Config] = (GPT2_124M, GPT2_1_5B),
    stage_counts: Sequence[int] = (2, 4, 8),
    microbatches: Sequence[int] = (8, 32),
    device: str = "h100",
) -> str:
    """A Markdown table: per model and stage count, the predicted whole
    forward, slowest and mean stage per micro-batch, balance, and bubble."""
    columns = ["model", "stages", "forward (ms)", "max stage (ms)"]
    columns += ["mean stage (ms)", "max/mean", *(f"bubble m={m}" for m in microbatches)]
    head = "| " + " | ".join(columns) + " |"
    rows = [head, "|" + "---|" * (6 + len(microbatches))]
    for config in configs:
        for n, plan in plans(config, stage_counts, device).items():
            times = plan.times
            cells = [
                config.name,
                str(n),
                f"{sum(plan.compute) * 1e3:.3f}",
                f"{max(times) * 1e3:.3f}",
                f"{sum(times) / n * 1e3:.3f}",
                f"{plan.balance:.3f}",
                *(f"{bubble_fraction(times, m):.1%}" for m in microbatches),
            ]
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.stdout.write(pipeline_table() + "\n")
