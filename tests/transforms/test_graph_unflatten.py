"""graph-unflatten / graph-flatten: hierarchy, sharing, numerics, inverse."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

import fxdsl
from fxdsl.testing import assert_same_numerics, clone_module, graphs, random_graph
from fxdsl.transforms.graph_unflatten import flatten, unflatten
from fxdsl.transforms.scope_tree import MODULE_ATTR


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def module_calls(module: ModuleOp) -> list[func.CallOp]:
    return [
        op for op in module.walk()
        if isinstance(op, func.CallOp) and MODULE_ATTR in op.attributes
    ]  # fmt: skip


def has_scopes(module: ModuleOp) -> bool:
    return any("scope" in op.attributes for op in module.walk())


@settings(max_examples=30, deadline=None)
@given(graphs(scoped=True))
def test_unflatten_keeps_numerics_and_flatten_inverts_it(module: ModuleOp) -> None:
    text = str(module)
    unflat = unflatten(clone_module(module))
    unflat.verify()
    assert not any("scope" in op.attributes for op in functions(unflat)["main"].walk())
    assert_same_numerics(module, unflat)
    flat = flatten(clone_module(unflat))
    flat.verify()
    assert str(flat) == text  # structurally the identity, same op order
    assert str(module) == text


@settings(max_examples=10, deadline=None)
@given(graphs(scoped=True))
def test_without_sharing_too(module: ModuleOp) -> None:
    unflat = unflatten(clone_module(module), share=False)
    names = [c.callee.string_value() for c in module_calls(unflat)]
    assert len(names) == len(set(names))  # one function per call
    assert_same_numerics(module, unflat, seeds=(0,))
    assert str(flatten(unflat)) == str(module)


def test_unscoped_graphs_are_unchanged() -> None:
    for seed in range(5):
        module = random_graph(seed)
        assert str(unflatten(clone_module(module))) == str(module)


def test_identical_blocks_share_functions() -> None:
    calls = shared_calls = 0
    for seed in range(30):
        unflat = unflatten(random_graph(seed, scoped=True))
        callees = Counter(c.callee.string_value() for c in module_calls(unflat))
        calls += sum(callees.values())
        shared_calls += sum(n for n in callees.values() if n > 1)
        assert len(callees) == len(functions(unflat)) - 1  # every module func used
    assert shared_calls >= calls // 4


def test_deterministic_and_idempotent() -> None:
    module = random_graph(3, scoped=True, min_ops=60, max_ops=60)
    first = str(unflatten(clone_module(module)))
    assert first == str(unflatten(clone_module(module)))
    assert str(unflatten(fxdsl.parse(first))) == first


INTERLEAVED = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x {scope = #graph.scope<("m", 0, "M")>} : tensor<4xf32>
  %r = graph.neg %x : tensor<4xf32>
  %b = graph.tanh %a {scope = #graph.scope<("m", 0, "M")>} : tensor<4xf32>
  %c = graph.add %b, %r : tensor<4xf32>
  func.return %c : tensor<4xf32>
}
"""


def test_non_contiguous_call_without_cycle() -> None:
    module = fxdsl.parse(INTERLEAVED)
    unflat = unflatten(clone_module(module))
    assert list(functions(unflat)) == ["main", "m"]
    assert_same_numerics(module, unflat)
    flat = flatten(unflat)
    assert sorted(op.name for op in flat.walk()) == sorted(
        op.name for op in module.walk()
    )
    assert_same_numerics(module, flat)


SAME_MODULE_TWICE = """
func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>)
    -> tensor<4x4xf32> {
  %0 = graph.matmul %x, %w {scope = #graph.scope<("lin", 0, "Linear")>}
    : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = graph.add %0, %b {scope = #graph.scope<("lin", 0, "Linear")>}
    : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %2 = graph.matmul %1, %w {scope = #graph.scope<("lin", 1, "Linear")>}
    : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = graph.add %2, %b {scope = #graph.scope<("lin", 1, "Linear")>}
    : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  func.return %3 : tensor<4x4xf32>
}
"""


def test_calls_reached_in_another_order_share_one_function() -> None:
    # y = lin(x); z = lin(y) with w, b plain arguments: the second call's
    # input is not a function argument, which put it after w and b, so the
    # two identical bodies got two functions (@lin and @"lin@1")
    module = fxdsl.parse(SAME_MODULE_TWICE)
    unflat = unflatten(clone_module(module))
    assert list(functions(unflat)) == ["main", "lin"]
    assert [c.callee.string_value() for c in module_calls(unflat)] == ["lin", "lin"]
    assert_same_numerics(module, unflat)
    assert str(flatten(unflat)) == str(module)


