"""`torch.compile(model, backend="fxdsl")`: a Dynamo backend.

    compiled = torch.compile(model, backend="fxdsl")
    compiled = torch.compile(model, backend="fxdsl", options={"min_block_size": 3})

Dynamo hands the backend a torch-level fx graph; AOTAutograd (with torch's
core-ATen decompositions) turns it into ATen graphs: one for inference, or a
forward and a backward for training. Each goes through the same steps:
`torch_islands.plan` imports it into the graph dialect with the nodes fxdsl
cannot take left to torch, partitions it into islands, and the `_Runner`
below runs the result: islands through `fxdsl.compile`, torch's nodes through
torch, in the program's order. A model never fails to compile for want of an
op: a node the importer cannot take, for whatever reason, runs in torch and
the rest compiles; a graph it cannot take at all (an input of a dtype the
dialect lacks, a torch op that returns no tensor) runs in torch with one
logged warning, and the dry-run report says why.

Options (`options={...}`):
- `device`: "cuda" or "cpu"; default: "cuda" when the inputs are CUDA
  tensors and fxdsl's CUDA backend can run, else "cpu" (the numpy reference
  interpreter: for checking, not for speed).
- `pipeline`: the pass pipeline for islands (default: `fxdsl.compile`'s).
- `cuda_graph`: replay each island's kernels as a CUDA graph (CUDA only;
  no effect on the CPU). `torch.compile(..., mode="reduce-overhead")` (or
  `"max-autotune"`: no autotuner here) sets it: a decode step that compiles
  to one island is then one graph replay.
- `min_block_size` (default 5, as Torch-TensorRT): islands with fewer fx
  nodes stay in torch, unless the island is the whole graph.
- `torch_executed_ops`: ATen overloads to leave to torch
  (`{"aten.gelu.default"}`).
- `dryrun`: True prints the partition report (or a path: appends it there)
  and runs the graph in torch without compiling anything. Each graph's
  report is headed by a label: its name, the Dynamo graph it came from (one
  per graph break), inference/forward/backward, and its first source line.
- `dump_ir`: a folder; each graph's partitioned IR is written there.
- `fallback_random`: True leaves every op that draws random numbers to
  torch, so that `torch.manual_seed` gives eager's very numbers (for
  comparing with eager; fxdsl's own draws are as random, not the same).
  Default: Inductor's `torch._inductor.config.fallback_random`, which tests
  written for Inductor set.
"""

from __future__ import annotations

import functools
import itertools
import logging
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from fxdsl.frontends.aten_decompositions import WRONG
from fxdsl.frontends.aten_registry import target_name
from fxdsl.frontends.torch_export import TorchImportError, to_numpy
from fxdsl.frontends.torch_importer import draw_seed
from fxdsl.frontends.torch_islands import (
    Plan,
    chosen_by_option,
    donate,
    plan,
    torch_only_report,
)
from fxdsl.frontends.torch_nodes import _is_view, _source_line
from fxdsl.util.lru import Lru

LOG = logging.getLogger("fxdsl.torch_compile")
_LOGGED_KINDS: set[str] = set()
COMPILED_ISLANDS = 256
"""How many compiled islands the backend keeps (least recently used go)."""
_COMPILED: Lru[tuple[Any, ...], Callable[..., Any]] = Lru(COMPILED_ISLANDS)
"""Compiled islands by (IR text, device, pipeline, compile options): a recompile
or a second graph with the same island reuses it (kernels are also cached on
disk by the runtime). Bounded: a model whose shapes keep changing would
otherwise keep every island it compiled, with its device buffers."""
SPECIALISATIONS = 16
"""How many input shapes a shape-generic graph keeps compiled (`_Specialising`:
least recently used go; a shape seen again after that compiles again)."""
_GRAPH_IDS = itertools.count()
_DYNAMO_GRAPH_IDS = itertools.count()


MODES = (
    None,
    "default",
    "reduce-overhead",
    "max-autotune",
    "max-autotune-no-cudagraphs",
)
"""`torch.compile(..., mode=)` values the backend takes, Inductor's:
`reduce-overhead` means the `cuda_graph` option (CUDA graphs cut the launch
overhead, as Inductor's mode does; on the CPU, as there, it changes
nothing). fxdsl has no autotuner (its kernels' shapes are fixed by the
lowering), so `max-autotune` is `reduce-overhead` (Inductor's also turns
CUDA graphs on) and `max-autotune-no-cudagraphs` is the default: code
written for Inductor compiles unchanged."""

GRAPHED_MODES = ("reduce-overhead", "max-autotune")


