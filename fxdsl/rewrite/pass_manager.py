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
check raises `PassManagerError` naming the pass (the check's own error is
its `__cause__`), or with `suppress_check_failures` becomes a
`warnings.warn`. `add_checks` refuses (TypeError) a callable that cannot
take the module as its one argument. `modified` is computed by
comparing the printed IR before and after, never taken on trust.

As in FX, `steps=n` runs the whole list up to n times, stopping after the
first round that modifies nothing (a fixed point); and constraints order
the passes: `constraint(a, b)` is False when `a` must not run before `b`
(`this_before_that_pass_constraint(this, that)` builds one).
`validate_constraints()` raises RuntimeError if the list breaks one;
`solve_constraints()` reorders the list (stably: unconstrained passes keep
their order) so none is broken, or raises RuntimeError on a cycle. A run
solves the constraints first.
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
Constraint = Callable[[Any, Any], bool]
"""`constraint(a, b)`: may pass `a` run before pass `b`?"""


def this_before_that_pass_constraint(this: PassLike, that: PassLike) -> Constraint:
    """A constraint that `this` runs before `that` (FX's helper)."""

    def depends_on(a: PassLike, b: PassLike) -> bool:
        return not (a is that and b is this)

    return depends_on


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


def _check_takes_one_argument(check: Check) -> None:
    """Raise TypeError unless `check(module)` is a valid call."""
    if not callable(check):
        raise TypeError(f"a check must be callable, got {check!r}")
    try:
        signature = inspect.signature(check)
    except (TypeError, ValueError):
        return  # no signature to inspect (some builtins): trust the caller
    try:
        signature.bind(None)
    except TypeError:
        raise TypeError(
            f"check '{pass_name(check)}' must take one argument, the module; "
            f"its signature is {signature}"
        ) from None


class PassManager:
    """Runs passes in order, verifying the IR and running checks."""

    def __init__(
        self,
        passes: Sequence[PassLike] | None = None,
        run_checks_after_each_pass: bool = False,
        suppress_check_failures: bool = False,
        steps: int = 1,
        constraints: Sequence[Constraint] | None = None,
    ) -> None:
        if steps < 1:
            raise ValueError(f"steps must be at least 1, got {steps}")
        self.passes: list[PassLike] = list(passes or [])
        self.checks: list[Check] = []
        self.constraints: list[Constraint] = list(constraints or [])
        self.steps = steps
        self.run_checks_after_each_pass = run_checks_after_each_pass
        self.suppress_check_failures = suppress_check_failures

    def add_pass(self, pass_: PassLike) -> None:
        self.passes.append(pass_)

    def add_constraint(self, constraint: Constraint) -> None:
        self.constraints.append(constraint)

    def _broken(self, a: PassLike, b: PassLike) -> bool:
        """Does running `a` before `b` break a constraint?"""
        return any(not constraint(a, b) for constraint in self.constraints)

    def validate_constraints(self) -> None:
        """Raise RuntimeError naming the first pair of passes, in list order,
        that breaks a constraint."""
        for i, a in enumerate(self.passes):
            for b in self.passes[i + 1 :]:
                if self._broken(a, b):
                    raise RuntimeError(
                        f"pass '{pass_name(a)}' runs before pass '{pass_name(b)}', "
                        "which a constraint forbids"
                    )

    def solve_constraints(self) -> None:
        """Reorder the passes so that no constraint is broken: a
        topological order of "b before a wherever a may not precede b",
        taking the earliest ready pass first; RuntimeError on a cycle."""
        count = len(self.passes)
        later: list[list[int]] = [[] for _ in range(count)]
        waiting = [0] * count
        for i, a in enumerate(self.passes):
            for j, b in enumerate(self.passes):
                if i != j and self._broken(a, b):
                    later[j].append(i)
                    waiting[i] += 1
        order: list[int] = []
        ready = [i for i in range(count) if waiting[i] == 0]
        while ready:
            ready.sort()
            current = ready.pop(0)
            order.append(current)
            for i in later[current]:
                waiting[i] -= 1
                if waiting[i] == 0:
                    ready.append(i)
        if len(order) != count:
            stuck = [pass_name(self.passes[i]) for i in range(count) if waiting[i]]
            raise RuntimeError(f"pass constraints form a cycle among {stuck}")
        self.passes = [self.passes[i] for i in order]

    def add_checks(self, check: Check) -> None:
        """Add an invariant: a callable on the module that raises (or returns
        False) when the invariant does not hold. As in FX, a callable that
        cannot be called with the module alone is a TypeError here."""
        _check_takes_one_argument(check)
        self.checks.append(check)

    def check(self, module: ModuleOp, after: str | None = None) -> None:
        """Run every check; raise or warn (see `suppress_check_failures`).
        The error a check raised is the `PassManagerError`'s `__cause__`."""
        for check in self.checks:
            cause: Exception | None = None
            try:
                failure = None if check(module) is not False else "returned False"
            except Exception as error:  # noqa: BLE001 - a check fails by raising
                failure, cause = f"{type(error).__name__}: {error}", error
            if failure is None:
                continue
            where = f"after pass '{after}'" if after else "on the input module"
            message = f"check '{pass_name(check)}' failed {where}: {failure}"
            if not self.suppress_check_failures:
                raise PassManagerError(message) from cause
            warnings.warn(message, stacklevel=3)

    def __call__(self, module: ModuleOp) -> PassResult:
        if self.constraints:
            self.solve_constraints()
        self.check(module)
        before = str(module)
        done: list[str] = []
        for _ in range(self.steps):
            start = str(module) if self.steps > 1 else before
            module = self._round(module, done)
            if self.steps > 1 and str(module) == start:
                break
        return PassResult(module, str(module) != before)

    def _round(self, module: ModuleOp, done: list[str]) -> ModuleOp:
        """Run every pass once, in order (`done`: the passes run so far)."""
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
        return module
