"""The custom assembly format of the `graph` dialect, and the fast paths
that parse its printed form.

One scheme for every op (see `fxdsl.ir.graph`): operands, `name value`
property pairs, an attribute dict, a type signature. xDSL lexes and parses
in Python, token by token; a printed graph op is ~80 tokens, most of them in
its scope and its types, which repeat from op to op. The helpers here match
the printed form with one regex and parse each distinct piece of text once
per parser (`reuse_parse`); anything else goes through xDSL's parser, so a
parse error always comes from a real parse. Measured by
benchmarks/bench_scale_compile.py.
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections.abc import Callable
from typing import TypeVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import (
    Attribute,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

# How each property is spelled in the custom syntax, by property name.
INTS, INT, FLOAT, _STR, UNIT, ATTR = "ints", "int", "float", "str", "unit", "attr"
PROPERTY_KINDS: dict[str, str] = {
    "dims": INTS,
    "perm": INTS,
    "start": INTS,
    "limit": INTS,
    "step": INTS,
    "sizes": INTS,
    "keepdim": UNIT,
    "dim": INT,
    "correction": INT,
    "eps": FLOAT,
    "scale": FLOAT,
    "causal": UNIT,
    "approximate": _STR,
    "value": ATTR,
}


ScopeFrame = tuple[str, int, str]

# A printed frame, `("fqn", 0, "Type")`: string literals without escapes (the
# characters the lexer takes literally) and the printer's spacing.
_FRAME = r'\("([^"\\\n\v\f]*)", ([0-9]+), "([^"\\\n\v\f]*)"\)'
_SCOPE_FRAME = re.compile(_FRAME)
_SCOPE_BODY = rf"<(?:{_FRAME}(?:, {_FRAME})*)?>"
SCOPE_TEXT = re.compile(_SCOPE_BODY)
_SCOPE_DICT = re.compile(rf"\{{scope = #graph\.scope{_SCOPE_BODY}\}}")
"""An op's attribute dict as printed when it holds only its scope."""


def scope_frames(text: str) -> tuple[ScopeFrame, ...]:
    frames = _SCOPE_FRAME.findall(text)
    return tuple((fqn, int(index), kind) for fqn, index, kind in frames)


# Text is built once per distinct scope or type: a big module prints the same
# few thousands of times, and xDSL prints a string literal byte by byte.
@functools.lru_cache(maxsize=4096)
def scope_text(frames: tuple[ScopeFrame, ...]) -> str:
    # String literals, so names with quotes or backslashes round-trip.
    listed = ", ".join(
        f"({_string_literal(fqn)}, {index}, {_string_literal(kind)})"
        for fqn, index, kind in frames
    )
    return f"<{listed}>"


def _string_literal(text: str) -> str:
    if _PRINTED_AS_IS.fullmatch(text):
        return f'"{text}"'
    return _printed(lambda printer: printer.print_string_literal(text))


_PRINTED_AS_IS = re.compile(r"[ !#-\[\]-~]*")
"""What `Printer.print_string_literal` writes unescaped: printable ASCII but
`"` and `\\`."""


@functools.lru_cache(maxsize=4096)
def type_text(typ: Attribute) -> str:
    return _printed(lambda printer: printer.print_attribute(typ))


def _printed(write: Callable[[Printer], None]) -> str:
    stream = io.StringIO()
    write(Printer(stream=stream))
    return stream.getvalue()


def _print_float(printer: Printer, value: float) -> None:
    if math.isnan(value):
        printer.print_string("nan")
    elif math.isinf(value):
        printer.print_string("inf" if value > 0 else "-inf")
    else:
        printer.print_float(value, Float64Type())


def _parse_float(parser: Parser) -> float:
    negative = parser._parse_optional_token(MLIRTokenKind.MINUS) is not None  # pyright: ignore[reportPrivateUsage]
    if parser.parse_optional_keyword("inf") is not None:
        return -math.inf if negative else math.inf
    if parser.parse_optional_keyword("nan") is not None:
        return math.nan
    value = float(parser.parse_number())
    return -value if negative else value