@dataclass(frozen=True)
class Options:
    """The backend's options, checked (an unknown one is a ValueError)."""

    device: str | None = None
    pipeline: str | None = None
    cuda_graph: bool = False
    min_block_size: int = 5
    torch_executed_ops: frozenset[str] = field(default_factory=frozenset)
    dryrun: bool | str = False
    dump_ir: str | None = None
    fallback_random: bool = False

    @staticmethod
    def parse(options: dict[str, Any] | None, mode: str | None = None) -> Options:
        given = dict(options or {})
        if mode not in MODES:
            raise ValueError(
                f"fxdsl backend: mode must be one of {', '.join(map(str, MODES))}, "
                f"got {mode!r}"
            )
        if mode in GRAPHED_MODES:
            given.setdefault("cuda_graph", True)
        known = set(Options.__dataclass_fields__)
        unknown = sorted(set(given) - known)
        if unknown:
            raise ValueError(
                f"fxdsl backend: unknown option(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        if given.get("device") not in (None, "cpu", "cuda"):
            device = given["device"]
            raise ValueError(
                f"fxdsl backend: device must be 'cpu' or 'cuda', got {device!r}"
            )
        size = given.get("min_block_size", Options.min_block_size)
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(
                f"fxdsl backend: min_block_size must be an integer >= 1, got {size!r}"
            )
        given.setdefault("fallback_random", _inductors_fallback_random())
        for name, kinds, what in (
            ("pipeline", (str, type(None)), "a pipeline string"),
            ("cuda_graph", (bool,), "True or False"),
            ("fallback_random", (bool,), "True or False"),
            ("dryrun", (bool, str, PathLike), "True, False or a path"),
            ("dump_ir", (str, PathLike, type(None)), "a folder"),
        ):
            if name in given and not isinstance(given[name], kinds):
                raise ValueError(
                    f"fxdsl backend: {name} must be {what}, got {given[name]!r}"
                )
        for name in ("dryrun", "dump_ir"):
            if isinstance(given.get(name), PathLike):
                given[name] = str(given[name])
        ops = given.get("torch_executed_ops", ())
        if isinstance(ops, str) or not isinstance(ops, Iterable):
            raise ValueError(
                "fxdsl backend: torch_executed_ops must be a collection of ATen "
                f"overloads ({{'aten.gelu.default'}}), got {ops!r}"
            )
        given["torch_executed_ops"] = frozenset(_overload_name(o) for o in ops)
        return Options(**given)


def _inductors_fallback_random() -> bool:
    """Inductor's `fallback_random` setting, where Inductor's config is
    loaded (importing it only to read False would cost a second)."""
    import sys

    config = sys.modules.get("torch._inductor.config")
    return bool(getattr(config, "fallback_random", False))


def _overload_name(op: Any) -> str:
    """`"aten.gelu.default"` for a string, an OpOverload or a packet
    (`torch.ops.aten.gelu` means its `.default`); a ValueError naming `op`
    unless torch has that overload."""
    import torch

    name = str(op)
    if hasattr(op, "overloads") and not hasattr(op, "_overloadname"):
        name = f"{name}.default"
    name = name if name.startswith("aten.") else f"aten.{name}"
    namespace, _, rest = name.partition(".")
    packet_name, _, overload = rest.partition(".")
    try:
        packet = getattr(getattr(torch.ops, namespace), packet_name)
        overloads = packet.overloads()
    except (AttributeError, RuntimeError):
        raise ValueError(
            f"fxdsl backend: torch_executed_ops names {op!r}, which is no ATen "
            "operator (write an overload: 'aten.gelu.default', or "
            "torch.ops.aten.gelu)"
        ) from None
    if overload not in overloads:
        raise ValueError(
            f"fxdsl backend: torch_executed_ops names {op!r}, which is no overload "
            f"of {namespace}.{packet_name} (it has: {', '.join(sorted(overloads))})"
        )
    return name


def fxdsl_backend(
    gm: Any,
    example_inputs: Sequence[Any],
    options: dict[str, Any] | None = None,
    mode: str | None = None,
) -> Callable[..., Any]:
    """The Dynamo backend (registered as "fxdsl" through the
    `torch_dynamo_backends` entry point); `mode` is `torch.compile`'s
    (`MODES`)."""
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    settings = Options.parse(options, mode)
    dynamo_graph = next(_DYNAMO_GRAPH_IDS)

    def compiler(kind: str) -> Callable[..., Any]:
        label = f"Dynamo graph {dynamo_graph}, {kind}"
        return functools.partial(compile_aten_graph, settings=settings, label=label)

    # An op the user leaves to torch stays whole: not decomposed first into
    # ops fxdsl would then take (SDPA's CPU kernel decomposes into math); so
    # does one whose decomposition is wrong (`aten_decompositions.WRONG`).
    decompositions = {
        op: _strided_as_eager(op, fn)
        for op, fn in core_aten_decompositions().items()
        if str(op) not in settings.torch_executed_ops and str(op) not in WRONG
    }
    if _training(gm, example_inputs):
        # torch 2.13's core decomposition of scaled_dot_product_attention
        # leaves a backward (the flash kernel's) that does not match it:
        # GPT-2's gradients come out up to 0.24 off. Training keeps SDPA
        # whole (it runs in torch).
        decompositions = {
            op: fn for op, fn in decompositions.items() if "scaled_dot" not in str(op)
        }

    def backend(
        decompositions: dict[Any, Any], keep: bool = False
    ) -> Callable[..., Any]:
        return aot_autograd(
            fw_compiler=compiler("forward"),
            bw_compiler=compiler("backward"),
            inference_compiler=compiler("inference"),
            decompositions=decompositions,
            keep_inference_input_mutations=keep,
        )(gm, example_inputs)

    from torch._dynamo.exc import RestartAnalysis

    try:
        return backend(decompositions)
    except RestartAnalysis:
        # Dynamo's request to trace the frame again (a float64 0-d tensor
        # beside half ones makes the decompositions ask to tensorify a
        # scalar): not a failure, and only a restart honours it
        raise
    except Exception as error:  # noqa: BLE001 - a model must never fail to run
        if "set_ on a graph input" in str(error):
            # `param.data *= k` in a forward: a `set_` beside other writes of
            # one input, which AOTAutograd can only keep in the graph (the
            # write then runs in torch, on the caller's tensor)
            LOG.info("fxdsl: input mutations kept in the graph (%s)", error)
            return backend(decompositions, keep=True)
        # A decomposition torch cannot trace on these inputs (`take`'s on a
        # data-dependent index): AOTAutograd's graph without them; the
        # importer decomposes node by node, leaving to torch what does not
        # trace.
        LOG.info("fxdsl: torch's decompositions failed (%s); without them", error)
        return backend({})


def _strided_as_eager(op: Any, decompose: Callable[..., Any]) -> Callable[..., Any]:
    """`decompose`, with the output strides of the op's eager kernel where
    torch's decomposition gives others: the CPU flash attention kernel
    returns its output in the query's memory layout (contiguous for a
    contiguous query), the decomposition in one of its own, and AOTAutograd
    hands the caller the traced strides."""
    if str(op) != "aten._scaled_dot_product_flash_attention_for_cpu.default":
        return decompose

    def run(query: Any, *args: Any, **kwargs: Any) -> Any:
        from torch._prims_common import (
            compute_elementwise_output_logical_to_physical_perm as physical,
        )

        output, *rest = decompose(query, *args, **kwargs)
        order, _ = physical(query)  # the query's dims, outermost in memory first
        inverse = sorted(range(len(order)), key=order.__getitem__)
        output = output.permute(order).contiguous().permute(inverse)
        return (output, *rest)

    return run


def _training(gm: Any, example_inputs: Sequence[Any]) -> bool:
    """Whether AOTAutograd will build a backward: grad mode on and some
    input or parameter requiring grad."""
    import torch

    if not torch.is_grad_enabled():
        return False
    tensors = [*example_inputs, *gm.parameters()]
    return any(getattr(t, "requires_grad", False) for t in tensors)


def compile_aten_graph(
    gm: Any, example_inputs: Sequence[Any], settings: Options, label: str = ""
) -> Callable[..., Any]:
    """One ATen graph (AOTAutograd's forward or backward) to a callable;
    `label` says which (in the dry-run report)."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    # AOTAutograd calls compilers under its FakeTensorMode; folding at import
    # computes real values.
    with unset_fake_temporarily():
        return _compile(gm, example_inputs, settings, label)


def _compile(
    gm: Any,
    example_inputs: Sequence[Any],
    settings: Options,
    label: str = "",
    specialised: bool = False,
    in_torch: Callable[..., Any] | None = None,
) -> Callable[..., Any]:
    """`gm` compiled; `in_torch` (default `gm.forward`) runs it in torch
    where it cannot be (or with `dryrun`)."""
    in_torch = in_torch or gm.forward
    # A graph still symbolic once specialised has data-dependent sizes
    # (`masked_select`, `.item()`): their nodes run in torch
    # (`torch_nodes.data_dependent`; specialising again would recurse for
    # ever).
    if _symbolic(gm) and not specialised:
        return _boxed(_Specialising(gm, settings, label))
    name = f"graph_{next(_GRAPH_IDS)}"
    device = _device(settings, example_inputs)
    shown = gm  # the graph the report and the IR show
    gm, hidden = _returning_shared_bases(gm)
    try:
        partitioned = plan(
            gm,
            settings.min_block_size,
            settings.torch_executed_ops,
            kernel_types_only=device == "cuda",
            fallback_random=settings.fallback_random,
        )
    except Exception as error:  # noqa: BLE001 - a model must never fail to run
        # Nodes the importer cannot take run in torch one by one (`plan`);
        # what is left is a graph it cannot take at all.
        reason = str(error).splitlines()[0] if str(error) else ""
        if not isinstance(error, TorchImportError):
            reason = f"the importer failed ({type(error).__name__}: {reason}); "
            reason += "please report it"
        LOG.warning("fxdsl: this graph runs in torch: %s", reason)
        if settings.dryrun:
            report = torch_only_report(shown, reason)
            _write_report(report, settings.dryrun, _title(name, label, gm))
        return _boxed(in_torch)
    # AOTAutograd's metadata describes the forward's inputs, not a backward's
    if not label.endswith("backward"):
        donate(partitioned, _mutated_inputs(gm))
    if settings.dump_ir:
        folder = Path(settings.dump_ir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.mlir").write_text(str(partitioned.imported.module) + "\n")
    if settings.dryrun:
        _write_report(partitioned.report(), settings.dryrun, _title(name, label, gm))
        return _boxed(in_torch)
    _log_fallbacks(partitioned)
    runner = _Runner(gm, partitioned, device, settings, hidden)
    return _boxed(runner)


def _returning_shared_bases(gm: Any) -> tuple[Any, int]:
    """`gm`, or a copy that also returns (after its own outputs) each
    intermediate of which two or more outputs are views, and how many it
    added. An inference graph's outputs that view one intermediate alias
    each other in eager (`t = a * 2; return t.diagonal(), t.t()`: a write
    into one shows in the other), and AOTAutograd trusts the compiled graph
    for that; the runner rebuilds such views from the intermediate it hands
    out no further (`_Runner`)."""
    import torch
    import torch.utils._pytree as pytree

    output = next(n for n in gm.graph.nodes if n.op == "output")
    flat = pytree.tree_leaves(output.args[0])
    returned = dict.fromkeys(x for x in flat if hasattr(x, "op"))  # in order
    sharing: dict[Any, int] = {}
    for leaf in returned:
        node = leaf
        while _view_step(node) and not any(
            isinstance(a, torch.fx.Node)
            for a in pytree.tree_leaves((node.args[1:], node.kwargs))
        ):
            node = node.args[0]
            if node in returned:
                break
        if node is not leaf and node not in returned and node.op == "call_function":
            sharing[node] = sharing.get(node, 0) + 1
    shared = [node for node, count in sharing.items() if count > 1]
    if not shared:
        return gm, 0
    graph = torch.fx.Graph()
    copies: dict[Any, Any] = {}
    outputs = graph.graph_copy(gm.graph, copies)
    graph.output((outputs, *(copies[node] for node in shared)))
    return torch.fx.GraphModule(gm, graph), len(shared)


def _mutated_inputs(gm: Any) -> list[str]:
    """The placeholders whose tensors AOTAutograd overwrites with a graph
    output after the call (in-place updates it functionalised: a static
    KV cache), from its metadata for the graph being compiled; none when
    there is none (a graph compiled outside AOTAutograd)."""
    from torch._guards import TracingContext

    context = TracingContext.try_get()
    meta = getattr(context, "fw_metadata", None)
    if meta is None:
        return []
    placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(meta.input_info):
        return []
    return [
        name
        for name, info in zip(placeholders, meta.input_info)
        if info.mutates_data and not info.mutates_metadata
    ]


def _boxed(run: Callable[..., Any]) -> Callable[..., Any]:
    """AOTAutograd's calling convention: one list of arguments, which the
    callee may clear to free them early."""

    def call(args: list[Any]) -> Any:
        values = list(args)
        args.clear()
        return run(*values)

    call._boxed_call = True  # type: ignore[attr-defined]
    return call


def _symbolic(gm: Any) -> bool:
    """Whether Dynamo made the graph shape-generic (`dynamic=True`, or a
    shape that changed between calls)."""
    import torch

    for node in gm.graph.nodes:
        value = node.meta.get("val")
        if isinstance(value, torch.SymInt):
            return True
        if any(isinstance(d, torch.SymInt) for d in getattr(value, "shape", ())):
            return True
    return False


class _Specialising:
    """A shape-generic graph, compiled once per concrete input signature:
    the graph is traced again (`make_fx`) with the call's shapes, sizes
    become constants, and the static graph takes the usual path. The graph
    dialect has static shapes only; this is how fxdsl honours
    `dynamic=True` (each new shape compiles, as with `dynamic=False`; the
    last `SPECIALISATIONS` shapes stay compiled)."""

    def __init__(self, gm: Any, settings: Options, label: str):
        self.gm = gm
        self.settings = settings
        self.label = label
        self.compiled: Lru[tuple[Any, ...], Callable[..., Any]] = Lru(SPECIALISATIONS)
        self.passed = _pass_through_ints(gm)
        output = next(n for n in gm.graph.nodes if n.op == "output")
        self.outputs = _leaves(output.args[0])
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]

    def __call__(self, *args: Any) -> Any:
        import torch

        key = tuple(
            (tuple(a.shape), a.dtype, a.device.type)
            if isinstance(a, torch.Tensor)
            else None
            if i in self.passed
            else a
            for i, a in enumerate(args)
        )
        compiled = self.compiled.get(key, lambda: self._specialise(args))
        result = compiled(*[a for a in args if isinstance(a, torch.Tensor)])
        if not self.passed:
            return result
        return self._with_ints(result, args)

    def _with_ints(self, result: Any, args: Sequence[Any]) -> Any:
        """`result` with the ints the graph computes from pass-through ints
        evaluated for this call (the compiled graph holds the first call's)."""
        import torch.utils._pytree as pytree

        flat, spec = pytree.tree_flatten(result)
        if len(flat) != len(self.outputs):  # never a stale int: say so
            raise RuntimeError(
                f"fxdsl: a specialised graph returned {len(flat)} values for "
                f"{len(self.outputs)} outputs; please report it"
            )
        env = dict(zip(self.placeholders, args))
        for i, leaf in enumerate(self.outputs):
            if _is_int_node(leaf):
                flat[i] = _evaluate_ints(leaf, env)
        return pytree.tree_unflatten(flat, spec)

    def _specialise(self, args: Sequence[Any]) -> Callable[..., Any]:
        import torch
        from torch.fx.experimental.proxy_tensor import make_fx

        positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]

        def with_sizes(*tensors: Any) -> Any:
            merged = list(args)
            for i, tensor in zip(positions, tensors):
                merged[i] = tensor
            return self.gm(*merged)

        tensors = [args[i] for i in positions]
        static = _concrete(self.gm, args)
        if static is None:  # a graph the cheap way cannot take: trace again
            static = make_fx(with_sizes, tracing_mode="fake")(*tensors)
        LOG.info(
            "fxdsl: specialised a dynamic graph to %s",
            [tuple(t.shape) for t in tensors],
        )
        # In torch, the shape-generic graph runs, not the one traced here:
        # data-dependent sizes keep bounds drawn from these inputs.
        compiled = _compile(
            static, tensors, self.settings, self.label, True, with_sizes
        )
        return lambda *tensors: compiled(list(tensors))


def _concrete(gm: Any, args: Sequence[Any]) -> Any:
    """A copy of the shape-generic `gm` for this call's inputs: torch's
    values propagated through its nodes on fake tensors of the call's shapes
    (`FakeTensorProp`), every int it computes (sizes, their arithmetic,
    int inputs) made a constant, so only tensor inputs are left, as a
    trace with `make_fx` gives, at about a third of its cost (the decode
    steps of HF's dynamic cache specialise every step). None when a value
    stays symbolic (a size read from a tensor) or propagation fails."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.node import map_arg
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    copy = torch.fx.GraphModule(gm, graph)
    try:
        with torch._guards.tracing(None):
            mode = FakeTensorMode(allow_non_fake_inputs=True)
            FakeTensorProp(copy, mode).propagate(*args)
    except Exception:  # noqa: BLE001 - make_fx, the general way, then tries
        return None
    for node in list(graph.nodes):
        value = node.meta.get("val")
        if node.op not in ("placeholder", "call_function"):
            continue
        if not isinstance(value, int | float | bool) or isinstance(value, torch.Tensor):
            continue

        def constant(n: Any, node: Any = node, value: Any = value) -> Any:
            return value if n is node else n

        for user in list(node.users):
            user.args = map_arg(user.args, constant)
            user.kwargs = map_arg(user.kwargs, constant)
        graph.erase_node(node)
    copy.recompile()
    return None if _symbolic(copy) else copy


def _leaves(value: Any) -> list[Any]:
    import torch.utils._pytree as pytree

    return pytree.tree_leaves(value)


def _is_int_node(node: Any) -> bool:
    import torch

    value = getattr(node, "meta", {}).get("val")
    return isinstance(value, torch.SymInt | int) and not isinstance(value, bool)


def _pass_through_ints(gm: Any) -> set[int]:
    """Positions of the int inputs that decide no tensor: every use is int
    arithmetic that ends in the graph's outputs (HF's sliding-window cache
    counts its length in a Python int, which the decode step returns plus
    one). One compiled graph serves every value of them; the ints the graph
    returns are computed per call (`_evaluate_ints`)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    passed = set()
    for i, placeholder in enumerate(placeholders):
        if not _is_int_node(placeholder):
            continue
        seen, stack, ok = set(), [placeholder], True
        while stack and ok:
            node = stack.pop()
            for user in node.users:
                if user.op == "output" or user in seen:
                    continue
                if not (user.op == "call_function" and _is_int_node(user)):
                    ok = False
                    break
                seen.add(user)
                stack.append(user)
        if ok:
            passed.add(i)
    return passed


