"""`graph-bufferize`: the host functions on memrefs (run after
`graph-wrap-kernels`).

Conventions (what the runtime's launch plan relies on):

* Arguments and results become dense `memref`s of the same shape. Results are
  *returned allocations* (not destination-passing): each kernel or library
  output is a `memref.alloc`, and `func.return` returns the buffers. A result
  may also be an argument buffer itself (identity function). No deallocations
  are emitted: buffer lifetimes and reuse belong to the launch plan.
* A host view (`reshape`, `transpose`, `slice`, `broadcast_to`, `split`)
  becomes one `memref.reinterpret_cast` per result with the static strided
  layout computed by `layout.py` (one mechanism for every view kind; it
  composes, since the offset is absolute in the underlying buffer).
* A `graph.fusion_group` stays on tensors, bridged with upstream
  `bufferization` ops: each input is `bufferization.to_tensor` of its buffer,
  each output is `bufferization.materialize_in_destination` into a fresh
  `memref.alloc`. `convert-groups-to-gpu` turns the bridge into a kernel.
* `graph.matmul` becomes a library call on 3-D `(batch, rows, cols)` views:
  `linalg.fill` of zero and a `linalg.generic` with the batch-matmul indexing
  maps and `library_call = "cublas_gemm_strided_batched"` (the generalised
  form of upstream `linalg.batch_matmul`, which xDSL 0.74 lacks), keeping
  `graph.conv_gemm` (a convolution's GEMM, see `graph.CONV_GEMM`). Transposed
  operands are strided views that cuBLAS reads with a transpose flag; batch
  broadcasting is a zero batch stride.
* A linear-algebra op (`graph.LinalgOp`, a host library step: cuSOLVER
  through CuPy) stays a graph op on tensors, bridged as a group is: each
  operand is `bufferization.to_tensor` of its (dense) buffer, each result
  is materialized into a fresh `memref.alloc`. The launch plan reads the
  bridged op as one solver step.
* A matmul whose only use is a chain of transposes and reshapes ending in a
  copy kernel (a group of views only, e.g. attention heads merged back into
  `(T, D)`) writes its product straight into the copy's buffer through the
  inverse of the chain, when that is a strided batch cuBLAS can write: the
  copy kernel and its round trip disappear (`write_through`). An attention
  group writes its output the same way (`kernel_write_through`): its kernel
  stores through a strided view, and the heads need no merge kernel.
* A `graph.constant` left at the top level (`graph-wrap-kernels` keeps a
  large one out of the kernels) becomes a `memref.get_global` of a
  constant `memref.global` of the module, named `<function>_constant`
  (`_1`, `_2`, ...): a buffer the runtime fills once, when it loads the
  program, and every call reads.
* A `graph.index_copy` group whose input is an argument marked
  `bufferization.writable` (the caller donates it: a static KV cache) that
  nothing else reads writes its result into that argument's buffer
  (`in_place_input`): no cache-sized allocation, and the returned result is
  the argument's buffer. The graph stays value-semantic; this is the one
  place where a result and an input share memory.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BFloat16Type,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg import attrs as linalg_attrs
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from fxdsl.ir import graph
from fxdsl.ir.graph import FLOAT_TYPES, dtype_of, shape_of
from fxdsl.ir.layout import (
    HOST_VIEW_OPS,
    Layout,
    batched,
    layout_of_type,
    matmul_operand,
    reshaped,
    row_major,
    view_layouts,
)
from fxdsl.ir.shape_rules import Shape, matmul_dims
from fxdsl.ir.utils import OpFailure, single_block_bodies, unique_name
from fxdsl.lowering.attention_kernel import attention_op
from fxdsl.lowering.scatter_kernel import lone_index_copy

GEMM_LIBRARY_CALL = "cublas_gemm_strided_batched"


@functools.lru_cache(maxsize=4096)
def memref_of(typ: Attribute) -> Attribute:
    """The dense memref type of a tensor type; other types unchanged
    (cached: building a MemRefType verifies it, and a big module asks for
    the same few types thousands of times)."""
    if isinstance(typ, TensorType):
        return MemRefType(typ.element_type, typ.get_shape())
    return typ


def _cast(source: SSAValue, layout: Layout) -> memref.ReinterpretCastOp:
    # upstream checks the static strides against the result type, size-1 dims too
    layout = Layout.dense(layout.shape) if layout.is_identity else layout
    return memref.ReinterpretCastOp(
        source, [], [], [], [layout.offset], layout.shape, layout.strides,
        layout.memref_type(dtype_of_memref(source)),
    )  # fmt: skip


def _to_tensor(buffer: SSAValue, tensor_type: Attribute) -> Operation:
    """`bufferization.to_tensor` of a buffer. xDSL 0.74's to_tensor rejects
    strided memrefs (upstream accepts them), so a strided view is bridged with
    `builtin.unrealized_conversion_cast` instead; both vanish in
    convert-groups-to-gpu."""
    assert isinstance(buffer.type, MemRefType)
    if layout_of_type(buffer.type).is_identity:  # type: ignore[arg-type]
        return bufferization.ToTensorOp(buffer, restrict=True)
    return UnrealizedConversionCastOp.get([buffer], [tensor_type])


def _materialize(result: SSAValue, dest: SSAValue) -> Operation:
    """`bufferization.materialize_in_destination` of a group output into its
    buffer. xDSL 0.74 requires the identity layout there too (upstream takes
    any memref of the shape), so a strided destination (`copy_target`) is
    bridged by a result-less `builtin.unrealized_conversion_cast(result,
    dest)` instead; convert-groups-to-gpu reads both forms."""
    assert isinstance(dest.type, MemRefType)
    if layout_of_type(dest.type).is_identity:  # type: ignore[arg-type]
        return bufferization.MaterializeInDestinationOp.create(
            operands=[result, dest],
            properties={"restrict": UnitAttr(), "writable": UnitAttr()},
        )
    return UnrealizedConversionCastOp.create(operands=[result, dest], result_types=[])


def dtype_of_memref(value: SSAValue) -> Attribute:
    assert isinstance(value.type, MemRefType)
    return value.type.element_type


def _gemm(lhs: SSAValue, rhs: SSAValue, out: SSAValue) -> list[Operation]:
    """fill(out, 0) then out[b,m,n] += lhs[b,m,k] * rhs[b,k,n] (16-bit
    operands extended first when the product is stored in f32)."""
    element = dtype_of_memref(out)
    operand = dtype_of_memref(lhs)
    is_float = element in FLOAT_TYPES
    zero_op = (
        arith.ConstantOp(FloatAttr(0.0, element))  # type: ignore[arg-type]
        if is_float
        else arith.ConstantOp.from_int_and_width(0, element)  # type: ignore[arg-type]
    )
    fill = linalg.FillOp([zero_op.result], [out], res=())
    body = Block(arg_types=[operand, operand, element])
    a, b, c = body.args
    if operand != element:
        extended = [arith.ExtFOp(a, element), arith.ExtFOp(b, element)]
        body.add_ops(extended)
        a, b = (e.result for e in extended)
    mul = arith.MulfOp(a, b) if is_float else arith.MuliOp(a, b)
    add = arith.AddfOp(c, mul) if is_float else arith.AddiOp(c, mul)
    body.add_ops([mul, add, linalg.YieldOp(add)])
    maps = [
        AffineMap.from_callable(lambda b_, m, _n, k: (b_, m, k)),
        AffineMap.from_callable(lambda b_, _m, n, k: (b_, k, n)),
        AffineMap.from_callable(lambda b_, m, n, _k: (b_, m, n)),
    ]
    iterators = linalg_attrs.IteratorTypeAttr
    par, red = iterators.parallel(), iterators.reduction()
    generic = linalg.GenericOp(
        [lhs, rhs], [out], Region(body), [AffineMapAttr(m) for m in maps],
        [par, par, par, red], library_call=StringAttr(GEMM_LIBRARY_CALL),
    )  # fmt: skip
    return [zero_op, fill, generic]


COPY_VIEWS = graph.view_ops(bijective=True)
"""Views that move every element exactly once (a bijection): a chain of them
can be inverted into a layout of its source within its result's buffer."""


