"""Torch tensors as the CUDA executor takes them, converted once per tensor.

A CUDA island of the torch backend gets every operand as a torch tensor on
every call: for a model, mostly its parameters, buffers and KV caches, the
same tensors call after call (GPT-2 124M: about 150). Converting one (a bf16
tensor viewed as its `uint16` bits, `cupy.from_dlpack`, the executor's
checks) costs tens of microseconds in Python; for a whole model that was most
of a call (the 2026-11-28 H200 check: GPT-2 bf16 at B=1, T=64 took 6.96 ms
through the backend against 0.98 ms for the same kernels called directly).

`DeviceOperands` keeps, per operand position, the device array of the tensor
seen there, and hands it out again while the same tensor object comes back
with the same memory and layout. An array is kept only from a tensor's second
call on: a tensor that changes every call (an activation, a batch) is never
held past its call, so no memory outlives its tensor for long. Only zero-copy
conversions are kept: the array reads the tensor's memory, so a write into
the tensor between calls (an optimizer step, a cache update) is seen.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

Converted = tuple[Any, bool]
"""A device array and whether it is the tensor's own memory (zero-copy)."""


class DeviceOperands:
    """Operand tensors -> device arrays through `convert`, reusing the array
    of an operand position while its tensor is the same (see the module
    docstring); `pointers` maps each operand's data pointer, of the last
    call, to its position."""

    def __init__(self, convert: Callable[[Any], Converted] | None = None) -> None:
        self.convert = convert or to_cupy
        self._seen: list[tuple[Any, tuple[Any, ...]] | None] = []
        self._arrays: list[Any] = []
        self.pointers: dict[int, int] = {}
        self.conversions = 0
        """How many tensors were converted (not found held): for tests."""

    def __call__(self, tensors: Sequence[Any]) -> list[Any]:
        if len(self._seen) != len(tensors):
            self._seen = [None] * len(tensors)
            self._arrays = [None] * len(tensors)
        pointers: dict[int, int] = {}
        arrays = []
        for index, tensor in enumerate(tensors):
            key = (tensor.data_ptr(), tensor.shape, tensor.stride(), tensor.dtype)
            pointers.setdefault(key[0], index)
            seen = self._seen[index]
            if seen is not None and seen[0]() is tensor and seen[1] == key:
                array = self._arrays[index]
                if array is None:  # the second call with it: keep its array
                    array, own = self._converted(tensor)
                    self._arrays[index] = array if own else None
            else:
                self._seen[index] = (weakref.ref(tensor), key)
                self._arrays[index] = None
                array, _ = self._converted(tensor)
            arrays.append(array)
        self.pointers = pointers
        return arrays

    def _converted(self, tensor: Any) -> Converted:
        self.conversions += 1
        return self.convert(tensor)


def to_cupy(tensor: Any) -> Converted:
    """A torch tensor as the CUDA executor holds it (`crossing`), through
    DLPack: zero-copy on the current device; a tensor on the host (a CPU
    scalar tensor beside CUDA ones) is copied to the device first, on
    torch's current stream."""
    import cupy  # type: ignore[import-not-found]

    own = tensor.is_cuda
    if not own:
        tensor = tensor.to("cuda")
    return cupy.from_dlpack(crossing(tensor)), own


def crossing(tensor: Any) -> Any:
    """`tensor` as DLPack may export it to the executor: detached (DLPack
    refuses a tensor that needs grad), bf16 as its `uint16` bits (as the
    executor holds bf16; DLPack consumers know no bf16)."""
    import torch

    if tensor.requires_grad:
        tensor = tensor.detach()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.uint16)
    return tensor