def _evaluate_ints(node: Any, env: dict[Any, Any]) -> Any:
    """The value of an int node of the graph, from the call's inputs."""
    from torch.fx.node import map_arg

    if node not in env:
        args = map_arg(node.args, lambda n: _evaluate_ints(n, env))
        kwargs = map_arg(node.kwargs, lambda n: _evaluate_ints(n, env))
        env[node] = node.target(*args, **kwargs)
    return env[node]


def _log_fallbacks(partitioned: Plan) -> None:
    """Why each op kind runs in torch, once per process: a warning for ops
    without a mapping, info for those the options sent there."""
    for node, (target, reason, source) in partitioned.fallbacks.items():
        if target in _LOGGED_KINDS:
            continue
        _LOGGED_KINDS.add(target)
        level = logging.INFO if chosen_by_option(reason) else logging.WARNING
        where = source.strip().replace("\n", " ")
        LOG.log(
            level, "fxdsl: %s runs in torch (%%%s: %s) %s", target, node, reason, where
        )


def _title(name: str, label: str, gm: Any) -> str:
    """A report's heading: which graph (with a graph break, Dynamo makes
    several; in training, each has a forward and a backward) and where in
    the user's code it starts."""
    where = next(
        (
            _source_line(n).strip()
            for n in gm.graph.nodes
            if n.op == "call_function" and _source_line(n)
        ),
        "",
    )
    return ", ".join(part for part in (name, label, where) if part)


