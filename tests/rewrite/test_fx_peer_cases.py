"""torch.fx's own tests of the rewrite API, ported to the graph dialect.

Each test mirrors one case of PyTorch's `test/fx/test_subgraph_rewriter.py`,
`test/fx/test_matcher_utils.py` or `test/fx/test_pass_infra.py` (named in
its docstring), written the fxdsl way: programs are traced with
`fxdsl.trace`, checked by running them with `fxdsl.run` against a traced
comparison function, by op-name lists and by match counts. Where FX lets a
replacement change a value's shape, the port picks a replacement of the
same type (fxdsl refuses a replacement of another type, by design).

Skipped, having no meaning on the graph dialect:

* test_subgraph_rewriter_replaces_referenced_submodules: call_module and
  submodule ownership; the graph dialect has no submodules.
* test_subgraph_rewriter_annotations_int: Python type annotations of FX
  placeholders (RewritingTracer); graph values are always tensors.
* test_subgraph_matcher_with_list (the wildcard-in-a-list half) and
  test_matching_pattern_with_list_type_arg: list arguments such as a
  reshape's shape are op properties or result types, not SSA values, so a
  wildcard cannot bind them (the list-length half is ported as
  test_reshape_property_of_another_rank_does_not_match).
* test_subgraph_rewriter_nodes_with_kwargs / local_revert's `torch.fx.wrap`:
  kwargs and opaque leaf functions do not exist; the matching behaviour of
  both cases is ported with a plain-op replacement.
* the un-wrapped `PassBase` half of test_pass_manager_error and the
  `pass_result_wrapper` calls of test_pass_manager: fxdsl accepts a pass
  that returns None (edited in place), so there is nothing to wrap.
* test_topological_sort: it tests FX's private `_topological_sort_passes`;
  the public `solve_constraints` is tested instead.

"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation

import fxdsl
from fxdsl.ir import graph
from fxdsl.rewrite import (
    InternalMatch,
    PassManager,
    PassResult,
    SubgraphMatcher,
    ops_in_order,
    replace_pattern,
    replace_pattern_with_filters,
    this_before_that_pass_constraint,
)
from fxdsl.rewrite.matcher import is_literal
from fxdsl.rewrite.pass_manager import PassManagerError

F = fxdsl.ops
TensorSpec = fxdsl.TensorSpec
S34 = TensorSpec((3, 4))


def names(module: ModuleOp) -> list[str]:
    """Op names in program order, the terminator excluded."""
    return [op.name for op in ops_in_order(module) if op.name != "func.return"]


def inputs_for(specs: Sequence[TensorSpec], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s.shape).astype(np.float32) for s in specs]


def assert_same_as(
    module: ModuleOp, comparison: Callable[..., Any], *specs: TensorSpec
) -> None:
    """`module` (rewritten) computes what the traced `comparison` computes."""
    module.verify()
    expected_module = fxdsl.trace(comparison, *specs)
    for seed in (0, 1):
        inputs = inputs_for(specs, seed)
        got = fxdsl.run(module, *inputs)
        expected = fxdsl.run(expected_module, *inputs)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype
            assert g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- #
# test_subgraph_rewriter.py
# --------------------------------------------------------------------------- #


def neg_plus_relu(x):
    return F.neg(x) + F.relu(x)


def test_preserves_logic() -> None:
    """test_subgraph_rewriter_preserves_logic: pattern replaced by itself."""

    def program(x):
        val = F.neg(x) + F.relu(x)
        return F.add(val, val)

    module = fxdsl.trace(program, S34)
    assert len(replace_pattern(module, neg_plus_relu, neg_plus_relu)) == 1
    assert names(module) == ["graph.neg", "graph.relu", "graph.add", "graph.add"]
    assert_same_as(module, program, S34)


def test_oneliner_pattern() -> None:
    """test_subgraph_rewriter_with_oneliner_pattern: neg -> relu."""

    def program(x):
        val = F.neg(x)
        return F.add(val, val)

    def comparison(x):
        val = F.relu(x)
        return F.add(val, val)

    module = fxdsl.trace(program, S34)
    replaced = replace_pattern(module, lambda x: F.neg(x), lambda x: F.relu(x))
    assert len(replaced) == 1
    assert names(module) == ["graph.relu", "graph.add"]
    assert_same_as(module, comparison, S34)


def test_single_pattern_match() -> None:
    """test_subgraph_rewriter_single_pattern_match: neg(x)+relu(x) -> relu(x)."""

    def program(x):
        val = F.neg(x) + F.relu(x)
        return F.add(val, val)

    def comparison(x):
        val = F.relu(x)
        return F.add(val, val)

    module = fxdsl.trace(program, S34)
    assert len(replace_pattern(module, neg_plus_relu, lambda x: F.relu(x))) == 1
    assert names(module) == ["graph.relu", "graph.add"]
    assert_same_as(module, comparison, S34)


def test_multiple_pattern_match() -> None:
    """test_subgraph_rewriter_multiple_pattern_match: two copies of
    sum(cat([w1, w2])) both replaced (by sum(w1) + sum(w2), FX's stack would
    change the type)."""

    def program(x, w1, w2):
        m1 = F.sum(F.concat([w1, w2]))
        m2 = F.sum(F.concat([w1, w2]))
        return x + F.max(m1) + F.max(m2)

    def pattern(w1, w2):
        return F.sum(F.concat([w1, w2]))

    def replacement(w1, w2):
        return F.sum(w1) + F.sum(w2)

    def comparison(x, w1, w2):
        m1 = F.sum(w1) + F.sum(w2)
        m2 = F.sum(w1) + F.sum(w2)
        return x + F.max(m1) + F.max(m2)

    specs = (TensorSpec((1, 3)),) * 3
    module = fxdsl.trace(program, *specs)
    # concat needs ranked placeholders: pattern and replacement get specs.
    pattern_module = fxdsl.trace(pattern, *specs[1:])
    replacement_module = fxdsl.trace(replacement, *specs[1:])
    assert len(replace_pattern(module, pattern_module, replacement_module)) == 2
    assert "graph.concat" not in names(module)
    assert_same_as(module, comparison, *specs)


def test_graph_argument_order() -> None:
    """test_subgraph_rewriter_graph_argument_order: matmul(x, y) replaced by
    itself keeps the (non-commutative) operand order."""
    specs = (S34, TensorSpec((4, 5)))

    def mm(x, y):
        return F.matmul(x, y)

    module = fxdsl.trace(mm, *specs)
    # matmul needs ranked placeholders: the pattern is traced on real specs.
    pattern = fxdsl.trace(mm, *specs)
    assert len(replace_pattern(module, pattern, pattern)) == 1
    assert names(module) == ["graph.matmul"]
    assert_same_as(module, mm, *specs)


def test_correct_output_replacement() -> None:
    """test_subgraph_rewriter_correct_output_replacement: only relu(x) is
    replaced; neg(y) stays."""

    def program(x, y):
        val = F.neg(y) + F.relu(x)
        return F.add(val, val)

    def comparison(x, y):
        val = F.neg(y) + F.neg(x)
        return F.add(val, val)

    module = fxdsl.trace(program, S34, S34)
    assert len(replace_pattern(module, lambda x: F.relu(x), lambda x: F.neg(x))) == 1
    assert names(module) == ["graph.neg", "graph.neg", "graph.add", "graph.add"]
    assert_same_as(module, comparison, S34, S34)


def test_traced_as_callable() -> None:
    """test_subgraph_rewriter_traced_as_callable: pattern and replacement
    given as already traced modules."""

    def program(x):
        val = F.neg(x) + F.relu(x)
        return F.add(val, val)

    def comparison(x):
        val = F.sigmoid(x)
        return F.add(val, val)

    module = fxdsl.trace(program, S34)
    traced_pattern = fxdsl.trace(neg_plus_relu, S34)
    traced_replacement = fxdsl.trace(lambda x: F.sigmoid(x), S34)
    assert len(replace_pattern(module, traced_pattern, traced_replacement)) == 1
    assert names(module) == ["graph.sigmoid", "graph.add"]
    assert_same_as(module, comparison, S34)


def test_pattern_is_entire_graph() -> None:
    """test_subgraph_rewriter_pattern_is_entire_graph (FX's cat replacement
    would change the type; a product of the same type stands in)."""

    def pattern(x):
        a = F.neg(x)
        return F.add(a, a)

    def replacement(x):
        a = F.sigmoid(x)
        return F.mul(a, a)

    module = fxdsl.trace(pattern, S34)
    assert len(replace_pattern(module, pattern, replacement)) == 1
    assert names(module) == ["graph.sigmoid", "graph.mul"]
    assert_same_as(module, replacement, S34)


def test_output_node_may_have_unmatched_users() -> None:
    """test_subgraph_rewriter_pattern_output_pattern_node_can_have_users_that_are_not_matched."""

    def program(x):
        y = F.relu(x)
        return F.neg(y) - y

    def comparison(x):
        y = F.sigmoid(x)
        return F.neg(y) - y

    module = fxdsl.trace(program, S34)
    assert len(replace_pattern(module, F.relu, F.sigmoid)) == 1
    assert names(module) == ["graph.sigmoid", "graph.neg", "graph.sub"]
    assert_same_as(module, comparison, S34)


def test_internal_nodes_cannot_have_unmatched_users() -> None:
    """test_subgraph_rewriter_internal_pattern_nodes_cannot_have_users_that_are_not_matched:
    addmm(b1, cat(w1, w2), cat(x, b2).T) appears twice on the same cats, so
    each candidate's cats have a user outside it: no match."""
    w_spec, x_spec, b1_spec = TensorSpec((2, 3)), TensorSpec((2, 3)), TensorSpec((4, 4))

    def addmm_of_cats(x, w1, w2, b1, b2):
        m1 = F.concat([w1, w2])
        m2 = F.concat([x, b2])
        return b1 + F.matmul(m1, F.transpose(m2))

    def program(x, w1, w2, b1, b2):
        F.concat([w1, w2])  # m0: dead, as in FX
        m1 = F.concat([w1, w2])
        m2 = F.concat([x, b2])
        b1 + F.matmul(m1, F.transpose(m2))  # t0: dead, still a user
        t1 = F.sum(w1, 1)
        t2 = b1 + F.matmul(m1, F.transpose(m2))
        return F.sum(t1), F.sum(t2)

    specs = (x_spec, w_spec, w_spec, b1_spec, x_spec)
    module = fxdsl.trace(program, *specs)
    before = str(module)
    pattern = fxdsl.trace(addmm_of_cats, *specs)
    replacement = fxdsl.trace(lambda x, w1, w2, b1, b2: b1 * 2.0, *specs)
    assert replace_pattern(module, pattern, replacement) == []
    assert str(module) == before


