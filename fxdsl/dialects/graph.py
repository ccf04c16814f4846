"""The `graph` dialect: pure tensor operations on builtin ranked tensors.

Every compute op is `Pure`, checks its operand types and infers its result
type through `fxdsl.dialects.shape_rules`; a declared result type that differs
from the inferred one is a verifier error naming the op and both types.

Custom syntax (one scheme for every op; the generic form always parses too):

    %r = graph.<name> %operands... [prop value]... {attrs} : <type signature>

Properties follow the operands as `name value` pairs; `value` is written as
`[1, 2]` (integer lists), `3` (integers), `1.0e-05`/`inf` (floats), `"tanh"`
(strings), nothing (unit flags such as `keepdim`) or an attribute (`dense<…>`).
The type signature is `: T` when every operand and the single result have type
`T`, and a function type `(T0, T1) -> R` otherwise:

    %s = graph.sum %x dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %y = graph.gelu %s approximate "tanh" : tensor<4x1xf32>

Provenance is the discardable attribute `scope = #graph.scope<…>` (see
`ScopeAttr`); function arguments that are weights carry `graph.param = "fqn"`.
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from typing_extensions import Self
from xdsl.dialects import math as scalar_math
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Data,
    Dialect,
    Operation,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    OpTrait,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from fxdsl.dialects import shape_rules as rules
from fxdsl.dialects.shape_rules import Shape, ShapeError

f32, f16, bf16 = Float32Type(), Float16Type(), BFloat16Type()
i32, i1 = IntegerType(32), IntegerType(1)
ELEMENT_TYPES: tuple[Attribute, ...] = (f32, f16, bf16, i64, i32, i1)
FLOAT_TYPES: tuple[Attribute, ...] = (f32, f16, bf16)
INDEX_TYPES: tuple[Attribute, ...] = (i64, i32)

# How each property is spelled in the custom syntax, by property name.
_INTS, _INT, _FLOAT, _STR, _UNIT, _ATTR = "ints", "int", "float", "str", "unit", "attr"
PROPERTY_KINDS: dict[str, str] = {
    "dims": _INTS,
    "perm": _INTS,
    "start": _INTS,
    "limit": _INTS,
    "step": _INTS,
    "sizes": _INTS,
    "keepdim": _UNIT,
    "dim": _INT,
    "correction": _INT,
    "eps": _FLOAT,
    "scale": _FLOAT,
    "causal": _UNIT,
    "approximate": _STR,
    "value": _ATTR,
}


# --------------------------------------------------------------------------- #
# Attributes
# --------------------------------------------------------------------------- #

ScopeFrame = tuple[str, int, str]

# A printed frame, `("fqn", 0, "Type")`: string literals without escapes (the
# characters the lexer takes literally) and the printer's spacing.
_FRAME = r'\("([^"\\\n\v\f]*)", ([0-9]+), "([^"\\\n\v\f]*)"\)'
_SCOPE_FRAME = re.compile(_FRAME)
_SCOPE_BODY = rf"<(?:{_FRAME}(?:, {_FRAME})*)?>"
_SCOPE_TEXT = re.compile(_SCOPE_BODY)
_SCOPE_DICT = re.compile(rf"\{{scope = #graph\.scope{_SCOPE_BODY}\}}")
"""An op's attribute dict as printed when it holds only its scope."""


def _scope_frames(text: str) -> tuple[ScopeFrame, ...]:
    frames = _SCOPE_FRAME.findall(text)
    return tuple((fqn, int(index), kind) for fqn, index, kind in frames)


@irdl_attr_definition
class ScopeAttr(Data[tuple[ScopeFrame, ...]]):
    """The module call stack an op came from, outermost first.

    Each frame is (fully-qualified module name, call index, module type name),
    like torch.export's `nn_module_stack`:

        #graph.scope<("layers.0", 0, "Block"), ("layers.0.attn", 1, "Attention")>
    """

    name = "graph.scope"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[ScopeFrame, ...]:
        # Fast path for the printed form (no escapes, printer spacing): one
        # regex instead of ~10 tokens a frame; anything else parses below.
        text: str = parser.lexer.input.content  # type: ignore[assignment]
        if match := _SCOPE_TEXT.match(text, parser.pos):
            parser._resume_from(match.end())  # pyright: ignore[reportPrivateUsage]
            return _scope_frames(match.group())

        def parse_frame() -> ScopeFrame:
            with parser.in_parens():
                fqn = parser.parse_str_literal()
                parser.parse_punctuation(",")
                index = parser.parse_integer(allow_negative=False)
                parser.parse_punctuation(",")
                type_name = parser.parse_str_literal()
            return (fqn, index, type_name)

        # The ANGLE delimiter also accepts the empty stack `<>`.
        frames = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_frame)
        return tuple(frames)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(_scope_text(self.data))

    @property
    def fqns(self) -> tuple[str, ...]:
        return tuple(frame[0] for frame in self.data)


# Text is built once per distinct scope or type: a big module prints the same
# few thousands of times, and xDSL prints a string literal byte by byte.
@functools.lru_cache(maxsize=4096)
def _scope_text(frames: tuple[ScopeFrame, ...]) -> str:
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
def _type_text(typ: Attribute) -> str:
    return _printed(lambda printer: printer.print_attribute(typ))


def _printed(write: Callable[[Printer], None]) -> str:
    stream = io.StringIO()
    write(Printer(stream=stream))
    return stream.getvalue()


