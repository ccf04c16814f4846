"""Where a call through `torch.compile(backend="fxdsl")` spends its host time.

The 2026-11-28 H200 check timed softmax (f32 8192x4096) at 0.069 ms through
fxdsl's executor and 0.371 ms through the backend, the same kernel: the
difference is host time before the launch. This profiles the backend's calls
(cProfile, after warm-up) for a one-operand graph (softmax) and a model with
about 150 weights (HF GPT-2 124M, bf16, B=1, T=64), and prints, per case, the
median wall time per call (device synchronised), the median host time (to
the call's return) and the functions that take the host time. The GPU check
runs it as its `profile` stage; `--dry` runs it on the CPU at tiny sizes.

    python3 benchmarks/profile_backend.py [--dry] [--calls 50]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def softmax_case(device: str, dry: bool) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import torch

    shape = (64, 64) if dry else (8192, 4096)
    x = torch.randn(*shape, device=device)
    return (lambda t: torch.softmax(t, -1)), (x,)


def gpt2_case(device: str, dry: bool) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import torch
    import transformers

    from fxdsl.testing.torch_models import seeded

    sizes = {"n_layer": 1, "n_embd": 32, "n_head": 4, "vocab_size": 128}
    if not dry:
        sizes = {"n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257}
    config = transformers.GPT2Config(**sizes, bos_token_id=0, eos_token_id=0)
    model = seeded(lambda: transformers.GPT2LMHeadModel(config)).eval()
    model = model.to(device, torch.bfloat16)
    x = torch.zeros(1, 8 if dry else 64, sizes["n_embd"], dtype=torch.bfloat16)

    def forward(embeds: Any) -> Any:
        return model(inputs_embeds=embeds, use_cache=False).logits

    return forward, (x.to(device),)


CASES = {"softmax": softmax_case, "gpt2_bf16_b1_t64": gpt2_case}


def profile(name: str, device: str, dry: bool, calls: int, cuda_graph: bool) -> str:
    import torch

    function, args = CASES[name](device, dry)
    torch._dynamo.reset()
    options = {"device": device, "cuda_graph": cuda_graph}
    compiled = torch.compile(function, backend="fxdsl", options=options)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    walls, hosts = [], []
    with torch.no_grad():
        for _ in range(3):
            compiled(*args)
        sync()
        for _ in range(calls):
            start = time.perf_counter()
            compiled(*args)
            hosts.append(time.perf_counter() - start)
            sync()
            walls.append(time.perf_counter() - start)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(calls):
            compiled(*args)
        sync()
        profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(30)
    head = (
        f"## {name} (cuda_graph={cuda_graph}, {device}): "
        f"wall {statistics.median(walls) * 1e3:.3f} ms, "
        f"host {statistics.median(hosts) * 1e3:.3f} ms per call "
        f"(median of {calls}); profile of {calls} calls:\n"
    )
    return head + text.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry", action="store_true", help="CPU, tiny sizes")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args(argv)
    device = "cpu" if args.dry else "cuda"
    for name in args.cases.split(","):
        for graphs in (False, True) if device == "cuda" else (False,):
            print(profile(name, device, args.dry, args.calls, graphs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
