"""`from_torch` on models as users call them: a module left in training
mode (imported with eval-mode semantics, and told so) and a Hugging Face
model that returns its key/value cache (one line saying what to do)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
transformers = need("transformers")

from fxdsl.frontends.torch_export import TorchImportError, from_torch  # noqa: E402


def test_a_module_in_training_mode_is_imported_in_eval_mode_with_a_warning() -> None:
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.Dropout(0.5)
    )
    model.train()
    model(torch.randn(8, 4))  # running statistics that differ from a batch's
    x = torch.randn(5, 4)
    with pytest.warns(
        UserWarning, match="training mode; fxdsl imports its eval-mode"
    ) as caught:
        program = from_torch(model, (x,))
    # and says how to import training instead
    assert any("from_exported_program" in str(w.message) for w in caught)
    assert model.training  # left as it was
    (got,) = program.run(x)
    want = model.eval()(x).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model", ["eval", "without dropout or norms"])
def test_a_module_whose_mode_does_not_matter_gets_no_warning(model: str) -> None:
    module = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Dropout(0.1))
    if model == "eval":
        module.eval()
    else:
        module = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.GELU())
        assert module.training
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        from_torch(module, (torch.randn(2, 4),))


class _ReturnsCache(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        cache = transformers.DynamicCache()
        cache.update(x[None, None], x[None, None], 0)
        return x * 2, cache


def test_a_model_returning_a_dynamic_cache_says_what_to_do() -> None:
    with pytest.raises(TorchImportError) as error:
        from_torch(_ReturnsCache(), (torch.randn(3, 4),))
    message = str(error.value)
    assert "\n" not in message
    assert "returns a transformers.cache_utils.DynamicCache" in message
    assert "use_cache=False" in message
