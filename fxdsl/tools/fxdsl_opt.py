"""`fxdsl-opt`: xdsl-opt with the graph dialect, fxdsl passes and targets.

Keeps every upstream flag. Differences: ops get source locations when parsed,
every failure is one `file:line:col: error: …` line with exit code 1 (never a
traceback), and `-o FILE` is written atomically, only when the run succeeds.
"""

from __future__ import annotations

import inspect
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from io import StringIO
from typing import IO, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from fxdsl.parsing import LocatingParser, make_context
from fxdsl.pipeline_syntax import check_pass_options, quote_dotted_values
from fxdsl.tools.atomic_write import write_atomic
from fxdsl.tools.diagnostics import (
    UserError,
    decode_source,
    first_line,
    run_guarded,
    verify_located,
)

_BLANK = re.compile(r"(?:\s|//[^\n]*)*")


class _OutputBuffer(StringIO):
    """Collects the output for `-o`; stays readable after the driver closes it."""

    def close(self) -> None:
        pass


class FxdslOptMain(xDSLOptMain):
    def __init__(
        self,
        args: Sequence[str] | None = None,
        started: list[FxdslOptMain] | None = None,
    ):
        """`started` receives the driver before xDSL's constructor parses
        the arguments and sets up the pipeline, so that an error raised
        there can name the input file (`input_name`)."""
        self._buffer = _OutputBuffer()
        if started is not None:
            started.append(self)
        super().__init__(description="fxdsl graph compiler driver", args=args)
        self.ctx = _merge_context(self.ctx)

    def setup_pipeline(self) -> None:
        # Op names as option values (`ops=graph.add`) need quotes in xDSL.
        self.args.passes = quote_dotted_values(self.args.passes)
        try:
            check_pass_options(self.args.passes, self.available_passes)
            super().setup_pipeline()
        except ValueError as error:
            # xDSL reports an unknown pass name as a bare ValueError.
            raise UserError(str(error), self.get_input_name()) from error
        self._check_target_options()

    def _check_target_options(self) -> None:
        # Fail on `-t dot{bogus=1}` before compiling, as for pass options;
        # xDSL only builds the target (raising ValueError) when printing.
        spec = parse_spec(self.args.target)
        factory = self.available_targets[spec.name]
        if inspect.signature(factory).parameters:
            return  # an old-style target function takes no options
        try:
            cast(Callable[[], type[Target]], factory)().from_spec(spec)
        except ImportError as error:
            # xDSL's llvm target needs llvmlite, an optional package
            message = (
                f"-t {spec.name} needs the Python package '{error.name}', which "
                "is not installed"
            )
            raise UserError(message, self.get_input_name()) from error
        except ValueError as error:
            message = f"bad options for target '{spec.name}': {error}"
            raise UserError(message, self.get_input_name()) from error

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        # `-` is stdin, as for fxdsl-run and mlir-opt
        if self.args.input_file == "-":
            return sys.stdin.buffer, "mlir"
        return super().get_input_stream()

    def get_input_name(self) -> str:
        return "stdin" if self.args.input_file == "-" else super().get_input_name()

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        name = self.get_input_name()
        text = decode_source(chunk.read(), name, start_offset)
        if _BLANK.fullmatch(text):
            # Like mlir-opt: no ops (only blanks and comments) is an empty module.
            return ModuleOp([])
        parser = LocatingParser(self.ctx, text, name, start_offset)
        module = parser.parse_module(not self.args.no_implicit_module)
        if not self.args.disable_verify:
            verify_located(module, name)
        return module

    def prepare_output(self) -> IO[str]:
        # Buffer everything; `-o` is written once the whole run succeeded.
        return sys.stdout if self.args.output_file is None else self._buffer

    def run(self) -> None:
        try:
            super().run()
        except ValueError as error:
            if not str(error).startswith("Unrecognized file extension"):
                raise
            message = f"{str(error).lower()}; pass -f mlir to read it as MLIR"
            raise UserError(message, self.get_input_name()) from error
        if self.args.output_file is not None:
            path = self.args.output_file
            try:
                write_atomic(path, self._buffer.getvalue())
            except OSError as error:
                # Name the file the user gave, not write_atomic's temp file.
                raise UserError(f"cannot write {path}: {error.strerror}") from error

    def output_resulting_program(self, prog: ModuleOp) -> str:
        # Imported here: the universe loads $FXDSL_PLUGINS, whose import
        # errors run_guarded must catch (an import at the top cannot be).
        from fxdsl.universe import TARGETS

        name = parse_spec(self.args.target).name
        upstream = name not in TARGETS and name != "mlir"
        try:
            # Upstream targets warn (csl: "Expected all top-level operations
            # to be `csl.module` ops!") where they print nothing: the
            # `error:` line below says so instead of a Python warning.
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                output = super().output_resulting_program(prog)
        except DiagnosticException:
            raise  # fxdsl's targets say what is wrong themselves
        except Exception as error:
            if not upstream:
                raise
            # Upstream targets (riscv-asm, x86-asm, ...) assert on IR that is
            # not in their dialects instead of saying so; an assertion's
            # text is an op's multi-line repr: the type says it.
            why = type(error).__name__
            if not isinstance(error, AssertionError):
                why = f"{why}: {first_line(error)}"
            what = f"failed on this input ({why})"
            raise self._upstream_target_error(name, what) from error
        if upstream and not output.strip() and not prog.body.block.is_empty:
            # others (wgsl, wat) print nothing for ops they do not know
            what = "printed nothing for this input"
            raise self._upstream_target_error(name, what)
        for warning in caught:
            where = self.get_input_name()
            print(f"{where}: warning: -t {name}: {warning.message}", file=sys.stderr)
        return output

    def _upstream_target_error(self, name: str, what: str) -> UserError:
        from fxdsl.universe import TARGETS

        message = (
            f"-t {name}: xDSL's {name} target {what}; it prints only IR already "
            f"lowered to its dialects, not graph IR (fxdsl's targets: "
            f"{', '.join(TARGETS)}, mlir)"
        )
        return UserError(message, self.get_input_name())

    def apply_passes(self, prog: ModuleOp) -> None:
        try:
            super().apply_passes(prog)
        except UserError:
            raise
        except Exception as error:
            if type(error).__name__ == "VerifyException":
                verify_located(prog, self.get_input_name())
            raise
        if self.args.passes and not self.args.disable_verify:
            # xDSL verifies after each pass, but not SSA dominance
            verify_located(prog, self.get_input_name())


def _merge_context(ctx):  # type: ignore[no-untyped-def]
    full = make_context()
    for name in full.registered_dialect_names:
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, full.get_dialect_loader(name))  # type: ignore
    return ctx


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    started: list[FxdslOptMain] = []
    return run_guarded(
        lambda: FxdslOptMain(argv, started).run(), lambda: input_name(started)
    )


def input_name(started: list[FxdslOptMain]) -> str | None:
    """The input file of the driver, once its arguments are parsed."""
    if not started or not hasattr(started[0], "args"):
        return None
    return started[0].get_input_name()


if __name__ == "__main__":
    sys.exit(main())
