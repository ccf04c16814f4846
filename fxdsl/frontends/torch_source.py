"""What the torch importer reads (`Source`): an fx graph, which of its
placeholders are weights, which values are known before import, and which
outputs are new values of inputs; and how an `ExportedProgram`'s graph
signature says all that (`exported_source`): parameters are weights,
buffers and constants known values, except the buffers the program writes,
which are weights too (the function returns their new values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fxdsl.frontends.torch_nodes import TorchImportError
from fxdsl.frontends.torch_signatures import preserved_signatures


@dataclass
class Source:
    """What the importer reads: an fx graph, which placeholders are weights
    (name → (fqn, tensor)), and the values of nodes known before import."""

    graph: Any
    weights: dict[str, tuple[str, Any]]
    known: dict[Any, Any]
    mutations: dict[int, str] = field(default_factory=dict)
    """Outputs that are new values of inputs (a core-ATen program's
    USER_INPUT_MUTATION and BUFFER_MUTATION outputs): the position among
    the output's leaves → the placeholder's name."""
    effects: set[int] = field(default_factory=set)
    """Outputs that are effect tokens (a core-ATen program whose only
    effects are error checks, `CHECKS`): the positions the import drops."""
    stateful: bool = False
    """Whether a write into a placeholder becomes a result (an exported
    program's); else it is an UnsupportedNode (a graph module's: the
    torch.compile backend's graphs are functional already)."""
    signatures: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict
    )
    """Preserved module call signatures by call name: the names of their
    input and output nodes (`torch_signatures`)."""

    def aliases(self) -> dict[str, tuple[str, ...]]:
        """Weights that are one tensor under several names (a shared
        submodule, tied weights; torch.export gives each name its own
        placeholder): placeholder name -> the tensor's fqns, in placeholder
        order."""
        fqns: dict[int, list[str]] = {}
        for fqn, tensor in self.weights.values():
            fqns.setdefault(id(tensor), []).append(fqn)
        return {
            name: tuple(fqns[id(tensor)])
            for name, (_, tensor) in self.weights.items()
            if len(fqns[id(tensor)]) > 1
        }


class StateFound(Exception):
    """Buffers read as constants turned out to be written (a default-level
    program's hidden mutation, `batch_norm` in training): the import starts
    again with them as arguments (`exported_source(program, state)`)."""

    def __init__(self, names: set[str]) -> None:
        super().__init__(", ".join(sorted(names)))
        self.names = frozenset(names)


def exported_source(program: Any, state: frozenset[str] = frozenset()) -> Source:
    """Parameters (and buffers, constants) as weights, buffers, constants
    and non-tensor user inputs as known values; buffers the program writes
    (and those named in `state`) as weights, whose new values it returns."""
    import torch

    signature = program.graph_signature
    kinds = {spec.arg.name: spec for spec in signature.input_specs}
    buffers = {spec.target: name for name, spec in kinds.items()}
    source = Source(program.graph, {}, {}, stateful=True)
    source.signatures = preserved_signatures(program)
    for position, spec in enumerate(signature.output_specs):
        kind = spec.kind.name
        if kind == "USER_INPUT_MUTATION":
            source.mutations[position] = str(spec.target)
        elif kind == "BUFFER_MUTATION":
            source.mutations[position] = buffers[spec.target]
        elif kind == "TOKEN":
            source.effects.add(position)
        elif kind != "USER_OUTPUT":
            raise TorchImportError(
                f"the program has a {kind} output ({spec.arg.name}); only "
                "programs that return user outputs and write their inputs or "
                "buffers import"
            )
    _check_effects(program.graph)
    written = state | set(source.mutations.values())
    for node in program.graph.nodes:
        if node.op != "placeholder":
            continue
        spec = kinds[node.name]
        kind, target = spec.kind.name, spec.target
        if kind == "TOKEN":
            source.known[node] = None  # threads the effects' order only
        elif kind == "BUFFER" and node.name in written:
            source.weights[node.name] = (target, _state(program, target))
        elif kind in ("BUFFER", "CONSTANT_TENSOR"):
            source.known[node] = _state(program, target)
        elif kind == "PARAMETER":
            source.weights[node.name] = (target, _state(program, target))
        elif not isinstance(node.meta.get("val"), torch.Tensor):
            source.known[node] = node.meta.get("val")
    return source


CHECKS = frozenset({"aten._linalg_check_errors.default"})
"""Effectful ops that only check their arguments and raise (torch.export
threads an effect token through them): the import drops them, as the
default level's `linalg_inv` (which checks nothing in fxdsl) does, so a
singular matrix gives inf/NaN instead of torch's LinAlgError."""


def _check_effects(graph: Any) -> None:
    """Refuse a program with an effect other than an error check: dropping
    its token would drop the effect."""
    for node in graph.nodes:
        if node.op == "call_function" and str(node.target) == "with_effects":
            effect = str(node.args[1])
            if effect not in CHECKS:
                raise TorchImportError(
                    f"{node.name} has the side effect {effect}; only programs "
                    f"whose effects are error checks ({', '.join(sorted(CHECKS))}) "
                    "import"
                )


def _state(program: Any, target: str) -> Any:
    if target in program.state_dict:
        return program.state_dict[target]
    return program.constants[target]


__all__ = ["CHECKS", "Source", "StateFound", "exported_source"]