def _write_report(text: str, dryrun: bool | str, title: str) -> None:
    labelled = f"[{title}]\n{text}"
    if isinstance(dryrun, str):
        with Path(dryrun).open("a") as stream:
            stream.write(labelled)
    else:
        print(labelled, end="")


def _device(settings: Options, example_inputs: Sequence[Any]) -> str:
    if settings.device is not None:
        return settings.device
    on_gpu = any(
        getattr(getattr(t, "device", None), "type", "") == "cuda"
        for t in example_inputs
    )
    if not on_gpu:
        return "cpu"
    from fxdsl.runtime.compile import cuda_unavailable_reason

    return "cuda" if cuda_unavailable_reason() is None else "cpu"


class _Runner:
    """Runs a partitioned graph: islands compiled by fxdsl, the rest by torch,
    in the order of the partitioned function's ops."""

    def __init__(
        self,
        gm: Any,
        partitioned: Plan,
        device: str,
        settings: Options,
        hidden: int = 0,
    ):
        """`hidden`: how many trailing outputs of `gm` only serve as the
        bases of other outputs' views (`_returning_shared_bases`), not
        handed to the caller."""
        import torch.utils._pytree as pytree

        module = partitioned.imported.module
        self.folded = partitioned.imported.folded
        functions = {
            op.sym_name.data: op
            for op in module.body.block.ops
            if isinstance(op, func.FuncOp)
        }
        self.main = functions["forward"]
        self.nodes = {n.name: n for n in gm.graph.nodes}
        placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        position = {name: i for i, name in enumerate(placeholders)}
        self.argument_index = [position[n] for n in partitioned.imported.input_names]
        self.position = position
        self.seeded, self.device = partitioned.imported.seeded, device
        self.undefined = partitioned.imported.undefined
        self.seed_buffer: Any = None
        # Each step maps the call's operand values to its result values.
        self.steps: list[tuple[func.CallOp, Callable[[list[Any]], list[Any]]]] = []
        self.constants = _constants(self.main, device)
        for op in self.main.body.block.ops:
            if not isinstance(op, func.CallOp):
                continue
            if "torch.node" in op.attributes:
                self.steps.append((op, self._torch_step(op)))
            else:
                island = _island_module(functions[op.callee.string_value()])
                run = _compiled(island, device, settings)
                self.steps.append((op, _IslandStep(run, device, op)))
        output = next(n for n in gm.graph.nodes if n.op == "output")
        self.leaves, self.spec = pytree.tree_flatten(output.args[0])
        self.handed_out = len(self.leaves) - hidden
        if hidden:
            self.spec = pytree.tree_flatten(output.args[0][0])[1]
        self.returned = list(self.main.body.block.last_op.operands)  # type: ignore[union-attr]
        self.fresh = {i for i, leaf in enumerate(self.leaves) if _new_tensor(leaf)}
        """Outputs that are new tensors in torch (a `clone`, an op's result),
        not views of an input: where the import made one an input, another
        output or a constant, the runner hands back a copy."""
        self.views = _views_of_outputs(self.leaves)
        """Outputs that are views (a chain of view ops) of another output or
        of an input: rebuilt in torch from the tensor handed out for that
        output, or from the caller's input, so they alias it as in eager,
        strides included (AOTAutograd rebuilds a view of an input from the
        compiled graph's output with `as_strided`, its strides taken as
        they are; in inference it trusts the compiled graph's views of
        outputs)."""

    def _torch_step(self, op: func.CallOp) -> Callable[[list[Any]], list[Any]]:
        """Run the op's fx node with torch: node arguments in order, folded
        ones from the import, the others from the call's operands."""
        import torch
        import torch.utils._pytree as pytree
        from torch.fx.node import map_arg

        node = self.nodes[op.attributes["torch.node"].data]  # type: ignore[union-attr]
        target = node.target
        # The import erased the graph's clones and `contiguous` calls (they
        # change no value), so a view may meet a tensor of other strides than
        # in the graph; the graph is functional, so reshape means the same.
        if str(target) in ("aten.view.default", "aten._unsafe_view.default"):
            target = torch.ops.aten.reshape.default

        def run(operands: list[Any]) -> list[Any]:
            given = iter(operands)

            def value(n: Any) -> Any:
                if n.name in self.folded:
                    return self.folded[n.name]
                # torch's layout of it, where the island's differs: some ops
                # read their operand's memory as the graph lays it out (the
                # erased clone before `mkldnn_rnn_layer`, batch_first LSTMs)
                held = _as_torch_holds(next(given), n.meta.get("val"))
                return _in_torchs_strides(held, n.meta.get("val"))

            args = map_arg(node.args, value)
            kwargs = map_arg(node.kwargs, value)
            leaves = pytree.tree_leaves(target(*args, **kwargs))
            # as imported: complex results as their real views
            return [_real_view(leaf) for leaf in leaves if leaf is not None]

        return run

    def _seed(self) -> Any:
        """A fresh seed from torch's default generator (`torch.manual_seed`
        makes a run reproducible). On a GPU it is copied into one buffer
        that every call reuses: fxdsl's own CUDA graphs (`cuda_graph`)
        replay with the new value at the same address. Inside a CUDA graph
        capture of the caller's own (`torch.cuda.graph`) no seed can be
        right: the host draws it once, at capture, and every replay would
        repeat the captured numbers, so that is refused, not run."""
        import torch

        seed = torch.from_numpy(draw_seed())
        if self.device != "cuda":
            return seed
        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError(
                "fxdsl: a graph that draws random numbers cannot run under CUDA "
                "graph capture (its seed is drawn on the host per call: a replay "
                "would repeat the captured numbers); call it outside the "
                "capture (the backend's own cuda_graph option replays with a "
                "new seed)"
            )
        if self.seed_buffer is None:
            self.seed_buffer = torch.empty(2, dtype=torch.int64, device="cuda")
        self.seed_buffer.copy_(seed)
        return self.seed_buffer

    def __call__(self, *args: Any) -> Any:
        import torch.utils._pytree as pytree

        env: dict[Any, Any] = dict(self.constants)
        for block_arg, index in zip(self.main.args, self.argument_index):
            env[block_arg] = _real_view(args[index])
        if self.seeded:  # the islands' random numbers: new ones per call
            env[self.main.args[-1]] = self._seed()
        for op, step in self.steps:
            env.update(zip(op.results, step([env[v] for v in op.operands])))
        returned = iter(self.returned)
        flat: list[Any] = []
        handed: dict[Any, Any] = {}  # fx leaf -> the tensor handed out for it
        taken = {id(a) for a in args}  # tensors the caller holds already
        for leaf in self.leaves:
            if leaf is None or not hasattr(leaf, "name"):
                flat.append(leaf)
                continue
            if leaf.name in self.undefined:  # torch gives None for it
                flat.append(None)
                continue
            value = next(returned)  # the function returns every tensor leaf
            if leaf in handed:  # the graph returns one node twice: one tensor
                flat.append(handed[leaf])
                continue
            folded = self.folded.get(leaf.name)
            shared = folded is not None  # a constant, handed out on every call
            if folded is None:
                folded = _as_torch_holds(env[value], leaf.meta.get("val"))
            # A new tensor in torch (a clone, an op's result) that the import
            # made an input, another output or a folded constant: a copy, so
            # the caller's writes to one (AOTAutograd's copy of a mutated
            # input's new value, `out.add_(1)`) never reach the other.
            copied = shared or id(folded) in taken
            if copied and len(flat) in self.fresh and hasattr(folded, "clone"):
                folded = folded.clone()
            if len(flat) in self.fresh and len(flat) not in self.views:
                # a view of an intermediate too: `x.repeat_interleave(3, 0)`
                # is a view of a clone the import dropped
                folded = _in_torchs_strides(folded, leaf.meta.get("val"))
            taken.add(id(folded))
            handed[leaf] = folded
            flat.append(folded)
        for index, (base, chain) in self.views.items():
            if base.op == "placeholder":
                root = args[self.position[base.name]]
            else:
                root = handed[base]
            flat[index] = _viewed(root, chain, flat[index])
        result = pytree.tree_unflatten(flat[: self.handed_out], self.spec)
        return result if isinstance(result, tuple | list) else (result,)