def test_placeholder_matches_a_computed_value() -> None:
    """test_subgraph_rewriter_placeholder_matching: the wildcard binds the
    result of `x + 3` (not a function argument)."""

    def program(x):
        x = x + 3.0
        x = F.sigmoid(F.exp(x))
        return F.cast(x, "f16")

    def pattern(x):
        return F.cast(F.sigmoid(F.exp(x)), "f16")

    module = fxdsl.trace(program, S34)
    add = next(op for op in ops_in_order(module) if isinstance(op, graph.AddOp))
    (done,) = replace_pattern(module, pattern, lambda x: F.cast(x, "f16"))
    wildcard = next(k for k in done.nodes_map if isinstance(k, BlockArgument))
    assert done.nodes_map[wildcard] is add.results[0]
    assert names(module) == ["graph.full", "graph.add", "graph.cast"]
    assert_same_as(module, lambda x: F.cast(x + 3.0, "f16"), S34)


def test_replace_consecutive() -> None:
    """test_subgraph_rewriter_replace_consecutive_submodules: sigmoid x3 -> exp x3."""

    def program(x):
        return F.sigmoid(F.sigmoid(F.sigmoid(x)))

    module = fxdsl.trace(program, S34)
    assert len(replace_pattern(module, F.sigmoid, F.exp)) == 3
    assert names(module) == ["graph.exp"] * 3
    assert_same_as(module, lambda x: F.exp(F.exp(F.exp(x))), S34)