@irdl_attr_definition
class SignatureAttr(Data[tuple[tuple[str, ...], tuple[str, ...]]]):
    """A preserved module call signature: the names of its inputs and outputs
    in order (values are named by `graph.name`), like torch.export's
    `ModuleCallSignature`:

        #graph.signature<("x", "mask") -> ("y", "aux")>
    """

    name = "graph.signature"

    @classmethod
    def parse_parameter(
        cls, parser: AttrParser
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        def parse_names() -> tuple[str, ...]:
            paren = parser.Delimiter.PAREN
            names = parser.parse_comma_separated_list(paren, parser.parse_str_literal)
            return tuple(names)

        with parser.in_angle_brackets():
            inputs = parse_names()
            parser.parse_punctuation("->")
            outputs = parse_names()
        return (inputs, outputs)

    def print_parameter(self, printer: Printer) -> None:
        def print_names(names: tuple[str, ...]) -> None:
            with printer.in_parens():
                printer.print_list(names, printer.print_string_literal)

        with printer.in_angle_brackets():
            print_names(self.data[0])
            printer.print_string(" -> ")
            print_names(self.data[1])

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.data[0]

    @property
    def outputs(self) -> tuple[str, ...]:
        return self.data[1]


SCOPE = "scope"
PARAM = "graph.param"
NAME = "graph.name"
"""A value's stable name: on an op (its result; a list of names, "" for none,
on a multi-result op) or as a function argument attribute."""
CALL_SIGNATURES = "graph.call_signatures"
"""On the `builtin.module`: call name (`fqn`, `fqn@1`, ...) -> SignatureAttr."""


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def shape_of(value: SSAValue | Attribute) -> Shape:
    typ = value.type if isinstance(value, SSAValue) else value
    assert isinstance(typ, TensorType)
    return tuple(typ.get_shape())


def dtype_of(value: SSAValue | Attribute) -> Attribute:
    typ = value.type if isinstance(value, SSAValue) else value
    assert isinstance(typ, TensorType)
    return typ.element_type


def tensor(shape: Sequence[int], dtype: Attribute) -> TensorType[Attribute]:
    return TensorType(dtype, list(shape))


def ints(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


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


def _print_property(printer: Printer, kind: str, name: str, attr: Attribute) -> None:
    printer.print_string(f" {name}")
    if kind == _UNIT:
        return
    printer.print_string(" ")
    if kind == _INTS and isinstance(attr, DenseArrayBase):
        printer.print_string(f"[{', '.join(str(v) for v in attr.get_values())}]")
    elif kind == _INT and isinstance(attr, IntegerAttr):
        printer.print_string(str(attr.value.data))
    elif kind == _FLOAT and isinstance(attr, FloatAttr):
        _print_float(printer, attr.value.data)
    elif kind == _STR and isinstance(attr, StringAttr):
        printer.print_string_literal(attr.data)
    else:
        printer.print_attribute(attr)


def _parse_property(parser: Parser, kind: str) -> Attribute:
    if kind == _UNIT:
        return UnitAttr()
    if kind == _INTS:
        return reuse_parse(parser, _INT_LIST, lambda: _parse_ints(parser))
    if kind == _INT:
        return IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
    if kind == _FLOAT:
        return FloatAttr(_parse_float(parser), Float64Type())
    if kind == _STR:
        return StringAttr(parser.parse_str_literal())
    return parser.parse_attribute()


def _parse_ints(parser: Parser) -> DenseArrayBase:
    values = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )
    return ints(values)


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
_SIGNATURE = re.compile(rf"{_TYPE_LIST} -> (?:{_TYPE_LIST}|{_TYPE})|{_TYPE}")
_ATTR_DICT = re.compile(r'\{(?:"(?:[^"\\\n]|\\.)*"|[^"{}\n])*\}')
_INT_LIST = re.compile(r"\[[-0-9, ]*\]")
_DENSE = re.compile(rf'dense<(?:"[^"\n]*"|[^"<>\n])*> : {_TYPE}')
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


def _parse_attr_dict(parser: Parser) -> dict[str, Attribute]:
    return dict(reuse_parse(parser, _ATTR_DICT, lambda: _parse_new_attr_dict(parser)))


def _parse_new_attr_dict(parser: Parser) -> dict[str, Attribute]:
    # Most ops' attributes are their scope alone: one regex; others by xDSL.
    text: str = parser.lexer.input.content  # type: ignore[assignment]
    if match := _SCOPE_DICT.match(text, parser.pos):
        parser._resume_from(match.end())  # pyright: ignore[reportPrivateUsage]
        return {SCOPE: ScopeAttr(_scope_frames(match.group()))}
    return parser.parse_optional_attr_dict()


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


def _parse_operands(parser: Parser) -> list[UnresolvedOperand]:
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


def _verify_failed(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"{op.name}: {message}")


def _type_str(types: Sequence[Attribute]) -> str:
    return ", ".join(str(t) for t in types)


def _with_operand_types(message: str, operands: Sequence[SSAValue]) -> str:
    # Name the operand types unless the rule's message already names them all.
    types = [str(o.type) for o in operands]
    if all(t in message for t in types):
        return message
    return f"{message} (operands: {', '.join(types)})"


class BoolOperands:
    """Mixin for ops on booleans (logical ops, any/all): every operand is i1."""

    def verify_operands(self) -> None:
        super().verify_operands()  # type: ignore[misc]
        assert isinstance(self, Operation)
        for operand in self.operands:
            if dtype_of(operand) != i1:
                raise ShapeError(f"expects i1 tensors, got {operand.type}")


# --------------------------------------------------------------------------- #
# Base class: shared syntax and verification
# --------------------------------------------------------------------------- #


class GraphOp(IRDLOperation):
    """Base of every graph compute op: custom syntax and type inference.

    Subclasses implement `infer_result_types` from operand types and
    properties; the verifier checks operand element types and compares the
    declared result types with the inferred ones.
    """

    traits = traits_def(Pure())
    PROP_KINDS: ClassVar[dict[str, str]] = {}
    """Per-op overrides of PROPERTY_KINDS."""

    @classmethod
    def property_kind(cls, name: str) -> str:
        return cls.PROP_KINDS.get(name) or PROPERTY_KINDS.get(name, _ATTR)

    @classmethod
    def inferred_types(
        cls,
        operands: Sequence[SSAValue],
        properties: dict[str, Attribute] | None = None,
        placeholder_types: Sequence[Attribute] | None = None,
    ) -> list[Attribute]:
        """The result types `cls` infers for these operands and properties
        (raises ShapeError). Result types are immutable in xDSL, so a detached
        probe op with placeholder result types answers the question."""
        probe = cls.create(
            operands=list(operands),
            result_types=list(placeholder_types or [operands[0].type]),
            properties=dict(properties or {}),
        )
        try:
            return probe.infer_result_types()
        finally:
            probe.drop_all_references()

    @classmethod
    def create_inferred(
        cls,
        operands: Sequence[SSAValue],
        properties: dict[str, Attribute] | None = None,
    ) -> Self:
        """`cls.create(...)` with the inferred result types."""
        types = cls.inferred_types(operands, properties)
        return cls.create(
            operands=list(operands),
            result_types=types,
            properties=dict(properties or {}),
        )

    def _build(
        self,
        operands: Sequence[SSAValue | Sequence[SSAValue]],
        result_types: Sequence[Attribute],
        properties: dict[str, Attribute] | None = None,
    ) -> None:
        """Initialise with the inferred result types (raises ShapeError)."""
        flat = [v for o in operands for v in ([o] if isinstance(o, SSAValue) else o)]
        inferred = self.inferred_types(flat, properties, result_types)
        IRDLOperation.__init__(
            self, operands=operands, result_types=inferred, properties=properties or {}
        )

    def infer_result_types(self) -> list[Attribute]:
        """The result types this op must have, given operands and properties."""
        return [r.type for r in self.results]

    def verify_operands(self) -> None:
        """Element-type checks; raise ShapeError or VerifyException."""
        for operand in self.operands:
            typ = operand.type
            if not isinstance(typ, TensorType) or typ.element_type not in ELEMENT_TYPES:
                raise ShapeError(f"operand type {typ} is not a supported tensor")

    def verify_(self) -> None:
        try:
            _verify_static(self)
            self.verify_operands()
            expected = self.infer_result_types()
        except ShapeError as error:
            message = _with_operand_types(str(error), self.operands)
            raise _verify_failed(self, message) from error
        actual = [r.type for r in self.results]
        if expected != actual:
            message = (
                f"result type {_type_str(actual)} does not match inferred type "
                f"{_type_str(expected)}"
            )
            if self.operands:
                message += f" (operands: {_type_str([o.type for o in self.operands])})"
            raise _verify_failed(self, message)

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        for name in sorted(self.properties):
            kind = self.property_kind(name)
            _print_property(printer, kind, name, self.properties[name])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        operand_types = [o.type for o in self.operands]
        result_types = [r.type for r in self.results]
        if len(result_types) == 1 and all(t == result_types[0] for t in operand_types):
            printer.print_string(_type_text(result_types[0]))
        else:
            printer.print_string(_function_type_text(operand_types, result_types))

    @classmethod
    def parse(cls, parser: Parser) -> GraphOp:
        operands = _parse_operands(parser)
        known = cls.get_irdl_definition().properties
        properties: dict[str, Attribute] = {}
        while (name := _parse_optional_keyword_in(parser, known)) is not None:
            properties[name] = _parse_property(parser, cls.property_kind(name))
        attributes = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        operand_types, result_types = reuse_parse(
            parser, _SIGNATURE, lambda: _parse_signature(parser)
        )
        if operand_types is None:
            operand_types = result_types * len(operands)
        if len(operand_types) != len(operands):
            parser.raise_error(
                f"{cls.name}: {len(operands)} operands but {len(operand_types)} types"
            )
        resolved = [
            parser.resolve_operand(o, t) for o, t in zip(operands, operand_types)
        ]
        return cls.create(
            operands=resolved,
            result_types=result_types,
            properties=properties,
            attributes=attributes,
        )


def _verify_static(op: Operation) -> None:
    # Shape rules, buffers and kernels assume known sizes; `?` is a later step.
    for value in (*op.operands, *op.results):
        typ = value.type
        if isinstance(typ, TensorType) and any(d < 0 for d in typ.get_shape()):
            raise ShapeError(
                f"dynamic dimension in {typ}: graph ops take static shapes only"
            )


def _function_type_text(inputs: list[Attribute], outputs: list[Attribute]) -> str:
    """What `Printer.print_function_type` writes."""
    results = ", ".join(map(_type_text, outputs))
    if len(outputs) != 1 or isinstance(outputs[0], FunctionType):
        results = f"({results})"
    return f"({', '.join(map(_type_text, inputs))}) -> {results}"


def _parse_signature(
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


def _parse_optional_keyword_in(parser: Parser, names: object) -> str | None:
    """The next bare identifier if it is one of `names` (consumed), else
    None: a keyword lookup xDSL 0.74's Parser lacks, kept a local function
    rather than patched onto xDSL's class."""
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    text = token.text
    if token.kind.name == "BARE_IDENT" and text in names:  # type: ignore[operator]
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
        return text
    return None


# --------------------------------------------------------------------------- #
# Elementwise
# --------------------------------------------------------------------------- #


class UnaryOp(GraphOp):
    """Elementwise `y = f(x)`, result type equal to the input type.

    A plain float function (`graph.sin`) declares `SCALAR_MATH`, the xDSL
    `math` op computing one element in f32: the lowering to scalar code, the
    importer (`aten.<op>`, `prims.<op>`) and the lowering tests ask it, so
    such an op is its declaration here plus its numpy reference in
    `interpreters/graph.py` (docs/adding-ops.md).
    """

    FLOAT_ONLY: ClassVar[bool] = True
    SCALAR_MATH: ClassVar[type[Operation] | None] = None
    """The `math` op of one f32 element; None: a rule in `lowering/scalar_ops`."""
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[input], result_types=[result_type or input.type])

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.FLOAT_ONLY and dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")

    def infer_result_types(self) -> list[Attribute]:
        return [self.input.type]


@irdl_op_definition
class NegOp(UnaryOp):
    """`y = -x`."""

    name = "graph.neg"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class AbsOp(UnaryOp):
    """`y = |x|`."""

    name = "graph.abs"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "graph.exp"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.ExpOp


@irdl_op_definition
class LogOp(UnaryOp):
    name = "graph.log"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.LogOp


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "graph.sqrt"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.SqrtOp


@irdl_op_definition
class RsqrtOp(UnaryOp):
    name = "graph.rsqrt"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.RsqrtOp


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "graph.tanh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.TanhOp


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "graph.sigmoid"


@irdl_op_definition
class ReluOp(UnaryOp):
    """`y = max(x, 0)`."""

    name = "graph.relu"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class GeluOp(UnaryOp):
    """GELU; `approximate "tanh"` selects the tanh form (default: erf form).

    %y = graph.gelu %x approximate "tanh" : tensor<8xf32>
    """

    name = "graph.gelu"
    approximate = opt_prop_def(StringAttr)

    def __init__(self, input: SSAValue, approximate: str = "none"):
        super().__init__(input)
        if approximate != "none":
            self.approximate = StringAttr(approximate)

    @property
    def mode(self) -> str:
        return "none" if self.approximate is None else self.approximate.data

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.mode not in ("none", "tanh"):
            raise ShapeError(f'approximate must be "none" or "tanh", got "{self.mode}"')


@irdl_op_definition
class SiluOp(UnaryOp):
    name = "graph.silu"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "graph.erf"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.ErfOp


@irdl_op_definition
class SinOp(UnaryOp):
    name = "graph.sin"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.SinOp


@irdl_op_definition
class CosOp(UnaryOp):
    name = "graph.cos"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.CosOp


@irdl_op_definition
class TanOp(UnaryOp):
    name = "graph.tan"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.TanOp


@irdl_op_definition
class AcosOp(UnaryOp):
    name = "graph.acos"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AcosOp


@irdl_op_definition
class AsinOp(UnaryOp):
    name = "graph.asin"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AsinOp


@irdl_op_definition
class AtanOp(UnaryOp):
    name = "graph.atan"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AtanOp


@irdl_op_definition
class SinhOp(UnaryOp):
    name = "graph.sinh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.SinhOp


@irdl_op_definition
class CoshOp(UnaryOp):
    name = "graph.cosh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.CoshOp


@irdl_op_definition
class AsinhOp(UnaryOp):
    name = "graph.asinh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AsinhOp


@irdl_op_definition
class AcoshOp(UnaryOp):
    name = "graph.acosh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AcoshOp


@irdl_op_definition
class AtanhOp(UnaryOp):
    name = "graph.atanh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AtanhOp


@irdl_op_definition
class Exp2Op(UnaryOp):
    name = "graph.exp2"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Exp2Op


@irdl_op_definition
class Log2Op(UnaryOp):
    name = "graph.log2"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Log2Op


@irdl_op_definition
class Log10Op(UnaryOp):
    name = "graph.log10"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Log10Op


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "graph.reciprocal"


@irdl_op_definition
class ClampOp(UnaryOp):
    """torch.clamp with scalar bounds: `min(max(x, min), max)`, either bound
    optional (not both absent); NaN stays NaN, and `min > max` gives `max`
    everywhere, as torch. Integer tensors take integral bounds only.

    %y = graph.clamp %x max 6.0 min 0.0 : tensor<8xf32>
    """

    name = "graph.clamp"
    FLOAT_ONLY: ClassVar[bool] = False
    PROP_KINDS: ClassVar[dict[str, str]] = {"min": _FLOAT, "max": _FLOAT}
    min = opt_prop_def(FloatAttr)
    max = opt_prop_def(FloatAttr)

    def __init__(
        self, input: SSAValue, min: float | None = None, max: float | None = None
    ):
        bounds = {"min": min, "max": max}
        properties: dict[str, Attribute] = {
            k: FloatAttr(float(v), Float64Type())
            for k, v in bounds.items()
            if v is not None
        }
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """(min, max), None where absent."""
        return tuple(None if b is None else b.value.data for b in (self.min, self.max))  # type: ignore[return-value]

    def verify_operands(self) -> None:
        super().verify_operands()
        if dtype_of(self.input) == i1:
            raise ShapeError(
                f"expects a float or integer tensor, got {self.input.type}"
            )
        if self.bounds == (None, None):
            raise ShapeError("needs a min or a max bound")
        if dtype_of(self.input) in FLOAT_TYPES:
            return
        for bound in self.bounds:
            if bound is not None and not (math.isfinite(bound) and bound == int(bound)):
                raise ShapeError(
                    f"bound {bound} is not an integer, for {self.input.type}"
                )


@irdl_op_definition
class HardswishOp(UnaryOp):
    """torch's hardswish: `x * min(max(x + 3, 0), 6) / 6`."""

    name = "graph.hardswish"


@irdl_op_definition
class HardsigmoidOp(UnaryOp):
    """torch's hardsigmoid: `min(max(x + 3, 0), 6) / 6`."""

    name = "graph.hardsigmoid"


@irdl_op_definition
class CastOp(UnaryOp):
    """Element type conversion, same shape (numpy `astype` semantics).

    %y = graph.cast %x : (tensor<8xf32>) -> tensor<8xf16>
    """

    name = "graph.cast"
    FLOAT_ONLY: ClassVar[bool] = False

    def __init__(self, input: SSAValue, dtype: Attribute):
        super().__init__(input, tensor(shape_of(input), dtype))

    def infer_result_types(self) -> list[Attribute]:
        dtype = dtype_of(self.result)
        if dtype not in ELEMENT_TYPES:
            raise ShapeError(f"unsupported target element type {dtype}")
        return [tensor(shape_of(self.input), dtype)]


@irdl_op_definition
class LogicalNotOp(BoolOperands, UnaryOp):
    """`y = !x` on i1.

    %y = graph.logical_not %x : tensor<8xi1>
    """

    name = "graph.logical_not"
    FLOAT_ONLY: ClassVar[bool] = False


class BinaryOp(GraphOp):
    """Elementwise binary op with numpy broadcasting; operands share a dtype.

    `FLOAT_ONLY` and `SCALAR_MATH` as for `UnaryOp` (`graph.atan2`).
    """

    FLOAT_ONLY: ClassVar[bool] = False
    SCALAR_MATH: ClassVar[type[Operation] | None] = None
    """The `math` op of one f32 element pair; None: a rule in `lowering/scalar_ops`."""
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        self._build(operands=[lhs, rhs], result_types=[lhs.type])

    def result_dtype(self) -> Attribute:
        return dtype_of(self.lhs)

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.FLOAT_ONLY and dtype_of(self.lhs) not in FLOAT_TYPES:
            raise ShapeError(f"expects float tensors, got {self.lhs.type}")

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.lhs) != dtype_of(self.rhs):
            raise ShapeError(
                f"element types differ: lhs {self.lhs.type}, rhs {self.rhs.type}"
            )
        shape = rules.broadcast_shapes(shape_of(self.lhs), shape_of(self.rhs))
        return [tensor(shape, self.result_dtype())]