def _in_torchs_strides(tensor: Any, val: Any) -> Any:
    """`tensor` laid out with the strides torch's graph gives it (`val`, the
    node's fake tensor), copied where they differ. The import drops the
    value-preserving `clone`s and `contiguous` calls, so an island may hand
    back `x.permute(...)` strides for `x.permute(...).contiguous()`; code
    after a graph break then calls `.view()` on it, which eager allows."""
    import torch

    if not isinstance(tensor, torch.Tensor) or not isinstance(val, torch.Tensor):
        return tensor
    wanted = val.stride()
    if not all(isinstance(s, int) for s in (*wanted, *val.shape)):
        return tensor  # symbolic sizes or strides: nothing fixed to match
    if tensor.shape != val.shape:
        return tensor
    if _same_layout(tensor.shape, tensor.stride(), wanted):
        return tensor
    laid_out = torch.empty_strided(
        tensor.shape, wanted, dtype=tensor.dtype, device=tensor.device
    )
    try:
        return laid_out.copy_(tensor)
    except RuntimeError:  # strides that overlap (an expand's): no layout to copy
        return tensor


def _same_layout(shape: Any, strides: Any, wanted: Any) -> bool:
    """Strides equal wherever they matter (dims of size 1 read one element
    whatever their stride; an empty tensor has no layout)."""
    if 0 in shape:
        return True
    return all(n == 1 or a == b for n, a, b in zip(shape, strides, wanted))


