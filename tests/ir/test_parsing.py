"""The parser fxdsl builds: its lexer is a subclass, xDSL's is untouched."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRLexer

from fxdsl.ir import parsing


def test_xdsl_lexer_is_not_patched() -> None:
    assert parsing.LinearLexer is not MLIRLexer
    pattern = MLIRLexer._unescaped_characters_regex.pattern  # pyright: ignore
    assert pattern != parsing.LinearLexer._unescaped_characters_regex.pattern  # pyright: ignore


def test_locating_parser_lexes_with_the_linear_lexer() -> None:
    parser = parsing.LocatingParser(parsing.make_context(), '"x"')
    assert isinstance(parser.lexer, parsing.LinearLexer)


def test_unterminated_literal_fails_fast() -> None:
    text = '%x = "test.op"() {a = "' + "abcdefgh " * 40 + "\n"
    # xDSL's own regex takes 2**n steps here (n = 40: this test would hang)
    with pytest.raises(ParseError, match="closing string literal"):
        parsing.parse_module(text)


def _constant_values(text: str) -> list[float]:
    from fxdsl.ir import graph

    module = parsing.parse_module(text)
    (op,) = [o for o in module.walk() if isinstance(o, graph.ConstantOp)]
    return list(op.value.get_values())


@pytest.mark.parametrize(
    ("element", "neg_inf", "nan"),
    [
        ("f32", "0xFF800000", "0x7FC00000"),
        ("bf16", "0xFF80", "0x7FC0"),
        ("f16", "0xFC00", "0x7E00"),
        ("f64", "0xFFF0000000000000", "0x7FF8000000000000"),
    ],
)
def test_hex_float_elements_are_bit_patterns(
    element: str, neg_inf: str, nan: str
) -> None:
    """MLIR (and xDSL's printer) writes inf and NaN in a dense literal as
    hexadecimal bit patterns; xDSL 0.74 read them back as integer values
    (-inf became 4286578688.0). A printed module must parse to its values."""
    import math

    t = f"tensor<3x{element}>"
    text = (
        f"func.func @f() -> {t} {{\n"
        f"  %c = graph.constant dense<[{neg_inf}, {nan}, 1.5]> : {t}\n"
        f"  func.return %c : {t}\n}}\n"
    )
    first, second, third = _constant_values(text)
    assert first == -math.inf
    assert math.isnan(second)
    assert third == 1.5


def test_printed_special_values_round_trip() -> None:
    import numpy as np
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, bf16, f32
    from xdsl.ir import Block, Region

    from fxdsl.ir import graph
    from fxdsl.transforms.constants import dense_constant

    values = np.array([-np.inf, np.inf, np.nan, -0.0, 3.0], np.float32)
    for element in (f32, bf16):
        t = graph.tensor((5,), element)
        block = Block()
        constant = dense_constant(values, t)
        block.add_ops([constant, func.ReturnOp(constant.result)])
        module = ModuleOp([func.FuncOp("f", ([], [t]), Region(block))])
        again = _constant_values(str(module))
        np.testing.assert_array_equal(np.array(again, np.float32), values)


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("0x1FFFF", "0x1ffff is wider than f16's 16 bits"),
        ("-0x7C00", "a hexadecimal float literal is a bit pattern: no sign"),
    ],
)
def test_bad_hex_float_elements_are_parse_errors(literal: str, message: str) -> None:
    text = (
        "func.func @f() -> tensor<1xf16> {\n"
        f"  %c = graph.constant dense<[{literal}]> : tensor<1xf16>\n"
        "  func.return %c : tensor<1xf16>\n}\n"
    )
    with pytest.raises(ParseError, match=message) as caught:
        parsing.parse_module(text, "bad.mlir")
    assert "bad.mlir:2:" in str(caught.value)
