"""SubgraphMatcher: each flag on and off, with FX's matching rules."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument

import fxdsl
from fxdsl.rewrite import InternalMatch, SubgraphMatcher, ops_in_order

F = fxdsl.ops
T4 = "tensor<4xf32>"


def func_of(*lines: str, args: int = 2, results: int = 1) -> ModuleOp:
    """A module with @f(%x, %y, ...) of 4-element tensors and the given body."""
    params = ", ".join(f"%{'xyzw'[i]}: {T4}" for i in range(args))
    outs = ", ".join([T4] * results)
    text = f"func.func @f({params}) -> ({outs}) {{\n" + "\n".join(lines) + "\n}"
    return fxdsl.parse(text)


def op_names(match: InternalMatch) -> list[str]:
    return sorted(op.name for op in match.ops)


def relu_relu(x):
    return F.relu(F.relu(x))


CHAIN = func_of(
    f"%a = graph.relu %x : {T4}",
    f"%b = graph.relu %a : {T4}",
    f"%c = graph.relu %b : {T4}",
    f"func.return %c : {T4}",
)


def add_then_mul(x, y):
    return F.mul(F.add(x, y), y)


def test_match_maps_pattern_to_graph() -> None:
    module = func_of(
        f"%a = graph.add %x, %y : {T4}",
        f"%b = graph.mul %a, %y : {T4}",
        f"func.return %b : {T4}",
    )
    (match,) = SubgraphMatcher(add_then_mul).match(module)
    add, mul, _ = ops_in_order(module)
    args = list(module.body.block.first_op.body.block.args)  # type: ignore[union-attr]
    assert match.anchors == [mul]
    assert match.placeholder_nodes == args
    assert match.returning_nodes == [mul.results[0]]
    assert set(match.ops) == {add, mul}
    # nodes_map: pattern ops -> graph ops, pattern arguments -> graph values.
    assert sorted(
        v.name for k, v in match.nodes_map.items() if not isinstance(k, BlockArgument)
    ) == ["graph.add", "graph.mul"]  # type: ignore[union-attr]


@pytest.mark.parametrize(("remove_overlapping", "expected"), [(True, 1), (False, 2)])
def test_overlapping_matches(remove_overlapping: bool, expected: int) -> None:
    matcher = SubgraphMatcher(relu_relu, remove_overlapping_matches=remove_overlapping)
    matches = matcher.match(CHAIN)
    a, b, c, _ = ops_in_order(CHAIN)
    assert len(matches) == expected
    # Deterministic: anchors in program order, the first match is kept.
    assert matches[0].anchors == [b]
    assert set(matches[0].ops) == {a, b}
    if expected == 2:
        assert matches[1].anchors == [c]
        assert set(matches[1].ops) == {b, c}


@pytest.mark.parametrize(("match_output", "expected"), [(False, 2), (True, 1)])
def test_match_output(match_output: bool, expected: int) -> None:
    def pattern(x):
        return F.neg(x)

    module = func_of(
        f"%a = graph.neg %x : {T4}",
        f"%b = graph.exp %a : {T4}",
        f"%c = graph.neg %b : {T4}",
        f"func.return %c : {T4}",
    )
    matches = SubgraphMatcher(pattern, match_output=match_output).match(module)
    assert len(matches) == expected
    # With match_output only the neg whose value the function returns matches.
    assert matches[-1].returning_nodes == [list(ops_in_order(module))[2].results[0]]


@pytest.mark.parametrize(("match_placeholder", "expected"), [(False, 2), (True, 1)])
def test_match_placeholder(match_placeholder: bool, expected: int) -> None:
    module = func_of(
        f"%a = graph.relu %x : {T4}",
        f"%b = graph.relu %a : {T4}",
        f"%c = graph.exp %b : {T4}",
        f"%d = graph.relu %c : {T4}",
        f"%e = graph.relu %d : {T4}",
        f"%f = graph.add %b, %e : {T4}",
        f"func.return %f : {T4}",
    )
    matcher = SubgraphMatcher(relu_relu, match_placeholder=match_placeholder)
    matches = matcher.match(module)
    assert len(matches) == expected
    assert all(isinstance(m.placeholder_nodes[0], BlockArgument) for m in matches[:1])


@pytest.mark.parametrize(
    ("literal", "ignore_literals", "expected"),
    [
        ("graph.full value 2.0", False, 1),
        ("graph.full value 3.0", False, 0),
        ("graph.full value 3.0", True, 1),
        ("graph.full value 2.0", True, 1),
        # A splat graph.constant is the same literal as a full of its value.
        ("graph.constant dense<2.0>", False, 1),
        ("graph.constant dense<[2.0, 2.0, 2.0, 3.0]>", False, 0),
        ("graph.constant dense<[2.0, 2.0, 2.0, 3.0]>", True, 1),
    ],
)
def test_literal_operands(literal: str, ignore_literals: bool, expected: int) -> None:
    def pattern(x):
        return x * 2.0

    # The graph's literal has another shape than the traced rank-0 one:
    # literals compare by value.
    module = func_of(
        f"%c = {literal} : {T4}",
        f"%a = graph.mul %x, %c : {T4}",
        f"func.return %a : {T4}",
    )
    matches = SubgraphMatcher(pattern, ignore_literals=ignore_literals).match(module)
    assert len(matches) == expected
    if expected:
        assert op_names(matches[0]) == [literal.split()[0], "graph.mul"]


SUM_PATTERN = """
func.func @p(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = graph.sum %x dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
"""


@pytest.mark.parametrize(("ignore_literals", "expected"), [(False, 1), (True, 2)])
def test_property_literals(ignore_literals: bool, expected: int) -> None:
    module = fxdsl.parse(
        """
func.func @f(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %a = graph.sum %x dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %b = graph.sum %x dims [0] : (tensor<4x8xf32>) -> tensor<8xf32>
  func.return %a, %b : tensor<4xf32>, tensor<8xf32>
}"""
    )
    matches = SubgraphMatcher(SUM_PATTERN, ignore_literals=ignore_literals).match(
        module
    )
    assert len(matches) == expected


def test_value_used_outside_the_match_invalidates_it() -> None:
    module = func_of(
        f"%a = graph.add %x, %y : {T4}",
        f"%b = graph.mul %a, %y : {T4}",
        f"%c = graph.neg %a : {T4}",
        f"func.return %b, %c : {T4}, {T4}",
        results=2,
    )
    assert SubgraphMatcher(add_then_mul).match(module) == []
    # The returning node itself may be used anywhere.
    assert len(SubgraphMatcher(lambda x, y: F.add(x, y)).match(module)) == 1


def test_two_wildcards_never_bind_one_value() -> None:
    def pattern(x, y):
        return F.add(x, y)

    same = func_of(f"%a = graph.add %x, %x : {T4}", f"func.return %a : {T4}")
    different = func_of(f"%a = graph.add %x, %y : {T4}", f"func.return %a : {T4}")
    assert SubgraphMatcher(pattern).match(same) == []
    assert len(SubgraphMatcher(lambda x: F.add(x, x)).match(same)) == 1
    assert len(SubgraphMatcher(pattern).match(different)) == 1


def test_pattern_with_two_outputs() -> None:
    def pattern(x):
        e = F.exp(x)
        return F.neg(e), F.tanh(e)

    module = func_of(
        f"%e = graph.exp %x : {T4}",
        f"%n = graph.neg %e : {T4}",
        f"%t = graph.tanh %e : {T4}",
        f"func.return %n, %t : {T4}, {T4}",
        results=2,
    )
    (match,) = SubgraphMatcher(pattern).match(module)
    assert [op.name for op in match.anchors] == ["graph.neg", "graph.tanh"]
    assert len(SubgraphMatcher(pattern, match_output=True).match(module)) == 1


def test_ir_text_pattern_and_bad_patterns() -> None:
    text = f"""
func.func @p(%x: {T4}) -> {T4} {{
  %a = graph.relu %x : {T4}
  %b = graph.relu %a : {T4}
  func.return %b : {T4}
}}"""
    assert len(SubgraphMatcher(text).match(CHAIN)) == 1
    with pytest.raises(ValueError, match="returned value is an argument"):
        SubgraphMatcher(lambda x: x)


def test_shared_literal_does_not_block_or_overlap_matches() -> None:
    def pattern(x):
        return x * 2.0

    module = func_of(
        f"%c = graph.full value 2.0 : {T4}",
        f"%a = graph.mul %x, %c : {T4}",
        f"%b = graph.mul %y, %c : {T4}",
        f"func.return %a, %b : {T4}, {T4}",
        results=2,
    )
    matches = SubgraphMatcher(pattern).match(module)
    assert len(matches) == 2
    full = next(ops_in_order(module))
    assert all(full in m.ops and full not in m.compute_ops for m in matches)
