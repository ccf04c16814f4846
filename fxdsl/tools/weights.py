"""Weights side files: the arrays of a function's `graph.param` arguments.

`fxdsl-import model.pt2 -o model.mlir` writes the IR and, beside it,
`model.weights.npz`: one array per parameter, named by its fqn (the
argument's `graph.param`). `fxdsl-run model.mlir` picks that file up by
itself (or takes `--weights FILE`): parameter arguments are bound from it,
and `--inputs` then gives only the other arguments.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func

from fxdsl.ir.graph import PARAM

Array = np.ndarray[Any, Any]


def side_file(ir_path: str) -> Path:
    """Where the weights of `model.mlir` live: `model.weights.npz`."""
    path = Path(ir_path)
    return path.with_name(f"{path.stem}.weights.npz")


def parameter_names(function: func.FuncOp) -> list[str | None]:
    """Each argument's `graph.param` fqn, None for a user input."""
    names: list[str | None] = [None] * len(function.args)
    if function.arg_attrs is None:
        return names
    for index, attrs in enumerate(function.arg_attrs.data):
        param = attrs.data.get(PARAM)
        names[index] = getattr(param, "data", None)
    return names


def save_weights(
    path: str | Path, names: Sequence[str], arrays: Sequence[Array]
) -> None:
    """Write `arrays` by fqn to an .npz (atomically: all or nothing)."""
    import io

    from fxdsl.util.atomic_write import write_atomic

    buffer = io.BytesIO()
    np.savez(buffer, **dict(zip(names, arrays, strict=True)))
    write_atomic(path, buffer.getvalue())


def load_weights(path: str | Path) -> dict[str, Array]:
    """The arrays of a weights file, by fqn; ValueError if unreadable (not
    a file, not an .npz archive, or a damaged one)."""
    try:
        with open(path, "rb") as file:
            head = file.read(4)
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(f"cannot read weights '{path}': {reason}") from error
    if not head.startswith(b"PK"):
        what = "a .npy file, not" if head == b"\x93NUM" else "not"
        raise ValueError(
            f"cannot read weights '{path}': {what} an .npz archive (the arrays "
            "of the graph.param arguments by name, as fxdsl-import writes them)"
        )
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (
        OSError,
        ValueError,
        EOFError,
        KeyError,
        zipfile.BadZipFile,
        zlib.error,
    ) as error:
        # truncated or corrupted: zipfile, zlib or numpy say where
        raise ValueError(
            f"cannot read weights '{path}': a damaged .npz archive ({error})"
        ) from error


def bind(
    function: func.FuncOp, weights: dict[str, Array], inputs: Sequence[Array]
) -> list[Array]:
    """All arguments of `function`: parameters from `weights`, the rest from
    `inputs` in order. A missing parameter or a wrong input count is a
    ValueError naming it."""
    names = parameter_names(function)
    users = [i for i, name in enumerate(names) if name is None or name not in weights]
    missing = [n for n in names if n is not None and n not in weights]
    if missing and len(inputs) != len(users):
        raise ValueError(f"the weights file has no array for parameter '{missing[0]}'")
    if len(inputs) != len(users):
        raise ValueError(
            f"@{function.sym_name.data} takes {len(users)} input(s) besides its "
            f"weights, got {len(inputs)}"
        )
    given = iter(inputs)
    return [
        weights[name] if name is not None and name in weights else next(given)
        for name in names
    ]