CYCLE = INTERLEAVED.replace(
    '%b = graph.tanh %a {scope = #graph.scope<("m", 0, "M")>}',
    '%b = graph.add %a, %r {scope = #graph.scope<("m", 0, "M")>}',
).replace("%r = graph.neg %x", "%r = graph.neg %a")

BAD_NESTING = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x {scope = #graph.scope<("enc", 0, "E"), ("dec.b", 0, "B")>}
    : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
"""


FLATTEN_EXTERNAL = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @ext(%x) {graph.module = #graph.scope<("m", 0, "M")>}
    : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
"""


def check_opt_error(text: str, pipeline: str, message: str, tmp_path: Path) -> None:
    """fxdsl-opt prints `error:` with the message and exits 1, no traceback."""
    path = tmp_path / "input.mlir"
    path.write_text(text)
    result = subprocess.run(
        [sys.executable, "-m", "fxdsl.tools.fxdsl_opt", str(path), "-p", pipeline],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "error:" in result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (CYCLE, "outlining module calls m -> m would create a cycle"),
        (BAD_NESTING, "scope frame 'dec.b' of graph.exp is not inside 'enc'"),
    ],
)
def test_unflatten_errors(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(PassFailedException, match=message):
        unflatten(fxdsl.parse(text))
    check_opt_error(text, "graph-unflatten", message, tmp_path)


def test_bad_scope_is_reported_at_its_op(tmp_path: Path) -> None:
    message = f"{tmp_path / 'input.mlir'}:3:3: error: graph-unflatten: scope frame"
    check_opt_error(BAD_NESTING, "graph-unflatten", message, tmp_path)


def test_flatten_and_option_errors(tmp_path: Path) -> None:
    message = "graph-flatten: module call to @ext has no function body to inline"
    check_opt_error(FLATTEN_EXTERNAL, "graph-flatten", message, tmp_path)
    check_opt_error(INTERLEAVED, "graph-unflatten{share=maybe}", "maybe", tmp_path)


def test_gpt2_hierarchy() -> None:
    from fxdsl.frontends.models import gpt2_stack

    module = gpt2_stack(3, B=1, T=4, D=16, heads=2)
    unflat = unflatten(clone_module(module))
    calls = {
        (caller.sym_name.data, c.attributes[MODULE_ATTR].data[0][0]): c.callee
        for caller in functions(unflat).values()
        for c in module_calls(caller)  # type: ignore[arg-type]
    }
    blocks = {calls["transformer", f"h.{i}"].string_value() for i in range(3)}
    assert blocks == {"transformer.h.0"}  # identical blocks share one function
    block_parts = {rel for caller, rel in calls if caller == "transformer.h.0"}
    assert block_parts == {"ln_1", "attn", "ln_2", "mlp"}
    assert_same_numerics(module, unflat, seeds=(0,))
    assert str(flatten(unflat)) == str(module)


@pytest.mark.parametrize("pipeline", ["graph-dedup,graph-unflatten",
                                      "graph-unflatten,graph-dedup"])  # fmt: skip
def test_composes_with_graph_dedup(pipeline: str) -> None:
    for seed in range(4):
        module = random_graph(seed, scoped=True, min_ops=30)
        after = fxdsl.apply(clone_module(module), pipeline)
        assert_same_numerics(module, after, seeds=(0,))
        flat = fxdsl.apply(after, "graph-flatten")
        assert_same_numerics(module, flat, seeds=(0,))


def test_dedup_first_leaves_dedup_functions_alone() -> None:
    from fxdsl.frontends.models import gpt2_stack

    module = fxdsl.apply(gpt2_stack(3, B=1, T=4, D=16, heads=2), "graph-dedup")
    dedup_text = {n: str(f) for n, f in functions(module).items() if "dedup" in n}
    unflat = unflatten(module)
    block = functions(unflat)["transformer.h.0"].body.block
    ops = list(block.ops)
    assert [op.name for op in ops] == ["func.call", "func.return"]
    assert isinstance(ops[0], func.CallOp)
    assert ops[0].callee.string_value() in dedup_text
    for name, text in dedup_text.items():
        assert str(functions(unflat)[name]) == text
