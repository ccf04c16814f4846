"""`embedding_bag` in training (`aten_embedding_bag`): the forward's
auxiliary results as torch's CPU kernel gives them, and a training step
through `torch.compile(backend="fxdsl")` with every operator compiled and
the gradients of the table (and of the per-sample weights) as autograd's,
in every mode and option DLRM-style models use."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.aten_embedding_bag import _embedding_bag  # noqa: E402
from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
F = torch.nn.functional

INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 4, 7])
OFFSETS = torch.tensor([0, 3, 3, 6])
"""Four bags, the second empty; index 4 (a padding row below) in three."""

CASES = {
    "sum": dict(mode="sum"),
    "mean": dict(mode="mean"),
    "max": dict(mode="max"),
    "sum, padding": dict(mode="sum", padding_idx=4),
    "mean, padding": dict(mode="mean", padding_idx=4),
    "max, padding": dict(mode="max", padding_idx=4),
    "sum, per-sample weights": dict(mode="sum", weighted=True),
    "sum, weights, padding": dict(mode="sum", weighted=True, padding_idx=4),
    "mean, include_last_offset": dict(mode="mean", last=True),
}


def _bags(table: Any, weights: Any, case: dict[str, Any]) -> Any:
    offsets = OFFSETS
    if case.get("last"):  # the last offset is the end
        offsets = torch.tensor([0, 3, 3, 6, 10])
    return F.embedding_bag(
        INDICES,
        table,
        offsets,
        mode=case["mode"],
        per_sample_weights=weights if case.get("weighted") else None,
        padding_idx=case.get("padding_idx"),
        include_last_offset=bool(case.get("last")),
    )


@pytest.mark.parametrize("name", list(CASES))
def test_training_step_compiles_with_autograd_gradients(name: str) -> None:
    case = CASES[name]
    torch.manual_seed(0)
    table = torch.randn(12, 5, requires_grad=True)
    weights = torch.rand(INDICES.shape[0], requires_grad=True)
    scale = torch.linspace(0.5, 2.0, 5)

    def loss(table: Any, weights: Any) -> Any:
        return (_bags(table, weights, case).sin() * scale).sum()

    loss(table, weights).backward()
    want = (table.grad, weights.grad)
    table.grad = weights.grad = None
    outcome = Outcome()
    with counting_plans(outcome):
        torch.compile(loss, backend="fxdsl")(table, weights).backward()
    torch.testing.assert_close(table.grad, want[0], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(weights.grad, want[1], rtol=1e-5, atol=1e-6)
    assert outcome.compiled == outcome.total, outcome.summary()
    if case.get("padding_idx") is not None and case["mode"] != "max":
        assert float(table.grad[4].abs().sum()) == 0.0  # padding gets nothing


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [-1, 4])
def test_auxiliary_results_are_torch_kernels(mode: int, padding_idx: int) -> None:
    """offset2bag, bag_size and max_indices, quirks and all (empty
    offset2bag in sum mode, max_indices a copy of bag_size in mean mode):
    a backward left in torch reads them."""
    torch.manual_seed(1)
    table = torch.randn(12, 5)
    args = (table, INDICES, OFFSETS, False, mode, False, None, False, padding_idx)
    want = torch.ops.aten._embedding_bag.default(*args)
    got = _embedding_bag(*args)
    for name, w, g in zip(("bags", "offset2bag", "bag_size", "max_indices"), want, got):
        assert g.shape == w.shape, name
        assert g.dtype == w.dtype, name
        torch.testing.assert_close(g, w, rtol=0, atol=0, msg=name)


def test_max_picks_the_first_of_equal_values() -> None:
    table = torch.tensor([[1.0, 5.0], [3.0, 5.0], [3.0, 0.0]])
    args = (table, torch.tensor([0, 1, 2, 1]), torch.tensor([0, 2]), False, 2)
    want = torch.ops.aten._embedding_bag.default(*args)[3]
    assert _embedding_bag(*args)[3].tolist() == want.tolist() == [[1, 0], [2, 1]]


def test_dlrm_style_training_step_compiles_whole() -> None:
    """Sparse features through three EmbeddingBags, dense ones through an
    MLP, their pairwise dot products (`torchbench_models.dlrm`): one
    training step, every operator compiled, the loss and every gradient as
    eager's."""
    from fxdsl.testing.hf_suite import compile_and_check
    from fxdsl.testing.torchbench_models import dlrm

    torch.manual_seed(0)
    outcome = compile_and_check(*dlrm(), train=True)
    assert outcome.accurate
    assert outcome.compiled == outcome.total, outcome.summary()
