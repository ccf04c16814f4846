"""replace_pattern / replace_pattern_with_filters, as in the FX guide."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl.rewrite import (
    InternalMatch,
    ReplacedPatterns,
    ops_in_order,
    replace_pattern,
    replace_pattern_with_filters,
)
from fxdsl.testing import assert_same_numerics, graphs

F = fxdsl.ops
TensorSpec = fxdsl.TensorSpec
SPEC = TensorSpec((4, 8))


def body(module: ModuleOp) -> list[str]:
    return [line.strip() for line in str(module).splitlines()[2:-2]]


def pattern(x, y):
    return F.mul(F.add(x, y), y)


def replacement(x, y):
    return F.sub(x, y)


def test_replace_mul_of_add_with_sub() -> None:
    def program(a, b, c):
        t = F.mul(F.add(a, b), b)
        # The second match's wildcard is the first match's output.
        u = F.mul(F.add(t, c), c)
        return F.relu(u)

    module = fxdsl.trace(program, SPEC, SPEC, SPEC)
    replaced = replace_pattern(module, pattern, replacement)
    t = "tensor<4x8xf32>"
    assert body(module) == [
        f"%3 = graph.sub %0, %1 : {t}",
        f"%4 = graph.sub %3, %2 : {t}",
        f"%5 = graph.relu %4 : {t}",
        f"func.return %5 : {t}",
    ]
    assert len(replaced) == 2
    assert all(isinstance(r, ReplacedPatterns) for r in replaced)
    assert [r.anchor.name for r in replaced] == ["graph.mul", "graph.mul"]
    assert [[op.name for op in r.replacements] for r in replaced] == [["graph.sub"]] * 2
    ops = list(ops_in_order(module))
    assert replaced[0].replacements[0] is ops[0]
    assert replaced[1].replacements[0] is ops[1]


def test_shapes_come_from_the_match_and_scope_carries_over() -> None:
    """x*y + x*z -> x*(y+z) preserves numerics; traced with rank-0 wildcards,
    it matches broadcasting 2-d operands."""

    def distributed(x, y, z):
        return F.add(F.mul(x, y), F.mul(x, z))

    def factored(x, y, z):
        return F.mul(x, F.add(y, z))

    def program(a, b, c):
        with fxdsl.scope("blk", "Block"):
            s = F.add(F.mul(a, b), F.mul(a, c))
        return F.tanh(s)

    specs = (SPEC, fxdsl.TensorSpec((8,)), fxdsl.TensorSpec((4, 8)))
    module = fxdsl.trace(program, *specs)
    before = module.clone()
    (done,) = replace_pattern(module, distributed, factored)
    names = [op.name for op in ops_in_order(module)]
    assert names == ["graph.add", "graph.mul", "graph.tanh", "func.return"]
    scope = next(ops_in_order(before)).attributes["scope"]
    assert all(op.attributes["scope"] == scope for op in done.replacements)
    assert_same_numerics(before, module)


def test_match_filters() -> None:
    def program(a, b):
        with fxdsl.scope("keep", "Block"):
            k = F.mul(F.add(a, b), b)
        with fxdsl.scope("swap", "Block"):
            s = F.mul(F.add(k, b), b)
        return s

    module = fxdsl.trace(program, SPEC, SPEC)
    seen: list[tuple[InternalMatch, ModuleOp, str]] = []

    def only_swap(match: InternalMatch, original: ModuleOp, pattern_func) -> bool:
        seen.append((match, original, pattern_func.name))
        scope = match.anchors[0].attributes["scope"]
        return "swap" in scope.fqns  # type: ignore[attr-defined]

    replaced = replace_pattern_with_filters(
        module, pattern, replacement, match_filters=[only_swap]
    )
    assert len(seen) == 2
    assert all(s[1] is module for s in seen)
    assert len(replaced) == 1
    assert [op.name for op in ops_in_order(module)] == [
        "graph.add",
        "graph.mul",
        "graph.sub",
        "func.return",
    ]


@pytest.mark.parametrize(("ignore_literals", "expected"), [(False, 0), (True, 1)])
def test_ignore_literals(ignore_literals: bool, expected: int) -> None:
    def scaled(x):
        return F.relu(x * 2.0)

    def program(a):
        return F.relu(a * 3.0)

    module = fxdsl.trace(program, SPEC)
    replaced = replace_pattern_with_filters(
        module, scaled, lambda x: F.neg(x), ignore_literals=ignore_literals
    )
    assert len(replaced) == expected
    names = [op.name for op in ops_in_order(module)]
    assert ("graph.neg" in names) == bool(expected)


def test_ir_text_pattern_and_replacement() -> None:
    t = "tensor<f32>"
    pattern_text = f"""