def _view_step(node: Any) -> bool:
    """Whether the fx node `node` is a view of its first argument: a view
    op, or an item of a view op's tuple (`split_with_sizes(x, ...)[i]`,
    each a view of x)."""
    if getattr(node, "op", None) != "call_function":
        return False
    if node.target is operator.getitem:
        source = node.args[0]
        return getattr(source, "op", None) == "call_function" and _is_view(source)
    return _is_view(node)


DETACH = "aten.alias.default"
"""What `detach` becomes in the core decompositions: a view that torch
hands out with no autograd history."""


def _views_of_outputs(leaves: Sequence[Any]) -> dict[int, tuple[Any, list[Any]]]:
    """Output position -> (the output or input node it is a view of, the
    view nodes from there to it), for outputs reached from another output
    or from an input by view steps (`_view_step`) whose other arguments are
    constants (no fx node among them). An input is the farthest root there
    is."""
    import torch
    import torch.utils._pytree as pytree

    returned = {leaf for leaf in leaves if hasattr(leaf, "name")}
    views: dict[int, tuple[Any, list[Any]]] = {}
    for index, leaf in enumerate(leaves):
        chain, node = [], leaf
        while _view_step(node):
            arguments = pytree.tree_leaves((node.args[1:], node.kwargs))
            if any(isinstance(a, torch.fx.Node) for a in arguments):
                break
            chain.append(node)
            node = node.args[0]
            # the farthest one: a view of a view aliases the root too
            if node in returned or getattr(node, "op", None) == "placeholder":
                views[index] = (node, chain[::-1])
    return views


