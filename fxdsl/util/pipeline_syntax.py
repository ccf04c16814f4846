"""Pass-pipeline text as users write it, made acceptable to xDSL's parser.

Kept free of fxdsl imports so that drivers can use it before loading passes.
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import (
    ArgSpec,
    _convert_arg_to_type,  # pyright: ignore[reportPrivateUsage]
    parse_pipeline,
)

_DOTTED_VALUE = re.compile(r"[A-Za-z_][\w]*(?:\.[\w*]+)+|[A-Za-z_]\w*\.?\*")


def quote_dotted_values(pipeline: str) -> str:
    """Quote unquoted option values such as `graph.add` or `graph.*`.

    xDSL's pipeline lexer rejects `.` and `*` outside string literals, but op
    names are the natural values of options like `graph-partition{ops=...}`;
    `ops=graph.add,graph.*` becomes `ops="graph.add","graph.*"`.
    """
    out: list[str] = []
    depth, pos, quoted = 0, 0, False
    while pos < len(pipeline):
        char = pipeline[pos]
        if char == '"' and depth:
            quoted = not quoted
        elif not quoted and char in "{}":
            depth += 1 if char == "{" else -1
        elif (
            depth
            and not quoted
            and pipeline[pos - 1] in "=, "
            and (match := _DOTTED_VALUE.match(pipeline, pos))
        ):
            out.append(f'"{match.group()}"')
            pos = match.end()
            continue
        out.append(char)
        pos += 1
    return "".join(out)


def pipeline_steps(pipeline: str) -> list[ArgSpec]:
    """The passes of `pipeline`, parsed, each with its options: the form in
    which a pipeline is edited (a comma also separates option values, as in
    `graph-partition{ops=add,mul}`, so the text is never split by hand)."""
    return list(parse_pipeline(quote_dotted_values(pipeline)))


def pipeline_text(steps: Iterable[ArgSpec]) -> str:
    """The pipeline text of `steps` (as `pipeline_steps` reads it back)."""
    return ",".join(str(step) for step in steps)


def has_pass(pipeline: str, name: str) -> bool:
    """Whether `pipeline` runs pass `name` (with any options)."""
    return any(step.name == name for step in pipeline_steps(pipeline))


def without_pass(pipeline: str, name: str) -> str:
    """`pipeline` with its `name` steps removed (with their options)."""
    return pipeline_text(s for s in pipeline_steps(pipeline) if s.name != name)


def with_pass(pipeline: str, added: str, after: str | None = None) -> str:
    """`pipeline` with the steps of `added` inserted right after its first
    `after` step (with any options), or at the end when `after` is None.
    Raises ValueError when `pipeline` has no `after` step."""
    steps = pipeline_steps(pipeline)
    names = [step.name for step in steps]
    if after is None:
        at = len(steps)
    elif after in names:
        at = names.index(after) + 1
    else:
        raise ValueError(f"no {after} step to follow in '{pipeline}'")
    return pipeline_text([*steps[:at], *pipeline_steps(added), *steps[at:]])


def with_options(pipeline: str, name: str, **options: bool | int | float | str) -> str:
    """`pipeline` with `options` (given as Python names: `fold_bias=False`)
    set on each of its `name` steps, other options kept."""
    extra = {key.replace("_", "-"): (value,) for key, value in options.items()}
    return pipeline_text(
        ArgSpec(s.name, {**s.parameters, **extra}) if s.name == name else s
        for s in pipeline_steps(pipeline)
    )


_KINDS: dict[Any, tuple[str, str]] = {
    bool: ("true or false", "booleans"),
    int: ("an integer", "integers"),
    float: ("a number", "numbers"),
    str: ("a word or quoted string", "words or quoted strings"),
}


def check_pass_options(
    pipeline: str, passes: Mapping[str, Callable[[], type[ModulePass]]]
) -> None:
    """Raise ValueError for the first bad option of a known pass in
    `pipeline`, naming the pass and the option as users type them
    (`graph-fuse: option max-args expects an integer, got abc`); xDSL's own
    messages name the dataclass fields (`max_args`) and, for a value of the
    wrong type, not the option at all. Unknown passes are left to xDSL."""
    for spec in parse_pipeline(pipeline):
        if spec.name in passes:
            _check_spec(spec, passes[spec.name]())


def _check_spec(spec: ArgSpec, cls: type[ModulePass]) -> None:
    fields = [f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    hints = get_type_hints(cls)
    for typed, value in spec.parameters.items():
        field = typed.replace("-", "_")
        if field not in fields:
            known = ", ".join(_dashed(f) for f in fields) or "none"
            raise ValueError(f"{spec.name}: unknown option {typed} (options: {known})")
        try:
            # the conversion xDSL's from_spec applies to each option
            _convert_arg_to_type(value, hints[field])
        except ValueError:
            got = ",".join(map(str, value)) or "no value"
            raise ValueError(
                f"{spec.name}: option {_dashed(field)} expects "
                f"{_kind(hints[field])}, got {got}"
            ) from None
    for field in cls.required_fields() - {"name"}:
        if field not in spec.normalize_parameter_names().parameters:
            raise ValueError(f"{spec.name}: option {_dashed(field)} is required")


def pass_options(cls: type[ModulePass]) -> list[tuple[str, str, str | None]]:
    """(option as typed, what it expects, its default or None if required)
    for each `-p` option of pass `cls`, in declaration order."""
    hints = get_type_hints(cls)
    options: list[tuple[str, str, str | None]] = []
    for field in dataclasses.fields(cls):
        if not field.init or field.name == "name":
            continue
        default = field.default
        if default is dataclasses.MISSING and field.default_factory is not (
            dataclasses.MISSING
        ):
            default = field.default_factory()
        shown = None if default is dataclasses.MISSING else _option_text(default)
        options.append((_dashed(field.name), _kind(hints[field.name]), shown))
    return options


def _option_text(value: Any) -> str:
    # as the value would be typed in a pipeline
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple | list):
        return ",".join(map(_option_text, value)) or "(empty)"
    return "(none)" if value is None else str(value)


def _dashed(field: str) -> str:
    return field.replace("_", "-")


def _kind(hint: Any) -> str:
    args = [a for a in get_args(hint) if a is not type(None)]
    if get_origin(hint) in (Union, types.UnionType) and len(args) == 1:
        return _kind(args[0])
    if get_origin(hint) is tuple and args:
        return "a comma-separated list of " + _KINDS.get(args[0], ("", str(args[0])))[1]
    return _KINDS.get(hint, (str(hint), ""))[0]
