"""Checks of pass options, one wording for every pass.

A pass option comes from `fxdsl-opt -p 'pass{name=value}'` or from Python;
either way a bad value is a `PassFailedException` naming the pass and the
option (the driver prints it as an `error:` diagnostic), never a traceback
from deep inside the pass.
"""

from __future__ import annotations

from xdsl.utils.exceptions import PassFailedException


def check_int(pass_name: str, option: str, value: object, low: int) -> None:
    """`value` must be an int (not a bool) of at least `low`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise PassFailedException(
            f"{pass_name}: {option} must be an integer >= {low}, got {value!r}"
        )


def check_bool(pass_name: str, option: str, value: object) -> None:
    """`value` must be true or false."""
    if not isinstance(value, bool):
        raise PassFailedException(
            f"{pass_name}: {option} must be true or false, got {value!r}"
        )