def _copy_chain(group: graph.FusionGroupOp) -> list[Operation] | None:
    """The views of a copy group (one input, one output, only `COPY_VIEWS`
    in a line from the argument to the yield), or None."""
    if len(group.inputs) != 1 or len(group.outputs) != 1:
        return None
    value: SSAValue = group.body.block.args[0]
    chain: list[Operation] = []
    for op in group.body.block.ops:
        if op is group.yield_op:
            return chain if chain and op.operands[0] is value else None
        if not isinstance(op, COPY_VIEWS) or op.operands[0] is not value:
            return None
        chain.append(op)
        value = op.results[0]
    return None


def _inverse(op: Operation, result: Layout) -> Layout | None:
    """The layout of view `op`'s source, given the layout of its result."""
    if isinstance(op, graph.TransposeOp):
        perm = op.perm.get_values()
        shape, strides = [0] * len(perm), [0] * len(perm)
        for i, p in enumerate(perm):
            shape[p], strides[p] = result.shape[i], result.strides[i]
        return Layout(tuple(shape), tuple(strides), result.offset)
    assert isinstance(op, graph.ReshapeOp)
    return reshaped(result, shape_of(op.operands[0]))


def copy_target(
    value: SSAValue,
) -> tuple[graph.FusionGroupOp, list[Operation], Layout] | None:
    """(copy group, host views before it, layout of `value` in the copy's
    output buffer) when `value` flows only through views into a copy group
    (a group of `COPY_VIEWS` only), so its producer can write it straight
    into the copy's buffer; else None."""
    producer = value.owner
    views: list[Operation] = []
    while len(uses := list(value.uses)) == 1:
        user = uses[0].operation
        if isinstance(user, COPY_VIEWS) and user.parent is producer.parent:
            views.append(user)
            value = user.results[0]
            continue
        if (
            not isinstance(user, graph.FusionGroupOp)
            or user.parent is not producer.parent
        ):
            return None
        inside = _copy_chain(user)
        if inside is None:
            return None
        layout: Layout | None = Layout.dense(shape_of(user.outputs[0]))
        for view in reversed(views + inside):
            layout = None if layout is None else _inverse(view, layout)
        return None if layout is None else (user, views, layout)
    return None


