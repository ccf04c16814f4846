"""Writing a program's new values of its inputs back, as torch does.

A torch program may write into its inputs: a batch norm in training
updates its running statistics, `x.index_add_(...)` its `x`. The importer
keeps the graph value-semantic: the function returns each written input's
new value after the user outputs (`ImportedProgram.updates` says whose, one
`StateUpdate` each), and `ImportedProgram.run` hands them back here: into
the weight arrays the program is called with next (a buffer's running
statistics), into the torch tensor the weight came from (the model's own
buffer), and into the caller's tensors and arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np


@dataclass(frozen=True)
class StateUpdate:
    """One result after the user outputs: the new value of weight `index`
    (`ImportedProgram.weights`, a buffer; `name` its fqn) or of user input
    `index` (`name` its placeholder's)."""

    kind: Literal["weight", "input"]
    index: int
    name: str


def check_writable(updates: Sequence[StateUpdate], inputs: Sequence[Any]) -> None:
    """A ValueError naming the first user input the program writes that is
    neither a torch tensor nor a numpy array (checked before the run, so
    nothing is half written)."""
    for update in updates:
        if update.kind == "input" and not _writable(inputs[update.index]):
            raise ValueError(
                f"the program writes its input {update.index} (%{update.name}), "
                "as torch does; pass a torch tensor or a numpy array there, not "
                f"a {type(inputs[update.index]).__name__}"
            )


def _writable(target: Any) -> bool:
    return isinstance(target, np.ndarray) or (
        hasattr(target, "copy_") and hasattr(target, "detach")
    )


def write_back(
    updates: Sequence[StateUpdate],
    values: Sequence[Any],
    weights: list[np.ndarray[Any, Any]],
    inputs: Sequence[Any],
    buffers: Mapping[int, Any],
) -> None:
    """Write `values` (one per update) into `weights` (in place) and the
    torch tensors they came from (`buffers`, by weight index),
    and into the caller's `inputs` (`check_writable` first)."""
    for update, value in zip(updates, values, strict=True):
        if update.kind == "weight":
            np.copyto(weights[update.index], value, casting="unsafe")
            if update.index in buffers:
                _into(buffers[update.index], value)
        else:
            _into(inputs[update.index], value)


def _into(target: Any, value: Any) -> None:
    if isinstance(target, np.ndarray):
        np.copyto(target, value, casting="unsafe")
        return
    import torch

    source = torch.from_numpy(np.array(value))  # a copy, 0-d kept 0-d
    with torch.no_grad():
        target.copy_(source.to(dtype=target.dtype, device=target.device))


__all__ = ["StateUpdate", "check_writable", "write_back"]