class CompareOp(BinaryOp):
    """Elementwise comparison; the result is i1."""

    def result_dtype(self) -> Attribute:
        return i1


@irdl_op_definition
class AddOp(BinaryOp):
    name = "graph.add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "graph.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "graph.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """True division for floats; integer operands floor-divide (torch `//`)."""

    name = "graph.div"


@irdl_op_definition
class PowOp(BinaryOp):
    name = "graph.pow"


@irdl_op_definition
class MaximumOp(BinaryOp):
    name = "graph.maximum"


@irdl_op_definition
class MinimumOp(BinaryOp):
    name = "graph.minimum"


@irdl_op_definition
class Atan2Op(BinaryOp):
    """`atan2(lhs, rhs)`: the angle of the point (rhs, lhs)."""

    name = "graph.atan2"
    FLOAT_ONLY: ClassVar[bool] = True
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Atan2Op


@irdl_op_definition
class CopysignOp(BinaryOp):
    """`|lhs|` with the sign bit of `rhs`."""

    name = "graph.copysign"
    FLOAT_ONLY: ClassVar[bool] = True
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.CopySignOp


@irdl_op_definition
class FmodOp(BinaryOp):
    """C's `fmod`: `lhs - trunc(lhs / rhs) * rhs`, exactly; the sign of `lhs`."""

    name = "graph.fmod"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class RemainderOp(BinaryOp):
    """Python's `%`: `lhs - floor(lhs / rhs) * rhs`, exactly; the sign of `rhs`."""

    name = "graph.remainder"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class EqOp(CompareOp):
    name = "graph.eq"


