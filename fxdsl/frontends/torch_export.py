"""Import `torch.export` programs into the graph dialect.

    program = fxdsl.from_torch(model, (input_ids,))      # runs torch.export
    program = fxdsl.from_exported_program(ep)            # or ep.run_decompositions()
    (logits,) = fxdsl.run(program.module, *program.weights, input_ids.numpy())

The result is one `func.func @forward` whose arguments are the program's
tensor placeholders in torch.export's order: parameters, buffers and lifted
constants first (argument attribute `graph.param = "<fqn>"`, their arrays in
`program.weights`), then the user inputs; it returns the user outputs. Both
IR levels import: the default export graph (`aten.linear`, `layer_norm`,
`scaled_dot_product_attention`) and the core-ATen graph after
`run_decompositions()`, whose decomposed linear, silu and attention are
recognised again (`aten_patterns`), so both reach the same IR.

On the way:
- **Shape-only subgraphs fold.** Shapes are static, so a node that depends on
  no user input and no parameter (HF's mask construction: arange, cumsum,
  index, comparisons) is evaluated once with torch and becomes a constant where
  a graph op uses it. A folded attention mask that is the causal pattern
  becomes `causal` on `graph.attention`; an all-true one disappears; a
  padding mask (the same keys for every query row, also under the causal
  pattern) becomes one i1 row per sequence, (B, 1, 1, S).
- **Inference no-ops vanish** (dropout in eval, clone, alias, same-dtype
  casts, `_assert_tensor_metadata`), and only nodes an output needs are
  imported.
- **Provenance.** `nn_module_stack` becomes each op's `scope` (the root
  frame, the model itself, is the function; a key's `@N` suffix is the call
  index), and the export's input names become argument names.
- **Errors** are `TorchImportError`s naming the ATen op, the node and the
  source line of its `stack_trace`; a dynamic dim asks for static shapes.

torch is imported lazily: `import fxdsl` never needs it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ComplexType,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation
from xdsl.utils.exceptions import VerifyException

from fxdsl.frontends import aten_ops
from fxdsl.frontends.aten_ops import (
    AtenCall,
    FoldedMask,
    UnsupportedNode,
    cast_to,
    graph_dtype,
    handler_for,
    target_name,
)
from fxdsl.ir.graph import ELEMENT_TYPES, SCOPE, ScopeAttr, ScopeFrame
from fxdsl.ir.utils import erase_unused
from fxdsl.tracing import ops
from fxdsl.tracing.trace_state import active_state
from fxdsl.tracing.tracer import Tensor, TensorSpec, at_frames, trace, wrap

MAX_DECOMPOSITION_DEPTH = 16
"""Torch decompositions inside decompositions, at most (`_decomposed`)."""

NO_OPS = frozenset({"aten._assert_tensor_metadata.default", "aten._assert_async.msg"})
"""Nodes with no result that inference drops."""

SHAPE_ONLY = frozenset(
    f"aten.{name}"
    for name in (
        "zeros_like.default",
        "ones_like.default",
        "empty_like.default",
        "full_like.default",
        "new_zeros.default",
        "new_ones.default",
        "new_empty.default",
        "new_full.default",
    )
)
"""Ops whose value depends only on their input's shape and dtype: they fold
even when that input does not."""

MASK_ARGUMENTS = {"aten.scaled_dot_product_attention.default": (3, "attn_mask")}
"""Arguments that are attention masks: folded, they are read as a pattern."""

_CALL_INDEX = re.compile(r"@(\d+)$")


class TorchImportError(Exception):
    """A program the importer cannot take; the message names the ATen op,
    the node and its source line. `node` is the fx node's name where one
    node is at fault (the torch.compile backend then leaves that node to
    torch and imports the rest)."""

    def __init__(self, message: str, node: str | None = None) -> None:
        super().__init__(message)
        self.node = node


@dataclass
class ImportedProgram:
    """An imported program: the module and the arrays of its weights.

    `weights` holds the arrays of the leading `graph.param` arguments, in
    argument order; call the function with `*weights, *user_inputs`.
    Unpacks as `module, weights = fxdsl.from_exported_program(ep)`.
    """

    module: ModuleOp
    weights: list[np.ndarray[Any, Any]]
    input_names: list[str]
    output_names: list[str]
    origins: dict[Operation, str] = field(default_factory=dict)
    """The fx node name each op of the function came from."""
    folded: dict[str, Any] = field(default_factory=dict)
    """The torch value of each node evaluated at import, by node name."""

    def __iter__(self) -> Iterator[Any]:
        return iter((self.module, self.weights))

    def run(self, *inputs: Any) -> tuple[np.ndarray[Any, Any], ...]:
        """The reference interpreter on user inputs (numpy or torch). A
        wrong count, shape or dtype is a ValueError that counts and names
        the user's inputs (the weights come first in the function, but the
        caller did not pass them)."""
        from fxdsl.api import run
        from fxdsl.interpreters.run import coerce_input, entry_function

        function = entry_function(self.module)
        arguments = function.args[len(self.weights) :]
        if len(inputs) != len(arguments):
            names = ", ".join(f"%{a.name_hint or '?'}" for a in arguments) or "none"
            raise ValueError(
                f"the program takes {len(arguments)} input(s) ({names}), "
                f"got {len(inputs)}"
            )
        arrays = [to_numpy(x) for x in inputs]
        for i, (array, argument) in enumerate(zip(arrays, arguments)):
            what = f"input {i} (%{argument.name_hint or '?'})"
            coerce_input(array, argument.type, what)
        return run(self.module, *self.weights, *arrays)


def to_numpy(value: Any) -> np.ndarray[Any, Any]:
    """A torch tensor (or array-like) as the numpy array fxdsl runs on; bf16
    becomes float32 holding the same values, as the reference keeps bf16."""
    if hasattr(value, "detach"):
        import torch

        tensor = value.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.numpy()
    return np.asarray(value)


def from_torch(
    model: Any,
    args: Sequence[Any],
    kwargs: dict[str, Any] | None = None,
    *,
    decompose: bool = False,
    strict: bool = False,
    freeze: bool = False,
) -> ImportedProgram:
    """`torch.export.export(model, args, kwargs)` then import it.

    The model is exported in eval mode (and left in the mode it was in; a
    model in training mode with a dropout or batch/instance norm gets a
    warning saying so: norms use their running statistics, dropout is the
    identity); `decompose=True` imports the core-ATen graph
    (`run_decompositions()`) instead of the default one; the IR is the same
    either way. `freeze`: as `from_exported_program`'s.
    A model returning a non-tensor output torch.export cannot flatten (a
    Hugging Face `DynamicCache`) is a TorchImportError saying what to do.
    """
    import torch

    training = bool(getattr(model, "training", False))
    if training and _mode_matters(model):
        warnings.warn(
            f"from_torch: {type(model).__name__} is in training mode; fxdsl imports "
            "its eval-mode semantics (BatchNorm's running statistics, no dropout); "
            "call model.eval() first to say that is what you want",
            stacklevel=2,
        )
        model.eval()
    try:
        with torch.no_grad():
            program = torch.export.export(model, tuple(args), kwargs, strict=strict)
            if decompose:
                program = program.run_decompositions()
    except RuntimeError as error:
        clear = _unflattenable_output(error)
        if clear is None:
            raise
        raise clear from None
    finally:
        if training:
            model.train()
    return from_exported_program(program, freeze=freeze)


def _mode_matters(model: Any) -> bool:
    """Whether `model` has a submodule that computes differently in training
    mode (a dropout, a norm with running statistics)."""
    import torch

    kinds = (torch.nn.modules.dropout._DropoutNd, torch.nn.modules.batchnorm._NormBase)
    modules = model.modules() if isinstance(model, torch.nn.Module) else ()
    return any(isinstance(module, kinds) for module in modules)


_UNKNOWN_OUTPUT = re.compile(r"Found <class '([\w.]+)'> in output, which is not")


def _unflattenable_output(error: Exception) -> TorchImportError | None:
    """torch.export's pytree error about an output type it cannot flatten,
    as one line saying what to do (None for any other error)."""
    match = _UNKNOWN_OUTPUT.search(str(error))
    if match is None:
        return None
    name = match.group(1)
    hint = "return only tensors (tuples, lists and dicts of them)"
    if name.rsplit(".", 1)[-1].endswith("Cache"):
        hint = (
            "pass use_cache=False (kwargs={'use_cache': False}) so the model "
            "returns no key/value cache, or " + hint
        )
    return TorchImportError(
        f"the model returns a {name}, which torch.export cannot flatten: {hint}"
    )


def from_exported_program(
    program: Any, name: str = "forward", freeze: bool = False
) -> ImportedProgram:
    """Import a `torch.export.ExportedProgram` (see the module docstring).

    `freeze=True` binds the parameters as constants (`fxdsl.transforms.
    freeze`; buffers are constants either way): the function takes only the
    user inputs and `weights` is empty. Run `graph-fold-constants` next to
    fold weight-only math, such as batch norms into convs."""
    import torch

    with torch.no_grad():
        imported = _import(lambda: _Importer(_exported_source(program)), name)
    if freeze:
        from fxdsl.interpreters.run import entry_function
        from fxdsl.transforms.freeze import freeze_function

        function = entry_function(imported.module, name)
        freeze_function(imported.module, function, imported.weights)
        imported.weights = []
    return imported


def from_graph_module(
    module: Any,
    name: str = "forward",
    fallback: frozenset[str] | None = None,
    forced: dict[str, str] | None = None,
) -> ImportedProgram:
    """Import an ATen-level `torch.fx.GraphModule` whose nodes carry torch's
    `meta["val"]` (an AOTAutograd graph, a `split_module` piece). Every
    placeholder is an argument; `get_attr` tensors are constants.

    With `fallback` (a set of ATen overload names to leave to torch, maybe
    empty) a node without a mapping is not an error: it becomes a call of
    an external function named after its overload (`func.call
    @"aten.topk.default"`, declared `private`) with attributes
    `torch.node = "<node name>"` and `torch.reason`, so the IR shows the
    whole program and the torch.compile backend can partition it; so does
    each node named in `forced` (node name → reason)."""
    import torch

    source = Source(module.graph, {}, {})
    for node in module.graph.nodes:
        if node.op == "get_attr":
            source.known[node] = _attribute(module, str(node.target))
    with torch.no_grad():
        return _import(lambda: _Importer(source, fallback, dict(forced or {})), name)


def _import(make: Callable[[], _Importer], name: str) -> ImportedProgram:
    """Import fast (the module verified once, at the end); if it does not
    verify, import again verifying each op, which names the node at fault."""
    try:
        return make().run(name)
    except VerifyException:
        importer = make()
        importer.verify_each = True
        return importer.run(name)


def _attribute(module: Any, path: str) -> Any:
    for part in path.split("."):
        module = getattr(module, part)
    return module


@dataclass
class Source:
    """What the importer reads: an fx graph, which placeholders are weights
    (name → (fqn, tensor)), and the values of nodes known before import."""

    graph: Any
    weights: dict[str, tuple[str, Any]]
    known: dict[Any, Any]


def _exported_source(program: Any) -> Source:
    """Parameters (and buffers, constants) as weights, buffers, constants
    and non-tensor user inputs as known values."""
    import torch

    for spec in program.graph_signature.output_specs:
        if spec.kind.name != "USER_OUTPUT":
            raise TorchImportError(
                f"the program has a {spec.kind.name} output ({spec.arg.name}); "
                "only inference programs without buffer mutations import"
            )
    kinds = {spec.arg.name: spec for spec in program.graph_signature.input_specs}
    source = Source(program.graph, {}, {})
    for node in program.graph.nodes:
        if node.op != "placeholder":
            continue
        spec = kinds[node.name]
        kind, target = spec.kind.name, spec.target
        if kind in ("BUFFER", "CONSTANT_TENSOR"):
            source.known[node] = _state(program, target)
        elif kind == "PARAMETER":
            source.weights[node.name] = (target, _state(program, target))
        elif not isinstance(node.meta.get("val"), torch.Tensor):
            source.known[node] = node.meta.get("val")
    return source


def _state(program: Any, target: str) -> Any:
    if target in program.state_dict:
        return program.state_dict[target]
    return program.constants[target]


@dataclass
class _Importer:
    source: Source
    fallback: frozenset[str] | None = None
    """None: an unmapped node is an error; else the overloads left to torch
    and every unmapped node become external calls."""
    forced: dict[str, str] = field(default_factory=dict)
    """Nodes left to torch (fallback mode), by name, with the reason."""
    folded: dict[Any, Any] = field(default_factory=dict)
    """fx node → its torch value, for nodes evaluated at import."""
    values: dict[Any, Any] = field(default_factory=dict)
    """fx node → its traced Tensor (or tuple of them)."""
    constants: dict[tuple[Any, ...], Tensor] = field(default_factory=dict)
    """Folded values made graph constants (`_constant`), by node and scope."""
    mask_kinds: dict[Any, str] = field(default_factory=dict)
    mask_values: dict[tuple[Any, ...], str] = field(default_factory=dict)
    verify_each: bool = False
    """Verify each op as it is built; off for speed (types are inferred as
    ops are built, and the module is verified at the end), on in the retry
    that finds the node at fault when the module does not verify."""
    externals: dict[str, Any] = field(default_factory=dict)
    """External function declarations of fallback calls, by symbol."""
    origins: dict[Operation, str] = field(default_factory=dict)
    """Each imported op's fx node name."""
    block: Any = None
    depth: int = 0
    """How many torch decompositions the node being imported is inside."""

    def run(self, name: str) -> ImportedProgram:
        from fxdsl.frontends.aten_patterns import recognise

        graph = self.source.graph
        self.folded.update(self.source.known)
        self.foldable = self._foldable(graph)
        self.patterns = {
            node: pattern
            for node, pattern in recognise(graph, self._is_folded_node).items()
            if self._left_to_torch(node, target_name(node.target)) is None
        }
        self.needed = self._needed(graph)
        tensor_inputs = [
            p
            for p in graph.nodes
            if p.op == "placeholder" and p not in self.folded and _is_tensor(p)
        ]
        specs = [self._spec(p) for p in tensor_inputs]
        output = graph.find_nodes(op="output")[0]
        returned: list[Any] = []

        def body(*args: Tensor) -> list[Tensor]:
            self.values.update(zip(tensor_inputs, args))
            # the traced function's block (a graph of random draws alone,
            # `randn`, has no tensor argument to find it from)
            self.block = cast(Block, active_state("import").block)
            for node in graph.nodes:
                if node.op == "call_function" and node in self.needed:
                    self._import_node(node)
            outputs = self._flat_outputs(output)
            returned.extend(self._tensor_of(o, ()) for o in outputs)
            declarations.extend(self.externals.values())
            return returned

        declarations: list[Operation] = []
        module = trace(
            body,
            *specs,
            name=name,
            declarations=declarations,
            verify_each=self.verify_each,
        )
        _erase_unused(module)
        weights = self.source.weights
        return ImportedProgram(
            module,
            [to_numpy(weights[p.name][1]) for p in tensor_inputs if p.name in weights],
            [p.name for p in tensor_inputs if p.name not in weights],
            [str(o) for o in self._flat_outputs(output)],
            {op: name for op, name in self.origins.items() if op.parent is not None},
            {
                node.name: value
                for node, value in self.folded.items()
                if node.graph is graph  # not a decomposition's node
            },
        )

    # -- what to import ------------------------------------------------------ #

    def _foldable(self, graph: Any) -> set[Any]:
        """Nodes whose value is known at import: they depend on no user
        input and no parameter (one pass in graph order)."""
        known = set(self.folded)
        for node in graph.nodes:
            target = target_name(node.target)
            if node.op != "call_function" or target in NO_OPS or draws_random(node):
                continue
            if target in SHAPE_ONLY or all(n in known for n in node.all_input_nodes):
                known.add(node)
        return known

    def _is_folded_node(self, node: Any) -> bool:
        """Whether `node`'s value is known at import (and so folds)."""
        return node in self.foldable

    def _needed(self, graph: Any) -> set[Any]:
        """Nodes an output needs, through recognised patterns' inputs."""
        output = graph.find_nodes(op="output")[0]
        needed: set[Any] = set()
        pending = list(output.all_input_nodes)
        while pending:
            node = pending.pop()
            if node in needed:
                continue
            needed.add(node)
            if node in self.patterns:
                pending.extend(self.patterns[node].inputs)
            elif not self._is_folded_node(node):
                pending.extend(node.all_input_nodes)
        return needed

    # -- one node ------------------------------------------------------------ #

    def _import_node(self, node: Any) -> None:
        target = target_name(node.target)
        if target in NO_OPS:
            return
        _check_static(node)
        frames = _frames(node)
        last = self.block.last_op if self.block is not None else None
        try:
            if self._is_folded_node(node):
                self.folded[node] = self._evaluate(node)
                return
            with at_frames(frames):
                reason = self._left_to_torch(node, target)
                if reason is not None:
                    self.values[node] = self._call_torch(node, target, frames, reason)
                else:
                    self.values[node] = self._emit(node, target, frames)
        except TorchImportError:
            raise
        except Exception as error:
            reason = self._failure(error)
            if reason is None:
                raise
            if self.fallback is None or node in self.patterns:
                # A pattern's inner nodes were not imported: the backend
                # imports again with this node left to torch (`plan`).
                raise TorchImportError(_describe(node, reason), node.name) from None
            with at_frames(frames):
                self.values[node] = self._call_torch(node, target, frames, reason)
        self._record_origin(node, last)

    def _failure(self, error: Exception) -> str | None:
        """Why a node did not import, as a reason: the message of an error
        that says what the importer cannot express; in fallback mode any
        other error too (an importer bug: that node runs in torch, the
        rest still compiles). None: let the error through."""
        if isinstance(error, UnsupportedNode | ValueError | TypeError):
            return str(error)
        if self.fallback is None:
            return None
        return (
            f"the importer failed ({type(error).__name__}: {error}); please report it"
        )

    def _left_to_torch(self, node: Any, target: str) -> str | None:
        if self.fallback is None:
            return None
        if target in self.fallback:
            return "listed in torch_executed_ops"  # torch_islands.EXECUTED_OPS_REASON
        return self.forced.get(node.name)

    def _record_origin(self, node: Any, last: Operation | None) -> None:
        """Remember which fx node each new op came from."""
        if self.block is None:
            return
        op = self.block.first_op if last is None else last.next_op
        while op is not None:
            self.origins[op] = node.name
            op = op.next_op

    def _call_torch(
        self, node: Any, target: str, frames: tuple[ScopeFrame, ...], reason: str
    ) -> Any:
        """A node left to torch: a call of the external function
        `@"<overload>"`, with the node's tensor arguments as operands (in
        argument order; folded ones are not operands, their value is in
        `ImportedProgram.folded`)."""
        import torch
        import torch.utils._pytree as pytree
        from torch.fx.node import map_arg

        operands: list[Tensor] = []

        def collect(n: Any) -> Any:
            # torch reads a folded argument's value itself: no operand.
            if self._is_folded_node(n):
                if n not in self.folded:
                    self.folded[n] = self._evaluate(n)
            else:
                value = self._operand(n, frames)
                if isinstance(value, Tensor):
                    operands.append(value)
            return n

        map_arg((node.args, node.kwargs), collect)
        result = node.meta.get("val")
        leaves = pytree.tree_leaves(result)
        if not leaves or not all(isinstance(r, torch.Tensor) for r in leaves):
            raise TorchImportError(
                _describe(node, f"a node left to torch must return tensors ({reason})")
            )
        types = [_torch_type(r, node) for r in leaves]
        symbol = self._external(target, [t.type for t in operands], types)
        # Not through `emit`: a call verifies only inside a module, which the
        # function joins after the trace.
        op = func.CallOp(symbol, [t.value for t in operands], types)
        if frames:
            op.attributes[SCOPE] = ScopeAttr(frames)
        self.block.add_op(op)
        op.attributes["torch.node"] = StringAttr(node.name)
        op.attributes["torch.reason"] = StringAttr(reason.splitlines()[0])
        values = tuple(wrap(r) for r in op.results)
        return values[0] if isinstance(result, torch.Tensor) else values

    def _external(self, target: str, inputs: list[Any], outputs: list[Any]) -> str:
        """The symbol of an external declaration of `target` with this
        signature (one per distinct signature: `aten.topk.default_1`...)."""
        signature = func.FunctionType.from_lists(inputs, outputs)
        name, n = target, 0
        while name in self.externals:
            if self.externals[name].function_type == signature:
                return name
            n += 1
            name = f"{target}_{n}"
        self.externals[name] = func.FuncOp.external(name, inputs, outputs)
        return name

    def _emit(self, node: Any, target: str, frames: tuple[ScopeFrame, ...]) -> Any:
        if node in self.patterns:
            pattern = self.patterns[node]
            inputs = [
                self.fold_mask(n, frames)
                if i in pattern.masks and self._is_folded_node(n)
                else self._operand(n, frames)
                for i, n in enumerate(pattern.inputs)
            ]
            _check_graph_dtypes(inputs)
            return pattern.build(*inputs)
        if target == "<built-in function getitem>":
            source, index = node.args
            return self.values[source][index]
        if draws_random(node):
            raise UnsupportedNode(
                f"{target} draws random numbers, which fxdsl does not generate "
                "(the torch.compile backend leaves such nodes to torch)"
            )
        handler = handler_for(target)
        if handler is None:
            return _as_torch_says(self._decomposed(node, target, frames), node)
        args, kwargs = self._arguments(node, target, frames)
        _check_graph_dtypes([*args, *kwargs.values()])
        call = AtenCall(
            target,
            args,
            kwargs,
            node.meta.get("val"),
            tuple(a.meta.get("val") if hasattr(a, "meta") else None for a in node.args),
            self._used_results(node),
        )
        return _as_torch_says(handler(call), node)

    def _decomposed(
        self, node: Any, target: str, frames: tuple[ScopeFrame, ...]
    ) -> Any:
        """A node without a mapping as torch's decomposition of it
        (`aten_decompositions`): the decomposition's nodes imported one by
        one in `frames` (folding what they can), its result the node's."""
        import torch
        from torch.fx.node import map_arg

        from fxdsl.frontends.aten_decompositions import decompose

        found = decompose(node, lambda n: self._operand(n, frames))
        if found is None:
            raise UnsupportedNode(f"{target} has no graph-dialect mapping")
        graph = found.graph
        placeholders = graph.find_nodes(op="placeholder")
        for placeholder, source in zip(placeholders, found.inputs, strict=True):
            self.values[placeholder] = self._operand(source, frames)
        for inner in graph.find_nodes(op="get_attr"):
            self.folded[inner] = _attribute(found.module, str(inner.target))
        for inner in graph.nodes:
            # every node, needed or not: a dropped copy_ into a slice of an
            # `empty` (circular padding) would leave the `empty` unwritten
            if inner.op == "call_function" and _mutates_a_shared_value(inner):
                raise UnsupportedNode(
                    f"torch's decomposition of {target} writes a value in place "
                    f"that it reads again ({target_name(inner.target)})"
                )
        self.foldable |= self._foldable(graph)
        self.needed |= self._needed(graph)
        for inner in graph.nodes:
            inner_target = target_name(inner.target)
            if (
                inner.op != "call_function"
                or inner not in self.needed
                or inner_target in NO_OPS
                or self._is_folded_node(inner)
            ):
                continue
            if isinstance(inner.target, type) and issubclass(inner.target, tuple):
                # a named tuple of results (torch's `return_types`)
                self.values[inner] = tuple(
                    map_arg(inner.args, lambda n: self._operand(n, frames))
                )
                continue
            if self.depth >= MAX_DECOMPOSITION_DEPTH:
                # roll decomposes one dim at a time into roll: fine; a
                # decomposition that calls itself as it is never ends
                raise UnsupportedNode(
                    f"torch's decompositions of {target} nest more than "
                    f"{MAX_DECOMPOSITION_DEPTH} deep"
                )
            self.depth += 1
            try:
                self.values[inner] = self._emit(inner, inner_target, frames)
            except _NotDecomposed:
                raise
            except (UnsupportedNode, ValueError, TypeError) as error:
                raise _NotDecomposed(
                    f"{target} has no graph-dialect mapping, and in torch's "
                    f"decomposition of it {inner_target} does not import: {error}"
                ) from None
            finally:
                self.depth -= 1
        output = graph.find_nodes(op="output")[0]
        result = map_arg(output.args[0], lambda n: self._operand(n, frames))
        if isinstance(node.meta.get("val"), torch.Tensor) and isinstance(
            result, list | tuple
        ):
            (result,) = result  # a CompositeImplicit op's decomposition: [out]
        return tuple(result) if isinstance(result, list) else result

    def _used_results(self, node: Any) -> frozenset[int] | None:
        """Which results of a multi-result node the import needs."""
        if not isinstance(node.meta.get("val"), list | tuple):
            return None
        getitem = "<built-in function getitem>"
        return frozenset(
            int(user.args[1])
            for user in node.users
            if target_name(user.target) == getitem and user in self.needed
        )

    def _arguments(
        self, node: Any, target: str, frames: tuple[ScopeFrame, ...]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        from torch.fx.node import map_arg

        mask_index, mask_name = MASK_ARGUMENTS.get(target, (-1, ""))
        mask = node.args[mask_index] if 0 <= mask_index < len(node.args) else None
        mask = node.kwargs.get(mask_name, mask)
        folded_mask = mask is not None and self._is_folded_node(mask)

        def operand(n: Any) -> Any:
            # A folded mask is read as a pattern, never materialised.
            if folded_mask and n is mask:
                return self.fold_mask(n, frames)
            return self._operand(n, frames)

        args = tuple(map_arg(tuple(node.args), operand))
        return args, dict(map_arg(dict(node.kwargs), operand))

    def _operand(self, node: Any, frames: tuple[ScopeFrame, ...]) -> Any:
        """`node`'s traced value; a folded node's as a constant of `frames`."""
        if not self._is_folded_node(node):
            return self.values[node]
        if node not in self.folded:
            self.folded[node] = self._evaluate(node)
        return self._materialise(node, frames)

    def _tensor_of(self, node: Any, frames: tuple[ScopeFrame, ...]) -> Tensor:
        if not hasattr(node, "op"):  # a constant the program returns
            raise TorchImportError(
                f"an output is {node!r}, not a tensor: only programs that return "
                "tensors import"
            )
        value = self._operand(node, frames)
        if not isinstance(value, Tensor):
            raise TorchImportError(f"output {node} is not a tensor ({value!r})")
        return value

    def fold_mask(self, node: Any, frames: tuple[ScopeFrame, ...]) -> FoldedMask:
        """Read a folded attention mask (`_mask_pattern`): causal, all-true,
        per key (with or without causal: then only one row of it becomes a
        constant, the padding of a batch), or an operand as it is."""
        kind = self._mask_kind(node)
        if kind in ("none", "causal"):
            return FoldedMask(kind == "causal", None)
        if kind == "operand":
            return FoldedMask(False, self._materialise(node, frames))
        keep = _keep(self.folded[node])
        row = keep[..., -1:, :] if kind == "causal keys" else keep[..., :1, :]
        keys = self._constant((node, "keys", frames), row, frames)
        return FoldedMask(kind == "causal keys", keys)

    def _mask_kind(self, node: Any) -> str:
        """ "causal", "none" (all kept) or "operand"; once per mask node."""
        if node not in self.mask_kinds:
            self.mask_kinds[node] = self._classify_mask(node)
        return self.mask_kinds[node]

    def _classify_mask(self, node: Any) -> str:
        import torch

        if node not in self.folded:
            self.folded[node] = self._evaluate(node)
        mask = self.folded[node]
        if not isinstance(mask, torch.Tensor):
            raise UnsupportedNode(f"attention mask {node} is not a tensor")
        # Every layer of a core-ATen graph folds its own copy of one mask:
        # classify each distinct value once.
        key = (tuple(mask.shape), str(mask.dtype), to_numpy(mask).tobytes())
        if key not in self.mask_values:
            self.mask_values[key] = _mask_pattern(mask)
        return self.mask_values[key]

    # -- folding ------------------------------------------------------------- #

    def _evaluate(self, node: Any) -> Any:
        """Run one foldable node with torch on the known values."""
        import torch
        from torch._subclasses.fake_tensor import unset_fake_temporarily
        from torch.fx.node import map_arg

        known: dict[Any, Any] = {}
        for source in node.all_input_nodes:
            if source in self.folded or self._is_folded_node(source):
                if source not in self.folded:
                    self.folded[source] = self._evaluate(source)
                known[source] = self.folded[source]
            else:  # a shape-only op's input: only its shape and dtype count
                val = source.meta["val"]
                known[source] = torch.zeros(val.shape, dtype=val.dtype)
        args = map_arg(tuple(node.args), lambda n: known[n])
        kwargs = dict(map_arg(dict(node.kwargs), lambda n: known[n]))
        if "device" in kwargs:
            kwargs["device"] = "cpu"
        # Real values even where a compiler runs under a FakeTensorMode
        # (AOTAutograd calls the torch.compile backend inside one).
        with unset_fake_temporarily():
            return node.target(*args, **kwargs)

    def _materialise(self, node: Any, frames: tuple[ScopeFrame, ...]) -> Any:
        """A folded value as a graph constant, once per module call that
        uses it (so identical layers stay identical for graph-dedup)."""
        import torch

        value = self.folded[node]
        if not isinstance(value, torch.Tensor):
            return value
        return self._constant((node, frames), value, frames)

    def _constant(
        self, key: tuple[Any, ...], value: Any, frames: tuple[ScopeFrame, ...]
    ) -> Tensor:
        """The torch tensor `value` as a `graph.full` (one value) or a
        `graph.constant` in scope `frames`, made once per `key`."""
        if key not in self.constants:
            dtype = graph_dtype(value.dtype)
            array = to_numpy(value)
            with at_frames(frames):
                flat = array.reshape(-1)
                if flat.size and bool((flat == flat[0]).all()):
                    made = ops.full(array.shape, float(flat[0]), dtype)
                else:
                    made = ops.constant(array, dtype)
            self.constants[key] = made
        return self.constants[key]

    def _flat_outputs(self, output: Any) -> list[Any]:
        import torch.utils._pytree as pytree

        return [o for o in pytree.tree_leaves(output.args[0]) if o is not None]

    def _spec(self, placeholder: Any) -> TensorSpec:
        value = placeholder.meta["val"]
        _check_static(placeholder)
        weight = self.source.weights.get(placeholder.name)
        param = weight[0] if weight is not None else None
        try:
            dtype = graph_dtype(value.dtype)
        except UnsupportedNode as error:
            raise TorchImportError(_describe(placeholder, str(error))) from None
        return TensorSpec(
            tuple(int(d) for d in value.shape),
            dtype,
            name=placeholder.name,
            param=param,
        )


def _mutates_a_shared_value(node: Any) -> bool:
    """Whether `node` (an in-place op of a decomposition, which the importer
    reads as an op with a result) writes a value that another node reads
    too. make_fx already routes later reads of the written tensor itself
    through `node`; what is left is a view's base (or another view of it),
    which would see the old value."""
    schema = getattr(node.target, "_schema", None)
    if schema is None or not schema.is_mutable:
        return False
    for argument, value in zip(schema.arguments, node.args):
        if argument.alias_info is None or not argument.alias_info.is_write:
            continue
        reader = node
        while hasattr(value, "users"):
            if any(user is not reader for user in value.users):
                return True
            if not _is_view(value):
                break
            reader, value = value, value.args[0]
    return False


def _is_view(node: Any) -> bool:
    """Whether `node`'s op returns a view of its first argument."""
    schema = getattr(node.target, "_schema", None)
    return bool(schema is not None and schema.returns and schema.returns[0].alias_info)


class _NotDecomposed(UnsupportedNode):
    """A node of a decomposition did not import (the innermost one's
    message reaches the user, not one per level of decomposition)."""


def _as_torch_says(result: Any, node: Any) -> Any:
    """A node's imported result in torch's dtype; UnsupportedNode when its
    shape is not torch's."""
    if not isinstance(result, Tensor):
        return result
    value = node.meta.get("val")
    result = cast_to(result, graph_dtype(value.dtype))
    shape = tuple(int(d) for d in value.shape)
    if tuple(result.shape) != shape:
        raise UnsupportedNode(f"imported as shape {result.shape}, torch says {shape}")
    return result


def _keep(mask: Any) -> Any:
    """Which scores a mask keeps: an i1 mask itself, an additive one's 0s."""
    import torch

    return mask if mask.dtype == torch.bool else mask == 0


def _mask_pattern(mask: Any) -> str:
    """What a folded attention mask (..., T, S) is, from the cheapest form:
    "none" when every key is kept; "causal" for the causal pattern (key s
    kept for query t iff s <= t, in every batch); "keys" when every query
    row keeps the same keys (BERT's padding: a (..., 1, S) mask), "causal
    keys" when it is the causal pattern and such a per-key mask (a padded
    decoder batch); else "operand". An additive mask counts when it holds
    only 0 and -inf (anything else shifts scores: "operand")."""
    import torch

    keep = _keep(mask)
    if mask.dtype != torch.bool and not bool((keep | torch.isneginf(mask)).all()):
        return "operand"
    if bool(keep.all()):
        return "none"
    t, s = keep.shape[-2:]
    causal = torch.ones(t, s, dtype=torch.bool).tril()
    if bool((keep == causal).all()):
        return "causal"
    if bool((keep == keep[..., :1, :]).all()):
        return "keys"
    # causal: the last row sees every key the causal pattern allows at all
    if t <= s and bool((keep == (causal & keep[..., -1:, :])).all()):
        return "causal keys"
    return "operand"


def draws_random(node: Any) -> bool:
    """Whether `node` draws random numbers: its op carries torch's
    `nondeterministic_seeded` tag (rand, randint, normal, bernoulli,
    dropout, attention, ...) and its arguments make it draw
    (`aten_ops.draws_random`). Such a node never folds, and never imports:
    a graph op of it would be the same numbers on every call."""
    import torch

    if torch.Tag.nondeterministic_seeded not in getattr(node.target, "tags", ()):
        return False
    return aten_ops.draws_random(target_name(node.target), node.args, node.kwargs)


TORCH_ONLY_TYPES: dict[str, Attribute] = {
    "torch.float64": Float64Type(),
    "torch.int8": IntegerType(8),
    "torch.uint8": IntegerType(8, Signedness.UNSIGNED),
    "torch.int16": IntegerType(16),
    "torch.complex64": ComplexType(Float32Type()),
    "torch.complex128": ComplexType(Float64Type()),
}
"""Element types, beyond the graph dialect's, of values that pass only
between nodes left to torch (`linalg.matrix_rank` computes in float64): the
IR names their type, no graph op reads them."""


def _torch_type(value: Any, node: Any) -> TensorType[Attribute]:
    """The IR type of a result of a node left to torch."""
    shape = tuple(int(d) for d in value.shape)
    name = str(value.dtype)
    if name in TORCH_ONLY_TYPES:
        return TensorType(TORCH_ONLY_TYPES[name], shape)
    try:
        return TensorSpec(shape, graph_dtype(value.dtype)).type
    except UnsupportedNode as error:
        raise TorchImportError(_describe(node, str(error)), node.name) from None


def _check_graph_dtypes(values: Sequence[Any]) -> None:
    """UnsupportedNode unless every tensor among `values` has a graph
    dialect dtype (a float64 result of a node left to torch has not)."""
    for value in values:
        if isinstance(value, Tensor):
            element_type = value.value.type.element_type  # type: ignore[attr-defined]
            if element_type not in ELEMENT_TYPES:
                raise UnsupportedNode(
                    f"an operand of element type {element_type}, which only torch "
                    "computes with"
                )


def _is_tensor(node: Any) -> bool:
    value = node.meta.get("val")
    return value is not None and hasattr(value, "shape")


def _frames(node: Any) -> tuple[ScopeFrame, ...]:
    """`nn_module_stack` as scope frames, without the root (the function).

    torch.export writes `(fqn, "qualified.Class")`; Dynamo (what the
    torch.compile backend sees) writes `("L['self'].h[0].attn", <class>)`:
    both become `("h.0.attn", call index, "qualified.Class")`."""
    stack = node.meta.get("nn_module_stack") or {}
    frames: list[ScopeFrame] = []
    for key, (fqn, module_type) in stack.items():
        name = _plain_fqn(str(fqn))
        if not name:
            continue
        match = _CALL_INDEX.search(str(key))
        index = int(match.group(1)) if match else 0
        frames.append((name, index, _type_name(module_type)))
    return tuple(frames)


_DYNAMO_ROOT = re.compile(r"^L\['self'\]\.?")
_DYNAMO_ITEM = re.compile(r"\.?_modules\['([^']*)'\]|\['([^']*)'\]|\[(\d+)\]")


def _plain_fqn(fqn: str) -> str:
    """`L['self'].h[0]._modules['attn']` → `h.0.attn` (export's fqns pass)."""
    fqn = _DYNAMO_ROOT.sub("", fqn)
    fqn = _DYNAMO_ITEM.sub(lambda m: "." + next(g for g in m.groups() if g), fqn)
    return fqn.lstrip(".")


def _type_name(module_type: Any) -> str:
    if isinstance(module_type, type):
        return f"{module_type.__module__}.{module_type.__qualname__}"
    return str(module_type)


def _check_static(node: Any) -> None:
    import torch

    value = node.meta.get("val")
    values = value if isinstance(value, list | tuple) else [value]
    for item in values:
        shape = getattr(item, "shape", ())
        if any(isinstance(d, torch.SymInt) for d in shape):
            raise TorchImportError(
                _describe(
                    node,
                    f"dynamic shape {tuple(shape)}: fxdsl imports static shapes "
                    "only; export without dynamic_shapes (or with static ones)",
                )
            )


def _describe(node: Any, message: str) -> str:
    """`message` about `node`, with its op and source line."""
    target = str(node.target) if node.op == "call_function" else node.op
    return f"{target} (node %{node.name}): {message}{_source_line(node)}"


def _source_line(node: Any) -> str:
    trace_text = node.meta.get("stack_trace") or ""
    lines = [line.strip() for line in trace_text.strip().splitlines()]
    for i in range(len(lines) - 1, -1, -1):
        match = re.match(r'File "(.+)", line (\d+)', lines[i])
        if match:
            code = lines[i + 1] if i + 1 < len(lines) else ""
            return f"\n  at {match.group(1)}:{match.group(2)}: {code}"
    return ""


def _erase_unused(module: ModuleOp) -> None:
    """Drop side-effect-free ops whose results nothing uses (what recognised
    patterns and folding left behind)."""
    for function in module.ops:
        for region in function.regions:
            for block in region.blocks:
                erase_unused(block)


__all__ = [
    "ImportedProgram",
    "TorchImportError",
    "aten_ops",
    "from_exported_program",
    "from_torch",
    "to_numpy",
]
