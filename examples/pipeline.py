"""The main job: a GPT-2 stack through every stage fxdsl has, checked.

    python examples/pipeline.py [--blocks 12] [--seq 64] [--backend auto]
        [--source auto|hf|traced]

1. the model: Hugging Face's `GPT2LMHeadModel` (GPT-2 124M's config with N
   layers, random weights) exported by torch.export and imported
   (`--source hf`, the default when torch and transformers are installed),
   or N GPT-2 blocks (B=1, T, D=768, 12 heads) traced with module scopes
   (`--source traced`);
2. graph-dedup: the N identical blocks become one function and N calls;
3. graph-decompose, graph-fuse: linear -> matmul + bias, fusion groups;
4. run the compiled program (CUDA when it can run here, else the numpy
   reference) and compare with the unoptimised program: torch eager for the
   imported model, the reference for the traced one.

Prints one line per stage (ops, functions, calls, groups, time) and exits 1
if the numbers differ beyond f32 tolerance.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time

import numpy as np
from xdsl.dialects import func

import fxdsl
from fxdsl.frontends import models
from fxdsl.ir.graph import FusionGroupOp
from fxdsl.runtime.compile import BackendUnavailable


def census(module: object) -> str:
    ops = list(module.walk())  # type: ignore[attr-defined]
    funcs = sum(isinstance(op, func.FuncOp) for op in ops)
    calls = sum(isinstance(op, func.CallOp) for op in ops)
    groups = sum(isinstance(op, FusionGroupOp) for op in ops)
    graph_ops = sum(op.name.startswith("graph.") for op in ops)
    return f"{graph_ops} graph ops, {funcs} funcs, {calls} calls, {groups} groups"


def stage(label: str, start: float, module: object) -> None:
    print(f"{label:<28} {time.perf_counter() - start:7.3f} s   {census(module)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=12)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--source", choices=("auto", "hf", "traced"), default="auto")
    args = parser.parse_args(argv)

    source = args.source
    if source == "auto":
        source = "hf" if importlib.util.find_spec("transformers") else "traced"
    start = time.perf_counter()
    if source == "hf":
        traced, inputs, want = hf_gpt2(args.blocks, args.seq)
        stage(f"import HF GPT-2, {args.blocks} layers", start, traced)
    else:
        traced = models.gpt2_stack(args.blocks, T=args.seq)
        stage(f"trace {args.blocks} GPT-2 blocks", start, traced)
        inputs = models.example_inputs(traced, seed=0)
        (want,) = fxdsl.run(traced, *inputs)

    module = traced.clone()
    start = time.perf_counter()
    fxdsl.apply(module, "graph-dedup")
    stage("graph-dedup", start, module)

    start = time.perf_counter()
    fxdsl.apply(module, "graph-decompose,graph-fuse,cse,dce")
    stage("graph-decompose,graph-fuse", start, module)

    backend = args.backend
    try:
        compiled = fxdsl.compile(module, backend="cuda" if backend != "cpu" else "cpu")
        backend = "cuda" if backend != "cpu" else "cpu"
    except BackendUnavailable as error:
        if backend == "cuda":
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(f"note: running on the cpu reference ({error})")
        compiled, backend = fxdsl.compile(module, backend="cpu", pipeline=""), "cpu"

    start = time.perf_counter()
    (got,) = compiled(*inputs)
    got = np.asarray(got.get() if hasattr(got, "get") else got)
    print(f"run ({backend})                  {time.perf_counter() - start:7.3f} s")
    diff = float(np.max(np.abs(got - want)))
    ok = np.allclose(got, want, rtol=1e-4, atol=1e-4)
    baseline = "torch eager" if source == "hf" else "traced"
    print(
        f"max |optimised - {baseline}| = {diff:.3e} over {got.size} values: "
        f"{'ok' if ok else 'MISMATCH'}"
    )
    return 0 if ok else 1


def hf_gpt2(layers: int, seq: int) -> tuple[object, list[np.ndarray], np.ndarray]:
    """GPT-2 124M's architecture with `layers` layers and random weights,
    imported; its inputs (weights, then token ids) and torch's logits."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=layers, n_positions=max(seq, 64))
    model = GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, config.vocab_size, (1, seq))
    program = fxdsl.from_torch(model, (ids,), {"use_cache": False})
    with torch.no_grad():
        logits = model(ids, use_cache=False).logits.numpy()
    return program.module, [*program.weights, ids.numpy()], logits


if __name__ == "__main__":
    sys.exit(main())