def test_overlapping_matches() -> None:
    """test_subgraph_rewriter_with_overlapping_matches: sigmoid x4 with a
    two-sigmoid pattern gives two matches, not three."""

    def program(x):
        return F.sigmoid(F.sigmoid(F.sigmoid(F.sigmoid(x))))

    module = fxdsl.trace(program, S34)
    replaced = replace_pattern(module, lambda x: F.sigmoid(F.sigmoid(x)), F.neg)
    assert len(replaced) == 2
    assert names(module) == ["graph.neg", "graph.neg"]
    assert_same_as(module, lambda x: F.neg(F.neg(x)), S34)


def test_replace_with_multiple_outputs() -> None:
    """test_subgraph_rewriter_replace_with_multiple_outputs."""

    def program(x):
        return F.sigmoid(x) + F.relu(x)

    def pattern(a):
        return F.sigmoid(a), F.relu(a)

    def replacement(x):
        return F.exp(x), F.abs(x)

    module = fxdsl.trace(program, S34)
    assert len(replace_pattern(module, pattern, replacement)) == 1
    assert names(module) == ["graph.exp", "graph.abs", "graph.add"]
    assert_same_as(module, lambda x: F.exp(x) + F.abs(x), S34)


def test_replace_with_duplicated_outputs() -> None:
    """test_subgraph_rewriter_replace_with_duplicated_outputs: the
    replacement returns one value twice, and an internal value (a1 - a2) is
    also a pattern output."""

    def program(x1, x2):
        x = x1 - x2
        return F.sigmoid(x) + F.relu(x)

    def pattern(a1, a2):
        a = a1 - a2
        return F.sigmoid(a), F.relu(a), a

    def replacement(x1, x2):
        y1 = F.exp(x1)
        y2 = F.abs(x2)
        return y2, y2, y1

    module = fxdsl.trace(program, S34, S34)
    assert len(replace_pattern(module, pattern, replacement)) == 1
    assert "graph.sub" not in names(module)
    assert names(module).count("graph.abs") == 1
    assert_same_as(module, lambda x1, x2: F.abs(x2) + F.abs(x2), S34, S34)


