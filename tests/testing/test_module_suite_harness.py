"""The ModuleInfo harness itself (`fxdsl.testing.module_suite`): a sample
becomes a model whose differentiated inputs are parameters, and a check
that `compile_and_check` finds inaccurate is reported WRONG."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing import module_suite  # noqa: E402
from fxdsl.testing.hf_suite import Outcome  # noqa: E402

LINEAR = next(i for i in module_suite.module_db() if i.formatted_name == "nn_Linear")
LOSS = next(i for i in module_suite.module_db() if i.formatted_name == "nn_MSELoss")


def test_differentiated_inputs_become_parameters() -> None:
    sample = next(module_suite.samples(LOSS, "float32", train=True))
    inputs = dict(sample.model.named_parameters())
    targets = dict(sample.model.named_buffers())
    assert list(inputs) == ["input_0"]  # the prediction; the target is not
    assert list(targets) == ["input_1"]
    assert sample.model().ndim == 0  # the loss, from the stored inputs


def test_an_inaccurate_sample_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    def inaccurate(*args: Any, **kwargs: Any) -> Outcome:
        return Outcome(compiled=3, total=3, accurate=False)

    monkeypatch.setattr(module_suite, "compile_and_check", inaccurate)
    verdict, _ = module_suite.check_module(LINEAR)
    assert verdict.startswith("WRONG nn_Linear[")


def test_operators_left_to_torch_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def partial(*args: Any, **kwargs: Any) -> Outcome:
        outcome = Outcome(compiled=2, total=3, accurate=True)
        outcome.in_torch["aten.mm.default"] += 1
        outcome.reasons["aten.mm.default"] = "why"
        return outcome

    monkeypatch.setattr(module_suite, "compile_and_check", partial)
    verdict, _ = module_suite.check_module(LINEAR)
    assert verdict.startswith("partial: 1 of 3 operators ran in torch: aten.mm")