@irdl_op_definition
class NeOp(CompareOp):
    name = "graph.ne"


@irdl_op_definition
class LtOp(CompareOp):
    name = "graph.lt"


@irdl_op_definition
class LeOp(CompareOp):
    name = "graph.le"


@irdl_op_definition
class GtOp(CompareOp):
    name = "graph.gt"


@irdl_op_definition
class GeOp(CompareOp):
    name = "graph.ge"


@irdl_op_definition
class LogicalAndOp(BoolOperands, BinaryOp):
    """`lhs && rhs` on i1, broadcasting.

    %r = graph.logical_and %a, %b : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
    """

    name = "graph.logical_and"


@irdl_op_definition
class LogicalOrOp(BoolOperands, BinaryOp):
    """`lhs || rhs` on i1, broadcasting."""

    name = "graph.logical_or"


@irdl_op_definition
class SelectOp(GraphOp):
    """`cond ? lhs : rhs` elementwise, all three broadcast together.

    %r = graph.select %c, %a, %b : (tensor<4x1xi1>, tensor<4x8xf32>,
                                    tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "graph.select"
    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        self._build(operands=[cond, lhs, rhs], result_types=[lhs.type])

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.cond) != i1:
            raise ShapeError(f"condition must be i1, got {self.cond.type}")
        if dtype_of(self.lhs) != dtype_of(self.rhs):
            raise ShapeError(
                f"element types differ: lhs {self.lhs.type}, rhs {self.rhs.type}"
            )
        shape = rules.broadcast_shapes(
            shape_of(self.cond), shape_of(self.lhs), shape_of(self.rhs)
        )
        return [tensor(shape, dtype_of(self.lhs))]


# --------------------------------------------------------------------------- #
# Reductions and normalisations
# --------------------------------------------------------------------------- #


class ReductionLike:
    """Interface of the ops that reduce their first operand over some dims
    (sum/mean/max/min/any/all/var, softmax, log_softmax, layer_norm): fusion,
    the kernel builder and the tolerance of a reordered sum ask the op, so a
    new reduction declares its dims here and nowhere else."""

    def reduced_dims(self) -> tuple[int, ...]:
        """The dims reduced over, normalised to >= 0, ascending."""
        raise NotImplementedError

    def keeps_reduced_dims(self) -> bool:
        """Whether the reduced dims stay in the result (as size 1, or as the
        input's size for softmax and layer_norm, which broadcast back)."""
        return True


class ReductionOp(ReductionLike, GraphOp):
    """Reduce over `dims` (all dims when empty), keeping them as size 1 with
    `keepdim`.

        %s = graph.sum %x dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
    """

    FLOAT_ONLY: ClassVar[bool] = False
    input = operand_def(TensorType)
    dims = prop_def(DenseArrayBase)
    keepdim = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        dims: Sequence[int],
        keepdim: bool = False,
        **props: Attribute,
    ):
        properties: dict[str, Attribute] = {"dims": ints(dims), **props}
        if keepdim:
            properties["keepdim"] = UnitAttr()
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def dim_list(self) -> tuple[int, ...]:
        """The reduced dims; all dims when the property is empty."""
        dims = tuple(self.dims.get_values())
        return dims if dims else tuple(range(len(shape_of(self.input))))

    def reduced_dims(self) -> tuple[int, ...]:
        rank = len(shape_of(self.input))
        return tuple(sorted(d % rank for d in self.dim_list))

    def keeps_reduced_dims(self) -> bool:
        return self.keepdim is not None

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.FLOAT_ONLY and dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")

    def infer_result_types(self) -> list[Attribute]:
        shape = rules.reduce_shape(
            shape_of(self.input),
            tuple(self.dims.get_values()),
            self.keepdim is not None,
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class SumOp(ReductionOp):
    name = "graph.sum"


@irdl_op_definition
class MeanOp(ReductionOp):
    name = "graph.mean"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class MaxOp(ReductionOp):
    name = "graph.max"


@irdl_op_definition
class MinOp(ReductionOp):
    name = "graph.min"


@irdl_op_definition
class AnyOp(BoolOperands, ReductionOp):
    """True where some element over `dims` is true (i1 in, i1 out); false
    over no elements, as torch.any.

        %r = graph.any %m dims [1] : (tensor<4x8xi1>) -> tensor<4xi1>
    """

    name = "graph.any"


@irdl_op_definition
class AllOp(BoolOperands, ReductionOp):
    """True where every element over `dims` is true (i1); true over none."""

    name = "graph.all"


@irdl_op_definition
class VarOp(ReductionOp):
    """Variance with `correction` (default 1, torch's unbiased estimate)."""

    name = "graph.var"
    FLOAT_ONLY: ClassVar[bool] = True
    correction = opt_prop_def(IntegerAttr)

    def __init__(
        self,
        input: SSAValue,
        dims: Sequence[int],
        keepdim: bool = False,
        correction: int = 1,
    ):
        super().__init__(input, dims, keepdim, correction=IntegerAttr(correction, i64))

    @property
    def correction_value(self) -> int:
        return 1 if self.correction is None else self.correction.value.data


class SoftmaxLikeOp(ReductionLike, GraphOp):
    """Normalisation along one `dim`; result type equals the input type."""

    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def reduced_dims(self) -> tuple[int, ...]:
        return (self.dim.value.data % len(shape_of(self.input)),)

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")
        rules.check_dims([self.dim.value.data], len(shape_of(self.input)))
        return [self.input.type]


@irdl_op_definition
class SoftmaxOp(SoftmaxLikeOp):
    """`exp(x - max) / sum(exp(x - max))` along `dim`.

    %y = graph.softmax %x dim 1 : tensor<4x8xf32>
    """

    name = "graph.softmax"


@irdl_op_definition
class LogSoftmaxOp(SoftmaxLikeOp):
    name = "graph.log_softmax"


@irdl_op_definition
class CumsumOp(GraphOp):
    """torch.cumsum along `dim`, in the input's type (integers wrap; torch
    would promote them to i64, the importer casts first). Lowered by
    graph-decompose as a masked sum (see there).

    %y = graph.cumsum %x dim 1 : tensor<4x8xi64>
    """

    name = "graph.cumsum"
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, dim: int):
        self._build(
            operands=[input],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) == i1:
            raise ShapeError(
                f"expects a float or integer tensor, got {self.input.type}"
            )
        rules.check_dims([self.dim.value.data], len(shape_of(self.input)))
        return [self.input.type]


