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
- **Writes into inputs** (a batch norm's running statistics in training,
  `x.index_add_(...)`) keep the function value-semantic: it returns the
  written inputs' new values after the user outputs, and
  `ImportedProgram.run` writes them back as torch would (`torch_state`).
  Torch's decompositions are traced under its functionalization, so their
  in-place ops are values too.
- **Errors** are `TorchImportError`s naming the ATen op, the node and the
  source line of its `stack_trace`; a dynamic dim asks for static shapes.

torch is imported lazily: `import fxdsl` never needs it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.utils.exceptions import VerifyException

from fxdsl.frontends import aten_ops
from fxdsl.frontends.aten_registry import target_name
from fxdsl.frontends.torch_importer import (
    ImportedProgram,
    _attribute,
    _Importer,
    to_numpy,
)
from fxdsl.frontends.torch_nodes import (
    TorchImportError,
)
from fxdsl.frontends.torch_source import Source, StateFound, exported_source
from fxdsl.frontends.torch_state import StateUpdate


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
    identity; an ExportedProgram of training mode imports its training
    semantics through `from_exported_program`); `decompose=True` imports
    the core-ATen graph (`run_decompositions()`) instead of the default
    one; the IR is the same either way. `freeze`: as `from_exported_program`'s.
    A model returning a non-tensor output torch.export cannot flatten (a
    Hugging Face `DynamicCache`) is a TorchImportError saying what to do;
    any other failure of torch.export is a TorchImportError too, with
    torch's exception as its cause.
    """
    import torch

    training = bool(getattr(model, "training", False))
    if training and _mode_matters(model):
        warnings.warn(
            f"from_torch: {type(model).__name__} is in training mode; fxdsl imports "
            "its eval-mode semantics (BatchNorm's running statistics, no dropout); "
            "call model.eval() first to say that is what you want, or export it "
            "in training mode yourself (torch.export.export) and import that "
            "with from_exported_program: batch statistics, with the running "
            "ones written back into the model's buffers",
            stacklevel=2,
        )
        model.eval()
    try:
        with torch.no_grad():
            program = torch.export.export(model, tuple(args), kwargs, strict=strict)
            if decompose:
                program = program.run_decompositions()
    except Exception as error:
        clear = _unflattenable_output(error)
        if clear is not None:
            raise clear from None
        # torch.export's own failure (a data-dependent branch, an op it
        # cannot trace): one exception type for callers, torch's message
        # and traceback kept as the cause
        first = (str(error).strip().splitlines() or [""])[0]
        raise TorchImportError(
            f"torch.export could not export the model ({type(error).__name__}: "
            f"{first[:300]}); fxdsl imports what torch.export gives, so the "
            "model must export first (torch's message is this error's cause)"
        ) from error
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
    fold weight-only math, such as batch norms into convs.

    Buffers the program writes (running statistics in training) are
    arguments, never constants, frozen or not: the function returns their
    new values after the user outputs, and `ImportedProgram.run` writes
    them back (`torch_state`)."""
    import torch

    with torch.no_grad():
        program = _without_predispatch_regions(program)
        imported = _import(
            lambda state: _Importer(exported_source(program, state)), name
        )
    if freeze:
        _freeze(imported, name)
    return imported


PREDISPATCH_REGIONS = ("wrap_with_set_grad_enabled", "wrap_with_autocast")
"""The higher-order ops torch.export's default graph wraps a `with
torch.no_grad()/enable_grad()` or `with torch.autocast(...)` block in."""


def _without_predispatch_regions(program: Any) -> Any:
    """`program`, or where its default graph holds pre-dispatch regions
    (grad-mode and autocast blocks, torch.vmap's batching calls) its
    `run_decompositions({})`: the same ATen ops, no op decomposed, with the
    regions inlined (autocast's casts spelled out, vmap batched away)."""
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        module = getattr(node.target, "__module__", "") or ""
        if target_name(node.target) in PREDISPATCH_REGIONS or module.startswith(
            "torch._functorch.predispatch"
        ):
            return program.run_decompositions({})
    return program


def _freeze(imported: ImportedProgram, name: str) -> None:
    """Bind the weights the program does not write as constants."""
    from fxdsl.interpreters.run import entry_function
    from fxdsl.ir.graph import PARAM
    from fxdsl.ir.utils import arg_attr
    from fxdsl.transforms.freeze import freeze_function

    written = sorted(u.index for u in imported.updates if u.kind == "weight")
    function = entry_function(imported.module, name)
    fqns = [arg_attr(function, i, PARAM) for i in range(len(imported.weights))]
    bound = {
        fqn: array
        for i, (fqn, array) in enumerate(zip(fqns, imported.weights))
        if i not in written
    }
    freeze_function(imported.module, function, bound)
    imported.weights = [imported.weights[i] for i in written]
    imported.buffers = {
        written.index(i): tensor for i, tensor in imported.buffers.items()
    }
    imported.updates = [
        StateUpdate(u.kind, written.index(u.index), u.name) if u.kind == "weight" else u
        for u in imported.updates
    ]


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
        return _import(lambda _: _Importer(source, fallback, dict(forced or {})), name)


def _import(make: Callable[[frozenset[str]], _Importer], name: str) -> ImportedProgram:
    """Import fast (the module verified once, at the end); if it does not
    verify, import again verifying each op, which names the node at fault.
    `make(state)` builds an importer that takes the buffers named in
    `state` as arguments: when the import finds more buffers written
    (`StateFound`), it starts again with them."""
    state: frozenset[str] = frozenset()
    while True:
        try:
            try:
                return make(state).run(name)
            except VerifyException:
                importer = make(state)
                importer.verify_each = True
                return importer.run(name)
        except StateFound as found:
            if found.names <= state:
                raise TorchImportError(
                    f"the program writes buffers {found} that stay constants"
                ) from None
            state |= found.names


__all__ = [
    "ImportedProgram",
    "TorchImportError",
    "aten_ops",
    "from_exported_program",
    "from_graph_module",
    "from_torch",
    "to_numpy",
]