def print_property(printer: Printer, kind: str, name: str, attr: Attribute) -> None:
    printer.print_string(f" {name}")
    if kind == UNIT:
        return
    printer.print_string(" ")
    if kind == INTS and isinstance(attr, DenseArrayBase):
        printer.print_string(f"[{', '.join(str(v) for v in attr.get_values())}]")
    elif kind == INT and isinstance(attr, IntegerAttr):
        printer.print_string(str(attr.value.data))
    elif kind == FLOAT and isinstance(attr, FloatAttr):
        _print_float(printer, attr.value.data)
    elif kind == _STR and isinstance(attr, StringAttr):
        printer.print_string_literal(attr.data)
    else:
        printer.print_attribute(attr)


def parse_property(parser: Parser, kind: str) -> Attribute:
    if kind == UNIT:
        return UnitAttr()
    if kind == INTS:
        return reuse_parse(parser, _INT_LIST, lambda: _parse_ints(parser))
    if kind == INT:
        return IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
    if kind == FLOAT:
        return FloatAttr(_parse_float(parser), Float64Type())
    if kind == _STR:
        return StringAttr(parser.parse_str_literal())
    return parser.parse_attribute()


def _parse_ints(parser: Parser) -> DenseArrayBase:
    values = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )
    return DenseArrayBase.from_list(i64, list(values))


# --------------------------------------------------------------------------- #
# Parsing large modules
# --------------------------------------------------------------------------- #

# xDSL lexes and parses in Python, token by token: a printed graph op is ~80
# tokens, most of them in its scope and its types, which repeat from op to
# op. `reuse_parse` parses each distinct piece of such text once per parser
# and skips over later copies of it; a parse error always comes from a real
# parse. Measured by benchmarks/bench_scale_compile.py.

_T = TypeVar("_T")
_TYPE = r"[a-z][a-z0-9_]*<[^<>\n]*>"  # `tensor<4x8xf32>`: no nested `<>`
TYPE_TEXT = re.compile(_TYPE)
"""The extent of a builtin type for `reuse_parse` (`parser.parse_type`)."""
_TYPE_LIST = rf"\((?:{_TYPE}(?:, {_TYPE})*)?\)"
SIGNATURE = re.compile(rf"{_TYPE_LIST} -> (?:{_TYPE_LIST}|{_TYPE})|{_TYPE}")
ATTR_DICT = re.compile(r'\{(?:"(?:[^"\\\n]|\\.)*"|[^"{}\n])*\}')
_INT_LIST = re.compile(r"\[[-0-9, ]*\]")
DENSE = re.compile(rf'dense<(?:"[^"\n]*"|[^"<>\n])*> : {_TYPE}')
_LONGEST_KEPT = 4096
"""Longer text (a big constant) seldom repeats: it is parsed, not kept."""


def reuse_parse(
    parser: AttrParser, extent: re.Pattern[str], parse: Callable[[], _T]
) -> _T:
    """`parse()` at the parser's position, or what it returned on an earlier
    copy of the same text in this parser's input (so the result must be
    immutable, or copied by the caller). `extent` guesses where the text
    ends, on a closing bracket; a guess is kept only where the real parse
    ended too, so a wrong guess costs a parse, never a wrong result."""
    text: str = parser.lexer.input.content  # type: ignore[assignment]
    match = extent.match(text, parser.pos)
    if match is None:
        return parse()
    key, end = match.group(), match.end()
    # one table per parser (aliases can give the same text another meaning
    # in another file) and per kind of text
    tables: dict[re.Pattern[str], dict[str, _T]]
    tables = vars(parser).setdefault("_graph_reuse", {})
    kept = tables.setdefault(extent, {})
    if (value := kept.get(key)) is not None:
        parser._resume_from(end)  # pyright: ignore[reportPrivateUsage]
        return value
    value = parse()
    # Resuming at `end` is what the parse did if only whitespace separates
    # `end` from the next token (anything else was parsed, or is a comment).
    after = parser.pos
    if after >= end and not text[end:after].strip() and len(key) <= _LONGEST_KEPT:
        kept[key] = value
    return value


