"""Structure: `fusion_group` and its `yield`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import (
    Attribute,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SingleBlockImplicitTerminator,
)

from fxdsl.ir.graph.base import parse_attr_dict, type_str, verify_failed

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
            raise verify_failed(
                self,
                f"block argument types ({type_str(arg_types)}) differ from input "
                f"types ({type_str(in_types)})",
            )
        last = block.last_op
        yielded = [v.type for v in last.operands] if isinstance(last, YieldOp) else []
        out_types = [r.type for r in self.outputs]
        if yielded != out_types:
            raise verify_failed(
                self,
                f"yielded types ({type_str(yielded)}) differ from result types "
                f"({type_str(out_types)})",
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
        attributes = parse_attr_dict(parser)
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
