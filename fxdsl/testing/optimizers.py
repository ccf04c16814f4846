"""What the optimizer tests compare: a small seeded MLP stepped three
times by an optimizer, eager or with `optimizer.step` compiled by the fxdsl
backend, and the backend's plans of those steps counted."""

from __future__ import annotations

from typing import Any

from fxdsl.testing.hf_suite import Outcome, counting_plans

STEPS = 3


def mlp() -> Any:
    """Linear, tanh, linear (6 -> 5 -> 3), its weights drawn from seed 0."""
    import torch

    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3)
    )


def stepped(model: Any, optimizer: Any, compiled: bool) -> tuple[list[Any], Outcome]:
    """`model`'s parameters after `STEPS` steps of `optimizer` on a fixed
    batch (the loss: the squared outputs, summed), and the plans counted."""
    import torch

    step = optimizer.step
    if compiled:
        step = torch.compile(optimizer.step, backend="fxdsl")
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(1))
    outcome = Outcome()
    with counting_plans(outcome):
        for _ in range(STEPS):
            optimizer.zero_grad()
            model(x).pow(2).sum().backward()
            step()
    return [p.detach().clone() for p in model.parameters()], outcome
