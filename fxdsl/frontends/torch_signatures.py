"""torch.export's preserved module call signatures, imported.

`torch.export.export(model, args, preserve_module_call_signature=("enc",))`
records, in `ExportedProgram.module_call_graph`, the fx nodes that are the
inputs and outputs of each such call. The importer names those values
(`graph.name`, on the op or function argument that holds each) and records
the signatures as the module attribute `graph.call_signatures`, which
`graph-unflatten` then honours (`fxdsl.transforms.call_signatures`).

Two nodes that import as one value (a `clone` imports as nothing) share the
value's first name; the signatures are rewritten to it. Non-tensor
arguments (a Python number passed to the module: a constant of the graph)
are left out of the signature. A named tensor node that imports as no
graph value (a complex value) makes the import fail with a clear error.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from fxdsl.frontends.torch_nodes import TorchImportError
from fxdsl.ir.graph import CALL_SIGNATURES, SignatureAttr

Signature = tuple[tuple[str, ...], tuple[str, ...]]


def preserved_signatures(program: Any) -> dict[str, Signature]:
    """Call name → (input node names, output node names) of every call whose
    signature the program preserved."""
    from torch.export.graph_signature import TensorArgument

    signatures: dict[str, Signature] = {}
    for entry in getattr(program, "module_call_graph", ()):
        signature = entry.signature
        if not entry.fqn or signature is None:
            continue
        inputs, outputs = (
            tuple(a.name for a in side if isinstance(a, TensorArgument))
            for side in (signature.inputs, signature.outputs)
        )
        signatures[entry.fqn] = (inputs, outputs)
    return signatures


def name_values(
    module: ModuleOp, signatures: dict[str, Signature], values: dict[str, Any]
) -> None:
    """Name each signature value (`values`: node name → its SSA value, or
    None where it imported as none) and record the signatures on `module`."""
    from fxdsl.transforms.call_signatures import set_value_name

    first: dict[SSAValue, str] = {}
    alias: dict[str, str] = {}
    for call, (inputs, outputs) in signatures.items():
        for name in (*inputs, *outputs):
            value = values.get(name)
            if not isinstance(value, SSAValue):
                raise TorchImportError(
                    f"'{name}' of the preserved signature of '{call}' imports "
                    "as no tensor value of the graph"
                )
            alias[name] = first.setdefault(value, name)
    for value, name in first.items():
        if isinstance(value.owner, Operation) and value.owner.parent is None:
            continue  # erased as unused: unflatten names it missing
        set_value_name(value, name)
    module.attributes[CALL_SIGNATURES] = DictionaryAttr(
        {
            call: SignatureAttr(
                (
                    tuple(alias[n] for n in inputs),
                    tuple(alias[n] for n in outputs),
                )
            )
            for call, (inputs, outputs) in signatures.items()
        }
    )
