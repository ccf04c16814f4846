"""`PassManager`: run a list of passes with checks, like `torch.fx`'s.

    pm = PassManager([AddToMul, CanonicalizePass()], run_checks_after_each_pass=True)
    pm.add_checks(no_add_left)
    result = pm(module)          # PassResult(module, modified)

A pass may be

* a callable taking the module and returning None (edited in place), a new
  `ModuleOp`, or a `PassResult`;
* a `Transformer` subclass or instance (its `transform` makes a new module);
* an xDSL `ModulePass` instance or class (applied in place).

The IR is verified after every pass; a pass that leaves invalid IR or raises
is reported as a `PassManagerError` naming it and the passes before it.
Checks (callables on the module that raise, or return False, to fail) run on
the input and, with `run_checks_after_each_pass`, after every pass (as in FX); a failing
check raises `PassManagerError` naming the pass, or with
`suppress_check_failures` becomes a `warnings.warn`. `modified` is computed by
comparing the printed IR before and after, never taken on trust.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from fxdsl.ir.parsing import make_context
from fxdsl.ir.utils import verify_ssa
from fxdsl.rewrite.transformer import Transformer

PassLike = (
    Callable[[ModuleOp], Any]
    | Transformer
    | type[Transformer]
    | ModulePass
    | type[ModulePass]
)
Check = Callable[[ModuleOp], Any]


@dataclass(frozen=True)
class PassResult:
    """What a pass (or a whole PassManager run) produced."""

    module: ModuleOp
    modified: bool


class PassManagerError(Exception):
    """A pass failed, left invalid IR, or a check failed after it."""


def pass_name(pass_: PassLike) -> str:
    """The name a pass is reported under."""
    if isinstance(pass_, type):
        return getattr(pass_, "name", "") or pass_.__name__
    if isinstance(pass_, (ModulePass, Transformer)):
        return getattr(pass_, "name", "") or type(pass_).__name__
    return getattr(pass_, "__name__", None) or type(pass_).__name__


def _instantiate(pass_: object) -> object:
    # Pass classes are built with their default options.
    if inspect.isclass(pass_) and issubclass(pass_, (ModulePass, Transformer)):
        return pass_()
    return pass_


def run_pass(pass_: PassLike, module: ModuleOp) -> ModuleOp:
    """Apply one pass of any accepted kind; returns the resulting module."""
    target: Any = _instantiate(pass_)
    if isinstance(target, ModulePass):
        target.apply(make_context(), module)
        return module
    if isinstance(target, Transformer):
        return target.transform(module)
    if not callable(target):
        raise TypeError(f"not a pass: {target!r}")
    result: Any = target(module)
    if result is None:
        return module
    if isinstance(result, PassResult):
        return result.module
    if isinstance(result, ModuleOp):
        return result
    raise TypeError(
        f"pass {pass_name(pass_)} returned {type(result).__name__}; expected "
        "None, a ModuleOp or a PassResult"
    )


class PassManager:
    """Runs passes in order, verifying the IR and running checks."""

    def __init__(
        self,
        passes: Sequence[PassLike] | None = None,
        run_checks_after_each_pass: bool = False,
        suppress_check_failures: bool = False,
    ) -> None:
        self.passes: list[PassLike] = list(passes or [])
        self.checks: list[Check] = []
        self.run_checks_after_each_pass = run_checks_after_each_pass
        self.suppress_check_failures = suppress_check_failures

    def add_pass(self, pass_: PassLike) -> None:
        self.passes.append(pass_)

    def add_checks(self, check: Check) -> None:
        """Add an invariant: a callable on the module that raises (or returns
        False) when the invariant does not hold."""
        self.checks.append(check)

    def check(self, module: ModuleOp, after: str | None = None) -> None:
        """Run every check; raise or warn (see `suppress_check_failures`)."""
        for check in self.checks:
            try:
                failure = None if check(module) is not False else "returned False"
            except Exception as error:  # noqa: BLE001 - a check fails by raising
                failure = f"{type(error).__name__}: {error}"
            if failure is None:
                continue
            where = f"after pass '{after}'" if after else "on the input module"
            message = f"check '{pass_name(check)}' failed {where}: {failure}"
            if not self.suppress_check_failures:
                raise PassManagerError(message)
            warnings.warn(message, stacklevel=3)

    def __call__(self, module: ModuleOp) -> PassResult:
        self.check(module)
        before = str(module)
        done: list[str] = []
        for pass_ in self.passes:
            name = pass_name(pass_)
            try:
                module = run_pass(pass_, module)
                verify_ssa(module)
            except Exception as error:
                after = ", ".join(done) or "none"
                raise PassManagerError(
                    f"pass '{name}' failed (after passes: {after}): "
                    f"{type(error).__name__}: {error}"
                ) from error
            done.append(name)
            if self.run_checks_after_each_pass:
                self.check(module, after=name)
        return PassResult(module, str(module) != before)