def _viewed(base: Any, chain: list[Any], computed: Any) -> Any:
    """`chain`'s view steps applied to `base` in torch: a tensor aliasing
    it (detached where the chain detaches: `o.t().detach()` is a view of o
    that requires no grad); `computed` (the island's values) where torch
    refuses the view on this base (its strides are fxdsl's, not eager's)."""
    view = base
    try:
        for node in chain:
            view = node.target(view, *node.args[1:], **node.kwargs)
    except RuntimeError:
        return computed
    if any(target_name(node.target) == DETACH for node in chain):
        view = view.detach()
    return view


def _new_tensor(node: Any) -> bool:
    """Whether the fx output `node` is a tensor of its own in torch: not an
    input, nor a chain of views of one."""
    while _view_step(node):
        node = node.args[0]
    return getattr(node, "op", None) == "call_function"


def _real_view(tensor: Any) -> Any:
    """A complex tensor as fxdsl holds it: its real view, shape + [2]
    (`aten_complex`); any other value as it is."""
    import torch

    if isinstance(tensor, torch.Tensor) and tensor.is_complex():
        return torch.view_as_real(tensor.resolve_conj().resolve_neg())
    return tensor


def _as_torch_holds(value: Any, val: Any) -> Any:
    """A value of the program as torch holds it: the complex tensor of a
    real view where the fx node's value (`val`) is complex."""
    import torch

    if getattr(getattr(val, "dtype", None), "is_complex", False) and not (
        value.is_complex()
    ):
        if value.numel() == 0:
            # an empty tensor counts as contiguous whatever its strides, so
            # .contiguous() keeps them, and view_as_complex wants stride 1
            return value.new_empty(value.shape[:-1], dtype=val.dtype)
        return torch.view_as_complex(value.contiguous())
    return value


