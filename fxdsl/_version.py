"""fxdsl's version, read from the installed package's metadata (the
`version` in pyproject.toml), so that the number lives in one place."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fxdsl")
except PackageNotFoundError:  # a source tree used without `pip install -e .`
    __version__ = "unknown"
