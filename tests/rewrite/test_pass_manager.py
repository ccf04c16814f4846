"""PassManager: pass kinds, verification, checks with and without suppression."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

import fxdsl
from fxdsl.api import available_passes
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.ir import graph
from fxdsl.ir.parsing import make_context
from fxdsl.pipeline.registry import register_pass, unregister_pass
from fxdsl.rewrite import PassManager, PassResult, Transformer, ops_in_order
from fxdsl.rewrite.pass_manager import PassManagerError

PROGRAM = """
func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %one = graph.full value 1.0 : tensor<4x8xf32>
  %a = graph.mul %x, %one : tensor<4x8xf32>
  %b = graph.add %a, %y : tensor<4x8xf32>
  func.return %b : tensor<4x8xf32>
}
"""


def names(module: ModuleOp) -> list[str]:
    return [op.name for op in ops_in_order(module)]


def drop_mul_by_one(module: ModuleOp) -> None:
    """A plain callable pass editing in place."""
    for op in ops_in_order(module):
        rhs = op.operands[1].owner if isinstance(op, graph.MulOp) else None
        if isinstance(rhs, graph.FullOp) and rhs.value.value.data == 1.0:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.detach()
            op.erase()


class AddToMul(Transformer):
    def add(self, op: Operation, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.emit(graph.MulOp(lhs, rhs))


def keeps_add(module: ModuleOp) -> None:
    """The check: the program's addition must survive."""
    if "graph.add" not in names(module):
        raise AssertionError("the graph.add is gone")


def test_passes_of_every_kind_run_in_order() -> None:
    module = fxdsl.parse(PROGRAM)
    before = module.clone()
    result = PassManager([drop_mul_by_one, DeadCodeElimination()])(module)
    assert isinstance(result, PassResult)
    assert result.modified
    assert names(result.module) == ["graph.add", "func.return"]
    inputs = random_inputs(before)
    np.testing.assert_allclose(
        run_reference(result.module, *inputs)[0], run_reference(before, *inputs)[0]
    )
    # A Transformer class gives a new module; the ModulePass class is built.
    result = PassManager([AddToMul, DeadCodeElimination])(result.module)
    assert names(result.module) == ["graph.mul", "func.return"]


def test_check_failing_after_second_pass_raises_naming_it() -> None:
    pm = PassManager(
        [drop_mul_by_one, AddToMul, DeadCodeElimination()],
        run_checks_after_each_pass=True,
    )
    pm.add_checks(keeps_add)
    with pytest.raises(
        PassManagerError, match="check 'keeps_add' failed after pass 'AddToMul'"
    ):
        pm(fxdsl.parse(PROGRAM))


def test_check_failure_suppressed_warns_and_continues() -> None:
    pm = PassManager(
        [drop_mul_by_one, AddToMul, DeadCodeElimination()],
        run_checks_after_each_pass=True,
        suppress_check_failures=True,
    )
    pm.add_checks(keeps_add)
    with pytest.warns(UserWarning, match="check 'keeps_add' failed") as record:
        result = pm(fxdsl.parse(PROGRAM))
    # Fails after AddToMul and after dce (no add comes back): two warnings.
    assert [str(w.message) for w in record] == [
        f"check 'keeps_add' failed after pass '{name}': AssertionError: the "
        "graph.add is gone"
        for name in ("AddToMul", "dce")
    ]
    assert names(result.module) == ["graph.mul", "func.return"]


def test_checks_run_on_the_input_and_false_fails() -> None:
    pm = PassManager([DeadCodeElimination()])
    pm.add_checks(lambda module: "graph.add" not in names(module))
    with pytest.raises(PassManagerError, match="on the input module: returned False"):
        pm(fxdsl.parse(PROGRAM))


def test_modified_is_computed_not_trusted() -> None:
    module = fxdsl.parse(PROGRAM)
    liar = lambda m: PassResult(m, True)
    assert PassManager([liar])(module).modified is False
    assert PassManager([liar, DeadCodeElimination()])(module).modified is False
    assert PassManager([drop_mul_by_one])(module).modified is True


