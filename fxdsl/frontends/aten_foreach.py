"""The `_foreach_*` ops (`aten._foreach_add.List`, `_foreach_addcdiv.
ScalarList`, `_foreach_norm.Scalar`, ...) as one op per list element, for
`torch.compile` of an optimizer's step: PyTorch's optimizers update every
parameter with these "horizontal" ops (`foreach=True`, their default on
GPUs), and torch gives no decomposition of them.

A `_foreach_<op>` call is traced (`aten_decompositions`) as `<op>` on each
index: a `Tensor[]` or `Scalar[]` argument gives its i-th element, any
other argument (a scalar, `alpha`, the `other` of a `.Tensor` overload) is
passed as it is (a `.Tensor` overload of `addcmul`/`addcdiv`, one value per
element in a tensor, is left to torch: its fake kernel refuses it, so no
graph holds it). Three ops need more than their name:

* `addcmul`/`addcdiv` take their value positionally, their per-element
  op by keyword;
* `maximum`/`minimum` with a scalar are `clamp_min`/`clamp_max`;
* `norm` is `linalg_vector_norm`.

The graph then fuses the elementwise ops per parameter as for any other
chain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _per_element(op: str, overload: str) -> Callable[..., Any] | None:
    """The function `_foreach_<op>.<overload>` applies to each index."""
    import torch

    if op in ("addcmul", "addcdiv"):
        if overload == "Tensor":  # torch's fake kernel refuses it: no trace
            return None
        packet = getattr(torch.ops.aten, op)  # its value is keyword-only
        return lambda x, a, b, value=1: packet(x, a, b, value=value)
    if op in ("maximum", "minimum") and overload in ("Scalar", "ScalarList"):
        op = "clamp_min" if op == "maximum" else "clamp_max"
    if op == "norm":  # (self, ord, dtype): dtype is keyword-only there
        return lambda x, ord=2, dtype=None: torch.linalg.vector_norm(
            x, ord, dtype=dtype
        )
    return getattr(torch.ops.aten, op, None)


def decomposition(target: Any) -> Callable[..., Any] | None:
    """The per-element decomposition of a functional `_foreach_` overload
    (an OpOverload), or None for any other op."""
    name = target._schema.name.removeprefix("aten::")
    overload = target._overloadname
    if not name.startswith("_foreach_") or name.endswith("_") or "out" in overload:
        return None
    element = _per_element(name.removeprefix("_foreach_"), overload)
    if element is None:
        return None
    import torch

    arguments = target._schema.arguments
    # the arguments that hold one entry per element: the lists
    indexed = [isinstance(a.type, torch.ListType) for a in arguments]

    def run(*args: Any, **kwargs: Any) -> list[Any]:
        values = list(args) + [
            kwargs.get(a.name, a.default_value) for a in arguments[len(args) :]
        ]
        count = len(next(v for v, per in zip(values, indexed) if per))
        results = []
        for i in range(count):
            positional, keywords = [], {}
            for argument, value, per in zip(arguments, values, indexed):
                value = value[i] if per else value
                if argument.kwarg_only:
                    keywords[argument.name] = value
                else:
                    positional.append(value)
            results.append(element(*positional, **keywords))
        return results

    return run