def test_unused_arguments_stay() -> None:
    """test_subgraph_rewriter_with_unused_args: the function keeps all three
    arguments after x + y -> x - y."""
    module = fxdsl.trace(lambda x, y, z: x + y, S34, S34, S34)
    assert len(replace_pattern(module, lambda x, y: x + y, lambda x, y: x - y)) == 1
    (function,) = [op for op in module.ops]
    assert len(function.body.block.args) == 3  # type: ignore[attr-defined]
    assert names(module) == ["graph.sub"]
    assert_same_as(module, lambda x1, x2, x3: x1 - x2, S34, S34, S34)


def test_whole_graph_replaced_by_its_input() -> None:
    """test_subgraph_rewriter_call_method (dequantize/sigmoid/to as plain
    ops): the whole body matches and the replacement returns its wildcard."""

    def pattern(x):
        return F.neg(F.sigmoid(F.exp(x)))

    module = fxdsl.trace(pattern, S34)
    (done,) = replace_pattern(module, pattern, lambda x: x)
    assert done.replacements == []
    assert names(module) == []
    assert_same_as(module, lambda x: F.neg(F.neg(x)), S34)


def _gemm_with_mul(a, b, bias, c):
    lin_res = F.matmul(a, F.transpose(b)) + bias
    return lin_res, c * lin_res


def _weights(rng: np.random.Generator) -> tuple[Any, Any]:
    w = F.constant(rng.standard_normal((8, 8)).astype(np.float32))
    b = F.constant(rng.standard_normal((8,)).astype(np.float32))
    return w, b


LIN_SPECS = (
    TensorSpec((4, 8)),
    TensorSpec((8, 8)),
    TensorSpec((8,)),
    TensorSpec((4, 8)),
)


def test_two_output_pattern_with_internal_output_user() -> None:
    """test_subgraph_rewriter_nodes_with_kwargs: linear's result is a
    pattern output *and* used by the matched mul."""

    def program(in0):
        w0, b0 = _weights(np.random.default_rng(0))
        lin_res = F.linear(in0, w0, b0)
        return in0 * lin_res + in0

    def pattern(a, b, bias):
        lin_res = F.linear(a, b, bias)
        return lin_res, a * lin_res

    def replacement(a, b, bias):
        lin_res = F.matmul(a, F.transpose(b)) + bias
        return lin_res, a * lin_res

    spec = TensorSpec((4, 8))
    module = fxdsl.trace(program, spec)
    before = module.clone()
    specs = LIN_SPECS[:3]
    matches = replace_pattern(
        module, fxdsl.trace(pattern, *specs), fxdsl.trace(replacement, *specs)
    )
    assert len(matches) == 1
    assert "graph.linear" not in names(module)
    assert names(module).count("graph.matmul") == 1
    x = inputs_for([spec])[0]
    np.testing.assert_allclose(
        fxdsl.run(module, x)[0], fxdsl.run(before, x)[0], rtol=1e-5, atol=1e-5
    )