def _gemm_dims(op: graph.MatmulOp) -> tuple[Shape, int, int]:
    # the result's leading dims are not the batch when an operand is 1-D;
    # the operands may be buffers already (tensor or memref: same shape)
    lhs, rhs = op.lhs.type, op.rhs.type
    assert isinstance(lhs, TensorType | MemRefType)
    assert isinstance(rhs, TensorType | MemRefType)
    return matmul_dims(lhs.get_shape(), rhs.get_shape())


def write_through(
    op: graph.MatmulOp,
) -> tuple[graph.FusionGroupOp, list[Operation], Layout] | None:
    """(copy group, host views before it, 3-D output layout) when `op` can
    write its product straight into the buffer of the copy group its result
    flows into (module docstring), else None."""
    if dtype_of(op.result) == BFloat16Type():
        return None  # bf16 GEMM outputs are converted whole, not through a view
    if len(shape_of(op.result)) < 2:
        return None  # a vector product: nothing to merge
    target = copy_target(op.result)
    if target is None:
        return None
    batch, m, n = _gemm_dims(op)
    # the product as (batch..., M, N): a 1-D operand's dim is back, size 1
    full = reshaped(target[2], (*batch, m, n))
    out = None if full is None else batched(full, batch)
    if out is None or not row_major(out):
        return None  # not a row-major matrix per batch
    return target[0], target[1], out


def kernel_write_through(
    group: graph.FusionGroupOp,
) -> tuple[graph.FusionGroupOp, list[Operation], Layout] | None:
    """`copy_target` of an attention group's first output when its rows
    stay contiguous there (the head merge): each thread of the attention
    kernel writes one output row, so such a view costs nothing, while one
    that transposes the last dim would scatter the rows and is left to the
    copy. Other outputs (an epilogue can yield several) and other kernels
    write their own buffers."""
    if attention_op(group) is None:
        return None
    target = copy_target(group.outputs[0])
    if target is None or target[2].strides[-1] != 1:
        return None
    return target


