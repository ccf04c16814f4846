"""Node-level fallback in `torch.compile(backend="fxdsl")`: one node the
importer cannot take runs in torch and the rest of the graph still compiles,
whatever the reason (no mapping, a value of a type only torch computes with,
on the GPU a float64 value kernels do not compute in, an importer error, a failure inside a recognised pattern); a graph that does
go to torch whole says so, and why, in the dry-run report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends import aten_ops, torch_compile  # noqa: E402
from fxdsl.frontends.torch_islands import Plan  # noqa: E402
from fxdsl.testing.generation import recording_plans  # noqa: E402
from fxdsl.tracing import ops  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _plan_and_check(
    fn: Callable[..., Any], *args: Any, kernel_types_only: bool = False
) -> Plan:
    """Compile `fn` (every island kept), check it against eager, and return
    the backend's plan of its graph; `kernel_types_only` plans it as for
    the GPU (and runs it on the CPU)."""
    plans: list[Plan] = []
    real_plan = torch_compile.plan

    def spy(*a: Any, **k: Any) -> Plan:
        if kernel_types_only:
            k["kernel_types_only"] = True
        plans.append(real_plan(*a, **k))
        return plans[-1]

    torch_compile.plan = spy  # type: ignore[assignment]
    try:
        options = {"device": "cpu", "min_block_size": 1}
        got = torch.compile(fn, backend="fxdsl", options=options)(*args)
    finally:
        torch_compile.plan = real_plan  # type: ignore[assignment]
    want = fn(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    (found,) = plans
    return found


def _with_matrix_rank(x: Any) -> Any:
    y = torch.relu(x * 2 + 1) - 3
    return (y.sum(-1) * 4 + 1).tanh(), torch.linalg.matrix_rank(y)


def test_float64_nodes_compile_on_the_cpu() -> None:
    """matrix_rank's core form computes a tolerance in float64: on the
    CPU (the reference interpreter) those nodes compile with the rest, the
    SVD (graph.svd) too: nothing runs in torch."""
    plan = _plan_and_check(_with_matrix_rank, torch.randn(3, 4, 4))
    island_nodes = {n for names in plan.islands.values() for n in names}
    assert {"mul", "add", "relu", "sub", "tanh"} <= island_nodes
    assert list(plan.fallbacks) == []
    assert "graph.svd" in str(plan.imported.module)
    assert "graph.cast" in str(plan.imported.module)
    assert "xf64>" in str(plan.imported.module)


def test_float64_nodes_stay_in_torch_for_gpu_kernels() -> None:
    """Planned for the GPU, whose kernels do not compute in float64, the
    float64 nodes run in torch (float64 values pass between them) and the
    rest compiles."""
    plan = _plan_and_check(
        _with_matrix_rank, torch.randn(3, 4, 4), kernel_types_only=True
    )
    island_nodes = {n for names in plan.islands.values() for n in names}
    assert {"mul", "add", "relu", "sub", "tanh"} <= island_nodes
    reasons = [reason for _, reason, _ in plan.fallbacks.values()]
    assert reasons  # the float64 tolerance
    assert all("element type f64: fxdsl's GPU kernels" in r for r in reasons)
    assert "graph.svd" in str(plan.imported.module)  # f32: a device solver


def _mlp(x: Any) -> Any:
    return (torch.tanh(x * 2 + 1) @ torch.ones(4, 3)).exp() - 1, x.sin()


def test_an_importer_error_in_one_node_leaves_only_that_node_to_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(call: Any) -> Any:
        raise KeyError("a bug")

    monkeypatch.setitem(aten_ops.ATEN, "aten.tanh.default", broken)
    plan = _plan_and_check(_mlp, torch.randn(5, 4))
    assert list(plan.fallbacks) == ["tanh"]
    reason = plan.fallbacks["tanh"][1]
    assert "the importer failed (KeyError: 'a bug'); please report it" in reason
    assert plan.compiled == plan.total - 1


class _Linear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: Any) -> Any:
        return (self.linear(x * 2) + 1).relu()


def test_a_failing_pattern_leaves_its_node_to_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The core form's `permute` + `addmm` is recognised as one linear; when
    building it fails, the node that ends the pattern runs in torch and its
    inner nodes import one by one."""

    def broken(*args: Any) -> Any:
        raise KeyError("a bug")

    monkeypatch.setattr(ops, "linear", broken)
    model = _Linear()
    with torch.no_grad():
        plan = _plan_and_check(lambda x: (model(x),), torch.randn(5, 4))
    assert list(plan.fallbacks) == ["addmm"]
    assert "KeyError" in plan.fallbacks["addmm"][1]
    island_nodes = {n for names in plan.islands.values() for n in names}
    assert {"mul", "permute", "add", "relu"} <= island_nodes