def test_local_revert() -> None:
    """test_subgraph_rewriter_local_revert: three candidate muls; the middle
    one (lin * sigmoid(lin)) is no match and must not spoil the others."""
    rng = np.random.default_rng(1)

    def program(in0, in1):
        (w0, b0), (w1, b1), (w2, b2), (w3, b3), (w4, b4) = [
            _weights(rng) for _ in range(5)
        ]
        lin_res_2 = F.linear(F.linear(in1, w0, b0), w1, b1)
        sum_res_1 = in1 * lin_res_2 + in1  # match 1
        lin_res_3 = F.linear(sum_res_1, w2, b2)
        mul_res_2 = lin_res_3 * F.sigmoid(lin_res_3)  # no match
        lin_res_5 = F.linear(F.linear(in0, w3, b3), w4, b4)
        sum_res_2 = in0 * lin_res_5 + in0  # match 2
        return F.concat([mul_res_2, sum_res_2], dim=1)

    def pattern(a, b, bias, c):
        lin_res = F.linear(a, b, bias)
        return lin_res, c * lin_res

    spec = TensorSpec((4, 8))
    module = fxdsl.trace(program, spec, spec)
    before = module.clone()
    matches = replace_pattern(
        module,
        fxdsl.trace(pattern, *LIN_SPECS),
        fxdsl.trace(_gemm_with_mul, *LIN_SPECS),
    )
    assert len(matches) == 2
    assert names(module).count("graph.matmul") == 2
    assert names(module).count("graph.linear") == 3
    x, y = inputs_for([spec, spec])
    np.testing.assert_allclose(
        fxdsl.run(module, x, y)[0], fxdsl.run(before, x, y)[0], rtol=1e-4, atol=1e-4
    )


def test_replace_pattern_with_filters() -> None:
    """test_replace_pattern_with_filters: the pattern's `num` wildcard binds
    a scalar literal in one match and a computed tensor in the other; a
    filter keeps only the first."""

    def program(x):
        x = F.neg(F.relu(F.add(F.exp(x), 2.0)))  # num is a literal: match
        y = x + 1.0
        return F.neg(F.relu(F.add(F.exp(x), y)))  # num is computed: filtered out

    def pattern(x, num):
        return F.neg(F.relu(F.add(F.exp(x), num)))

    def replacement(x, num):
        return F.mul(x, num)

    def second_input_is_literal(match: InternalMatch, original, pattern_func) -> bool:
        num = pattern_func.body.block.args[1]
        bound = match.nodes_map[num]
        return isinstance(bound.owner, Operation) and is_literal(bound.owner)

    def check_replacement_ops(module: ModuleOp, matches) -> int:
        in_graph = [op for op in ops_in_order(module) if isinstance(op, graph.MulOp)]
        in_result = [op for m in matches for op in m.replacements]
        assert in_graph == in_result
        return len(in_graph)

    module = fxdsl.trace(program, S34)
    matches = replace_pattern_with_filters(module, pattern, replacement, None)
    assert len(matches) == 2
    assert check_replacement_ops(module, matches) == 2
    assert_same_as(module, lambda x: F.mul(F.mul(x, 2.0), F.mul(x, 2.0) + 1.0), S34)

    module = fxdsl.trace(program, S34)
    matches = replace_pattern_with_filters(
        module, pattern, replacement, [second_input_is_literal]
    )
    assert len(matches) == 1
    assert check_replacement_ops(module, matches) == 1

    def comparison(x):
        x = F.mul(x, 2.0)
        return F.neg(F.relu(F.add(F.exp(x), x + 1.0)))

    assert_same_as(module, comparison, S34)


def test_replacement_with_constants() -> None:
    """test_replacement_with_attrs: x + a - b with the pattern x + a and a
    replacement bringing its own constant c."""
    a, b, c = (np.array([v], np.float32) for v in (1.0, 2.0, 3.0))

    def program(x):
        return x + F.constant(a) - F.constant(b)

    module = fxdsl.trace(program, S34)
    matches = replace_pattern(
        module, lambda x: x + F.constant(a), lambda x: x - F.constant(c)
    )
    assert len(matches) == 1
    assert [n for n in names(module) if n != "graph.constant"] == [
        "graph.sub",
        "graph.sub",
    ]
    assert_same_as(module, lambda x: x - 3.0 - 2.0, S34)