WRITABLE = "bufferization.writable"
"""The argument attribute (upstream one-shot bufferize's name) saying that
the caller gives up the argument's buffer: the function may write into it
(`{bufferization.writable = true}`)."""


def writable_arguments(function: func.FuncOp) -> set[int]:
    """The positions of `function`'s arguments marked
    `bufferization.writable = true`."""
    if function.arg_attrs is None:
        return set()
    return {
        position
        for position, attrs in enumerate(function.arg_attrs.data)
        if isinstance(mark := attrs.data.get(WRITABLE), IntegerAttr)
        and mark.value.data != 0
    }


def _donates(call: func.CallOp, position: int) -> bool:
    """Whether `call` passes, at `position`, a writable argument of its own
    function that the call alone reads."""
    operand = call.arguments[position]
    function = call.parent_op()
    if not isinstance(operand, BlockArgument) or not isinstance(function, func.FuncOp):
        return False
    if operand.owner is not function.body.block or len(list(operand.uses)) != 1:
        return False
    return operand.index in writable_arguments(function)


def mark_writable_through_calls(module: ModuleOp) -> None:
    """Mark `bufferization.writable` the arguments of private functions that
    every call donates (`_donates`): a layer outlined by `graph-dedup` then
    updates the cache its caller was given in place, as the caller would."""
    functions = {
        f.sym_name.data: f for f in module.walk() if isinstance(f, func.FuncOp)
    }
    calls: dict[str, list[func.CallOp]] = {}
    for op in module.walk():
        if isinstance(op, func.CallOp):
            calls.setdefault(op.callee.string_value(), []).append(op)
    changed = True
    while changed:  # a chain of calls marks one level per round
        changed = False
        for name, sites in calls.items():
            callee = functions.get(name)
            if callee is None or not callee.body.blocks:
                continue
            if callee.sym_visibility is None or callee.sym_visibility.data != "private":
                continue  # a public function's callers are not all known
            marked = writable_arguments(callee)
            new = [
                p
                for p in range(len(callee.args))
                if p not in marked and all(_donates(s, p) for s in sites)
            ]
            if new:
                _mark(callee, new)
                changed = True


def _mark(function: func.FuncOp, positions: list[int]) -> None:
    attrs = (
        [dict(a.data) for a in function.arg_attrs.data]
        if function.arg_attrs is not None
        else [{} for _ in function.args]
    )
    for position in positions:
        attrs[position][WRITABLE] = BoolAttr.from_bool(True)
    function.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in attrs])


def in_place_input(group: graph.FusionGroupOp, writable: set[SSAValue]) -> int | None:
    """The position of the input whose buffer `group`'s output may take:
    the group is a `lone_index_copy` whose input is a writable, dense
    argument that nothing else reads (so no reader can see the new rows
    early); then the output is that buffer and the kernel writes only the
    new rows (`scatter_kernel.py`). None otherwise."""
    found = lone_index_copy(group)
    if found is None:
        return None
    outer = group.inputs[found[1]]
    if outer not in writable or len(list(outer.uses)) != 1:
        return None
    if not layout_of_type(outer.type).is_identity:  # type: ignore[arg-type]
        return None
    return found[1]


@dataclass
class _Globals:
    """The module's constant `memref.global`s made so far, and the symbol
    names they may not take."""

    taken: set[str]
    made: list[memref.GlobalOp]

    def add(self, base: str, value: graph.ConstantOp) -> memref.GetGlobalOp:
        name = unique_name(f"{base}_constant", self.taken)
        self.taken.add(name)
        typ = memref_of(value.result.type)
        self.made.append(
            memref.GlobalOp.get(StringAttr(name), typ, value.value, constant=UnitAttr())
        )
        return memref.GetGlobalOp(name, typ)