@irdl_op_definition
class LayerNormOp(ReductionLike, GraphOp):
    """Layer norm over the trailing dims given by `weight`'s shape (biased
    variance, `eps` default 1e-5, as torch).

        %y = graph.layer_norm %x, %w, %b eps 1.0e-05
               : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "graph.layer_norm"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)

    def __init__(
        self, input: SSAValue, weight: SSAValue, bias: SSAValue, eps: float = 1e-5
    ):
        super().__init__(
            operands=[input, weight, bias],
            result_types=[input.type],
            properties={"eps": FloatAttr(eps, Float64Type())},
        )

    @property
    def normalized_ndim(self) -> int:
        return len(shape_of(self.weight))

    def reduced_dims(self) -> tuple[int, ...]:
        rank = len(shape_of(self.input))
        return tuple(range(rank - self.normalized_ndim, rank))

    def infer_result_types(self) -> list[Attribute]:
        dtypes = {dtype_of(o) for o in self.operands}
        if len(dtypes) != 1 or dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError("input, weight and bias must share one float type")
        rules.layer_norm_check(
            shape_of(self.input), shape_of(self.weight), shape_of(self.bias)
        )
        return [self.input.type]


# --------------------------------------------------------------------------- #
# Contractions
# --------------------------------------------------------------------------- #


@irdl_op_definition
class MatmulOp(GraphOp):
    """numpy.matmul, including batch broadcasting and 1-D operands.

    %c = graph.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x3xf32>)
           -> tensor<2x4x3xf32>
    """

    name = "graph.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        self._build(operands=[lhs, rhs], result_types=[lhs.type])

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.lhs) != dtype_of(self.rhs):
            raise ShapeError(
                f"element types differ: lhs {self.lhs.type}, rhs {self.rhs.type}"
            )
        lhs, rhs = shape_of(self.lhs), shape_of(self.rhs)
        try:
            shape = rules.matmul_shape(lhs, rhs, ("lhs", "rhs"))
        except ShapeError:
            # Printing the types costs more than the check: only for errors.
            names = (f"lhs {self.lhs.type}", f"rhs {self.rhs.type}")
            shape = rules.matmul_shape(lhs, rhs, names)
        return [tensor(shape, dtype_of(self.lhs))]


@irdl_op_definition
class LinearOp(GraphOp):
    """`x @ weight^T + bias` with weight (out, in) and optional bias (out,).

    %y = graph.linear %x, %w, %b : (tensor<4x8xf32>, tensor<3x8xf32>,
           tensor<3xf32>) -> tensor<4x3xf32>
    """

    name = "graph.linear"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, weight: SSAValue, bias: SSAValue | None = None):
        self._build(
            operands=[input, weight, [bias] if bias is not None else []],
            result_types=[input.type],
        )

    def infer_result_types(self) -> list[Attribute]:
        if len({dtype_of(o) for o in self.operands}) != 1:
            raise ShapeError("input, weight and bias must share one element type")
        bias = shape_of(self.bias) if self.bias is not None else None
        shape = rules.linear_shape(shape_of(self.input), shape_of(self.weight), bias)
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class AttentionOp(GraphOp):
    """Scaled dot-product attention, `softmax(q @ k^T * scale) @ v` over the
    last two dims, as `torch.nn.functional.scaled_dot_product_attention`.

    q is (..., T, d), k is (..., S, d), v is (..., S, dv), the batch dims
    equal; the result is (..., T, dv). With `causal`, query t attends to keys
    s <= t only (top-left aligned, as torch's `is_causal`), so every row has
    at least one key. `graph-fuse-attention` forms it from the unfused graph.

    An optional 4th operand `mask`, broadcastable to (..., T, S), is torch's
    `attn_mask`: i1 (true: attend; false: the score becomes -inf) or additive
    (any float type, added to the scaled scores in the query's type, as torch
    promotes an f32 score plus a bf16 mask to f32). With `causal` too,
    both apply. A row whose scores are all -inf (every key masked) gives
    zeros, as torch 2.13's SDPA does. The fused attention kernel reads the
    mask; `graph-decompose` rewrites a small masked attention into matmuls
    and a softmax.

        %o = graph.attention %q, %k, %v causal scale 1.250000e-01
               : tensor<2x8x16xf32>
        %o = graph.attention %q, %k, %v, %m scale 1.250000e-01
               : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>,
                  tensor<8x8xi1>) -> tensor<2x8x16xf32>
    """

    name = "graph.attention"
    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    scale = prop_def(FloatAttr)
    causal = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        query: SSAValue,
        key: SSAValue,
        value: SSAValue,
        scale: float,
        causal: bool = False,
        mask: SSAValue | None = None,
    ):
        properties: dict[str, Attribute] = {"scale": FloatAttr(scale, Float64Type())}
        if causal:
            properties["causal"] = UnitAttr()
        self._build(
            operands=[query, key, value, [] if mask is None else [mask]],
            result_types=[query.type],
            properties=properties,
        )

    @property
    def scale_value(self) -> float:
        return self.scale.value.data

    @property
    def is_causal(self) -> bool:
        return self.causal is not None

    @property
    def is_boolean_mask(self) -> bool:
        return self.mask is not None and dtype_of(self.mask) == i1

    def infer_result_types(self) -> list[Attribute]:
        qkv = (self.query, self.key, self.value)
        dtypes = {dtype_of(o) for o in qkv}
        if len(dtypes) != 1 or dtype_of(self.query) not in FLOAT_TYPES:
            raise ShapeError("query, key and value must share one float type")
        q, k, v = (shape_of(o) for o in qkv)
        if min(len(q), len(k), len(v)) < 2:
            raise ShapeError("query, key and value must have rank >= 2")
        if not q[:-2] == k[:-2] == v[:-2]:
            raise ShapeError("query, key and value must have equal batch dims")
        if q[-1] != k[-1]:
            raise ShapeError(f"query and key head dims differ: {q[-1]} and {k[-1]}")
        if k[-2] != v[-2]:
            raise ShapeError(f"key and value lengths differ: {k[-2]} and {v[-2]}")
        if k[-2] < 1:
            raise ShapeError("key length must be >= 1 (a softmax over no keys)")
        if self.mask is not None:
            self._check_mask((*q[:-1], k[-2]))
        return [tensor((*q[:-1], v[-1]), dtype_of(self.query))]

    def _check_mask(self, scores: Shape) -> None:
        assert self.mask is not None
        if dtype_of(self.mask) != i1 and dtype_of(self.mask) not in FLOAT_TYPES:
            raise ShapeError(f"mask must be i1 or a float type, got {self.mask.type}")
        if not rules.can_broadcast_to(shape_of(self.mask), scores):
            raise ShapeError(
                f"mask {self.mask.type} does not broadcast to the scores' shape "
                f"{scores}"
            )


# --------------------------------------------------------------------------- #
# Data movement
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class ViewLike(OpTrait):
    """Data movement without arithmetic: each result element is a copy of
    one operand element, at a position fixed by shapes and properties (no
    data-dependent index), as MLIR's ViewLikeOpInterface widened to the
    views a kernel may copy. Passes that need a kind of view ask a flag
    (`view_ops`), never keep a list of classes."""

    strided: bool = False
    """The result is a strided layout of operand 0's buffer: the host keeps
    it as a buffer view where the layout allows."""
    injective: bool = False
    """No operand element appears twice in the results."""
    bijective: bool = False
    """One result holds each element of its one operand exactly once: a
    chain of them can be inverted."""
    same_order: bool = False
    """The result is the operand's elements in the same row-major order, so
    it moves no data even in a kernel."""


class ShapedResultOp(GraphOp):
    """Ops whose result shape is given by the declared result type."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, shape: Sequence[int]):
        super().__init__(
            operands=[input], result_types=[tensor(shape, dtype_of(input))]
        )

    def check(self, source: Shape, target: Shape) -> None:
        raise NotImplementedError  # every concrete subclass defines its rule

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.result) != dtype_of(self.input):
            raise ShapeError(
                f"element type changes: {self.input.type} -> {self.result.type}"
            )
        self.check(shape_of(self.input), shape_of(self.result))
        return [self.result.type]


@irdl_op_definition
class ReshapeOp(ShapedResultOp):
    """Row-major reshape; the element count is kept.

    %y = graph.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
    """

    name = "graph.reshape"
    traits = traits_def(
        Pure(), ViewLike(strided=True, injective=True, bijective=True, same_order=True)
    )

    def check(self, source: Shape, target: Shape) -> None:
        rules.reshape_check(source, target)


