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