class _Bufferizer:
    """Rewrites one function body; `buffers` maps tensor values to memrefs."""

    def __init__(
        self,
        block: Block,
        writable: set[int] | None = None,
        globals_: _Globals | None = None,
        function: str = "main",
    ):
        self.globals = globals_ or _Globals(set(), [])
        self.function = function
        self.block = block
        self.writable_positions = writable or set()
        self.writable: set[SSAValue] = set()
        self.buffers: dict[SSAValue, SSAValue] = {}
        self.elided: set[Operation] = set()
        """views and copy groups a matmul or kernel writes through (`adopt_copy`)"""

    def buffer(self, value: SSAValue) -> SSAValue:
        return self.buffers.get(value, value)

    def insert(self, ops: list[Operation], before: Operation) -> None:
        Rewriter.insert_op(ops, InsertPoint.before(before))

    def alloc(self, typ: Attribute, before: Operation) -> SSAValue:
        op = memref.AllocOp([], [], memref_of(typ))
        self.insert([op], before)
        return op.memref

    def adopt_copy(
        self,
        target: tuple[graph.FusionGroupOp, list[Operation], Layout],
        before: Operation,
    ) -> SSAValue:
        """The output buffer of a copy group that a producer writes through
        (`write_through`, `kernel_write_through`), allocated before the
        producer; the copy and its views are elided."""
        copy, views, _ = target
        buffer = self.alloc(copy.outputs[0].type, before)
        self.buffers[copy.outputs[0]] = buffer
        self.elided.update([*views, copy])
        return buffer

    def group(self, op: graph.FusionGroupOp) -> None:
        in_place = in_place_input(op, self.writable)
        if in_place is not None:
            buffer = self.buffer(op.inputs[in_place])
            self.buffers[op.outputs[0]] = buffer
        for index, operand in enumerate(op.inputs):
            bridge = _to_tensor(self.buffer(operand), operand.type)
            self.insert([bridge], op)
            op.operands[index] = bridge.results[0]
        after = op.next_op
        assert after is not None
        target = kernel_write_through(op)
        for index, result in enumerate(op.outputs):
            # allocated before the group: the kernel launch that replaces it writes it
            if in_place is not None:  # the argument's buffer, no new one
                dest = self.buffers[result]
            elif target is None or index != 0:  # the write-through is output 0's
                dest = self.alloc(result.type, op)
            else:
                cast = _cast(self.adopt_copy(target, op), target[2])
                self.insert([cast], op)
                dest = cast.result
            self.insert([_materialize(result, dest)], after)
            self.buffers[result] = dest

    def library(self, op: graph.LinalgOp) -> None:
        """Bridge a host library op to buffers (see the module docstring)."""
        for index, operand in enumerate(op.operands):
            bridge = _to_tensor(self.buffer(operand), operand.type)
            self.insert([bridge], op)
            op.operands[index] = bridge.results[0]
        after = op.next_op
        assert after is not None
        for result in op.results:
            dest = self.alloc(result.type, op)
            self.insert([_materialize(result, dest)], after)
            self.buffers[result] = dest

    def view(self, op: Operation) -> None:
        source = self.buffer(op.operands[0])
        assert isinstance(source.type, MemRefType)
        layouts = view_layouts(op, layout_of_type(source.type))
        if layouts is None:
            raise OpFailure(
                f"graph-bufferize: {op.name} has no strided view here; "
                "run graph-wrap-kernels first",
                op,
            )
        for result, layout in zip(op.results, layouts):
            cast = _cast(source, layout)
            self.insert([cast], op)
            self.buffers[result] = cast.result

    def matmul(self, op: graph.MatmulOp) -> None:
        target = write_through(op)
        if target is None:
            out = self.alloc(op.result.type, op)
            self.buffers[op.result] = out
        else:
            out = self.adopt_copy(target, op)
        batch, _, _ = _gemm_dims(op)
        operands: list[SSAValue] = []
        for index, operand in enumerate(op.operands):
            source = self.buffer(operand)
            assert isinstance(source.type, MemRefType)
            layout = matmul_operand(layout_of_type(source.type), batch, index == 0)
            if layout is None:
                raise OpFailure(
                    f"graph-bufferize: matmul operand {index} needs a copy; "
                    "run graph-wrap-kernels first",
                    op,
                )
            cast = _cast(source, layout)
            self.insert([cast], op)
            operands.append(cast.result)
        lhs3, rhs3 = operands
        if target is None:
            (batch3, m, _), (_, _, n) = (
                v.type.get_shape()  # type: ignore[union-attr]
                for v in (lhs3, rhs3)
            )
            out_layout = Layout.dense((batch3, m, n))
        else:
            out_layout = target[2]
        out3 = _cast(out, out_layout)
        gemm = _gemm(lhs3, rhs3, out3.result)
        if graph.CONV_GEMM in op.attributes:  # a convolution's precision
            gemm[-1].attributes[graph.CONV_GEMM] = UnitAttr()
        self.insert([out3, *gemm], op)

    def constant(self, op: graph.ConstantOp) -> None:
        get = self.globals.add(self.function, op)
        self.insert([get], op)
        self.buffers[op.result] = get.memref

    def terminator(self, op: Operation) -> None:
        for index, operand in enumerate(op.operands):
            op.operands[index] = self.buffer(operand)

    def call(self, op: func.CallOp) -> None:
        new = func.CallOp(
            op.callee, [self.buffer(o) for o in op.arguments],
            [memref_of(r.type) for r in op.results],
        )  # fmt: skip
        new.attributes |= dict(op.attributes)
        self.insert([new], op)
        for old, result in zip(op.results, new.results):
            self.buffers[old] = result

    def run(self) -> None:
        for arg in list(self.block.args):
            if isinstance(arg.type, TensorType):
                Rewriter.replace_value_with_new_type(arg, memref_of(arg.type))
        positions = self.writable_positions
        self.writable = {a for a in self.block.args if a.index in positions}
        erased: list[Operation] = []
        for op in list(self.block.ops):
            if op in self.elided:
                erased.append(op)
            elif isinstance(op, graph.FusionGroupOp):
                self.group(op)
            elif isinstance(op, HOST_VIEW_OPS):
                self.view(op)
                erased.append(op)
            elif isinstance(op, graph.MatmulOp):
                self.matmul(op)
                erased.append(op)
            elif isinstance(op, graph.LinalgOp):
                self.library(op)
            elif isinstance(op, func.CallOp):
                self.call(op)
                erased.append(op)
            elif isinstance(op, func.ReturnOp):
                self.terminator(op)
            elif isinstance(op, graph.ConstantOp):
                self.constant(op)
                erased.append(op)
            elif isinstance(op, graph.GraphOp):
                raise OpFailure(
                    f"graph-bufferize: {op.name} outside a fusion group; "
                    "run graph-wrap-kernels first",
                    op,
                )
            elif any(isinstance(r.type, TensorType) for r in op.results):
                # Only graph ops, calls and arguments have a buffer to stand for.
                raise OpFailure(
                    f"graph-bufferize: cannot bufferize {op.name}: "
                    "only graph-dialect tensor programs are supported",
                    op,
                )
        for op in reversed(erased):
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class GraphBufferizePass(ModulePass):
    """Host functions on memrefs (see the module docstring for conventions)."""

    name = "graph-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        single_block_bodies(op, self.name)  # fails on control flow
        mark_writable_through_calls(op)
        taken = {
            inner.sym_name.data  # type: ignore[attr-defined]
            for inner in op.walk()
            if isinstance(getattr(inner, "sym_name", None), StringAttr)
        }
        globals_ = _Globals(taken, [])
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        for function in functions:
            if not function.body.blocks:
                function.function_type = FunctionType.from_lists(
                    [memref_of(t) for t in function.function_type.inputs],
                    [memref_of(t) for t in function.function_type.outputs],
                )
                continue
            _Bufferizer(
                function.body.block,
                writable_arguments(function),
                globals_,
                function.sym_name.data,
            ).run()
            function.function_type = FunctionType.from_lists(
                [a.type for a in function.body.block.args],
                [memref_of(t) for t in function.function_type.outputs],
            )
        first = op.body.block.first_op
        if globals_.made and first is not None:  # the module's globals first
            op.body.block.insert_ops_before(globals_.made, first)
