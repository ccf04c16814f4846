"""`fxdsl-import`: a saved torch.export program → graph IR and weights.

    fxdsl-import model.pt2 -o model.mlir          # + model.weights.npz
    fxdsl-opt model.mlir -p graph-decompose,graph-fuse
    fxdsl-run model.mlir --inputs ids.npy         # weights picked up by name

Reads a program written by `torch.export.save`, imports it
(`fxdsl.frontends.torch_export`; `--decompose` imports the core-ATen graph
of `run_decompositions()`), prints the IR to stdout or `-o FILE`, and writes
the parameters to `FILE.weights.npz` beside it (`--weights` elsewhere).
Needs torch (`pip install fxdsl[torch]`). Like the other drivers, every
failure is one `error:` line and exit code 1; nothing is half-written.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from fxdsl.tools.diagnostics import DriverArgumentParser, UserError, run_driver

DESCRIPTION = "import a torch.export program (.pt2) into graph IR"


def build_parser() -> DriverArgumentParser:
    parser = DriverArgumentParser(prog="fxdsl-import", description=DESCRIPTION)
    parser.add_argument("file", help="program saved with torch.export.save (.pt2)")
    parser.add_argument("-o", "--output", help="IR file to write (default: stdout)")
    parser.add_argument(
        "--weights", help="weights file (default: OUTPUT.weights.npz beside -o)"
    )
    parser.add_argument(
        "--decompose", action="store_true", help="import the core-ATen graph"
    )
    return parser


def run_main(argv: Sequence[str], located: list[str]) -> int:
    args = build_parser().parse_args(argv)
    located.append(args.file)
    try:
        import torch
    except ImportError:
        raise UserError(
            "fxdsl-import needs torch: pip install 'fxdsl[torch]'"
        ) from None
    from fxdsl.frontends.torch_export import TorchImportError, from_exported_program
    from fxdsl.tools.weights import parameter_names, save_weights, side_file
    from fxdsl.util.atomic_write import write_atomic

    if not Path(args.file).is_file():
        raise UserError(f"no such file: {args.file}")
    weights_path = args.weights or (side_file(args.output) if args.output else None)
    if weights_path is None:
        raise UserError("give -o FILE (or --weights FILE) to write the weights")
    try:
        with _quiet_torch_logs():
            program = torch.export.load(args.file)
    except Exception as error:  # noqa: BLE001 - torch raises many kinds here
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise UserError(
            f"not a torch.export program ({type(error).__name__}: {message})"
        ) from None
    try:
        if args.decompose:
            program = program.run_decompositions()
        imported = from_exported_program(program)
    except TorchImportError as error:
        raise UserError(str(error).replace("\n", " ")) from None
    (function,) = imported.module.body.block.ops
    names = [n for n in parameter_names(function) if n is not None]  # type: ignore[arg-type]
    save_weights(weights_path, names, imported.weights)
    text = str(imported.module) + "\n"
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


@contextmanager
def _quiet_torch_logs() -> Iterator[None]:
    """torch logs a traceback as a warning before it raises on a bad file;
    the driver says what failed in its own `error:` line instead."""
    logger = logging.getLogger("torch")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    return run_driver(run_main, argv)


if __name__ == "__main__":
    sys.exit(main())