def _constants(main: func.FuncOp, device: str) -> dict[Any, Any]:
    """The values of the graph constants `main` computes outside every
    island (no island holds a constant alone: an empty result, a `full`
    that a torch node reads), as torch tensors on `device`."""
    from fxdsl.transforms.constants import ConstantEvaluator

    evaluator = ConstantEvaluator()
    values: dict[Any, Any] = {}
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp | func.ReturnOp):
            continue
        for result, array in zip(op.results, evaluator.evaluate(op)):
            values[result] = _to_torch(np.asarray(array), result.type).to(device)
    return values


class _IslandStep:
    """One island of the runner: its compiled function, called through
    `call_island`; on the GPU with the island's own `DeviceOperands`, so the
    weights and caches it reads on every call are converted once."""

    def __init__(self, run: Callable[..., Any], device: str, op: func.CallOp):
        self.run, self.device, self.op = run, device, op
        self.held: Any = None
        if device == "cuda":
            from fxdsl.runtime.torch_operands import DeviceOperands

            self.held = DeviceOperands()

    def __call__(self, operands: list[Any]) -> list[Any]:
        return call_island(self.run, operands, self.device, self.op, self.held)


def _island_module(function: func.FuncOp) -> ModuleOp:
    """An island's function alone in a module, public, as `fxdsl.compile`
    takes it."""
    clone = function.clone()
    clone.sym_visibility = StringAttr("public")
    return ModuleOp([clone])


def _compiled(module: ModuleOp, device: str, settings: Options) -> Callable[..., Any]:
    import torch

    import fxdsl

    # CUDA graphs are a CUDA executor's; on the CPU the option changes nothing
    graphs = settings.cuda_graph and device == "cuda"
    options: dict[str, Any] = {"cuda_graph": True} if graphs else {}
    if device == "cuda":  # f32 GEMMs as torch's own: TF32 unless "highest"
        options["tf32"] = torch.get_float32_matmul_precision() != "highest"
        # and a convolution's as torch's convolutions (cuDNN): TF32 by default
        options["conv_tf32"] = bool(torch.backends.cudnn.allow_tf32)
        options["bf16_bits"] = True  # bf16 crosses as its bits, zero-copy
    key = (str(module), device, settings.pipeline, *sorted(options.items()))
    return _COMPILED.get(
        key,
        lambda: fxdsl.compile(
            module, backend=device, pipeline=settings.pipeline, **options
        ),
    )


def call_island(
    run: Callable[..., Any],
    operands: list[Any],
    device: str,
    op: func.CallOp,
    held: Any = None,
) -> list[Any]:
    """Torch tensors in, torch tensors out: numpy on the CPU (zero-copy where
    the layout allows), DLPack on the GPU, where a bf16 tensor crosses as
    its `uint16` bits (as the executor holds bf16), both ways: a result given
    as bits is viewed back as bf16, one given as float32 values (an executor
    compiled without `bf16_bits`) is rounded. `held`: the caller's
    `DeviceOperands` on the GPU, which converts each tensor once across
    calls (a fresh one, converting everything, when None)."""
    if device == "cuda":
        import torch

        from fxdsl.runtime.torch_operands import DeviceOperands
        from fxdsl.runtime.torch_stream import on_torch_stream

        held = held or DeviceOperands()
        with on_torch_stream():
            arrays = held(operands)
            results = [torch.from_dlpack(r) for r in run(*arrays)]
        return [
            given if (given := aliased_operand(r, operands, held.pointers)) is not None
            else _bf16_back(r, typ)
            for r, typ in zip(results, op.result_types)
        ]  # fmt: skip
    arrays = [to_numpy(t) for t in operands]
    results = run(*arrays)
    return [_to_torch(r, typ) for r, typ in zip(results, op.result_types)]


def aliased_operand(result: Any, operands: list[Any], pointers: dict[int, int]) -> Any:
    """The operand whose memory `result` is (same address, shape, strides
    and element size; `pointers`: each operand's address -> its position): a
    buffer written in place (a donated KV cache; a bf16 one comes back as
    its `uint16` bits). Handing back the operand itself lets AOTAutograd's
    copy of the new value into the input see one tensor and skip the copy;
    None when `result` is memory of its own."""
    import torch

    address = result.data_ptr()
    if address not in pointers:
        return None
    for original in (operands[pointers[address]], *operands):
        crossed = torch.uint16 if original.dtype == torch.bfloat16 else original.dtype
        if (
            original.data_ptr() == address
            and result.shape == original.shape
            and result.stride() == original.stride()
            and result.dtype == crossed
        ):
            return original
    return None


def _bf16_back(tensor: Any, typ: Any) -> Any:
    """A CUDA island's result as torch holds its type: bf16 from its bits
    (a view) or from float32 values (rounded)."""
    import torch

    from fxdsl.ir.dtypes import is_bf16

    if not is_bf16(typ.element_type):
        return tensor
    if tensor.dtype == torch.uint16:
        return tensor.view(torch.bfloat16)
    return tensor.to(torch.bfloat16)


def _to_torch(array: Any, typ: Any) -> Any:
    import torch

    from fxdsl.ir.dtypes import is_bf16

    tensor = torch.from_numpy(array)
    return tensor.to(torch.bfloat16) if is_bf16(typ.element_type) else tensor


__all__ = ["Options", "compile_aten_graph", "fxdsl_backend"]
