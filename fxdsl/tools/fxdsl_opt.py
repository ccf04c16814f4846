"""`fxdsl-opt`: xdsl-opt with the graph dialect, fxdsl passes and targets.

Keeps every upstream flag. Differences: ops get source locations when parsed,
every failure is one `file:line:col: error: …` line with exit code 1 (never a
traceback; a pass that crashes is named, FXDSL_TRACEBACK=1 shows where),
`-o FILE` is written atomically, only when the run succeeds, `--time-passes`
reports on stderr, and `--list-passes` / `--help-pass NAME` describe the passes.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from io import StringIO
from typing import IO, Any, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from fxdsl._version import __version__
from fxdsl.ir.parsing import LocatingParser, make_context
from fxdsl.tools.diagnostics import (
    UserError,
    decode_source,
    first_line,
    run_guarded,
    verify_located,
)
from fxdsl.tools.pass_help import describe_pass, list_passes
from fxdsl.tools.pass_timing import PassTiming, pass_steps
from fxdsl.util.atomic_write import write_atomic
from fxdsl.util.pipeline_syntax import check_pass_options, quote_dotted_values

_BLANK = re.compile(r"(?:\s|//[^\n]*)*")
_LONGEST_WHY = 160


class _OutputBuffer(StringIO):
    """Collects the output for `-o`; stays readable after the driver closes it."""

    def close(self) -> None:
        pass


class FxdslOptMain(xDSLOptMain):
    version_format = f"fxdsl-opt {__version__} (xDSL {{xdsl_version}})"

    def __init__(
        self,
        args: Sequence[str] | None = None,
        started: list[FxdslOptMain] | None = None,
    ):
        """`started` receives the driver before xDSL's constructor parses
        the arguments and sets up the pipeline, so that an error raised
        there can name the input file (`input_name`)."""
        self._buffer = _OutputBuffer()
        self._timing = PassTiming()
        self._steps: list[str] = []
        self._next_pass = 0  # index of the pass running, or about to
        self._pass_start = 0.0
        if started is not None:
            started.append(self)
        super().__init__(description="fxdsl graph compiler driver", args=args)
        self.ctx = _merge_context(self.ctx)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        # xDSL's -p help names all ~150 passes and nothing else about them
        passes = arg_parser._option_string_actions["-p"]  # pyright: ignore
        passes.help = "comma-separated passes (see --list-passes, --help-pass)"
        timing = arg_parser._option_string_actions["--time-passes"]  # pyright: ignore
        timing.help = "report the time of parsing, each pass and output on stderr"
        version = arg_parser._option_string_actions["--version"]  # pyright: ignore
        version.help = "print fxdsl's and xDSL's versions, and exit"
        arg_parser.add_argument(
            "--list-passes",
            action=_PrintAction,
            text=lambda: list_passes(self.available_passes, _fxdsl_passes()),
            help="list the passes with a summary of each, and exit",
        )
        arg_parser.add_argument(
            "--help-pass",
            action=_PrintAction,
            nargs=1,
            metavar="NAME",
            text=self._describe_pass,
            help="describe pass NAME and its options, and exit",
        )

    def _describe_pass(self, name: str) -> str:
        if name not in self.available_passes:
            raise UserError(f"unknown pass '{name}' (see fxdsl-opt --list-passes)")
        return describe_pass(name, self.available_passes)

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
        self._steps = pass_steps([p.name for p in self.pipeline.passes])
        self.pipeline = dataclasses.replace(self.pipeline, callback=self._between)

    def _between(
        self, previous: ModulePass | None, module: ModuleOp, _next: ModulePass | None
    ) -> None:
        """xDSL's callback between passes, with the timing kept for the
        report on stderr (xDSL prints it on stdout, into the IR)."""
        if previous is not None:
            seconds = time.perf_counter() - self._pass_start
            self._timing.add(self._steps[self._next_pass], seconds)
        if not self.args.disable_verify:
            module.verify()
        if previous and _next and self.args.print_between_passes:
            print(f"IR after {previous.name}:")
            Printer(stream=sys.stdout).print_op(module)
            print("\n\n\n")
        if previous is not None:
            self._next_pass += 1
        self._pass_start = time.perf_counter()

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
        with self._timing.measure("Parser"):
            return self._parse_chunk(chunk, start_offset)

    def _parse_chunk(self, chunk: IO[bytes], start_offset: int) -> ModuleOp:
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
        finally:
            if self.args.time_passes:
                sys.stderr.write(self._timing.report())
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
        from fxdsl.pipeline.universe import TARGETS

        name = parse_spec(self.args.target).name
        upstream = name not in TARGETS and name != "mlir"
        try:
            # Upstream targets warn (csl: "Expected all top-level operations
            # to be `csl.module` ops!") where they print nothing: the
            # `error:` line below says so instead of a Python warning.
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with self._timing.measure("Output"):
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
        from fxdsl.pipeline.universe import TARGETS

        message = (
            f"-t {name}: xDSL's {name} target {what}; it prints only IR already "
            f"lowered to its dialects, not graph IR (fxdsl's targets: "
            f"{', '.join(TARGETS)}, mlir)"
        )
        return UserError(message, self.get_input_name())

    def apply_passes(self, prog: ModuleOp) -> None:
        self._next_pass = 0
        try:
            super().apply_passes(prog)
        except UserError:
            raise
        except DiagnosticException as error:
            if type(error).__name__ == "VerifyException":
                verify_located(prog, self.get_input_name())
            raise
        except Exception as error:
            # A pass that crashes (upstream passes on IR outside their
            # dialects, or a bug) is named; the traceback is one variable away.
            name = self.pipeline.passes[self._next_pass].name
            why = first_line(error)
            if len(why) > _LONGEST_WHY:  # a KeyError's text is an op's repr
                why = why[: _LONGEST_WHY - 3] + "..."
            message = (
                f"pass '{name}' failed: {type(error).__name__}: {why} "
                "(FXDSL_TRACEBACK=1 shows the traceback)"
            )
            raise UserError(message, self.get_input_name()) from error
        if self.args.passes and not self.args.disable_verify:
            # xDSL verifies after each pass, but not SSA dominance
            verify_located(prog, self.get_input_name())


class _PrintAction(argparse.Action):
    """Print `text()` (`text(value)` with an argument) and exit, as --version."""

    def __init__(self, *args: Any, text: Callable[..., str], **kwargs: Any):
        kwargs.setdefault("nargs", 0)
        super().__init__(*args, **kwargs)
        self.text = text

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(self.text(*values) if values else self.text())
        parser.exit()


def _fxdsl_passes() -> list[str]:
    from fxdsl.pipeline.universe import PASSES  # loads $FXDSL_PLUGINS (run_guarded)

    return list(PASSES)


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
