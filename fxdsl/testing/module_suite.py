"""PyTorch's ModuleInfo database (`torch.testing._internal.common_modules.
module_db`: every `torch.nn` module with the constructor arguments and
inputs PyTorch's own module tests use) through `torch.compile(backend=
"fxdsl")` on the CPU, checked as `hf_suite.compile_and_check` checks a
model: outputs (and, in training, the loss and every gradient) by the
dynamo runner's `same` against the module in float64, operators counted
from the backend's plans.

Each sample becomes a model whose floating inputs are parameters
(`SampleModel`), so a training step compares the inputs' gradients too:
for a pool or a padding, those are the only gradients there are.

    python -m fxdsl.testing.module_suite [--dtype bfloat16] [--train]
        [--modules nn_MaxPool2d,nn_LSTM] [--samples 2]

prints one line per module: `ok`, or what ran in torch, or `WRONG`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from fxdsl.testing.hf_suite import Outcome, compile_and_check

SAMPLES = 2
"""Samples per module: the first ones of its `module_inputs_func`."""

TOLERANCE = {"float32": 1e-3, "bfloat16": 1e-2, "float16": 1e-2}
"""`same`'s tol per dtype (the dynamo runner's: 1e-3, 1e-2 for 16 bits)."""


def module_db() -> list[Any]:
    from torch.testing._internal.common_modules import module_db as db

    return list(db)


@dataclass(frozen=True)
class _Slot:
    """Where a sample's i-th input tensor goes in its arguments."""

    i: int


def _sample_model_class() -> Any:
    import torch
    import torch.utils._pytree as pytree

    class SampleModel(torch.nn.Module):
        """`module(*args, **kwargs)` of one sample with no inputs of its
        own: the tensors the sample differentiates are parameters (their
        gradients compared), the other tensors buffers, the rest constants."""

        def __init__(self, module: Any, args: Any, kwargs: Any) -> None:
            super().__init__()
            self.module = module
            leaves, spec = pytree.tree_flatten((args, kwargs))
            for i, leaf in enumerate(leaves):
                if not isinstance(leaf, torch.Tensor):
                    continue
                if leaf.requires_grad:  # what the sample differentiates
                    parameter = torch.nn.Parameter(leaf.detach().clone())
                    self.register_parameter(f"input_{i}", parameter)
                else:
                    self.register_buffer(f"input_{i}", leaf.detach().clone())
                leaves[i] = _Slot(i)
            # the inputs' structure with slots (a TreeSpec would warn on
            # every deepcopy)
            self.template = pytree.tree_unflatten(leaves, spec)

        def forward(self) -> Any:
            args, kwargs = pytree.tree_map(
                lambda x: getattr(self, f"input_{x.i}") if isinstance(x, _Slot) else x,
                self.template,
            )
            return self.module(*args, **kwargs)

    return SampleModel


@dataclass
class Sample:
    label: str
    model: Any


def samples(
    info: Any, dtype: str, train: bool, limit: int = SAMPLES
) -> Iterator[Sample]:
    """The first `limit` samples of a ModuleInfo that eager runs."""
    import torch

    torch_dtype = getattr(torch, dtype)
    inputs = info.module_inputs_func(
        info, device="cpu", dtype=torch_dtype, requires_grad=train, training=train
    )
    model_class = _sample_model_class()
    given = 0
    for k, sample in enumerate(inputs):
        if given == limit:
            return
        if sample.forward_input is None:
            continue
        torch.manual_seed(0)
        constructor = sample.constructor_input
        try:
            module = info.module_cls(*constructor.args, **constructor.kwargs)
            module = module.to(torch_dtype).train(train)
            forward = sample.forward_input
            model = model_class(module, forward.args, forward.kwargs).train(train)
            with torch.no_grad():
                # eager must run it (some samples raise); a lazy module
                # takes its shapes (and draws its weights) here, once
                model()
        except Exception:  # noqa: BLE001 - a sample eager refuses is not ours
            continue
        given += 1
        yield Sample(f"{info.formatted_name}[{k}]", model)


def check_module(
    info: Any, dtype: str = "float32", train: bool = False, limit: int = SAMPLES
) -> tuple[str, Outcome | None]:
    """(verdict, the last sample's outcome): "ok", "partial: ..." (what ran
    in torch), "WRONG <sample>", "CRASH <sample>: ...", or "no sample"."""
    last = None
    verdicts = []
    for sample in samples(info, dtype, train, limit):
        try:
            outcome = compile_and_check(
                sample.model, {}, tol=TOLERANCE[dtype], train=train, equal_nan=True
            )
        except Exception as error:  # noqa: BLE001 - reported, not raised
            first = str(error).splitlines()[0] if str(error) else ""
            return f"CRASH {sample.label}: {type(error).__name__}: {first}", None
        last = outcome
        if not outcome.accurate and not outcome.draws:
            return f"WRONG {sample.label}", outcome
        if outcome.compiled < outcome.total:
            verdicts.append(f"partial: {outcome.summary()}")
    if last is None:
        return "no sample", None
    return (verdicts[0] if verdicts else "ok"), last


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fxdsl.testing.module_suite")
    parser.add_argument("--dtype", default="float32", choices=sorted(TOLERANCE))
    parser.add_argument("--train", action="store_true", help="one training step")
    parser.add_argument("--modules", help="comma-separated names (nn_LSTM, ...)")
    parser.add_argument("--samples", type=int, default=SAMPLES)
    args = parser.parse_args(argv)
    chosen = set(args.modules.split(",")) if args.modules else None
    bad = 0
    for info in module_db():
        if chosen is not None and info.formatted_name not in chosen:
            continue
        verdict, _ = check_module(info, args.dtype, args.train, args.samples)
        bad += verdict != "ok"
        print(f"{info.formatted_name:32} {verdict}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