# --------------------------------------------------------------------------- #
# test_matcher_utils.py
# --------------------------------------------------------------------------- #


def test_matcher_with_constant_operands() -> None:
    """test_subgraph_matcher_with_attributes: an addmm on constant weights
    (get_attr in FX) matches a pattern with its own constants of another
    shape. (FX accepts any tensor attribute there; fxdsl compares constants
    by value, so the ones of both sides match as splats of 1.0.)"""

    def program(x):
        bias, weight = (
            F.constant(np.ones((3, 3), np.float32)),
            F.constant(np.ones((3, 3), np.float32)),
        )
        return bias + F.matmul(x, weight)

    def pattern(x):
        bias, weight = (
            F.constant(np.ones((5, 5), np.float32)),
            F.constant(np.ones((5, 5), np.float32)),
        )
        return bias + F.matmul(x, weight)

    module = fxdsl.trace(program, TensorSpec((3, 3)))
    pattern_module = fxdsl.trace(pattern, TensorSpec((5, 5)))
    assert len(SubgraphMatcher(pattern_module).match(module)) == 1


def test_reshape_property_of_another_rank_does_not_match() -> None:
    """test_subgraph_matcher_with_list_bad (the list-length half of
    test_subgraph_matcher_with_list): a reshape to a 3-d shape is no match
    for a reshape to a 2-d one, while the same shape matches."""
    module = fxdsl.trace(lambda x: F.reshape(x, (2, 6)), S34)
    to_3d = fxdsl.trace(lambda x: F.reshape(x, (2, 3, 2)), S34)
    to_2d = fxdsl.trace(lambda x: F.reshape(x, (2, 6)), S34)
    assert len(SubgraphMatcher(to_3d).match(module)) == 0
    assert len(SubgraphMatcher(to_2d).match(module)) == 1


def test_cast_element_type_is_a_literal() -> None:
    """test_subgraph_rewriter_placeholder_matching's `x.to(torch.float16)`:
    the target dtype is a literal argument, so a cast to f16 is no match for
    a cast to bf16 (unless literals are ignored)."""
    module = fxdsl.trace(lambda x: F.cast(F.sigmoid(x), "bf16"), S34)
    to_f16 = fxdsl.trace(lambda x: F.cast(F.sigmoid(x), "f16"), S34)
    to_bf16 = fxdsl.trace(lambda x: F.cast(F.sigmoid(x), "bf16"), TensorSpec(()))
    assert len(SubgraphMatcher(to_f16).match(module)) == 0
    assert len(SubgraphMatcher(to_bf16).match(module)) == 1
    assert len(SubgraphMatcher(to_f16, ignore_literals=True).match(module)) == 1


def test_matcher_ignore_literals() -> None:
    """test_subgraph_matcher_ignore_literals: x + 1 vs the pattern x + 2."""
    module = fxdsl.trace(lambda x: x + 1.0, TensorSpec((3, 3)))
    pattern = fxdsl.trace(lambda x: x + 2.0, TensorSpec((4, 4)))
    assert len(SubgraphMatcher(pattern).match(module)) == 0
    (match,) = SubgraphMatcher(pattern, ignore_literals=True).match(module)
    assert [op.name for op in match.anchors] == ["graph.add"]


# --------------------------------------------------------------------------- #
# test_pass_infra.py
# --------------------------------------------------------------------------- #


def swap_pass(
    source: type[Operation], target: type[Operation]
) -> Callable[[ModuleOp], PassResult]:
    """A pass re-creating every binary `source` op as a `target` op."""

    def run(module: ModuleOp) -> PassResult:
        modified = False
        for op in ops_in_order(module):
            if isinstance(op, source):
                new = target(*op.operands)  # type: ignore[call-arg]
                op.results[0].replace_all_uses_with(new.results[0])
                parent = op.parent_block()
                assert parent is not None
                parent.insert_op_before(new, op)
                parent.erase_op(op)
                modified = True
        return PassResult(module, modified)

    run.__name__ = f"replace_{source.__name__}_with_{target.__name__}"
    return run


def add_module() -> ModuleOp:
    def program(x):
        y = F.add(x, x)
        return F.add(y, x)

    return fxdsl.trace(program, S34)


