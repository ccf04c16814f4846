"""Parsing textual IR with source locations on every op.

`LocatingParser` gives each op it parses a `loc("file":line:col)` location
(unless the text spells one), like mlir-opt does, so that a verifier or pass
error later can point at the line the op came from. Locations print only with
`--print-debuginfo`.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import (
    AnyFloat,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue, TypeAttribute
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer

from fxdsl.ir.dtypes import float_from_bits
from fxdsl.ir.graph import Graph
from fxdsl.ir.syntax import RESULT_LIST, TYPE_TEXT, reuse_parse, value_names

# xDSL 0.74 lexes string literals with a nested quantifier that backtracks
# exponentially on an unterminated literal: a stray `"` followed by ~40
# characters on its line hangs the parser. Same language, one way to match
# each character: linear time. A subclass, which `LocatingParser` lexes with,
# so xDSL's own lexer is left as it is.
_LINEAR = r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'


class LinearLexer(MLIRLexer):
    """xDSL's MLIR lexer with a string-literal regex that cannot backtrack."""

    _unescaped_characters_regex = re.compile(_LINEAR)


def make_context() -> Context:
    """A context with every upstream dialect (loaded lazily) and `graph`."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    if "graph" not in ctx.registered_dialect_names:
        ctx.load_dialect(Graph)
    return ctx


class _BitPatternElement(Parser._TensorLiteralElement):
    """A dense literal's element where a hexadecimal integer in a float
    tensor is the float's bit pattern, as in MLIR (`dense<0xFF800000> :
    tensor<f32>` is -inf; xDSL's printer writes inf and NaN so). xDSL 0.74
    reads the hex as an integer value, so -inf came back as 4286578688.0: a
    printed module with a masked fill parsed to wrong numbers, silently."""

    def to_type(self, parser: Parser, type: Attribute) -> object:  # type: ignore[override]
        text = self.span.text.lower()
        if isinstance(type, AnyFloat) and text.lstrip("+-").startswith("0x"):
            if text.startswith("-"):
                parser.raise_error(
                    "a hexadecimal float literal is a bit pattern: no sign",
                    at_position=self.span,
                )
            try:
                return float_from_bits(int(self.value), type)  # type: ignore[arg-type]
            except ValueError as error:
                parser.raise_error(str(error), at_position=self.span)
        return super().to_type(parser, type)  # type: ignore[arg-type]


class LocatingParser(Parser):
    """A Parser that stamps every parsed op with its file:line:col, and
    parses each distinct type text once (`reuse_parse`). Hexadecimal
    elements of a float dense literal are bit patterns (`_BitPatternElement`)."""

    _TensorLiteralElement = _BitPatternElement

    def __init__(
        self, ctx: Context, text: str, name: str = "<unknown>", line_offset: int = 0
    ):
        super().__init__(ctx, text, name)
        state = self._parser_state  # the state xDSL built, with our lexer
        state.lexer = LinearLexer(state.lexer.input)
        state.current_token = state.lexer.lex()
        self._file_name = name
        self._line_offset = line_offset
        self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self._first_use: dict[str, Span] = {}  # of each value not yet defined

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as error:
            if not error.msg.startswith(_UNDEFINED):
                raise
        # xDSL reports values used but never defined at the end of the input;
        # mlir-opt (and this) at the first use of the first of them.
        name = next(iter(self.forward_ssa_references))
        self.raise_error(f"use of undefined value %{name}", self._first_use[name])

    def resolve_operand(
        self, operand: UnresolvedOperand, type: Attribute
    ) -> SSAValue[Attribute]:
        name = operand.operand_name
        if name not in self.ssa_values:
            self._first_use.setdefault(name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        with self._errors_located(start):
            op = super().parse_operation()
        if _is_unknown(op):
            line = bisect_right(self._line_starts, start)
            column = start - self._line_starts[line - 1] + 1
            op.location = FileLineColLoc(
                StringAttr(self._file_name),
                IntAttr(line + self._line_offset),
                IntAttr(column),
            )
        return op

    def _parse_alias_def(self) -> None:
        # top-level `!t = ...` and `#a = ...` build and nest as ops do
        with self._errors_located(self._current_token.span.start):
            super()._parse_alias_def()

    @contextmanager
    def _errors_located(self, start: int) -> Iterator[None]:
        """Parse errors for what xDSL raises otherwise while parsing the
        op or alias definition at `start`."""
        try:
            yield
        except (ValueError, OverflowError) as error:
            # xDSL builds attributes while parsing; a value they reject
            # (`dense<9223372036854775808> : tensor<1xi32>`) raises ValueError
            # rather than ParseError. Report it at the op, as a parse error.
            self.raise_error(str(error).strip().splitlines()[0], start)
        except RecursionError:
            # xDSL parses nesting (`[[...]]`, `tensor<tensor<...>>`) by
            # recursion; report the token where Python's stack ran out.
            self.raise_error(_TOO_DEEP)

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        # `%a, %b = ` as printed by one regex; tuples (`%t:2`) by xDSL
        text: str = self.lexer.input.content  # type: ignore[assignment]
        if (match := RESULT_LIST.match(text, self.pos)) is None:
            return super()._parse_op_result_list()
        self._resume_from(match.end())
        names = value_names(text, match.start(), match.end())
        return [(Span(start, end, self.lexer.input), 1) for start, end in names]

    def parse_type(self) -> TypeAttribute:
        # function signatures repeat their argument types (weights)
        return reuse_parse(self, TYPE_TEXT, super().parse_type)

    def _parse_block(self) -> Block:
        # xDSL 0.74 forgets where a forward-referenced block was defined, so
        # a second definition of its label raised KeyError instead of
        # "re-declaration of block"; record the definition here.
        label = self._current_token
        block = super()._parse_block()
        name = label.text[1:]
        if self.blocks.get(name, (None, None))[1] is None:
            self.blocks[name] = (block, label.span)
        return block


_TOO_DEEP = "input nested too deeply to parse"
_UNDEFINED = "values used but not defined"  # xDSL's message
_NEWLINE = re.compile("\n")


def _is_unknown(op: Operation) -> bool:
    return type(op.location).__name__ == "UnknownLoc"


def parse_module(
    text: str, name: str = "<string>", ctx: Context | None = None, line_offset: int = 0
) -> ModuleOp:
    """Parse IR text into a module (an implicit module is added if needed)."""
    parser = LocatingParser(ctx or make_context(), text, name, line_offset)
    with _cyclic_gc_paused():
        return parser.parse_module()


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    # Parsing allocates ops that all stay alive and garbage without cycles,
    # which reference counting frees; the cyclic collector's passes over the
    # growing heap only cost time: a third of parsing 20k ops while another
    # module is alive (benchmarks/bench_scale_compile.py).
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