@irdl_op_definition
class BroadcastToOp(ShapedResultOp):
    """numpy.broadcast_to.

    %y = graph.broadcast_to %x : (tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "graph.broadcast_to"
    traits = traits_def(Pure(), ViewLike(strided=True))

    def check(self, source: Shape, target: Shape) -> None:
        if not rules.can_broadcast_to(source, target):
            raise ShapeError(f"cannot broadcast {source} to {target}")


@irdl_op_definition
class TransposeOp(GraphOp):
    """Permute dims: result dim i is input dim perm[i].

    %y = graph.transpose %x perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    """

    name = "graph.transpose"
    traits = traits_def(Pure(), ViewLike(strided=True, injective=True, bijective=True))
    input = operand_def(TensorType)
    perm = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, perm: Sequence[int]):
        self._build(
            operands=[input], result_types=[input.type], properties={"perm": ints(perm)}
        )

    def infer_result_types(self) -> list[Attribute]:
        shape = rules.transpose_shape(shape_of(self.input), self.perm.get_values())
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class SliceOp(GraphOp):
    """Basic slicing `x[start:limit:step]` per dim.

    %y = graph.slice %x start [0, 2] limit [4, 8] step [1, 2]
           : (tensor<4x8xf32>) -> tensor<4x3xf32>
    """

    name = "graph.slice"
    traits = traits_def(Pure(), ViewLike(strided=True, injective=True))
    input = operand_def(TensorType)
    start = prop_def(DenseArrayBase)
    limit = prop_def(DenseArrayBase)
    step = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        start: Sequence[int],
        limit: Sequence[int],
        step: Sequence[int] | None = None,
    ):
        step = [1] * len(start) if step is None else step
        self._build(
            operands=[input],
            result_types=[input.type],
            properties={"start": ints(start), "limit": ints(limit), "step": ints(step)},
        )

    def infer_result_types(self) -> list[Attribute]:
        shape = rules.slice_shape(
            shape_of(self.input),
            self.start.get_values(),
            self.limit.get_values(),
            self.step.get_values(),
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class ConcatOp(GraphOp):
    """Concatenate along `dim`.

    %y = graph.concat %a, %b dim 0 : (tensor<2x8xf32>, tensor<3x8xf32>)
           -> tensor<5x8xf32>
    """

    name = "graph.concat"
    traits = traits_def(Pure(), ViewLike(injective=True))
    inputs = var_operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, inputs: Sequence[SSAValue], dim: int):
        self._build(
            operands=[list(inputs)],
            result_types=[inputs[0].type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if len({dtype_of(o) for o in self.inputs}) > 1:
            raise ShapeError("inputs must share one element type")
        shapes = [shape_of(o) for o in self.inputs]
        shape = rules.concat_shape(shapes, self.dim.value.data)
        return [tensor(shape, dtype_of(self.inputs[0]))]


@irdl_op_definition
class SplitOp(GraphOp):
    """Split along `dim` into pieces of the given `sizes`.

    %a, %b = graph.split %x dim 0 sizes [2, 3] : (tensor<5x8xf32>)
               -> (tensor<2x8xf32>, tensor<3x8xf32>)
    """

    name = "graph.split"
    traits = traits_def(Pure(), ViewLike(strided=True, injective=True))
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    sizes = prop_def(DenseArrayBase)
    outputs = var_result_def(TensorType)

    def __init__(self, input: SSAValue, dim: int, sizes: Sequence[int]):
        shapes = rules.split_shapes(shape_of(input), dim, sizes)
        super().__init__(
            operands=[input],
            result_types=[[tensor(s, dtype_of(input)) for s in shapes]],
            properties={"dim": IntegerAttr(dim, i64), "sizes": ints(sizes)},
        )

    def infer_result_types(self) -> list[Attribute]:
        shapes = rules.split_shapes(
            shape_of(self.input), self.dim.value.data, self.sizes.get_values()
        )
        return [tensor(s, dtype_of(self.input)) for s in shapes]


@irdl_op_definition
class GatherOp(GraphOp):
    """torch.gather: `out[i][j] = input[index[i][j]][j]` for `dim 0`.

    %y = graph.gather %x, %idx dim 1 : (tensor<4x8xf32>, tensor<4x2xi64>)
           -> tensor<4x2xf32>
    """

    name = "graph.gather"
    input = operand_def(TensorType)
    index = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, index: SSAValue, dim: int):
        super().__init__(
            operands=[input, index],
            result_types=[tensor(shape_of(index), dtype_of(input))],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.index) not in INDEX_TYPES:
            raise ShapeError(f"index must be i64 or i32, got {self.index.type}")
        shape = rules.gather_shape(
            shape_of(self.input), self.dim.value.data, shape_of(self.index)
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class IndexOp(GraphOp):
    """torch's advanced indexing `x[..., i, ..., j]` (`aten.index.Tensor`):
    one i64/i32 index tensor per dim in `dims` (increasing; the other dims
    are kept whole), broadcast together. Their broadcast shape replaces the
    indexed dims in place when those are adjacent, else it comes first
    (`shape_rules.index_shape`). Negative indices count from the end; one
    out of range is an error in the reference, and unchecked in a kernel (as
    for gather). Lowered like gather: one kernel, an element per thread.

    %y = graph.index %x, %i dims [1] : (tensor<4x8x3xf32>, tensor<5xi64>)
           -> tensor<4x5x3xf32>
    """

    name = "graph.index"
    input = operand_def(TensorType)
    indices = var_operand_def(TensorType)
    dims = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    def __init__(
        self, input: SSAValue, indices: Sequence[SSAValue], dims: Sequence[int]
    ):
        self._build(
            operands=[input, list(indices)],
            result_types=[input.type],
            properties={"dims": ints(dims)},
        )

    @property
    def dim_list(self) -> tuple[int, ...]:
        return tuple(self.dims.get_values())

    def infer_result_types(self) -> list[Attribute]:
        for index in self.indices:
            if dtype_of(index) not in INDEX_TYPES:
                raise ShapeError(f"indices must be i64 or i32, got {index.type}")
        shape = rules.index_shape(
            shape_of(self.input), self.dim_list, [shape_of(i) for i in self.indices]
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class EmbeddingOp(GraphOp):
    """Row lookup `weight[indices]` (torch.nn.functional.embedding).

    %y = graph.embedding %ids, %w : (tensor<1x64xi64>, tensor<50257x768xf32>)
           -> tensor<1x64x768xf32>
    """

    name = "graph.embedding"
    indices = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, indices: SSAValue, weight: SSAValue):
        shape = rules.embedding_shape(shape_of(indices), shape_of(weight))
        super().__init__(
            operands=[indices, weight], result_types=[tensor(shape, dtype_of(weight))]
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.indices) not in INDEX_TYPES:
            raise ShapeError(f"indices must be i64 or i32, got {self.indices.type}")
        shape = rules.embedding_shape(shape_of(self.indices), shape_of(self.weight))
        return [tensor(shape, dtype_of(self.weight))]


# --------------------------------------------------------------------------- #
# Convolution, pooling and batch norm (NCHW / NCW)
# --------------------------------------------------------------------------- #

_WINDOW_KINDS: dict[str, str] = {
    "kernel": _INTS,
    "stride": _INTS,
    "padding": _INTS,
    "dilation": _INTS,
    "groups": _INT,
    "ceil_mode": _UNIT,
    "count_include_pad": _UNIT,
}
"""Custom syntax of the window properties shared by convolution and pooling."""


def _window_values(name: str, values: int | Sequence[int], rank: int) -> list[int]:
    """A per-spatial-dim list from an int (repeated) or a sequence."""
    listed = [values] * rank if isinstance(values, int) else [int(v) for v in values]
    if len(listed) != rank:
        raise ShapeError(f"{name} needs {rank} entries, got {listed}")
    return listed


class ConvOp(GraphOp):
    """Convolution (cross-correlation, as torch) of an input (N, C, *spatial)
    with a weight (O, C / groups, *kernel) and an optional bias (O,): output
    channel o of group g = o // (O / groups) reads input channels of group g
    only (`groups = C = O` is a depthwise conv). Symmetric zero `padding`,
    `stride` and `dilation` per spatial dim; output length per dim
    `(n + 2 padding - dilation (kernel - 1) - 1) / stride + 1`, rounded down.
    """

    SPATIAL: ClassVar[int] = 2
    PROP_KINDS: ClassVar[dict[str, str]] = _WINDOW_KINDS
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    stride = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)
    dilation = prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue,
        bias: SSAValue | None = None,
        stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        groups: int = 1,
    ):
        n = self.SPATIAL
        properties: dict[str, Attribute] = {
            "stride": ints(_window_values("stride", stride, n)),
            "padding": ints(_window_values("padding", padding, n)),
            "dilation": ints(_window_values("dilation", dilation, n)),
            "groups": IntegerAttr(groups, i64),
        }
        self._build(
            operands=[input, weight, [bias] if bias is not None else []],
            result_types=[input.type],
            properties=properties,
        )

    @property
    def stride_list(self) -> tuple[int, ...]:
        return tuple(self.stride.get_values())

    @property
    def padding_list(self) -> tuple[int, ...]:
        return tuple(self.padding.get_values())

    @property
    def dilation_list(self) -> tuple[int, ...]:
        return tuple(self.dilation.get_values())

    @property
    def group_count(self) -> int:
        return self.groups.value.data

    def infer_result_types(self) -> list[Attribute]:
        if len({dtype_of(o) for o in self.operands}) != 1:
            raise ShapeError("input, weight and bias must share one element type")
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects float tensors, got {self.input.type}")
        bias = shape_of(self.bias) if self.bias is not None else None
        stride = self.stride_list
        if len(stride) != self.SPATIAL:
            raise ShapeError(
                f"stride needs {self.SPATIAL} entries (one per spatial dim), got "
                f"{list(stride)}"
            )
        shape = rules.conv_shape(
            shape_of(self.input),
            shape_of(self.weight),
            bias,
            stride,
            self.padding_list,
            self.dilation_list,
            self.group_count,
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class Conv2dOp(ConvOp):
    """2-D convolution, NCHW (see `ConvOp`).

    %y = graph.conv2d %x, %w, %b dilation [1, 1] groups 1 padding [1, 1]
           stride [2, 2] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>,
           tensor<4xf32>) -> tensor<1x4x4x4xf32>
    """

    name = "graph.conv2d"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class Conv1dOp(ConvOp):
    """1-D convolution, NCW (see `ConvOp`).

    %y = graph.conv1d %x, %w dilation [1] groups 1 padding [1] stride [1]
           : (tensor<1x8x16xf32>, tensor<4x8x3xf32>) -> tensor<1x4x16xf32>
    """

    name = "graph.conv1d"
    SPATIAL: ClassVar[int] = 1


class Pool2dOp(GraphOp):
    """A window over the H and W dims of an NCHW float tensor, per channel:
    `kernel`, `stride`, symmetric `padding` (at most half the kernel) and
    `ceil_mode` (round the output size up; the last window still starts
    inside the input or its left padding), as torch's pooling."""

    PROP_KINDS: ClassVar[dict[str, str]] = _WINDOW_KINDS
    input = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    stride = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)
    ceil_mode = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def _window(
        self,
        kernel: int | Sequence[int],
        stride: int | Sequence[int] | None,
        padding: int | Sequence[int],
        ceil_mode: bool,
    ) -> dict[str, Attribute]:
        kernels = _window_values("kernel", kernel, 2)
        strides = kernels if stride is None else _window_values("stride", stride, 2)
        properties: dict[str, Attribute] = {
            "kernel": ints(kernels),
            "stride": ints(strides),
            "padding": ints(_window_values("padding", padding, 2)),
        }
        if ceil_mode:
            properties["ceil_mode"] = UnitAttr()
        return properties

    @property
    def kernel_list(self) -> tuple[int, ...]:
        return tuple(self.kernel.get_values())

    @property
    def stride_list(self) -> tuple[int, ...]:
        return tuple(self.stride.get_values())

    @property
    def padding_list(self) -> tuple[int, ...]:
        return tuple(self.padding.get_values())

    @property
    def dilation_list(self) -> tuple[int, ...]:
        return (1, 1)

    @property
    def is_ceil_mode(self) -> bool:
        return self.ceil_mode is not None

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")
        shape = rules.pool_shape(
            shape_of(self.input),
            self.kernel_list,
            self.stride_list,
            self.padding_list,
            self.dilation_list,
            self.is_ceil_mode,
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class MaxPool2dOp(Pool2dOp):
    """Max over each (dilated) window; padding never wins (it is -inf), NaN
    propagates (torch's max_pool2d, values only).

    %y = graph.max_pool2d %x dilation [1, 1] kernel [3, 3] padding [1, 1]
           stride [2, 2] : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    """

    name = "graph.max_pool2d"
    dilation = prop_def(DenseArrayBase)

    def __init__(
        self,
        input: SSAValue,
        kernel: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        padding: int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        ceil_mode: bool = False,
    ):
        properties = self._window(kernel, stride, padding, ceil_mode)
        properties["dilation"] = ints(_window_values("dilation", dilation, 2))
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def dilation_list(self) -> tuple[int, ...]:
        return tuple(self.dilation.get_values())


@irdl_op_definition
class AvgPool2dOp(Pool2dOp):
    """Mean over each window. The divisor counts the zero padding with
    `count_include_pad` (but not the part of a ceil_mode window past it),
    else only the input elements, as torch's avg_pool2d.

    %y = graph.avg_pool2d %x count_include_pad kernel [2, 2] padding [0, 0]
           stride [2, 2] : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    """

    name = "graph.avg_pool2d"
    count_include_pad = opt_prop_def(UnitAttr)

    def __init__(
        self,
        input: SSAValue,
        kernel: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        padding: int | Sequence[int] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ):
        properties = self._window(kernel, stride, padding, ceil_mode)
        if count_include_pad:
            properties["count_include_pad"] = UnitAttr()
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def includes_padding(self) -> bool:
        return self.count_include_pad is not None


@irdl_op_definition
class AdaptiveAvgPool2dOp(GraphOp):
    """torch's adaptive_avg_pool2d: the result type's H and W give the output
    size; output row i averages input rows floor(i H / oh) to
    ceil((i + 1) H / oh) (exclusive), columns likewise. The importer writes
    a 1x1 output as `graph.mean` over H and W instead.

    %y = graph.adaptive_avg_pool2d %x : (tensor<1x8x7x7xf32>)
           -> tensor<1x8x3x2xf32>
    """

    name = "graph.adaptive_avg_pool2d"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, output_size: Sequence[int]):
        shape = [*shape_of(input)[:2], *output_size]
        self._build(operands=[input], result_types=[tensor(shape, dtype_of(input))])

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")
        if dtype_of(self.result) != dtype_of(self.input):
            raise ShapeError(
                f"element type changes: {self.input.type} -> {self.result.type}"
            )
        source, target = shape_of(self.input), shape_of(self.result)
        if len(source) != 4 or len(target) != 4:
            raise ShapeError(
                f"input and result must have rank 4 (N, C, H, W), got {source} and "
                f"{target}"
            )
        if source[:2] != target[:2] or min(target[2:]) < 1 or min(source[2:]) < 1:
            raise ShapeError(
                f"result {target} must keep N and C of {source} and have an "
                "output size >= 1 (from a non-empty input)"
            )
        return [self.result.type]


