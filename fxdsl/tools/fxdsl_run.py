"""`fxdsl-run`: run a function of an IR file and print checksums of its results.

    fxdsl-run model.mlir -p graph-fuse --check
    fxdsl-run model.mlir --inputs x.npy,w.npy --entry block --save-outputs out/

The file is parsed (ops located), verified, optionally transformed by a `-p`
pipeline, and its entry function (default: the first public one) is run on
random inputs (`--seed`) or on `.npy` files, on the numpy reference
interpreter (`--backend cpu`) or the CUDA backend (`--backend cuda` without
CuPy or a GPU: `error: backend 'cuda' is unavailable: <reason>`, exit 1;
`--backend auto` then notes it and runs the reference). Each result prints
as one line: index, type, and checksums (sum, mean of |x|, and sum(x * w)
with weights w linearly spaced in [1, 2], which also sees permutations).

`--check` runs the unmodified input module on the reference too and reports,
per result, the max absolute and relative difference; results beyond
tolerance (default by dtype: f32 rtol 1e-5 atol 1e-6; f16 1e-3/1e-3; bf16
1e-2/1e-2; integers and i1 exact; floats also allow the slack of reordered
sums, `fxdsl.interpreters.tolerance`, so split-K passes) exit 1. Every
failure is one `error:` line and exit code 1, never a traceback.

A module without a function body (an empty module, or declarations only)
has nothing to run: without `--entry` that is a `note:` line and exit 0, as
`fxdsl-opt` accepts it too. numpy's warnings about the values (NaN from a
variance of one element, log of a negative number) are not printed: the
checksums show NaN and inf, as torch returns them silently.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError, VerifyException

from fxdsl.api import apply, parse_pipeline, run
from fxdsl.interpreters.graph import InterpretationFailure
from fxdsl.interpreters.run import (
    coerce_inputs,
    entry_function,
    random_inputs,
    run_reference,
)
from fxdsl.interpreters.tolerance import close_elements, reorder_slack, summed_terms
from fxdsl.ir.dtypes import numpy_dtype
from fxdsl.ir.parsing import parse_module
from fxdsl.ir.utils import functions
from fxdsl.runtime.compile import BackendUnavailable
from fxdsl.tools.diagnostics import (
    DriverArgumentParser,
    UserError,
    decode_source,
    first_line,
    run_driver,
    verify_located,
)
from fxdsl.tools.weights import bind, load_weights, parameter_names, side_file

Array = np.ndarray[Any, Any]
F32_TOLERANCE = (1e-5, 1e-6)
DESCRIPTION = "run a function of an IR file and print checksums of its results"
INPUTS_HELP = "'random' or comma-separated .npy files"
NPY_MAGIC = b"\x93NUMPY"
BLANK = re.compile(r"(?:\s|//[^\n]*)*")
"""Input with nothing but blanks and comments: an empty module."""


def build_parser() -> argparse.ArgumentParser:
    parser = DriverArgumentParser(prog="fxdsl-run", description=DESCRIPTION)
    parser.add_argument("file", help="IR file to run ('-' for stdin)")
    parser.add_argument("-p", "--pipeline", default="", help="passes to apply first")
    parser.add_argument("--entry", help="function to run (default: first public)")
    parser.add_argument(
        "--inputs", default="random", help=INPUTS_HELP + " (default: random)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs")
    parser.add_argument(
        "--weights",
        help="weights of the graph.param arguments (.npz by fqn; default: "
        "FILE.weights.npz beside the IR file when it exists)",
    )
    parser.add_backend_argument(default="cpu")
    parser.add_argument(
        "--check", action="store_true", help="compare with the unmodified input"
    )
    parser.add_argument("--rtol", type=tolerance, help="relative tolerance for --check")
    parser.add_argument("--atol", type=tolerance, help="absolute tolerance for --check")
    parser.add_argument("--save-outputs", metavar="DIR", help="write resultN.npy here")
    return parser


# --------------------------------------------------------------------------- #
# Steps
# --------------------------------------------------------------------------- #


def tolerance(text: str) -> float:
    """A `--rtol`/`--atol` value: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got '{text}'")
    return value


def load_module(path: str) -> ModuleOp:
    name = "<stdin>" if path == "-" else path
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    text = decode_source(data, name)
    if BLANK.fullmatch(text):
        return ModuleOp([])  # as fxdsl-opt reads it
    module = parse_module(text, name)
    verify_located(module, name)
    return module


def apply_pipeline(module: ModuleOp, pipeline: str, where: str) -> None:
    try:
        passes = parse_pipeline(pipeline)
    except ValueError as error:
        raise UserError(f"bad pipeline '{pipeline}': {error}", where) from error
    try:
        apply(module, passes)
    except VerifyException:
        verify_located(module, where)
        raise


def load_inputs(
    spec: str, module: ModuleOp, entry: str | None, seed: int
) -> list[Array]:
    if spec == "random":
        try:
            return random_inputs(module, entry, seed)
        except MemoryError:
            raise UserError(_too_big_for_memory(module, entry)) from None
    return load_arrays(spec)


