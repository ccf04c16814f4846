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
are left out of the signature. A signature naming a node that imports as no
live graph value (dead code, a complex value) is dropped with a warning:
the import itself never fails for a signature.
"""

from __future__ import annotations

import warnings
from typing import Any

from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

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
    kept: dict[str, Signature] = {}
    for call, (inputs, outputs) in signatures.items():
        missing = [n for n in (*inputs, *outputs) if not _live(values.get(n))]
        if missing:
            warnings.warn(
                f"the preserved signature of '{call}' is dropped: {missing} "
                "import as no live tensor value of the graph (dead, or not "
                "a tensor); graph-unflatten gives the call its own interface",
                stacklevel=2,
            )
            continue
        kept[call] = (inputs, outputs)
        for name in (*inputs, *outputs):
            alias[name] = first.setdefault(values[name], name)
    for value, name in first.items():
        set_value_name(value, name)
    if not kept:
        return
    module.attributes[CALL_SIGNATURES] = DictionaryAttr(
        {
            call: SignatureAttr(
                (
                    tuple(alias[n] for n in inputs),
                    tuple(alias[n] for n in outputs),
                )
            )
            for call, (inputs, outputs) in kept.items()
        }
    )


def _live(value: Any) -> bool:
    """Is `value` an SSA value still in the program (not erased as unused)?"""
    if not isinstance(value, SSAValue):
        return False
    owner = value.owner
    return not isinstance(owner, Operation) or owner.parent is not None