@irdl_op_definition
class BatchNormOp(GraphOp):
    """Batch norm in inference: channel c (dim 1) of the input becomes
    `(x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c]`, the running
    statistics and affine parameters all of shape (C,) (the importer fills
    a missing weight with ones, a missing bias with zeros). Operands in
    torch.nn.functional.batch_norm's order.

    %y = graph.batch_norm %x, %mean, %var, %w, %b eps 1.0e-05
           : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
              tensor<8xf32>) -> tensor<1x8x4x4xf32>
    """

    name = "graph.batch_norm"
    input = operand_def(TensorType)
    running_mean = operand_def(TensorType)
    running_var = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        running_mean: SSAValue,
        running_var: SSAValue,
        weight: SSAValue,
        bias: SSAValue,
        eps: float = 1e-5,
    ):
        self._build(
            operands=[input, running_mean, running_var, weight, bias],
            result_types=[input.type],
            properties={"eps": FloatAttr(eps, Float64Type())},
        )

    @property
    def eps_value(self) -> float:
        return self.eps.value.data

    def infer_result_types(self) -> list[Attribute]:
        dtypes = {dtype_of(o) for o in self.operands}
        if len(dtypes) != 1 or dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(
                "input, statistics, weight and bias must share one float type"
            )
        rules.channel_params_check(
            shape_of(self.input), [shape_of(o) for o in self.operands[1:]]
        )
        return [self.input.type]


