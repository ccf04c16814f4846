"""The node-by-node importer behind `fxdsl.frontends.torch_export`: an fx
graph of ATen calls (from `torch.export`, or an island of the `torch.compile`
backend) into graph-dialect ops, with mask folding, decompositions and
provenance; and `ImportedProgram`, what an import returns. `from_torch` and
friends (`torch_export`) are the way in; this module is their engine.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation

from fxdsl.frontends import aten_complex
from fxdsl.frontends.aten_ops import (
    RANDOM_OPS,
    AtenCall,
    Decompose,
    FoldedMask,
    UnsupportedNode,
    graph_dtype,
    handler_for,
    target_name,
)
from fxdsl.frontends.torch_nodes import (
    DATA_DEPENDENT_REASON,
    MASK_ARGUMENTS,
    MAX_DECOMPOSITION_DEPTH,
    NO_OPS,
    SHAPE_ONLY,
    TorchImportError,
    _as_torch_says,
    _check_graph_dtypes,
    _check_static,
    _describe,
    _erase_unused,
    _frames,
    _held_type,
    _is_tensor,
    _is_view,
    _keep,
    _mask_pattern,
    _mutates_a_shared_value,
    _NotDecomposed,
    _returns_written,
    _torch_type,
    data_dependent,
    draws_random,
    read_after,
    written_arguments,
    written_tensor,
)
from fxdsl.frontends.torch_signatures import name_values
from fxdsl.frontends.torch_source import Source, StateFound
from fxdsl.frontends.torch_state import StateUpdate, check_writable, write_back
from fxdsl.ir.graph import SCOPE, ScopeAttr, ScopeFrame
from fxdsl.tracing import ops
from fxdsl.tracing.trace_state import active_state
from fxdsl.tracing.tracer import Tensor, TensorSpec, at_frames, trace, wrap


@dataclass
class ImportedProgram:
    """An imported program: the module and the arrays of its weights.

    `weights` holds the arrays of the leading `graph.param` arguments, in
    argument order; call the function with `*weights, *user_inputs`.
    Unpacks as `module, weights = fxdsl.from_exported_program(ep)`.

    A program that writes into its inputs (a batch norm's running
    statistics in training, `index_add_` on a user input) stays
    value-semantic: its function returns the user outputs, then the new
    value of each written input (`updates` says whose); `run` writes those
    back into the caller's tensors, as torch does.
    """

    module: ModuleOp
    weights: list[np.ndarray[Any, Any]]
    input_names: list[str]
    output_names: list[str]
    origins: dict[Operation, str] = field(default_factory=dict)
    """The fx node name each op of the function came from."""
    folded: dict[str, Any] = field(default_factory=dict)
    """The torch value of each node evaluated at import, by node name."""
    seeded: bool = False
    """Whether the program draws random numbers: its function's last
    argument is then the seed, `[key, offset]` (`tensor<2xi64>`), which
    `run` draws anew for each call (`draw_seed`) unless given one."""
    updates: list[StateUpdate] = field(default_factory=list)
    """The inputs the program writes, one per result after the user
    outputs."""
    buffers: dict[int, Any] = field(default_factory=dict)
    """The torch tensor (a model's buffer) each written weight came from, by
    weight index: `run` writes it too."""
    complex_outputs: frozenset[int] = frozenset()
    """The user outputs that are complex: the function returns each as its
    real view (shape + [2], `aten_complex`), as it takes a complex input;
    `run` converts both ways."""
    undefined: frozenset[str] = frozenset()
    """Outputs (fx node names) that hold an undefined tensor: torch returns
    None for them (`_native_multi_head_attention`'s weights without
    `need_weights`, which its fake kernel gives as an empty tensor); the
    function does not return them (torch.compile's backend only)."""

    def __iter__(self) -> Iterator[Any]:
        return iter((self.module, self.weights))

    def run(self, *inputs: Any, seed: Any = None) -> tuple[np.ndarray[Any, Any], ...]:
        """The reference interpreter on user inputs (numpy or torch). A
        wrong count, shape or dtype is a ValueError that counts and names
        the user's inputs (the weights come first in the function, but the
        caller did not pass them). A `seeded` program draws with `seed`
        (an int key, or `[key, offset]`), else with a fresh `draw_seed()`:
        new numbers on every call, reproducible under `torch.manual_seed`."""
        from fxdsl.api import run
        from fxdsl.interpreters.run import coerce_input, entry_function

        function = entry_function(self.module)
        arguments = function.args[len(self.weights) :]
        if self.seeded:
            arguments = arguments[:-1]
        elif seed is not None:
            raise ValueError("the program draws no random numbers: it takes no seed")
        if len(inputs) != len(arguments):
            names = ", ".join(f"%{a.name_hint or '?'}" for a in arguments) or "none"
            raise ValueError(
                f"the program takes {len(arguments)} input(s) ({names}), "
                f"got {len(inputs)}"
            )
        check_writable(self.updates, inputs)
        arrays = [to_numpy(x) for x in inputs]
        for i, (array, argument) in enumerate(zip(arrays, arguments)):
            what = f"input {i} (%{argument.name_hint or '?'})"
            coerce_input(array, argument.type, what)
        if self.seeded:
            arrays.append(draw_seed() if seed is None else seed_array(seed))
        results = run(self.module, *self.weights, *arrays)
        outputs = len(results) - len(self.updates)
        write_back(self.updates, results[outputs:], self.weights, inputs, self.buffers)
        return tuple(
            _complex_of(r) if i in self.complex_outputs else r
            for i, r in enumerate(results[:outputs])
        )


DECOMPOSED_DRAWS = frozenset({"aten.scaled_dot_product_attention.default"})
"""Ops that draw (attention with `dropout_p > 0`) whose handler does not: they
import through torch's decomposition, which has the dropout. Other such ops
(the fused attention kernels of AOTAutograd's graphs, `poisson`) are
refused: their decompositions are not checked against torch here."""

SEED_NAME = "seed"
"""The seed argument's name (a program that draws takes it last)."""


def draw_seed() -> np.ndarray[Any, Any]:
    """A fresh seed `[key, 0]` for one call of a program that draws: the key
    from torch's default generator where torch is installed (so
    `torch.manual_seed` makes runs reproducible), else from numpy's
    entropy."""
    try:
        import torch
    except ImportError:
        key = int(np.random.default_rng().integers(-(2**63), 2**63 - 1))
    else:
        key = int(torch.empty((), dtype=torch.int64).random_())
    return np.array([key, 0], np.int64)


def seed_array(seed: Any) -> np.ndarray[Any, Any]:
    """A user's seed as the `[key, offset]` input: an int key (offset 0) or
    a pair."""
    array = np.asarray(seed, dtype=np.int64).reshape(-1)
    if array.size == 1:
        array = np.array([array[0], 0], np.int64)
    if array.size != 2:
        raise ValueError(f"a seed is an int or [key, offset], got {seed!r}")
    return array


def to_numpy(value: Any) -> np.ndarray[Any, Any]:
    """A torch tensor (or array-like) as the numpy array fxdsl runs on; bf16
    becomes float32 holding the same values, as the reference keeps bf16;
    a complex one its real view, shape + [2] (`aten_complex`)."""
    if hasattr(value, "detach"):
        import torch

        tensor = value.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        if tensor.is_complex():  # its real view (`aten_complex`)
            tensor = torch.view_as_real(tensor.resolve_conj().resolve_neg())
        if tensor._is_zerotensor():  # autograd's known-zero gradient: no storage
            return np.zeros(tuple(tensor.shape), to_numpy(tensor.new_empty(0)).dtype)
        return tensor.numpy()
    array = np.asarray(value)
    if np.iscomplexobj(array):
        array = np.ascontiguousarray(array)
        return array.view(array.real.dtype).reshape(*array.shape, 2)
    return array


def _complex_of(pair: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The complex array whose real view (shape + [2]) is `pair`."""
    kind = np.complex128 if pair.dtype == np.float64 else np.complex64
    return np.ascontiguousarray(pair).view(kind)[..., 0]


def _attribute(module: Any, path: str) -> Any:
    for part in path.split("."):
        module = getattr(module, part)
    return module


def _writes_a_placeholder(node: Any) -> bool:
    """Whether `node` writes in place into a placeholder (a program input)
    or a view of one."""
    if node.op != "call_function":
        return False
    for i in written_arguments(node):
        target = node.args[i] if i < len(node.args) else None
        while hasattr(target, "target") and _is_view(target):
            target = target.args[0]
        if getattr(target, "op", None) == "placeholder":
            return True
    return False


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
    seed: Tensor | None = None
    """The program's seed argument, where it draws random numbers."""
    streams: int = 0
    """Random streams drawn so far (`_draw`)."""
    depth: int = 0
    """How many torch decompositions the node being imported is inside."""
    updates: dict[Any, Tensor] = field(default_factory=dict)
    """Placeholder → the value the program leaves in it (`_write`)."""
    stale: set[str] = field(default_factory=set)
    """Folded placeholders (buffers) the program writes (`StateFound`)."""

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
        aliases = self.source.aliases()
        specs = [self._spec(p, aliases.get(p.name, ())) for p in tensor_inputs]
        # only draws fxdsl makes take a seed: one left to torch draws from
        # torch's generator itself (drawing a seed anyway would move that
        # generator, and `fallback_random` would not give eager's numbers)
        seeded = any(
            n.op == "call_function"
            and n in self.needed
            and draws_random(n)
            and self._left_to_torch(n, target_name(n.target)) is None
            for n in graph.nodes
        )
        if seeded:  # the last argument: see `ImportedProgram.seeded`
            specs.append(TensorSpec((2,), "i64", name=SEED_NAME))
        output = graph.find_nodes(op="output")[0]
        outputs, mutations = self._outputs(output)
        placeholders = {p.name: p for p in graph.find_nodes(op="placeholder")}
        returned: list[Any] = []
        complex_outputs: set[int] = set()
        undefined: set[str] = set()

        def body(*args: Tensor) -> list[Tensor]:
            for placeholder, arg in zip(tensor_inputs, args):
                complex_input = aten_complex.is_complex(placeholder.meta["val"])
                self.values[placeholder] = (
                    aten_complex.Complex(arg) if complex_input else arg
                )
            self.seed = args[-1] if seeded else None
            # the traced function's block (a graph of random draws alone,
            # `randn`, has no tensor argument to find it from)
            self.block = cast(Block, active_state("import").block)
            for node in graph.nodes:
                if node.op == "call_function" and node in self.needed:
                    self._import_node(node)
            for i, o in enumerate(outputs):
                if self.fallback is not None and self.values.get(o, ...) is None:
                    undefined.add(o.name)  # torch returns None for it
                    continue
                value = self._tensor_of(o, ())
                if isinstance(value, aten_complex.Complex):
                    complex_outputs.add(i)  # returned as its real view
                    value = value.pair
                returned.append(value)
            for written, name in mutations:
                self._write(placeholders[name], self._tensor_of(written, ()), None)
            named.update(self._signature_values(graph))
            returned.extend(self.updates.values())
            declarations.extend(self.externals.values())
            return returned

        declarations: list[Operation] = []
        named: dict[str, Any] = {}
        module = trace(
            body,
            *specs,
            name=name,
            declarations=declarations,
            verify_each=self.verify_each,
        )
        if self.stale:
            raise StateFound(self.stale)
        _erase_unused(module)
        if self.source.signatures:
            name_values(module, self.source.signatures, named)
        weights = self.source.weights
        weighted = [p for p in tensor_inputs if p.name in weights]
        users = [p for p in tensor_inputs if p.name not in weights]
        return ImportedProgram(
            module,
            [to_numpy(weights[p.name][1]) for p in weighted],
            [p.name for p in users],
            [str(o) for o in outputs],
            {op: name for op, name in self.origins.items() if op.parent is not None},
            {
                node.name: value
                for node, value in self.folded.items()
                if node.graph is graph  # not a decomposition's node
            },
            seeded=seeded,
            complex_outputs=frozenset(complex_outputs),
            undefined=frozenset(undefined),
            updates=[
                StateUpdate("weight", weighted.index(p), weights[p.name][0])
                if p in weighted
                else StateUpdate("input", users.index(p), p.name)
                for p in self.updates
            ],
            buffers={
                weighted.index(p): weights[p.name][1]
                for p in self.updates
                if p in weighted
            },
        )

    def _draw(self) -> Tensor:
        """The seed of the program's next random stream: its seed input
        `[key, offset]` with `offset + k` for the k-th draw."""
        if self.seed is None:
            raise UnsupportedNode(
                "draws random numbers inside torch's decomposition of a node "
                "that is not known to draw"
            )
        k, self.streams = self.streams, self.streams + 1
        if k == 0:
            return self.seed
        return ops.add(self.seed, ops.constant(np.array([0, k], np.int64), "i64"))

    # -- what to import ------------------------------------------------------ #

    def _foldable(self, graph: Any) -> set[Any]:
        """Nodes whose value is known at import: they depend on no user
        input and no parameter (one pass in graph order)."""
        known = set(self.folded)
        for node in graph.nodes:
            target = target_name(node.target)
            if node.op != "call_function" or target in NO_OPS or draws_random(node):
                continue
            if _writes_a_placeholder(node):  # the program's new value of it
                continue
            if target in SHAPE_ONLY or all(n in known for n in node.all_input_nodes):
                known.add(node)
        return known

    def _is_folded_node(self, node: Any) -> bool:
        """Whether `node`'s value is known at import (and so folds)."""
        return node in self.foldable

    def _needed(self, graph: Any) -> set[Any]:
        """Nodes an output needs, through recognised patterns' inputs."""
        import torch.utils._pytree as pytree

        output = graph.find_nodes(op="output")[0]
        needed: set[Any] = set()
        effects = self.source.effects if graph is self.source.graph else set()
        roots = [
            leaf
            for i, leaf in enumerate(pytree.tree_leaves(output.args[0]))
            if i not in effects and hasattr(leaf, "op")
        ]
        # and every write into a placeholder: the program's new value of it;
        # and every in-place op writing a value (or a view's base) another
        # node reads: nothing in the graph depends on it, yet a later read
        # sees its write (`_write` takes it, or refuses a view's)
        shared = [
            n
            for n in graph.nodes
            if n.op == "call_function" and _mutates_a_shared_value(n)
        ]
        pending = [*roots, *self._writes_to_inputs(graph), *shared]
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

    def _writes_to_inputs(self, graph: Any) -> list[Any]:
        """The in-place nodes that write a placeholder of the program."""
        if graph is not self.source.graph:
            return []
        return [n for n in graph.nodes if _writes_a_placeholder(n)]

    # -- one node ------------------------------------------------------------ #

    def _import_node(self, node: Any) -> None:
        target = target_name(node.target)
        if target in NO_OPS:
            return
        frames = _frames(node)
        last = self.block.last_op if self.block is not None else None
        held = (
            self.fallback is not None
            and not self._is_folded_node(node)
            and data_dependent(node)
        )
        if held and target == "<built-in function getitem>":
            source, index = node.args  # a result of a held node's
            self.values[node] = self.values[source][index]
            return
        if held:
            with at_frames(frames):
                self.values[node] = self._call_torch(
                    node, target, frames, DATA_DEPENDENT_REASON, held=True
                )
            self._record_origin(node, last)
            return
        _check_static(node)
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
        self,
        node: Any,
        target: str,
        frames: tuple[ScopeFrame, ...],
        reason: str,
        *,
        held: bool = False,
    ) -> Any:
        """A node left to torch: a call of the external function
        `@"<overload>"`, with the node's tensor arguments as operands (in
        argument order; folded ones are not operands, their value is in
        `ImportedProgram.folded`). `held`: a `data_dependent` node, whose
        results may have `?` sizes or be numbers (`_held_type`)."""
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
                if isinstance(value, aten_complex.Complex):
                    value = value.pair  # the runner views it as complex
                if isinstance(value, Tensor):
                    operands.append(value)
            return n

        map_arg((node.args, node.kwargs), collect)
        result = node.meta.get("val")
        # results it does not compute are None (`convolution_backward` of an
        # input that needs no gradient): no result of the call stands for them
        everything = pytree.tree_leaves(result)
        leaves = [r for r in everything if r is not None]
        if held:
            # held in torch: `?` sizes and numbers; none for a check
            # (`_assert_scalar`)
            types = [_held_type(r, node) for r in leaves]
        elif not leaves or not all(isinstance(r, torch.Tensor) for r in leaves):
            raise TorchImportError(
                _describe(node, f"a node left to torch must return tensors ({reason})")
            )
        else:
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
        results = iter(op.results)
        values = tuple(
            None
            if r is None
            else aten_complex.Complex(wrap(next(results)))
            if isinstance(r, torch.Tensor) and r.is_complex()
            else wrap(next(results))
            for r in everything
        )
        if isinstance(result, list | tuple):
            return values
        return values[0] if values else None  # None: a check's

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
            built = pattern.build(*inputs)
            if pattern.nan_rows is None:
                return built
            mask = pattern.inputs[pattern.nan_rows]
            return self._nan_rows(built, mask, inputs[pattern.nan_rows], frames)
        if target == "<built-in function getitem>":
            source, index = node.args
            return self.values[source][index]
        if aten_complex.involved(node):
            return self._emit_complex(node, target, frames)
        written = written_arguments(node)
        # an op writing more than its `self` (`_native_batch_norm_legit`'s
        # running statistics) has no handler: its functionalized
        # decomposition says what it writes
        handler = handler_for(target) if written in ([], [0]) else None
        if draws_random(node) and target not in RANDOM_OPS:
            if target not in DECOMPOSED_DRAWS:
                raise UnsupportedNode(
                    f"{target} draws random numbers, which fxdsl generates only "
                    "for the ops of aten_random (the torch.compile backend "
                    "leaves such nodes to torch)"
                )
            # its handler would drop the randomness: torch's decomposition
            # spells the draw out (a dropout)
            handler = None
        value = None
        if handler is not None:
            try:
                value = _as_torch_says(handler(self._call(node, target, frames)), node)
            except Decompose:
                handler = None
        if handler is None:
            value = _as_torch_says(self._decomposed(node, target, frames), node)
        if written == [0]:  # `add_`: its result is the value written
            self._write(node.args[0], value, node)
        return value

    def _call(self, node: Any, target: str, frames: tuple[ScopeFrame, ...]) -> AtenCall:
        """`node` as its handler's argument."""
        args, kwargs = self._arguments(node, target, frames)
        _check_graph_dtypes([*args, *kwargs.values()])
        return AtenCall(
            target,
            args,
            kwargs,
            node.meta.get("val"),
            tuple(a.meta.get("val") if hasattr(a, "meta") else None for a in node.args),
            self._used_results(node),
            self._draw,
        )

    def _write(self, target: Any, value: Any, node: Any | None) -> None:
        """`node` (None: the program's output) wrote `value` into the tensor
        of the fx node `target`. A program input's new value becomes a
        result of the function (`updates`); an intermediate's is what the
        nodes after `node` read. A write into a view, or into a value known
        at import, that is read again is an UnsupportedNode. Aliases of the
        written tensor imported before `node` (an in-place op's result, a
        view) see the new value (`_refresh_aliases`)."""
        target = written_tensor(target)  # `x.add_(1).mul_(2)` writes x twice
        if target.op == "placeholder" and target.graph is self.source.graph:
            if not self.source.stateful:
                raise UnsupportedNode(
                    f"it writes into the graph's input {target.name}, which a "
                    "graph module cannot hand back"
                )
            shape = tuple(int(d) for d in target.meta["val"].shape)
            if isinstance(value, Tensor) and tuple(value.shape) != shape:
                raise UnsupportedNode(
                    f"it changes the shape of the input {target.name} from "
                    f"{shape} to {tuple(value.shape)}; an input's type is fixed"
                )
            if self._is_folded_node(target):
                self.stale.add(target.name)  # a buffer: import it as an argument
                return
            self.values[target] = self.updates[target] = value
            if node is not None:
                self._refresh_aliases(target, node)
            return
        if node is None:
            return
        if target.op == "placeholder":
            raise UnsupportedNode(
                f"it writes into {target.name}, an input of torch's decomposition "
                "around it, which that decomposition does not say it writes"
            )
        base, chain = target, {target}
        while _is_view(base):
            base = base.args[0]
            if base.op == "placeholder":
                raise UnsupportedNode(
                    f"it writes into {target.name}, a view of the input "
                    f"{base.name} (the core-ATen graph, decompose=True, "
                    "has it as a value)"
                )
            if read_after(base, node):
                raise UnsupportedNode(
                    f"it writes into {target.name}, a view of {base.name}, "
                    "which is read again"
                )
            chain.add(base)
        aliases = self._aliases(target, node)
        if base is not target:
            # another view of the base, taken before, would show the write
            covered = chain | set(aliases)
            for alias in self._aliases(base, node):
                if alias not in covered and read_after(alias, node):
                    raise UnsupportedNode(
                        f"it writes into {target.name}, a view of {base.name}, "
                        f"whose view {alias.name} is read again"
                    )
        if not any(read_after(n, node) for n in (target, *aliases)):
            return
        if self._is_folded_node(target):
            raise UnsupportedNode(
                f"it writes into {target.name}, a value known at import, "
                "which is read again"
            )
        self.values[target] = value
        self._refresh_aliases(target, node, aliases)

    def _aliases(self, base: Any, node: Any) -> list[Any]:
        """The aliases of `base` imported before `node` (in-place results,
        which are `base`; views, which show part of it), and aliases of
        those, parents first."""
        found: list[Any] = []
        pending = [(user, base) for user in base.users]
        while pending:
            alias, parent = pending.pop(0)
            if (
                alias is node
                or alias not in self.values
                or alias.op != "call_function"
                or not alias.args
                or alias.args[0] is not parent
                or not _is_view(alias)
            ):
                continue
            found.append(alias)
            pending.extend((user, alias) for user in alias.users)
        return found

    def _refresh_aliases(
        self, base: Any, node: Any, aliases: list[Any] | None = None
    ) -> None:
        """`node` wrote a new value into `base`: its aliases (`_aliases`,
        or `aliases` when the caller has them) read its new contents from
        here on, as torch's do (`v = t[0]; t.add_(1); v * 3` reads the new
        row). A view is imported again from the new value."""
        for alias in self._aliases(base, node) if aliases is None else aliases:
            if _returns_written(alias):
                self.values[alias] = self.values[alias.args[0]]
            else:
                self._import_node(alias)

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
        result, updates = map_arg(output.args[0], lambda n: self._operand(n, frames))
        for position, value in zip(found.updated, updates, strict=True):
            self._write(found.inputs[position], value, node)
        if isinstance(node.meta.get("val"), torch.Tensor) and isinstance(
            result, list | tuple
        ):
            (result,) = result  # a CompositeImplicit op's decomposition: [out]
        return tuple(result) if isinstance(result, list) else result

    def _emit_complex(
        self, node: Any, target: str, frames: tuple[ScopeFrame, ...]
    ) -> Any:
        """A node that makes or reads complex tensors (`aten_complex`): its
        handler there, else torch's decomposition of it."""
        if written_arguments(node):
            raise UnsupportedNode(f"{target} writes a complex tensor in place")
        value = aten_complex.emit(self._call(node, target, frames))
        if value is None:
            value = self._decomposed(node, target, frames)
        if isinstance(value, aten_complex.Complex):
            shape = tuple(int(d) for d in node.meta["val"].shape)
            if tuple(value.shape) != shape:
                raise UnsupportedNode(
                    f"imported as shape {tuple(value.shape)}, torch says {shape}"
                )
            return value
        return _as_torch_says(value, node)

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

    def _signature_values(self, graph: Any) -> dict[str, Any]:
        """The SSA value of each node a preserved signature names (None
        where the node is not a tensor of the graph)."""
        nodes = {node.name: node for node in graph.nodes}
        named: dict[str, Any] = {}
        for inputs, outputs in self.source.signatures.values():
            for name in (*inputs, *outputs):
                node = nodes.get(name)
                if node not in self.values and node not in self.folded:
                    named[name] = None
                    continue
                # a folded node is a constant per scope: its own scope's is
                # the one its neighbours in the signature's caller read
                frames = _frames(node)
                with at_frames(frames):
                    value = self._operand(node, frames)
                named[name] = value.value if isinstance(value, Tensor) else None
        return named

    def _tensor_of(
        self, node: Any, frames: tuple[ScopeFrame, ...]
    ) -> Tensor | aten_complex.Complex:
        if not hasattr(node, "op"):  # a constant the program returns
            raise TorchImportError(
                f"an output is {node!r}, not a tensor: only programs that return "
                "tensors import"
            )
        value = self._operand(node, frames)
        if not isinstance(value, Tensor | aten_complex.Complex):
            raise TorchImportError(f"output {node} is not a tensor ({value!r})")
        return value

    def _nan_rows(
        self, out: Any, node: Any, mask: Any, frames: tuple[ScopeFrame, ...]
    ) -> Any:
        """`out`, a recognised attention under a plain softmax, with NaN in
        the query rows whose every key the additive mask `node` (imported
        as `mask`) masks with -inf, as eager's softmax gives them: from the
        folded value where it is known (nothing to add when no row is
        dead), else computed from the mask."""
        import torch

        if self._is_folded_node(node):
            self._mask_kind(node)  # evaluates it once
            dead = torch.isneginf(self.folded[node]).all(-1, keepdim=True)
            if not bool(dead.any()):
                return out
            rows = self._constant((node, "dead rows", frames), dead, frames)
        else:
            rows = ops.all(ops.eq(mask, -math.inf), [-1], keepdim=True)
        return ops.where(rows, math.nan, out)

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
        for i in written_arguments(node):  # a copy: others read the old value
            if i < len(node.args) and node.args[i] in known:
                known[node.args[i]] = known[node.args[i]].clone()
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
        if value.is_complex():  # as its real view (`aten_complex`)
            pair = torch.view_as_real(value.resolve_conj().resolve_neg())
            return aten_complex.Complex(self._constant((node, frames), pair, frames))
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
                    # an int64 a float64 cannot hold (int64's largest, a
                    # masked amin's fill) goes as the int: ops.full keeps it
                    first = flat[0].item()
                    inexact = isinstance(first, int) and int(float(first)) != first
                    made = ops.full(
                        array.shape, first if inexact else float(first), dtype
                    )
                else:
                    made = ops.constant(array, dtype)
            self.constants[key] = made
        return self.constants[key]

    def _outputs(self, output: Any) -> tuple[list[Any], list[tuple[Any, str]]]:
        """The user outputs of the output node, and its new values of
        inputs with the placeholder each is written into."""
        import torch.utils._pytree as pytree

        leaves = pytree.tree_leaves(output.args[0])
        mutations = self.source.mutations
        dropped = mutations.keys() | self.source.effects
        users = [o for i, o in enumerate(leaves) if i not in dropped and o is not None]
        if self.fallback is not None:
            # The backend returns a graph's constant outputs itself (the int
            # a shape-specialised graph returns: HF's sliding-window length)
            users = [o for o in users if hasattr(o, "op")]
        return users, [(leaves[i], name) for i, name in mutations.items()]

    def _spec(self, placeholder: Any, aliases: tuple[str, ...]) -> TensorSpec:
        value = placeholder.meta["val"]
        _check_static(placeholder)
        weight = self.source.weights.get(placeholder.name)
        param = weight[0] if weight is not None else None
        shape = tuple(int(d) for d in value.shape)
        try:
            if aten_complex.is_complex(value):  # its real view
                dtype, shape = aten_complex.component(value.dtype), (*shape, 2)
            else:
                dtype = graph_dtype(value.dtype)
        except UnsupportedNode as error:
            raise TorchImportError(_describe(placeholder, str(error))) from None
        return TensorSpec(
            shape,
            dtype,
            name=placeholder.name,
            param=param,
            aliases=aliases,
        )