func.func @p(%x: {t}) -> {t} {{
  %a = graph.neg %x : {t}
  %b = graph.neg %a : {t}
  func.return %b : {t}
}}"""
    identity = f"""
func.func @r(%x: {t}) -> {t} {{
  %a = graph.relu %x : {t}
  func.return %a : {t}
}}"""
    module = fxdsl.trace(lambda a: F.exp(F.neg(F.neg(a))), SPEC)
    assert len(replace_pattern(module, pattern_text, identity)) == 1
    assert [op.name for op in ops_in_order(module)] == [
        "graph.relu",
        "graph.exp",
        "func.return",
    ]


def test_arity_mismatch_is_an_error() -> None:
    module = fxdsl.trace(lambda a, b: pattern(a, b), SPEC, SPEC)
    with pytest.raises(
        ValueError, match="replacement takes 1 arguments, the pattern 2"
    ):
        replace_pattern(module, pattern, lambda x: F.neg(x))


def test_replacement_may_return_a_wildcard() -> None:
    """neg(neg(x)) -> x: the replacement has no ops at all."""
    module = fxdsl.trace(lambda a: F.exp(F.neg(F.neg(a))), SPEC)
    before = module.clone()
    (done,) = replace_pattern(module, lambda x: F.neg(F.neg(x)), lambda x: x)
    assert done.replacements == []
    assert [op.name for op in ops_in_order(module)] == ["graph.exp", "func.return"]
    assert_same_numerics(before, module)


def test_replacement_that_does_not_fit_fails_and_leaves_the_module() -> None:
    module = fxdsl.trace(lambda a: F.relu(F.exp(F.neg(a))), SPEC)
    original = str(module)
    # Reshape keeps its declared type: tensor<2x2xf32> cannot replace 4x8.
    to_2x2 = fxdsl.trace(lambda x: F.relu(F.reshape(x, (2, 2))), TensorSpec((4,)))
    with pytest.raises(ValueError, match="does not fit the matched values"):
        replace_pattern(module, lambda x: F.relu(F.exp(x)), to_2x2)
    assert str(module) == original
    # A type that infers but differs is refused too (sum drops a dim).
    sums = fxdsl.trace(lambda x: F.sum(x, [1]), SPEC)
    with pytest.raises(ValueError, match="gives tensor<4xf32> where the match had"):
        replace_pattern(module, lambda x: F.relu(F.exp(x)), sums)
    assert str(module) == original


@settings(max_examples=25, deadline=None)
@given(graphs(scoped=True))
def test_random_graphs_replacement_preserves_numerics(module: ModuleOp) -> None:
    """x + y -> x - ((y - y) - y) is exact in floating point."""
    after = module.clone()
    # add(a, a) is no match: two wildcards never bind one value (FX).
    adds = [
        op
        for op in ops_in_order(after)
        if op.name == "graph.add" and op.operands[0] is not op.operands[1]
    ]
    replaced = replace_pattern(
        after, lambda x, y: F.add(x, y), lambda x, y: F.sub(x, F.sub(F.sub(y, y), y))
    )
    assert len(replaced) == len(adds)
    for done, add in zip(replaced, adds):
        assert done.anchor is add
        scope = add.attributes.get("scope")
        assert all(op.attributes.get("scope") == scope for op in done.replacements)
    assert_same_numerics(module, after)


def test_shared_literal_goes_with_its_last_user() -> None:
    def program(a, b):
        two = F.full((4, 8), 2.0)
        return F.relu(a * two), F.exp(b * two)

    module = fxdsl.trace(program, SPEC, SPEC)
    before = module.clone()
    replaced = replace_pattern(module, lambda x: x * 2.0, lambda x: x + x)
    assert len(replaced) == 2
    assert [op.name for op in ops_in_order(module)] == [
        "graph.add", "graph.relu", "graph.add", "graph.exp", "func.return",
    ]  # fmt: skip
    assert_same_numerics(before, module)