def test_a_graph_that_goes_to_torch_whole_says_why_in_the_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def fn(x: Any) -> Any:
        return (x * 2) + 1

    x = torch.randn(3).to(torch.complex32)  # no complex32 in fxdsl
    compiled = torch.compile(fn, backend="fxdsl", options={"dryrun": True})
    torch.testing.assert_close(compiled(x), fn(x))
    report = capsys.readouterr().out
    assert "fxdsl partition report\n  the whole graph runs in torch: " in report
    assert (
        "placeholder (node %arg0_1): dtype torch.complex32 is not supported" in report
    )
    assert "  2 operators, 0 compiled (0.00 %)\n" in report


@pytest.fixture
def sizes_from_values() -> Iterator[None]:
    """Dynamo keeps `nonzero`-like ops and `.item()` in its graph (else it
    breaks the graph there and each piece has static sizes)."""
    with torch._dynamo.config.patch(
        capture_dynamic_output_shape_ops=True, capture_scalar_outputs=True
    ):
        yield


def _masked_and_narrowed(x: Any, n: Any) -> Any:
    y = (x.sin() + 1) * 2
    picked = y[y > 2.5].cos()  # its length is read from y's values
    head = x.narrow(0, 0, n.item())  # its length is n's value
    return picked.sum() * x.exp() + 3, head.tanh() * 2


def test_sizes_read_from_values_run_in_torch_and_the_rest_compiles(
    sizes_from_values: None,
) -> None:
    """A node whose size (or number) is read from a tensor's values, and
    every node that reads such a value, runs in torch; the static rest of
    the graph compiles, and one plan serves every size the values give."""
    from fxdsl.frontends.torch_nodes import DATA_DEPENDENT_REASON

    plan = _plan_and_check(_masked_and_narrowed, torch.randn(8, 4), torch.tensor(3))
    held = sorted(target for target, _, _ in plan.fallbacks.values())
    assert held == [
        "<built-in function add>",  # 0 + n.item(): narrow's end
        "aten._local_scalar_dense.default",
        "aten.cos.default",
        "aten.index.Tensor",
        "aten.mul.Tensor",
        "aten.slice.Tensor",
        "aten.sum.dim_IntList",  # a static result of values of `?` size
        "aten.tanh.default",
    ]
    assert {why for _, why, _ in plan.fallbacks.values()} == {DATA_DEPENDENT_REASON}
    islands = sorted(len(nodes) for nodes in plan.islands.values())
    assert islands == [3, 4]  # sin..gt, and exp..add reading sum's result
    text = str(plan.imported.module)
    assert "(tensor<8x4xf32>, tensor<8x4xi1>) -> tensor<?xf32>" in text
    assert "@aten._local_scalar_dense.default(%arg1)" in text
    assert "(tensor<i64>) -> tensor<i64>" in text  # `.item()`: a number


def test_one_plan_serves_every_size_read_from_values(sizes_from_values: None) -> None:
    compiled = torch.compile(
        _masked_and_narrowed, backend="fxdsl", options={"min_block_size": 1}
    )
    plans: list[Plan] = []
    with recording_plans(plans):
        for n in (3, 6, 2):
            x = torch.randn(8, 4)
            got = compiled(x, torch.tensor(n))
            want = _masked_and_narrowed(x, torch.tensor(n))
            for g, w in zip(got, want, strict=True):
                torch.testing.assert_close(g, w)
    assert len(plans) == 1


def test_a_gradient_through_a_boolean_mask_compiles_around_it(
    sizes_from_values: None,
) -> None:
    """The forward's `h[h > 0]` has a length read from values: it and what
    reads it run in torch, the rest of the forward in fxdsl. The backward
    scatters that gradient back with the boolean mask (`index_put`), whose
    shape is static: it compiles whole."""

    def step(x: Any, w: Any) -> Any:
        h = torch.tanh(x @ w)
        return (h[h > 0] ** 2).sum() + (h * 3).exp().mean()

    x = torch.randn(6, 5)
    w1 = torch.randn(5, 4, requires_grad=True)
    w2 = w1.detach().clone().requires_grad_()
    compiled = torch.compile(step, backend="fxdsl", options={"min_block_size": 1})
    plans: list[Plan] = []
    with recording_plans(plans):
        got, want = compiled(x, w1), step(x, w2)
        got.backward()
    want.backward()
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(w1.grad, w2.grad)
    forward, backward = plans
    assert forward.islands
    assert forward.fallbacks
    assert not backward.fallbacks  # the mask's own shape is static
    assert any("index_put" in nodes for nodes in backward.islands.values())