def _too_big_for_memory(module: ModuleOp, entry: str | None) -> str:
    """Why `--inputs random` ran out of memory: the largest argument and
    the total, in bytes of their element types."""
    function = entry_function(module, entry)
    sizes: list[tuple[int, int, Attribute]] = []
    for index, arg in enumerate(function.args):
        typ = arg.type
        if isinstance(typ, TensorType):
            count = math.prod(typ.get_shape())
            itemsize = numpy_dtype(typ.element_type).itemsize
            sizes.append((count * itemsize, index, typ))
    nbytes, index, typ = max(sizes, key=lambda size: size[0])
    arg = function.args[index]
    name = f" (%{arg.name_hint})" if arg.name_hint else ""
    total = sum(size for size, _, _ in sizes)
    return (
        f"--inputs random: not enough memory for the inputs of "
        f"@{function.sym_name.data}: argument {index}{name}, {typ}, needs "
        f"{_bytes_text(nbytes)} (all arguments: {_bytes_text(total)})"
    )


def _bytes_text(nbytes: int) -> str:
    value = float(nbytes)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{nbytes} bytes" if unit == "bytes" else f"{value:.3g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def load_arrays(spec: str) -> list[Array]:
    arrays: list[Array] = []
    paths = spec.split(",")
    for path in paths:
        if not Path(path).exists():
            if len(paths) == 1 and not path.endswith(".npy"):
                raise UserError(
                    f"--inputs '{path}' is neither 'random' nor a file: "
                    f"--inputs takes {INPUTS_HELP}"
                )
            raise UserError(f"cannot read input '{path}': no such file")
        arrays.append(_load_npy(path))
    return arrays


def _load_npy(path: str) -> Array:
    try:
        with open(path, "rb") as file:
            head = file.read(len(NPY_MAGIC))
            if head != NPY_MAGIC:
                what = "an .npz archive, not" if head.startswith(b"PK") else "not"
                raise UserError(
                    f"cannot read input '{path}': {what} a .npy file "
                    f"(--inputs takes {INPUTS_HELP})"
                )
            file.seek(0)
            return np.load(file, allow_pickle=False)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UserError(f"cannot read input '{path}': {reason}") from error
    except (ValueError, EOFError) as error:
        raise UserError(f"cannot read input '{path}': {error}") from error


def with_weights(
    args: argparse.Namespace, module: ModuleOp, entry: str, inputs: list[Array]
) -> list[Array]:
    """`inputs` with the parameter arguments bound from the weights file
    (`--weights`, or the side file `fxdsl-import` wrote); unchanged without
    one. Random inputs then fill only the other arguments."""
    path = args.weights
    if path is None and args.file != "-" and side_file(args.file).is_file():
        path = str(side_file(args.file))
    if path is None:
        return inputs
    function = entry_function(module, entry)
    if args.inputs == "random":
        users = [i for i, n in enumerate(parameter_names(function)) if n is None]
        inputs = [inputs[i] for i in users]
    return bind(function, load_weights(path), inputs)


@contextmanager
def quiet_numpy() -> Iterator[None]:
    """No numpy warnings about values (invalid, divide, overflow; a variance
    with no degrees of freedom): NaN and inf show in the checksums. fxdsl's
    own warnings (a kernel falling back to the reference) still print."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numpy\.")
        yield


def run_backend(
    module: ModuleOp, inputs: Sequence[Array], entry: str, backend: str
) -> tuple[Array, ...]:
    """Run on `backend`; "auto" falls back to the cpu reference with a note."""
    if backend != "cpu":
        try:
            return run(module, *inputs, entry=entry, backend="cuda")
        except BackendUnavailable as error:
            if backend == "cuda":
                message = f"backend 'cuda' is unavailable: {error.reason}"
                raise UserError(message) from None
            print(f"note: running on the cpu reference ({error})")
    return run_reference(module, *inputs, entry=entry)


def checksum_line(index: int, value: Array, typ: Attribute) -> str:
    """`result N: <type> sum=… mean_abs=… wsum=…` for one result."""
    flat = np.asarray(value, dtype=np.float64).ravel()
    # Positive weights: wsum does not cancel to rounding noise for symmetric data.
    weights = np.linspace(1.0, 2.0, flat.size)
    # inf - inf in a sum is nan, which the line shows; no numpy warning
    with np.errstate(all="ignore"):
        mean_abs = float(np.abs(flat).mean()) if flat.size else 0.0
        return (
            f"result {index}: {typ} sum={flat.sum():.9e} mean_abs={mean_abs:.9e} "
            f"wsum={float(flat @ weights):.9e}"
        )


def default_tolerance(element_type: Attribute) -> tuple[float, float]:
    if isinstance(element_type, IntegerType):
        return (0.0, 0.0)
    if isinstance(element_type, Float16Type):
        return (1e-3, 1e-3)
    if isinstance(element_type, BFloat16Type):
        return (1e-2, 1e-2)
    return F32_TOLERANCE


def compare(
    actual: Array, expected: Array, rtol: float, atol: float, terms: int = 0
) -> tuple[float, float, bool]:
    """(max abs diff, max rel diff, within tolerance); NaNs must match;
    `terms`: the reference's summed terms (`fxdsl.interpreters.tolerance`)."""
    a = np.asarray(actual, dtype=np.float64)
    b = np.asarray(expected, dtype=np.float64)
    if a.shape != b.shape:
        return (np.inf, np.inf, False)
    with np.errstate(all="ignore"):
        # Equal values (equal infinities too) and NaN in both differ by 0;
        # NaN in one only, or opposite infinities, differ by inf.
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        diff = np.where(same, 0.0, np.abs(a - b))
        diff = np.where(np.isnan(diff), np.inf, diff)
        scale = np.fmax(np.abs(b), np.finfo(np.float64).tiny)
        rel = np.where(diff == 0, 0.0, diff / scale)
        ok = bool(np.all(close_elements(a, b, rtol, atol, terms)))
    return (float(diff.max(initial=0.0)), float(rel.max(initial=0.0)), ok)


def check_against_reference(
    reference: ModuleOp,
    inputs: Sequence[Array],
    entry: str,
    outputs: Sequence[Array],
    types: Sequence[Attribute],
    args: argparse.Namespace,
) -> bool:
    expected = run_reference(reference, *inputs, entry=entry)
    if len(expected) != len(outputs):
        raise UserError(
            f"the pipeline changed the result count: {len(outputs)} results, the "
            f"unmodified module has {len(expected)}"
        )
    all_ok = True
    terms = summed_terms(reference)
    for index, (out, want, typ) in enumerate(zip(outputs, expected, types)):
        element_type = typ.element_type if isinstance(typ, TensorType) else typ
        rtol, atol = default_tolerance(element_type)
        rtol = args.rtol if args.rtol is not None else rtol
        atol = args.atol if args.atol is not None else atol
        exact = isinstance(element_type, IntegerType)
        max_abs, max_rel, ok = compare(out, want, rtol, atol, 0 if exact else terms)
        slack = 0.0 if exact else reorder_slack(np.asarray(want, np.float64), terms)
        reorder = f" +{slack:.3g} for {terms} summed terms" if slack else ""
        all_ok &= ok
        print(
            f"check {index}: max_abs_diff={max_abs:.3e} max_rel_diff={max_rel:.3e} "
            f"(rtol={rtol:g} atol={atol:g}{reorder}) {'ok' if ok else 'MISMATCH'}"
        )
    return all_ok


def save_outputs(directory: str, outputs: Sequence[Array]) -> None:
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    for index, value in enumerate(outputs):
        np.save(folder / f"result{index}.npy", value)


# --------------------------------------------------------------------------- #
# Driver
# --------------------------------------------------------------------------- #


def run_main(argv: Sequence[str], located: list[str]) -> int:
    args = build_parser().parse_args(argv)
    where = "<stdin>" if args.file == "-" else args.file
    located.append(where)
    module = load_module(args.file)
    if args.entry is None and all(f.is_declaration for f in functions(module)):
        if args.pipeline:
            apply_pipeline(module, args.pipeline, where)
        print(f"note: nothing to run: {where} has no func.func with a body")
        return 0
    reference = module.clone() if args.check else None
    try:
        entry = entry_function(module, args.entry).sym_name.data
        # Inputs come from the unmodified module, so that --check compares
        # both runs on identical inputs.
        inputs = load_inputs(args.inputs, module, entry, args.seed)
        inputs = with_weights(args, module, entry, inputs)
    except ValueError as error:
        raise UserError(str(error), where) from error
    if args.pipeline:
        apply_pipeline(module, args.pipeline, where)
    try:
        function = entry_function(module, entry)
        inputs = coerce_inputs(function, inputs)
        with quiet_numpy():
            outputs = run_backend(module, inputs, entry, args.backend)
    except MemoryError as error:
        message = f"not enough memory to run @{entry}: {first_line(error)}"
        raise UserError(message, where) from None
    except InterpretationFailure as error:
        raise UserError(error.message, error.where or where) from error
    except InterpretationError as error:
        # e.g. an op the reference interpreter has no implementation for.
        raise UserError(str(error).strip().splitlines()[0], where) from error
    except ValueError as error:
        raise UserError(str(error), where) from error
    types = function.function_type.outputs.data
    count = f"{len(outputs)} result{'' if len(outputs) == 1 else 's'}"
    print(f"@{entry}: {count} ({_inputs_text(args)})")
    for index, (value, typ) in enumerate(zip(outputs, types)):
        print(checksum_line(index, value, typ))
    if args.save_outputs:
        save_outputs(args.save_outputs, outputs)
    if reference is not None:
        try:
            with quiet_numpy():
                same = check_against_reference(
                    reference, inputs, entry, outputs, types, args
                )
        except ValueError as error:
            raise UserError(f"reference run failed: {error}", where) from error
        if not same:
            raise UserError("results differ from the unmodified module", where)
    return 0


def _inputs_text(args: argparse.Namespace) -> str:
    if args.inputs == "random":
        return f"random inputs, seed {args.seed}"
    return f"inputs {args.inputs}"


def main(argv: Sequence[str] | None = None) -> int:
    return run_driver(run_main, argv)


if __name__ == "__main__":
    sys.exit(main())
