"""The `graph` dialect's element types, attributes (`#graph.scope`,
`#graph.signature`), small helpers and `GraphOp`, the base of every compute
op: its syntax and its verification by type inference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from typing_extensions import Self
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
    i64,
)
from xdsl.ir import (
    Attribute,
    Data,
    Operation,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from fxdsl.ir.shape_rules import Shape, ShapeError
from fxdsl.ir.syntax import (
    ATTR,
    ATTR_DICT,
    PROPERTY_KINDS,
    SIGNATURE,
    ScopeFrame,
    function_type_text,
    parse_operands,
    parse_optional_keyword_in,
    parse_printed_scope,
    parse_property,
    parse_scope_only_dict,
    parse_signature,
    print_property,
    reuse_parse,
    scope_text,
    type_text,
)

f32, f16, bf16, f64 = Float32Type(), Float16Type(), BFloat16Type(), Float64Type()
i32, i16, i8, i1 = IntegerType(32), IntegerType(16), IntegerType(8), IntegerType(1)
ui8 = IntegerType(8, Signedness.UNSIGNED)
ELEMENT_TYPES: tuple[Attribute, ...] = (f32, f16, bf16, f64, i64, i32, i16, i8, ui8, i1)
"""Element types of graph tensors: torch's float32, float16, bfloat16,
float64, int64, int32, int16, int8, uint8 (`ui8`: the one unsigned type,
as torch has no other in common use) and bool (`i1`)."""
FLOAT_TYPES: tuple[Attribute, ...] = (f32, f16, bf16, f64)


def bit_width(element_type: Attribute) -> int:
    """The bits of one element of `element_type` (i1: 1)."""
    assert isinstance(element_type, IntegerType | AnyFloat)
    return element_type.bitwidth


KERNEL_TYPES: tuple[Attribute, ...] = (f32, f16, bf16, i64, i32, i1)
"""The element types the GPU lowering takes; a graph op on another
(f64, i16, i8, ui8) runs on the reference only, and lowering it is an error."""
INDEX_TYPES: tuple[Attribute, ...] = (i64, i32)

# --------------------------------------------------------------------------- #
# Attributes
# --------------------------------------------------------------------------- #


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
        if (frames := parse_printed_scope(parser)) is not None:
            return frames  # the printed form, by one regex

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
        printer.print_string(scope_text(self.data))

    @property
    def fqns(self) -> tuple[str, ...]:
        return tuple(frame[0] for frame in self.data)


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
ALIASES = "graph.aliases"
"""On a `graph.param` argument whose tensor the model reaches under several
names (a shared submodule, tied weights): every one of those names, its own
`graph.param` included, as a list of strings in argument order."""
NAME = "graph.name"
"""A value's stable name: on an op (its result; a list of names, "" for none,
on a multi-result op) or as a function argument attribute."""
CONV_GEMM = "graph.conv_gemm"
"""A unit attribute on a `graph.matmul` that computes a convolution
(`conv-decompose`'s im2col GEMMs): its f32 precision follows the
convolution's setting (torch: `torch.backends.cudnn.allow_tf32`, TF32 by
default) rather than the matmul one (`float32_matmul_precision`). The
runtime's `conv_tf32`; kept on the GEMM's `linalg.generic`."""
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


HALF_FLOAT_TYPES = (bf16, f16)
"""The 16-bit floats: a contraction on them may store its sums in f32."""


def accumulated_type(operand: Attribute, declared: Attribute, what: str) -> Attribute:
    """The result element type of a contraction (matmul, conv) on `operand`
    elements declaring `declared`: the operands' own, or f32 for bf16/f16
    operands (the sums stored unrounded, for an f32 epilogue that rounds
    once); else a ShapeError naming `what` ("operands'", "input's")."""
    if declared != operand and (operand not in HALF_FLOAT_TYPES or declared != f32):
        raise ShapeError(
            f"result element type {declared} must be the {what} ({operand}), "
            "or f32 for bf16/f16 operands"
        )
    return declared


def verify_failed(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"{op.name}: {message}")


def type_str(types: Sequence[Attribute]) -> str:
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


class IntegerOperands:
    """Mixin for bitwise ops: every operand is an integer or i1 tensor."""

    def verify_operands(self) -> None:
        super().verify_operands()  # type: ignore[misc]
        assert isinstance(self, Operation)
        for operand in self.operands:
            if dtype_of(operand) in FLOAT_TYPES:
                raise ShapeError(f"expects integer tensors, got {operand.type}")


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
        return cls.PROP_KINDS.get(name) or PROPERTY_KINDS.get(name, ATTR)

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
            raise verify_failed(self, message) from error
        actual = [r.type for r in self.results]
        if expected != actual:
            message = (
                f"result type {type_str(actual)} does not match inferred type "
                f"{type_str(expected)}"
            )
            if self.operands:
                message += f" (operands: {type_str([o.type for o in self.operands])})"
            raise verify_failed(self, message)

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        for name in sorted(self.properties):
            kind = self.property_kind(name)
            print_property(printer, kind, name, self.properties[name])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        operand_types = [o.type for o in self.operands]
        result_types = [r.type for r in self.results]
        if len(result_types) == 1 and all(t == result_types[0] for t in operand_types):
            printer.print_string(type_text(result_types[0]))
        else:
            printer.print_string(function_type_text(operand_types, result_types))

    @classmethod
    def parse(cls, parser: Parser) -> GraphOp:
        operands = parse_operands(parser)
        known = cls.get_irdl_definition().properties
        properties: dict[str, Attribute] = {}
        while (name := parse_optional_keyword_in(parser, known)) is not None:
            properties[name] = parse_property(parser, cls.property_kind(name))
        attributes = parse_attr_dict(parser)
        parser.parse_punctuation(":")
        operand_types, result_types = reuse_parse(
            parser, SIGNATURE, lambda: parse_signature(parser)
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


def parse_attr_dict(parser: Parser) -> dict[str, Attribute]:
    return dict(reuse_parse(parser, ATTR_DICT, lambda: _parse_new_attr_dict(parser)))


def _parse_new_attr_dict(parser: Parser) -> dict[str, Attribute]:
    if (frames := parse_scope_only_dict(parser)) is not None:
        return {SCOPE: ScopeAttr(frames)}
    return parser.parse_optional_attr_dict()
