"""The fast paths of the graph syntax give what the token-by-token parser
and xDSL's printer give: `reuse_parse`, the printed-form regexes for scopes
and operands, the cached scope and type text, and the pause of the cyclic
GC while parsing. Nothing here is timed: benchmarks/bench_scale_compile.py
measures the speed."""

from __future__ import annotations

import gc
import io
import re

import pytest
from fxdsl.ir.graph import ScopeAttr, reuse_parse
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from fxdsl.ir import graph
from fxdsl.ir.parsing import make_context, parse_module

FRAMES = '("m", 0, "M"), ("m.lin", 1, "Linear")'

REPEATED = f"""
func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {{
  %a = graph.add %x, %w {{scope = #graph.scope<{FRAMES}>}} : tensor<4xf32>
  %b = graph.add %a, %w {{scope = #graph.scope<{FRAMES}>}} : tensor<4xf32>
  %c = graph.sum %b dims [0] keepdim {{scope = #graph.scope<{FRAMES}>}} : (tensor<4xf32>) -> tensor<1xf32>
  %d = graph.sum %b dims [0] keepdim {{scope = #graph.scope<{FRAMES}>}} : (tensor<4xf32>) -> tensor<1xf32>
  %e = graph.broadcast_to %d : (tensor<1xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}}
"""


def _ops(text: str) -> list[graph.GraphOp]:
    module = parse_module(text)
    return [op for op in module.walk() if isinstance(op, graph.GraphOp)]


def test_repeated_text_parses_to_equal_ops_with_their_own_attributes() -> None:
    a, b, c, d, _ = _ops(REPEATED)
    assert a.attributes == b.attributes == c.attributes == d.attributes
    assert a.attributes is not b.attributes
    assert c.properties == d.properties
    assert c.result_types == d.result_types
    assert b.operands[0] is a.results[0]
    a.attributes["extra"] = a.attributes["scope"]
    assert "extra" not in b.attributes


def test_repeated_text_round_trips() -> None:
    module = parse_module(REPEATED)
    assert str(parse_module(str(module))) == str(module)


@pytest.mark.parametrize(
    ("spelled", "frames"),
    [
        ('("a", 0, "A")', (("a", 0, "A"),)),
        ('( "a" ,0,"A" ),("b",10,"B")', (("a", 0, "A"), ("b", 10, "B"))),
        (r'("q\"uote", 0, "back\\slash")', (('q"uote', 0, "back\\slash"),)),
        ('("tab\there", 1, "é")', (("tab\there", 1, "é"),)),
        ("", ()),
    ],
)
def test_scope_in_any_spelling(spelled: str, frames: tuple[object, ...]) -> None:
    text = f'"test.op"() {{scope = #graph.scope<{spelled}>}} : () -> ()'
    (op,) = parse_module(text).body.block.ops
    assert op.attributes["scope"] == ScopeAttr(frames)  # type: ignore[arg-type]


def _xdsl_string_literal(text: str) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_string_literal(text)
    return stream.getvalue()


@pytest.mark.parametrize("name", ["plain.name", 'q"uote', "back\\slash", "é", "\t"])
def test_scope_prints_string_literals_as_xdsl_does(name: str) -> None:
    scope = ScopeAttr(((name, 2, "T"),))
    literal = _xdsl_string_literal(name)
    assert str(scope) == f'#graph.scope<({literal}, 2, "T")>'
    if name.isascii():  # xDSL 0.74 reads no escaped UTF-8 back, fast path or not
        text = f'"test.op"() {{s = {scope}}} : () -> ()'
        (op,) = parse_module(text).body.block.ops
        assert op.attributes["s"] == scope


def test_operands_in_any_spelling() -> None:
    text = """
    func.func @f(%x: tensor<4xf32>) -> tensor<2xf32> {
      %s:2 = graph.split %x dim 0 sizes [2, 2] : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      %y = graph.add %s#0,%s#1 : tensor<2xf32>
      %z = graph.add %y ,
          %s#1 : tensor<2xf32>
      %w = graph.add %z, %y : tensor<2xf32>
      func.return %w : tensor<2xf32>
    }
    """
    split, y, z, w = _ops(text)
    assert list(y.operands) == list(split.results)
    assert list(z.operands) == [y.results[0], split.results[1]]
    assert list(w.operands) == [z.results[0], y.results[0]]


def test_errors_in_repeated_text_keep_their_location() -> None:
    lines = REPEATED.splitlines()
    lines[3] = lines[3].replace(": tensor<4xf32>", ": tensor<8xf32>")
    with pytest.raises(ParseError) as error:
        parse_module("\n".join(lines), "in.mlir")
    column = lines[3].index("%a") + 1
    assert f"in.mlir:4:{column}" in str(error.value)


def test_reuse_keeps_only_whole_parses() -> None:
    # A guess longer than the real parse must not be reused: the third type
    # would otherwise swallow the fourth.
    parser = Parser(make_context(), ", ".join(["tensor<4xf32>"] * 4 + ["i32"]))
    too_long = re.compile(r"tensor<4xf32>, tensor<4xf32>")
    types = [reuse_parse(parser, too_long, parser.parse_type)]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(reuse_parse(parser, too_long, parser.parse_type))
    assert [str(t) for t in types] == ["tensor<4xf32>"] * 4 + ["i32"]


def test_redefined_result_is_an_error_at_its_name() -> None:
    lines = REPEATED.splitlines()
    lines[3] = lines[3].replace("%b = graph.add %a", "%a = graph.add %x")
    with pytest.raises(ParseError) as error:
        parse_module("\n".join(lines), "in.mlir")
    assert f"in.mlir:4:{lines[3].index('%a') + 1}" in str(error.value)


def test_parsing_leaves_the_cyclic_gc_as_it_was() -> None:
    assert gc.isenabled()
    parse_module(REPEATED)
    assert gc.isenabled()
    with pytest.raises(ParseError):
        parse_module("%x = graph.neg")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_module(REPEATED)
        assert not gc.isenabled()
    finally:
        gc.enable()
