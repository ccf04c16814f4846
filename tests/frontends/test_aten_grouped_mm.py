"""Mixture-of-experts grouped matmuls (`aten_grouped_mm`): the
decomposition against a per-expert loop (empty runs, rows past the last
run), and through `torch.compile(backend="fxdsl")` forward and backward,
as Hugging Face's MoE layers call them (`transformers::grouped_mm_fallback`
in f32, `aten._grouped_mm` in bf16), compiled whole."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import transformers.integrations.moe  # noqa: E402, F401  (registers the ops)

from fxdsl.frontends import aten_decompositions  # noqa: E402
from fxdsl.frontends.aten_grouped_mm import (  # noqa: E402
    grouped_mm,
    grouped_mm_fallback,
    grouped_mm_fallback_backward,
)
from fxdsl.frontends.aten_ops import UnsupportedNode  # noqa: E402
from fxdsl.testing.generation import recording_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

S, K, N = 10, 16, 8
OFFS = (3, 3, 7, 9)
"""Runs of 3, 0, 4 and 2 rows; row 9 is past the last run."""


def _loop(x: Any, w: Any, offs: Any) -> Any:
    """The grouped product as the fallback computes it, in float64."""
    out = torch.zeros(x.shape[0], w.shape[2], dtype=torch.float64)
    start = 0
    for expert, end in enumerate(offs.tolist()):
        out[start:end] = x[start:end].double() @ w[expert].double()
        start = end
    return out


def _operands(dtype: Any, grad: bool = False) -> tuple[Any, Any, Any]:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(S, K, generator=generator).to(dtype).requires_grad_(grad)
    w = torch.randn(len(OFFS), K, N, generator=generator).to(dtype)
    return x, w.requires_grad_(grad), torch.tensor(OFFS, dtype=torch.int32)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_the_decomposition_is_the_per_expert_product(dtype: str) -> None:
    x, w, offs = _operands(getattr(torch, dtype))
    want = _loop(x, w, offs)
    for got in (grouped_mm_fallback(x, w, offs), grouped_mm(x, w, offs)):
        assert got.dtype == x.dtype
        assert got.shape == (S, N)
        tol = 1e-5 if dtype == "float32" else 2e-2
        torch.testing.assert_close(got.double(), want, rtol=tol, atol=tol)
        assert not got[OFFS[-1] :].any()  # past the last run: zero


def test_the_backward_decomposition_is_autograds() -> None:
    x, w, offs = _operands(torch.float64, grad=True)
    grad_output = torch.randn(S, N, dtype=torch.float64)
    _loop(x, w, offs).backward(grad_output)
    grad_x, grad_w = grouped_mm_fallback_backward(x, w, offs, grad_output)
    torch.testing.assert_close(grad_x, x.grad)
    torch.testing.assert_close(grad_w, w.grad)


def _runs(offs: Any) -> list[tuple[int, int]]:
    ends = offs.tolist()
    return list(zip([0, *ends[:-1]], ends, strict=True))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_the_weight_gradient_and_column_forms_are_per_expert_products(
    dtype: str,
) -> None:
    """2-d by 2-d (runs along K: one product per expert, what the backward
    of a grouped product computes the weights' gradient with) and 3-d by
    2-d (runs of output columns), against loops in float64; columns past
    the last run take part in no product."""
    generator = torch.Generator().manual_seed(1)
    cast = getattr(torch, dtype)
    tol = 1e-5 if dtype == "float32" else 2e-2
    offs = torch.tensor(OFFS, dtype=torch.int32)  # runs over 10 of 12
    a = torch.randn(5, 12, generator=generator).to(cast)
    b = torch.randn(12, N, generator=generator).to(cast)
    got = grouped_mm(a, b, offs)
    want = torch.stack([a[:, s:e].double() @ b[s:e].double() for s, e in _runs(offs)])
    assert got.shape == (len(OFFS), 5, N)
    assert got.dtype == cast
    torch.testing.assert_close(got.double(), want, rtol=tol, atol=tol)
    a3 = torch.randn(len(OFFS), 5, K, generator=generator).to(cast)
    b2 = torch.randn(K, 12, generator=generator).to(cast)
    got = grouped_mm(a3, b2, offs)
    want = torch.zeros(5, 12, dtype=torch.float64)
    for expert, (s, e) in enumerate(_runs(offs)):
        want[:, s:e] = a3[expert].double() @ b2[:, s:e].double()
    torch.testing.assert_close(got.double(), want, rtol=tol, atol=tol)


def test_what_the_decomposition_refuses() -> None:
    x, w, offs = _operands(torch.float32)
    with pytest.raises(UnsupportedNode, match="with a bias"):
        grouped_mm(x, w, offs, bias=torch.zeros(len(OFFS), N))
    with pytest.raises(UnsupportedNode, match="into torch.float16"):
        grouped_mm(x, w, offs, out_dtype=torch.float16)
    with pytest.raises(UnsupportedNode, match="3-d input"):
        grouped_mm(x[None], w, offs)
    batched = torch.randn(4, S, K)
    torch.testing.assert_close(grouped_mm(batched, w), torch.bmm(batched, w))


def _compiled(fn: Any, *args: Any, backward: bool = False) -> tuple[Any, list[Any]]:
    """`fn(*args)` compiled, and the backend's plans (with `backward`, the
    backward graph's too: AOTAutograd compiles it at the first backward)."""
    plans: list[Any] = []
    with recording_plans(plans):
        got = torch.compile(fn, backend="fxdsl")(*args)
        if backward:
            got.sum().backward()
    return got, plans


def _moe(x: Any, w: Any, offs: Any) -> Any:
    return torch.ops.transformers.grouped_mm_fallback(x * 2, w, offs).sin()


def test_the_fallback_op_compiles_whole_forward_and_backward() -> None:
    """f32 under Dynamo, as Mixtral's experts call it: the custom op and
    its backward op are decomposed, so both graphs are 100 % fxdsl."""
    x, w, offs = _operands(torch.float32, grad=True)
    want = _moe(x, w, offs)
    want.sum().backward()
    grads = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    got, plans = _compiled(_moe, x, w, offs, backward=True)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close((x.grad, w.grad), grads, rtol=1e-4, atol=1e-4)
    assert len(plans) == 2  # the forward and the backward
    for plan in plans:
        assert plan.compiled == plan.total, plan.report()


def test_aten_grouped_mm_compiles_whole_in_bf16() -> None:
    x, w, offs = _operands(torch.bfloat16)
    offs[-1] = S  # every row in a run: torch leaves rows past the end unwritten

    def fn(x: Any, w: Any, offs: Any) -> Any:
        return torch._grouped_mm(x, w, offs=offs) * 1.5

    got, (plan,) = _compiled(fn, x, w, offs)
    assert plan.compiled == plan.total, plan.report()
    torch.testing.assert_close(got, fn(x, w, offs), rtol=1e-2, atol=1e-2)


def test_aten_grouped_mm_trains_whole_in_bf16() -> None:
    """GPT-OSS's experts in a bf16 training step: the backward's weight
    gradient is a 2-d by 2-d grouped product (it ran in torch)."""
    x, w, offs = _operands(torch.bfloat16, grad=True)
    offs[-1] = S

    def fn(x: Any, w: Any, offs: Any) -> Any:
        return torch._grouped_mm(x * 2, w, offs=offs).sin()

    want = fn(x, w, offs)
    want.float().sum().backward()
    grads = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    got, plans = _compiled(fn, x, w, offs, backward=True)
    torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close((x.grad, w.grad), grads, rtol=5e-2, atol=5e-2)
    assert len(plans) == 2
    for plan in plans:
        assert plan.compiled == plan.total, plan.report()


def test_a_shape_generic_graph_decomposes_it_at_run_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`dynamic=True`: the graph is specialised at the call, where
    AOTAutograd runs a graph with a custom op under a dispatch mode of its
    own. The decomposition traced there used to fail (every op of it
    refused its FunctionalTensors) and the node ran in torch."""
    monkeypatch.setattr(aten_decompositions, "_CACHE", {})  # traced here, now
    _, w, _ = _operands(torch.float32)
    compiled = torch.compile(_moe, backend="fxdsl", dynamic=True)
    plans: list[Any] = []
    with recording_plans(plans):
        for rows in (S, S + 2):
            x = torch.randn(rows, K)
            offs = torch.tensor((*OFFS[:-1], rows), dtype=torch.int32)
            torch.testing.assert_close(
                compiled(x, w, offs), _moe(x, w, offs), rtol=1e-5, atol=1e-5
            )
    assert plans
    for plan in plans:
        assert not plan.fallbacks, plan.report()