def break_types(module: ModuleOp) -> None:
    """Leaves invalid IR: the add's result type no longer matches."""
    add = next(op for op in ops_in_order(module) if isinstance(op, graph.AddOp))
    bad = graph.AddOp.create(
        operands=list(add.operands),
        result_types=[TensorType(graph.f16, [4, 8])],
    )
    add.parent.insert_op_before(bad, add)  # type: ignore[union-attr]


def explode(module: ModuleOp) -> None:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("passes", "message"),
    [
        (
            [drop_mul_by_one, break_types],
            r"pass 'break_types' failed \(after passes: drop_mul_by_one\): Verify",
        ),
        (
            [explode],
            r"pass 'explode' failed \(after passes: none\): RuntimeError: boom",
        ),
    ],
)
def test_failing_or_invalid_pass_is_named(passes: list[object], message: str) -> None:
    with pytest.raises(PassManagerError, match=message):
        PassManager(passes)(fxdsl.parse(PROGRAM))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# Registering Python passes for `-p` pipelines and fxdsl-opt
# --------------------------------------------------------------------------- #

PLUGIN = """
from fxdsl.ir import graph
from fxdsl.rewrite import Transformer
from fxdsl.pipeline.registry import register_pass, unregister_pass


class AddToMul(Transformer):
    def add(self, op, lhs, rhs):
        return self.emit(graph.MulOp(lhs, rhs))


def explode(module):
    raise RuntimeError("boom")


register_pass("test-add-to-mul", AddToMul)
register_pass("test-explode", explode)
"""


def run_opt(
    tmp_path: Path, pipeline: str, plugins: str | None = "rw_test_plugin"
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "rw_test_plugin.py").write_text(PLUGIN)
    source = tmp_path / "in.mlir"
    source.write_text(PROGRAM)
    env = dict(
        os.environ,
        PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    )
    env.pop("FXDSL_PLUGINS", None)
    if plugins is not None:
        env["FXDSL_PLUGINS"] = plugins
    command = [
        sys.executable,
        "-m",
        "fxdsl.tools.fxdsl_opt",
        str(source),
        "-p",
        pipeline,
    ]
    return subprocess.run(
        command, check=False, capture_output=True, text=True, env=env, timeout=120
    )


def test_registered_transformer_runs_in_fxdsl_opt(tmp_path: Path) -> None:
    done = run_opt(tmp_path, "test-add-to-mul,dce")
    assert done.returncode == 0, done.stderr
    assert "graph.add" not in done.stdout
    assert done.stdout.count("graph.mul") == 2


@pytest.mark.parametrize(
    ("pipeline", "plugins", "message"),
    [
        ("test-explode", "rw_test_plugin", "error: test-explode: RuntimeError: boom"),
        ("test-add-to-mul", None, "error: Unrecognized passes: ['test-add-to-mul']"),
        (
            "dce",
            "no_such_plugin",
            "FXDSL_PLUGINS: cannot import plugin module 'no_such_plugin'",
        ),
    ],
)
def test_plugin_errors_are_error_lines(
    tmp_path: Path, pipeline: str, plugins: str | None, message: str
) -> None:
    done = run_opt(tmp_path, pipeline, plugins)
    assert done.returncode == 1
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_register_pass_in_process() -> None:
    cls = register_pass("test-drop-mul-by-one", drop_mul_by_one)
    try:
        assert issubclass(cls, ModulePass)
        assert cls.name == "test-drop-mul-by-one"
        module = fxdsl.apply(fxdsl.parse(PROGRAM), "test-drop-mul-by-one,dce")
        assert names(module) == ["graph.add", "func.return"]
        # The generated pass is also a PassManager pass.
        assert PassManager([cls()])(fxdsl.parse(PROGRAM)).modified
        with pytest.raises(ValueError, match="'dce' is already a built-in pass"):
            register_pass("dce", drop_mul_by_one)
    finally:
        unregister_pass("test-drop-mul-by-one")
    assert "test-drop-mul-by-one" not in available_passes()


def test_transformer_as_pass_replaces_the_module_body() -> None:
    pass_cls = AddToMul.as_pass("test-add-to-mul-inline")
    module = fxdsl.parse(PROGRAM)
    pass_cls().apply(make_context(), module)
    assert names(module) == ["graph.full", "graph.mul", "graph.mul", "func.return"]
