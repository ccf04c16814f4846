"""fxdsl/util/lazy.py: the lazy exports of `fxdsl` and `fxdsl.rewrite`."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

import fxdsl
import fxdsl.interpreters
import fxdsl.rewrite
from fxdsl.util.lazy import lazy_exports

PACKAGES = [fxdsl, fxdsl.rewrite, fxdsl.interpreters]


def test_import_fxdsl_loads_nothing_heavy() -> None:
    """The package docstring's promise: names are imported on first use."""
    probe = (
        "import sys, fxdsl, fxdsl.rewrite\n"
        "heavy = [m for m in ('numpy', 'xdsl', 'fxdsl.api') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_every_export_resolves_to_its_definition(package: types.ModuleType) -> None:
    table: dict[str, str] = package._EXPORTS  # pyright: ignore[reportPrivateUsage]
    assert package.__all__ == sorted(table)
    for name, source in table.items():
        value = getattr(package, name)
        defining = importlib.import_module(source)
        module_entry = source.rpartition(".")[2] == name  # `ops`, `interpreters`
        expected = defining if module_entry else getattr(defining, name)
        assert value is expected, name
        assert name in dir(package)


def test_interpreters_run_needs_no_import() -> None:
    # the README's fxdsl.interpreters.run.random_inputs was an AttributeError
    # unless fxdsl.interpreters.run had been imported
    probe = (
        "import fxdsl\n"
        "print(fxdsl.interpreters.run.random_inputs is fxdsl.random_inputs)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "True"


def test_ops_is_the_ops_module() -> None:
    assert fxdsl.ops is importlib.import_module("fxdsl.tracing.ops")
    assert callable(fxdsl.ops.add)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_unknown_names_raise_attribute_error(package: types.ModuleType) -> None:
    message = f"module '{package.__name__}' has no attribute 'nope'"
    with pytest.raises(AttributeError, match=message):
        _ = package.nope
    assert not hasattr(package, "nope")


def test_module_entries_and_attribute_entries() -> None:
    """An entry exports the module's attribute of that name; a module that
    has none but is named like the entry is exported itself."""
    getattr_, dir_ = lazy_exports(
        "fxdsl", {"sqrt": "math", "json": "json", "path": "os.path"}
    )
    assert getattr_("sqrt") is importlib.import_module("math").sqrt
    assert getattr_("json") is importlib.import_module("json")
    # os.path has no attribute `path`: the module itself
    assert getattr_("path") is importlib.import_module("os.path")
    assert {"sqrt", "json", "path", "__name__"} <= set(dir_())
    with pytest.raises(AttributeError, match="module 'fxdsl' has no attribute 'x'"):
        getattr_("x")
