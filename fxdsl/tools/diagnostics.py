"""Turning failures of the drivers into `file:line:col: error: message`.

The drivers never show a Python traceback for bad input: every expected
failure (parse, verify, pass, option, file) becomes one `error:` line and exit
code 1. Set FXDSL_TRACEBACK=1 to see the traceback of an unexpected one.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import NoReturn

from xdsl.ir import Operation
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)

from fxdsl.ir.utils import DominanceError, OpFailure, location_of, verify_ssa


class UserError(DiagnosticException):
    """A failure caused by the user's input, printed as `where: error: what`."""

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message)
        self.where = where

    def __str__(self) -> str:
        prefix = f"{self.where}: " if self.where else ""
        return f"{prefix}error: {self.args[0]}"


class DriverArgumentParser(argparse.ArgumentParser):
    """An `ArgumentParser` whose bad-argument errors are `UserError`s (exit
    1, one `error:` line) instead of argparse's exit 2 with a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message} (see {self.prog} --help)")

    def add_backend_argument(self, default: str) -> None:
        """`--backend cpu|cuda|auto`, as every driver that runs programs has it."""
        self.add_argument(
            "--backend",
            choices=("cpu", "cuda", "auto"),
            default=default,
            help="auto: cuda when it can run here, else the cpu reference",
        )


def decode_source(data: bytes, name: str, start_offset: int = 0) -> str:
    """UTF-8 text of an input file; a UserError at the first bad byte
    (`start_offset`: lines before this chunk of a split input)."""
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1 + start_offset
        column = error.start - data.rfind(b"\n", 0, error.start)
        raise UserError("input is not valid UTF-8", f"{name}:{line}:{column}") from None


def failing_op(root: Operation) -> Operation | None:
    """The first op (pre-order) whose own verification fails."""
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception:  # noqa: BLE001 - whatever verify raises marks the op
            return op
    return None


def verify_located(root: Operation, fallback: str | None = None) -> None:
    """Verify `root` (SSA dominance included, `verify_ssa`); raise UserError
    at the failing op's location."""
    try:
        verify_ssa(root)
    except VerifyException as error:
        op = error.op if isinstance(error, DominanceError) else failing_op(root)
        where = location_of(op) or fallback
        raise UserError(_verify_message(error, op), where) from error


def _verify_message(error: VerifyException, op: Operation | None) -> str:
    # IRDL splits a message over lines ("operand 'x' does not verify:\n<why>");
    # keep all of it on the one `error:` line, and name the op if it does not.
    lines = [line.strip() for line in str(error).strip().splitlines()]
    message = " ".join(line for line in lines if line) or type(error).__name__
    if op is not None and op.name not in message:
        message = f"{op.name}: {message}"
    return message


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def describe(error: BaseException, where: str | None) -> str:
    """One-line `error:` text for any failure the drivers may meet."""
    if isinstance(error, UserError):
        return str(error)
    if isinstance(error, ParseError):
        loc = error.span.get_location()
        context = error.span.print_with_context().rstrip("\n").split("\n")[1:]
        return "\n".join(
            [f"{loc.file}:{loc.line}:{loc.col}: error: {error.msg}", *context]
        )
    if isinstance(error, OpFailure):
        return str(UserError(error.message, error.where or where))
    if isinstance(error, ArgSpecParseError):
        return str(UserError(str(error).strip().replace("\n", " | "), where))
    if isinstance(error, DiagnosticException):
        return str(UserError(first_line(error), where))
    if isinstance(error, FileNotFoundError):
        return str(UserError(f"no such file: {error.filename}", where))
    if isinstance(error, OSError):
        return str(UserError(f"{error.strerror}: {error.filename}", where))
    return str(UserError(f"{type(error).__name__}: {first_line(error)}", where))


SIGPIPE_STATUS = 128 + 13


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; pointing it at /dev/null keeps
    # that flush from printing "Exception ignored ... BrokenPipeError".
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout redirected to a Python object
        pass
    finally:
        os.close(devnull)


def run_guarded(main: Callable[[], int | None], where: Callable[[], str | None]) -> int:
    """Run a driver's main; any exception becomes an `error:` line, exit 1.
    A reader that went away (`| head -1`) ends the driver quietly with the
    status of a Unix tool killed by SIGPIPE (141)."""
    try:
        code = main() or 0
        sys.stdout.flush()  # a broken pipe shows here, not at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return SIGPIPE_STATUS
    except SystemExit as error:
        code = error.code
        # argparse exits with 2 after printing `error:`; fxdsl drivers use 1.
        return min(code, 1) if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        return 130
    except BaseException as error:  # noqa: BLE001 - the driver's last line of defence
        if os.environ.get("FXDSL_TRACEBACK"):
            traceback.print_exc()
        print(describe(error, where()), file=sys.stderr)
        return 1


def run_driver(
    run_main: Callable[[Sequence[str], list[str]], int | None],
    argv: Sequence[str] | None,
) -> int:
    """A driver's `main`: `run_main(argv, located)` under `run_guarded`,
    where `run_main` appends the input's name to `located` once it knows it
    (errors before that have no location)."""
    args = list(sys.argv[1:] if argv is None else argv)
    located: list[str] = []
    return run_guarded(
        lambda: run_main(args, located), lambda: located[0] if located else None
    )
