"""What `fxdsl-opt --list-passes` and `--help-pass NAME` print.

mlir-opt's `--help` shows each pass with a one-line summary and its options;
with about 150 upstream xDSL passes that list would bury the options, so
fxdsl-opt lists the passes (summaries: the first line of each pass class's
docstring) and describes one pass on request.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping

from xdsl.passes import ModulePass

from fxdsl.util.pipeline_syntax import pass_options

PassFactories = Mapping[str, Callable[[], type[ModulePass]]]


def _doc(cls: type[ModulePass]) -> str:
    # the class's own docstring: ModulePass's would describe every pass alike;
    # @dataclass makes a missing one its signature (`Name(field: type, ...)`)
    doc = inspect.cleandoc(vars(cls).get("__doc__") or "")
    return "" if doc.startswith(f"{cls.__name__}(") else doc


def _load(name: str, passes: PassFactories) -> type[ModulePass] | str:
    """The pass class, or why it cannot be loaded (a missing optional package)."""
    try:
        return passes[name]()
    except Exception as error:  # noqa: BLE001 - any import failure is shown
        return f"(cannot be loaded: {type(error).__name__}: {error})"


def _summary(name: str, passes: PassFactories) -> str:
    cls = _load(name, passes)
    if isinstance(cls, str):
        return cls
    # the first paragraph, on one line: first lines stop mid-sentence
    paragraph = _doc(cls).partition("\n\n")[0]
    return " ".join(paragraph.split()) or "(no description)"


def list_passes(passes: PassFactories, ours: Collection[str]) -> str:
    """fxdsl's passes (`ours`) and then the upstream ones, one line each."""
    sections = (
        ("fxdsl passes", [n for n in passes if n in ours]),
        ("upstream xDSL passes (most expect their own dialects)", sorted(
            n for n in passes if n not in ours
        )),
    )  # fmt: skip
    width = max(map(len, passes), default=0) + 2
    lines: list[str] = []
    for title, names in sections:
        lines.append(f"{title}:")
        lines += [f"  {n.ljust(width)}{_summary(n, passes)}" for n in names]
        lines.append("")
    lines.append("fxdsl-opt --help-pass NAME shows a pass's description and options.")
    return "\n".join(lines)


def describe_pass(name: str, passes: PassFactories) -> str:
    """`name`'s docstring and its options (`-p name{option=value ...}`)."""
    cls = _load(name, passes)
    if isinstance(cls, str):
        return f"{name}: {cls}"
    lines = [f"{name}: {_doc(cls) or '(no description)'}", ""]
    module_doc = inspect.getmodule(cls).__doc__  # type: ignore[union-attr]
    if "module docstring" in " ".join(lines[0].split()) and module_doc:
        lines += [inspect.cleandoc(module_doc), ""]
    options = pass_options(cls)
    if not options:
        lines.append("Options: none")
    else:
        lines.append(f"Options (-p '{name}{{option=value ...}}'):")
        for option, expects, default in options:
            shown = "required" if default is None else f"default: {default}"
            lines.append(f"  {option}: {expects} ({shown})")
    return "\n".join(lines)
