"""Pass-pipeline text as users write it, made acceptable to xDSL's parser.

Kept free of fxdsl imports so that drivers can use it before loading passes.
"""

from __future__ import annotations

import re

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
