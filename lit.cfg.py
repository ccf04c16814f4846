# ruff: noqa: F821 - lit injects `config` and `lit_config` into this file
"""lit configuration for fxdsl's FileCheck tests.

Run from the repository root:  lit -v tests/filecheck

`test_source_root` stays this file's directory (STYLE.md); lit discovers the
`*.mlir` files under the path it is given. Tools (`fxdsl-opt`, `fxdsl-run`,
`filecheck`) are found on PATH, with the running Python's script folder first,
so a virtual environment works without being activated. `not` is lit's builtin.
"""

import os
import sys

import lit.formats

config.name = "fxdsl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# Input files of multi-file tests and lit's scratch output are not tests.
config.excludes = ["Inputs", "Output", ".venv", "build"]

_scripts = os.path.dirname(sys.executable)
_path = config.environment.get("PATH", os.environ.get("PATH", ""))
config.environment["PATH"] = os.pathsep.join([_scripts, _path])

# lit starts tests with a clean environment; keep what changes how tools run
# (FXDSL_TRACEBACK=1 shows a driver's traceback instead of its `error:` line).
for _name in ("FXDSL_TRACEBACK", "PYTHONPATH", "HOME"):
    if _name in os.environ:
        config.environment[_name] = os.environ[_name]