ADD_TO_MUL = swap_pass(graph.AddOp, graph.MulOp)
MUL_TO_DIV = swap_pass(graph.MulOp, graph.DivOp)
DIV_TO_SUB = swap_pass(graph.DivOp, graph.SubOp)
SUB_TO_ADD = swap_pass(graph.SubOp, graph.AddOp)


def test_pass_manager_runs_passes_in_order() -> None:
    """test_pass_manager: add -> mul -> div -> sub -> add."""
    pm = PassManager(passes=[ADD_TO_MUL, MUL_TO_DIV, DIV_TO_SUB, SUB_TO_ADD])
    assert len(pm.passes) == 4
    result = pm(add_module())
    assert isinstance(result.module, ModuleOp)
    assert names(result.module) == ["graph.add", "graph.add"]
    pm = PassManager(passes=[ADD_TO_MUL, MUL_TO_DIV])
    assert names(pm(add_module()).module) == ["graph.div", "graph.div"]


def test_pass_manager_checks() -> None:
    """test_pass_manager_checks: a check that raises fails the run (the
    input still has adds)."""

    def check_div_target(module: ModuleOp) -> None:
        for op in ops_in_order(module):
            if op.name.startswith("graph.") and not isinstance(op, graph.DivOp):
                raise ValueError("Target should be div!")

    pm = PassManager(passes=[ADD_TO_MUL, MUL_TO_DIV])
    pm.add_checks(check_div_target)
    with pytest.raises(PassManagerError, match="Target should be div!") as caught:
        pm(add_module())
    assert isinstance(caught.value.__cause__, ValueError)


def test_pass_manager_bad_checks() -> None:
    """test_pass_manager_bad_checks: a check must take exactly one argument."""

    def check_bad_args(module, i):
        pass

    pm = PassManager()
    with pytest.raises(TypeError):
        pm.add_checks(check_bad_args)


def test_pass_manager_error_names_failing_and_earlier_passes() -> None:
    """test_pass_manager_error (the raising-pass half)."""

    def pass_fail(module: ModuleOp) -> None:
        raise RuntimeError("bad")

    pm = PassManager(passes=[ADD_TO_MUL, MUL_TO_DIV, DIV_TO_SUB, SUB_TO_ADD, pass_fail])
    pattern = (
        "pass_fail.*replace_AddOp_with_MulOp.*replace_MulOp_with_DivOp"
        ".*replace_DivOp_with_SubOp.*replace_SubOp_with_AddOp.*bad"
    )
    with pytest.raises(PassManagerError, match=pattern):
        pm(add_module())


def test_this_before_that_pass_constraint() -> None:
    """test_this_before_that_pass_constraint: an unsatisfiable order is a
    RuntimeError from validate_constraints; solve_constraints reorders."""
    passes = [swap_pass(graph.AddOp, graph.MulOp) for _ in range(3)]
    pm = PassManager(passes)
    pm.add_constraint(this_before_that_pass_constraint(passes[-1], passes[0]))
    with pytest.raises(RuntimeError, match="a constraint forbids"):
        pm.validate_constraints()
    pm.solve_constraints()
    assert pm.passes == [passes[1], passes[2], passes[0]]  # earliest ready first
    pm.validate_constraints()


def test_cyclic_pass_constraints_are_an_error() -> None:
    first, second = ADD_TO_MUL, MUL_TO_DIV
    pm = PassManager([first, second])
    pm.add_constraint(this_before_that_pass_constraint(first, second))
    pm.add_constraint(this_before_that_pass_constraint(second, first))
    with pytest.raises(RuntimeError, match="cycle"):
        pm(add_module())


def test_pass_manager_steps() -> None:
    """test_pass_manager's `steps=5`: rounds repeat until one changes
    nothing, so a pass that undoes the previous round's last pass still
    reaches the fixed point (here: two rounds, then a third that is idle)."""
    rounds: list[int] = []

    def count(module: ModuleOp) -> None:
        rounds.append(1)

    pm = PassManager(passes=[count, MUL_TO_DIV, ADD_TO_MUL], steps=5)
    assert names(pm(add_module()).module) == ["graph.div", "graph.div"]
    assert len(rounds) == 3
    once = PassManager(passes=[MUL_TO_DIV, ADD_TO_MUL])(add_module()).module
    assert names(once) == ["graph.mul", "graph.mul"]
    with pytest.raises(ValueError, match="steps"):
        PassManager(steps=0)
