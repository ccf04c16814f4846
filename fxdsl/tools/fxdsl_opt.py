"""`fxdsl-opt`: xdsl-opt with the graph dialect, fxdsl passes and targets.

Keeps every upstream flag. Differences: ops get source locations when parsed,
every failure is one `file:line:col: error: …` line with exit code 1 (never a
traceback), and `-o FILE` is written atomically, only when the run succeeds.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.xdsl_opt_main import xDSLOptMain

from fxdsl.parsing import LocatingParser, make_context
from fxdsl.tools.atomic_write import write_atomic
from fxdsl.tools.diagnostics import UserError, run_guarded, verify_located


class FxdslOptMain(xDSLOptMain):
    def __init__(self, args: Sequence[str] | None = None):
        self._buffer = StringIO()
        super().__init__(description="fxdsl graph compiler driver", args=args)
        self.ctx = _merge_context(self.ctx)

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        text = chunk.read().decode()
        name = self.get_input_name()
        parser = LocatingParser(self.ctx, text, name, start_offset)
        module = parser.parse_module(not self.args.no_implicit_module)
        if not self.args.disable_verify:
            verify_located(module, name)
        return module

    def prepare_output(self) -> IO[str]:
        # Buffer everything; `-o` is written once the whole run succeeded.
        return sys.stdout if self.args.output_file is None else self._buffer

    def run(self) -> None:
        super().run()
        if self.args.output_file is not None:
            write_atomic(self.args.output_file, self._buffer.getvalue())

    def apply_passes(self, prog: ModuleOp) -> None:
        try:
            super().apply_passes(prog)
        except UserError:
            raise
        except Exception as error:
            if type(error).__name__ == "VerifyException":
                verify_located(prog, self.get_input_name())
            raise


def _merge_context(ctx):  # type: ignore[no-untyped-def]
    full = make_context()
    for name in full.registered_dialect_names:
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, full.get_dialect_loader(name))  # type: ignore
    return ctx


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    where = next((a for a in argv if not a.startswith("-")), "<stdin>")
    return run_guarded(lambda: FxdslOptMain(argv).run(), lambda: where)


if __name__ == "__main__":
    sys.exit(main())
