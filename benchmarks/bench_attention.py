"""The fused attention kernel against the unfused path, and its tuning knobs.

    python benchmarks/bench_attention.py [--batch 8] [--seq 512] [--runs 30] [--bias]
    python benchmarks/bench_attention.py --lower-only     # no GPU: lower each config

GPT-2's attention alone (D=768, 12 heads, causal): the input is the qkv
projection's output (B, T, 3D), the result the merged heads (B, T, D), so
the views are the ones the block has. Side by side, in one process, CUDA
events after warm-up with the L2 flushed (`fxdsl.bench.timing`):

* `unfused`: the pipeline without `graph-fuse-attention` (cuBLAS q kᵀ, a
  softmax kernel, cuBLAS P v, plus the transposes and the head merge);
* `fused b=<threads> k=<keys>`: the `graph.attention` kernel with
  `attention_kernel.BLOCK` threads per block and `KEYS_PER_STEP` keys per
  loop step (every configuration is checked against the reference first);
  `min<M>`: with `MIN_BLOCKS_PER_SM = M` (`__launch_bounds__`);
* with `--bias`, the attention of `qkv + b` (GPT-2's projection bias):
  the fused rows fold the bias into the kernel (`fold-bias`, the default),
  `fused unfolded` adds it in a kernel of its own first;
* `torch sdpa`: `torch.nn.functional.scaled_dot_product_attention` on the
  same views, when torch is importable.

Not a timed test: it prints a table for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from typing import Any

import numpy as np

import fxdsl
from fxdsl.bench.variants import without_pass
from fxdsl.frontends.models import causal_attention
from fxdsl.interpreters.run import run_reference
from fxdsl.lowering import attention_kernel
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.tracing.tracer import trace

D, HEADS = 768, 12
BLOCKS = (32, 64, 128)
KEYS = (2, 4, 8)
MIN_BLOCKS = (6,)
"""`MIN_BLOCKS_PER_SM` values tried at the default BLOCK and KEYS_PER_STEP."""

Knobs = tuple[int, int, "int | None"]
"""(BLOCK, KEYS_PER_STEP, MIN_BLOCKS_PER_SM) of `attention_kernel`."""


def attention_module(batch: int, seq: int, bias: bool = False) -> Any:
    """GPT-2's attention from the qkv buffer (plus its bias) to the merged heads."""
    qkv = np.zeros((batch, seq, 3 * D), np.float32)
    if not bias:
        return trace(lambda x: causal_attention(x, HEADS), qkv, name="attention")
    b = np.zeros(3 * D, np.float32)
    return trace(lambda x, c: causal_attention(x + c, HEADS), qkv, b, name="attention")


def configurations(bias: bool = False) -> list[tuple[str, str, Knobs]]:
    """(name, pipeline, knobs) of every fxdsl variant."""
    fused = GPU_PIPELINE.replace(
        "graph-fuse-attention", "graph-fuse-attention{min-rows=1}"
    )
    unfused = without_pass(GPU_PIPELINE, "graph-fuse-attention")
    default = attention_kernel.BLOCK, attention_kernel.KEYS_PER_STEP
    rows: list[tuple[str, str, Knobs]] = [("unfused", unfused, (*default, None))]
    for block, keys in itertools.product(BLOCKS, KEYS):
        rows.append((f"fused b={block} k={keys}", fused, (block, keys, None)))
    for m in MIN_BLOCKS:
        name = f"fused b={default[0]} k={default[1]} min{m}"
        rows.append((name, fused, (*default, m)))
    if bias:
        unfolded = fused.replace("{min-rows=1}", "{min-rows=1 fold-bias=false}")
        rows.append(("fused unfolded", unfolded, (*default, None)))
    return rows