def parse_printed_scope(parser: AttrParser) -> tuple[ScopeFrame, ...] | None:
    """The frames of a `#graph.scope` parameter in its printed form (no
    escapes, printer spacing; consumed): one regex instead of ~10 tokens a
    frame. None (nothing consumed) for anything else, which xDSL parses."""
    text: str = parser.lexer.input.content  # type: ignore[assignment]
    if match := SCOPE_TEXT.match(text, parser.pos):
        parser._resume_from(match.end())  # pyright: ignore[reportPrivateUsage]
        return scope_frames(match.group())
    return None


def parse_scope_only_dict(parser: AttrParser) -> tuple[ScopeFrame, ...] | None:
    """The frames of an attribute dict holding only `scope = #graph.scope<…>`
    as printed (consumed), else None (nothing consumed): most ops' attribute
    dicts are their scope alone, one regex instead of ~40 tokens."""
    text: str = parser.lexer.input.content  # type: ignore[assignment]
    if match := _SCOPE_DICT.match(text, parser.pos):
        parser._resume_from(match.end())  # pyright: ignore[reportPrivateUsage]
        return scope_frames(match.group())
    return None


# `%name` or `%12` as the lexer reads it (a longest match), without `#index`.
_ID = "a-zA-Z0-9$._-"
_OPERAND = rf"%(?:[0-9]+(?![0-9#])|[a-zA-Z$._-][{_ID}]*(?![#{_ID}]))"
_OPERAND_NAME = re.compile(_OPERAND)
_OPERAND_LIST = re.compile(rf"{_OPERAND}(?:, {_OPERAND})*")
RESULT_LIST = re.compile(rf"{_OPERAND}(?:, {_OPERAND})* = ")
"""An op's results as printed, `%a, %b = ` (no `%t:2` tuples)."""


def value_names(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where each `%name` in `text[start:end]` (an operand or result list
    matched above) starts and ends."""
    return [m.span() for m in _OPERAND_NAME.finditer(text, start, end)]


def parse_operands(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b#1, ...`, possibly none."""
    text: str = parser.lexer.input.content  # type: ignore[assignment]
    if match := _OPERAND_LIST.match(text, parser.pos):
        # the printed form by regex, anything after it token by token
        source = parser.lexer.input
        operands = [
            UnresolvedOperand(Span(start, end, source), 0)
            for start, end in value_names(text, match.start(), match.end())
        ]
        parser._resume_from(match.end())  # pyright: ignore[reportPrivateUsage]
        if parser.parse_optional_punctuation(",") is None:
            return operands
        operands.append(parser.parse_unresolved_operand())
    elif (first := parser.parse_optional_unresolved_operand()) is not None:
        operands = [first]
    else:
        return []
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


def function_type_text(inputs: list[Attribute], outputs: list[Attribute]) -> str:
    """What `Printer.print_function_type` writes."""
    results = ", ".join(map(type_text, outputs))
    if len(outputs) != 1 or isinstance(outputs[0], FunctionType):
        results = f"({results})"
    return f"({', '.join(map(type_text, inputs))}) -> {results}"


def parse_signature(
    parser: Parser,
) -> tuple[tuple[Attribute, ...] | None, tuple[Attribute, ...]]:
    """(operand types, result types) of `(T0, T1) -> R`; of `T`, (None, (T,)):
    every operand has type T too."""
    if parser.parse_optional_punctuation("(") is None:
        return None, (parser.parse_type(),)
    operand_types = (
        parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if parser.parse_optional_punctuation(")") is None
        else []
    )
    if operand_types:
        parser.parse_punctuation(")")
    parser.parse_punctuation("->")
    return tuple(operand_types), tuple(_parse_result_types(parser))


def _parse_result_types(parser: Parser) -> list[Attribute]:
    if parser.parse_optional_punctuation("(") is None:
        return [parser.parse_type()]
    if parser.parse_optional_punctuation(")") is not None:
        return []
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return types


def parse_optional_keyword_in(parser: Parser, names: object) -> str | None:
    """The next bare identifier if it is one of `names` (consumed), else
    None: a keyword lookup xDSL 0.74's Parser lacks, kept a local function
    rather than patched onto xDSL's class."""
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    text = token.text
    if token.kind.name == "BARE_IDENT" and text in names:  # type: ignore[operator]
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
        return text
    return None