# --------------------------------------------------------------------------- #
# Constants
# --------------------------------------------------------------------------- #


def is_graph_constant(op: Operation | Block) -> bool:
    """A constant of this dialect: a graph op with the `ConstantLike` trait
    (graph.constant, graph.full). Passes that evaluate or clone graph
    constants ask this, so other dialects' constants (arith) stay theirs."""
    return isinstance(op, GraphOp) and op.has_trait(ConstantLike)


@irdl_op_definition
class ConstantOp(GraphOp):
    """A tensor literal (attr-dict first, then the dense value with its type,
    as arith.constant).

        %c = graph.constant dense<1.0> : tensor<4xf32>
    """

    name = "graph.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(result_types=[value.type], properties={"value": value})

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.value.type) not in ELEMENT_TYPES:
            raise ShapeError(f"unsupported element type {self.value.type}")
        return [self.value.type]

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = _parse_attr_dict(parser)
        value = reuse_parse(parser, _DENSE, parser.parse_attribute)
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error(f"graph.constant: expected a dense tensor, got {value}")
        op = cls(value)
        op.attributes |= attributes
        return op


@irdl_op_definition
class FullOp(GraphOp):
    """A tensor filled with one scalar `value` (converted to the dtype).

    %z = graph.full value -inf : tensor<64x64xf32>
    """

    name = "graph.full"
    PROP_KINDS: ClassVar[dict[str, str]] = {"value": _FLOAT}
    value = prop_def(FloatAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, shape: Sequence[int], value: float, dtype: Attribute = f32):
        super().__init__(
            result_types=[tensor(shape, dtype)],
            properties={"value": FloatAttr(float(value), Float64Type())},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.result) not in ELEMENT_TYPES:
            raise ShapeError(f"unsupported element type {self.result.type}")
        return [self.result.type]


@irdl_op_definition
class ArangeOp(GraphOp):
    """torch.arange: element i is `start + i * step` (computed in float64,
    then converted, as torch does on the CPU); the length is the result's.
    Integer results take integral `start` and `step`; `step` is nonzero.
    Shapes are static, so `graph-decompose` folds it to a `graph.constant`.

    %r = graph.arange start 0.0 step 2.0 : tensor<5xi64>
    """

    name = "graph.arange"
    PROP_KINDS: ClassVar[dict[str, str]] = {"start": _FLOAT, "step": _FLOAT}
    start = prop_def(FloatAttr)
    step = prop_def(FloatAttr)
    result = result_def(TensorType)

    def __init__(self, start: float, step: float, length: int, dtype: Attribute = i64):
        super().__init__(
            result_types=[tensor([length], dtype)],
            properties={
                "start": FloatAttr(float(start), Float64Type()),
                "step": FloatAttr(float(step), Float64Type()),
            },
        )

    @property
    def start_value(self) -> float:
        return self.start.value.data

    @property
    def step_value(self) -> float:
        return self.step.value.data

    def infer_result_types(self) -> list[Attribute]:
        dtype, shape = dtype_of(self.result), shape_of(self.result)
        if dtype not in ELEMENT_TYPES or dtype == i1:
            raise ShapeError(
                f"result must be a float or integer tensor, got {self.result.type}"
            )
        if len(shape) != 1:
            raise ShapeError(f"result must have rank 1, got {self.result.type}")
        start, step = self.start_value, self.step_value
        if not (math.isfinite(start) and math.isfinite(step)) or step == 0:
            raise ShapeError(
                f"start and step must be finite, step nonzero: got {start}, {step}"
            )
        if dtype not in FLOAT_TYPES and (start != int(start) or step != int(step)):
            raise ShapeError(
                f"start {start} and step {step} must be integers for {self.result.type}"
            )
        return [self.result.type]


# --------------------------------------------------------------------------- #
# Structure
# --------------------------------------------------------------------------- #


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of a `graph.fusion_group`: its operands are the results.

    graph.yield %a, %b : tensor<4xf32>, tensor<4xf32>
    """

    name = "graph.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (IsTerminator(), ReturnLike(), Pure(), HasParent(FusionGroupOp))
    )
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class FusionGroupOp(IRDLOperation):
    """A group of ops that compiles to one kernel; isolated from above.

    Block arguments are the group's inputs (one per operand, same types),
    `graph.yield` gives its results.

        %r = graph.fusion_group (%x, %b) : (tensor<4xf32>, tensor<4xf32>)
               -> tensor<4xf32> {
        ^bb0(%a: tensor<4xf32>, %c: tensor<4xf32>):
          %s = graph.add %a, %c : tensor<4xf32>
          graph.yield %s : tensor<4xf32>
        }
    """

    name = "graph.fusion_group"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(
        IsolatedFromAbove(),
        RecursiveMemoryEffect(),
        SingleBlockImplicitTerminator(YieldOp),
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        body: Region,
    ):
        super().__init__(
            operands=[list(inputs)], result_types=[list(result_types)], regions=[body]
        )

    @property
    def yield_op(self) -> YieldOp:
        terminator = self.body.block.last_op
        assert isinstance(terminator, YieldOp)
        return terminator

    def verify_(self) -> None:
        block = self.body.block
        arg_types = [a.type for a in block.args]
        in_types = [o.type for o in self.inputs]
        if arg_types != in_types:
            raise _verify_failed(
                self,
                f"block argument types ({_type_str(arg_types)}) differ from input "
                f"types ({_type_str(in_types)})",
            )
        last = block.last_op
        yielded = [v.type for v in last.operands] if isinstance(last, YieldOp) else []
        out_types = [r.type for r in self.outputs]
        if yielded != out_types:
            raise _verify_failed(
                self,
                f"yielded types ({_type_str(yielded)}) differ from result types "
                f"({_type_str(out_types)})",
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type(
            [o.type for o in self.inputs], [r.type for r in self.outputs]
        )
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)

    @classmethod
    def parse(cls, parser: Parser) -> FusionGroupOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attributes = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        function_type = parser.parse_function_type()
        if len(function_type.inputs) != len(operands):
            parser.raise_error(
                f"graph.fusion_group: {len(operands)} inputs but "
                f"{len(function_type.inputs)} input types"
            )
        # The region first, as the generic form does: its values are out of
        # scope for the inputs (a name defined in it then resolves a forward
        # reference of an input, which xDSL leaves as a placeholder operand).
        body = parser.parse_region()
        inputs = [
            parser.resolve_operand(o, t)
            for o, t in zip(operands, function_type.inputs.data)
        ]
        op = cls(inputs, function_type.outputs.data, body)
        op.attributes |= attributes
        return op


GRAPH_OPS: tuple[type[IRDLOperation], ...] = (
    NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, SigmoidOp, ReluOp, GeluOp,
    SiluOp, ErfOp, SinOp, CosOp, ReciprocalOp, CastOp, LogicalNotOp, ClampOp,
    HardswishOp, HardsigmoidOp,
    TanOp, AcosOp, AsinOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
    Exp2Op, Log2Op, Log10Op,
    AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp,
    Atan2Op, CopysignOp, FmodOp, RemainderOp,
    EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, LogicalAndOp, LogicalOrOp, SelectOp,
    SumOp, MeanOp, MaxOp, MinOp, AnyOp, AllOp, VarOp, SoftmaxOp, LogSoftmaxOp,
    CumsumOp, LayerNormOp,
    MatmulOp, LinearOp, AttentionOp,
    ReshapeOp, TransposeOp, BroadcastToOp, SliceOp, ConcatOp, SplitOp, GatherOp,
    EmbeddingOp, IndexOp,
    Conv2dOp, Conv1dOp, MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, BatchNormOp,
    ConstantOp, FullOp, ArangeOp,
    FusionGroupOp, YieldOp,
)  # fmt: skip


def view_ops(**flags: bool) -> tuple[type[IRDLOperation], ...]:
    """The graph ops with the `ViewLike` trait whose flags have the given
    values (`view_ops(strided=True)`; no flags: every view)."""
    return tuple(
        op
        for op in GRAPH_OPS
        if (view := op.get_trait(ViewLike)) is not None
        and all(getattr(view, flag) == value for flag, value in flags.items())
    )


_ = (ArrayAttr, FunctionType)  # re-exported for users building attributes

Graph = Dialect("graph", list(GRAPH_OPS), [ScopeAttr, SignatureAttr])
