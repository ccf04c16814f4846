"""PyTorch's optimizer test database (`common_optimizers.optim_db`: every
`torch.optim` optimizer with the keyword sets of its own tests: weight
decay, momentum, amsgrad, maximize, capturable, ...) through
`torch.compile(optimizer.step, backend="fxdsl")`, with and without the
`_foreach_` ops: three steps on a small MLP leave the parameters where
eager's do, and every operator of every step compiles. (Fused and
differentiable optimizers are left out: torch.compile itself refuses or
graph-breaks on them, and so are the two whose step needs what a
three-layer MLP cannot give: `OTHER_STEPS`.)"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from torch.testing._internal.common_optimizers import optim_db  # noqa: E402

from fxdsl.testing.hf_suite import Outcome  # noqa: E402
from fxdsl.testing.optimizers import mlp, stepped  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_dynamo")]

OTHER_STEPS = {
    "LBFGS": "its step takes a closure that evaluates the model again",
    "SparseAdam": "it takes sparse gradients (nn.Embedding(sparse=True))",
}
INFOS = {
    info.optim_cls.__name__: info
    for info in optim_db
    if info.optim_cls.__name__ not in OTHER_STEPS
}


def _configs(info: Any) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for optim_input in info.optim_inputs_func(device="cpu"):
        kwargs = dict(optim_input.kwargs)
        if kwargs.get("fused") or kwargs.get("differentiable"):
            continue
        if "foreach" not in inspect.signature(info.optim_cls).parameters:
            found.append((optim_input.desc, kwargs))
            continue
        for foreach in (True, False):
            label = f"{optim_input.desc}, foreach={foreach}"
            found.append((label, {**kwargs, "foreach": foreach}))
    return found


def _parameters(info: Any, model: Any) -> list[Any]:
    """The parameters an optimizer takes: Muon only matrices."""
    if info.optim_cls.__name__ == "Muon":
        return [p for p in model.parameters() if p.ndim == 2]
    return list(model.parameters())


def _three_steps(
    info: Any, kwargs: dict[str, Any], compiled: bool
) -> tuple[Any, Outcome]:
    model = mlp()
    return stepped(model, info.optim_cls(_parameters(info, model), **kwargs), compiled)


@pytest.mark.parametrize("name", sorted(INFOS))
def test_every_configuration_of_an_optimizer_compiles_and_matches(name: str) -> None:
    info = INFOS[name]
    configs = _configs(info)
    assert configs
    for label, kwargs in configs:
        try:
            info.optim_cls(_parameters(info, mlp()), **copy.deepcopy(kwargs))
        except (ValueError, RuntimeError):  # a combination torch refuses
            continue
        want, _ = _three_steps(info, copy.deepcopy(kwargs), compiled=False)
        torch._dynamo.reset()
        got, outcome = _three_steps(info, copy.deepcopy(kwargs), compiled=True)
        assert outcome.compiled == outcome.total, f"{label}: {outcome.summary()}"
        for g, w in zip(got, want, strict=True):
            scale = float(w.abs().max()) + 1e-3
            torch.testing.assert_close(g, w, rtol=0, atol=1e-4 * scale, msg=label)


def test_the_suite_covers_the_database() -> None:
    names = {info.optim_cls.__name__ for info in optim_db}
    assert {"Adam", "AdamW", "SGD", "Muon"} <= set(INFOS)
    assert names == set(INFOS) | set(OTHER_STEPS)
