"""`DeviceOperands`: a CUDA island's operand tensors converted once, on the
host (numpy's DLPack stands in for CuPy's: both read the tensor's memory)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fxdsl.runtime.torch_operands import DeviceOperands  # noqa: E402


def zero_copy(tensor: Any) -> tuple[Any, bool]:
    return np.from_dlpack(tensor.detach()), True


def test_the_same_tensors_are_converted_on_their_first_two_calls_only() -> None:
    weights = [torch.randn(4, 4), torch.randn(4)]
    held = DeviceOperands(zero_copy)
    for _ in range(5):
        arrays = held(weights)
    assert held.conversions == 4  # two tensors, first and second call
    np.testing.assert_array_equal(arrays[0], weights[0].numpy())


def test_a_held_array_sees_writes_into_its_tensor() -> None:
    cache = torch.zeros(3)
    held = DeviceOperands(zero_copy)
    held([cache]), held([cache])
    cache.add_(2)  # an in-place update between calls: a KV cache, a step
    (array,) = held([cache])
    assert held.conversions == 2
    np.testing.assert_array_equal(array, [2, 2, 2])


def test_a_tensor_new_on_every_call_is_never_held() -> None:
    held = DeviceOperands(zero_copy)
    batch = torch.randn(8)
    held([batch]), held([batch])  # held now: the same tensor twice
    dead = weakref.ref(batch)
    for _ in range(3):
        held([torch.randn(8)])  # activations: a new tensor each call
    del batch
    gc.collect()
    assert dead() is None  # nothing kept its memory past its calls
    assert held.conversions == 5


def test_new_memory_or_layout_under_the_same_tensor_is_converted_again() -> None:
    weight = torch.nn.Parameter(torch.ones(2, 3))
    held = DeviceOperands(zero_copy)
    held([weight]), held([weight])
    weight.data = torch.full((2, 3), 5.0)  # same object, other storage
    (array,) = held([weight])
    np.testing.assert_array_equal(array, np.full((2, 3), 5.0))
    buffer = torch.zeros(6)
    held([buffer]), held([buffer])
    buffer.resize_(3, 2)  # same object and storage, other shape
    (array,) = held([buffer])
    assert array.shape == (3, 2)
    assert held.conversions == 6


def test_a_copying_conversion_is_never_held() -> None:
    """A host tensor copied to the device each call: holding the copy would
    miss writes into the tensor."""
    host = torch.zeros(2)
    held = DeviceOperands(lambda t: (t.numpy().copy(), False))
    for value in range(3):
        host.fill_(value)
        (array,) = held([host])
        np.testing.assert_array_equal(array, [value, value])
    assert held.conversions == 3


def test_pointers_name_each_operands_position() -> None:
    a, b = torch.zeros(2), torch.ones(3)
    held = DeviceOperands(zero_copy)
    held([a, b, a])
    assert held.pointers == {a.data_ptr(): 0, b.data_ptr(): 1}