def _with_knobs(knobs: Knobs, make: Any) -> Any:
    names = ("BLOCK", "KEYS_PER_STEP", "MIN_BLOCKS_PER_SM")
    saved = [getattr(attention_kernel, name) for name in names]
    for name, value in zip(names, knobs):
        setattr(attention_kernel, name, value)
    try:
        return make()
    finally:
        for name, value in zip(names, saved):
            setattr(attention_kernel, name, value)


def lower_only(module: Any, bias: bool) -> int:
    from fxdsl.pipeline.lower import lower_for_cuda

    from fxdsl.lowering.launch_plan import Launch

    for name, pipeline, knobs in configurations(bias):
        _, plan = _with_knobs(knobs, lambda p=pipeline: lower_for_cuda(module, p))
        launches = [s for s in plan.steps if isinstance(s, Launch)]
        attention = [s for s in launches if s.kernel.endswith("_attention")]
        shape = (
            f"grid {attention[0].grid[0]} x {attention[0].block[0]}"
            if attention
            else "-"
        )
        print(
            f"{name:24} {len(plan.steps):3} steps  {len(launches):3} launches  {shape}"
        )
    return 0


def run(
    module: Any, inputs: list[np.ndarray], runs: int, warmup: int, bias: bool
) -> int:
    from fxdsl.bench.timing import CudaDevice, summarize

    device = CudaDevice()
    (expected,) = run_reference(module, *inputs)
    args = [device.to_device(a) for a in inputs]
    rows: list[tuple[str, float]] = []
    for name, pipeline, knobs in configurations(bias):
        fn = _with_knobs(
            knobs, lambda p=pipeline: fxdsl.compile(module, backend="cuda", pipeline=p)
        )
        (got,) = fn(*args)
        error = float(np.max(np.abs(device.to_host(got) - expected)))
        if not error <= 1e-4:
            print(f"{name}: WRONG, max abs error {error:.3g}")
            continue
        rows.append(
            (
                name,
                summarize(device.time(lambda f=fn: f(*args), runs, warmup)).median_ms,
            )
        )
    torch_row = _torch_sdpa(device, inputs, expected, runs, warmup)
    if torch_row is not None:
        rows.append(torch_row)
    base = rows[0][1] if rows and rows[0][0] == "unfused" else None
    print(f"{'variant':24} {'median ms':>10} {'x unfused':>10}")
    for name, ms in rows:
        ratio = f"{ms / base:10.2f}" if base else ""
        print(f"{name:24} {ms:10.4f} {ratio}")
    return 0


def _torch_sdpa(
    device: Any, inputs: list[np.ndarray], expected: np.ndarray, runs: int, warmup: int
) -> Any:
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    from fxdsl.bench.timing import summarize, time_events, torch_events

    qkv, *bias = (torch.from_numpy(a).cuda() for a in inputs)
    batch, seq, _ = qkv.shape

    def fn() -> Any:
        x = qkv + bias[0] if bias else qkv
        q, k, v = (
            t.view(batch, seq, HEADS, D // HEADS).transpose(1, 2)
            for t in x.split(D, -1)
        )
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return out.transpose(1, 2).reshape(batch, seq, D)

    (out,) = [fn().cpu().numpy()]
    error = float(np.max(np.abs(out - expected)))
    if not error <= 1e-4:
        print(f"torch sdpa: max abs error {error:.3g} (TF32?)")
    times = time_events(fn, torch_events(device), runs, warmup)
    return "torch sdpa", summarize(times).median_ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument(
        "--bias", action="store_true", help="the attention of qkv + b (bias fold)"
    )
    parser.add_argument(
        "--lower-only", action="store_true", help="no GPU: lower each config"
    )
    args = parser.parse_args(argv)
    module = attention_module(args.batch, args.seq, args.bias)
    if args.lower_only:
        return lower_only(module, args.bias)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((args.batch, args.seq, 3 * D)).astype(np.float32)]
    if args.bias:
        inputs.append(rng.standard_normal(3 * D).astype(np.float32))
    return run(module, inputs, args.runs, args.warmup, args.bias)


if __name__ == "__main__":
    sys.exit(main())
