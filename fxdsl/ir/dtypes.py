"""Element types <-> numpy dtypes, and the bf16 emulation.

numpy has no bfloat16, so a bf16 tensor is held as a float32 array whose
values are exactly representable in bf16: `round_to_bf16` rounds to nearest,
ties to even, on the upper 16 bits of the float32 pattern (what torch does
when it converts float32 to bfloat16). `numpy_dtype(bf16)` is therefore
float32, and `element_type_of` never answers bf16.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

_FLOAT_DTYPES: dict[type[Attribute], np.dtype[Any]] = {
    Float16Type: np.dtype(np.float16),
    BFloat16Type: np.dtype(np.float32),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}
_INT_DTYPES: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.bool_),
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}


def numpy_dtype(element_type: Attribute) -> np.dtype[Any]:
    """The numpy dtype that holds values of `element_type` (bf16: float32)."""
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 8 and element_type.signedness.data == Signedness.UNSIGNED:
            return np.dtype(np.uint8)
        if width in _INT_DTYPES:
            return _INT_DTYPES[width]
    elif type(element_type) in _FLOAT_DTYPES:
        return _FLOAT_DTYPES[type(element_type)]
    raise ValueError(f"element type {element_type} has no numpy equivalent")


def element_type_of(dtype: np.dtype[Any] | type) -> Attribute:
    """The element type for a numpy dtype (float32 maps to f32, never bf16)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return IntegerType(1)
    if dtype.kind == "i":
        return IntegerType(dtype.itemsize * 8)
    if dtype == np.uint8:
        return IntegerType(8, Signedness.UNSIGNED)
    for typ, candidate in _FLOAT_DTYPES.items():
        if candidate == dtype and typ is not BFloat16Type:
            return typ()
    raise ValueError(f"numpy dtype {dtype} has no fxdsl element type")


def is_bf16(element_type: Attribute) -> bool:
    return isinstance(element_type, BFloat16Type)


def round_to_bf16(array: Any, xp: Any = np) -> Any:
    """float32 array rounded to bf16 precision (nearest, ties to even).

    NaN stays NaN (the rounding carry must not turn it into an infinity);
    overflow past the largest bf16 gives inf, as the hardware conversion does.
    `xp` is the array module: numpy, or CuPy for a device array (the CUDA
    executor rounds on the device, without a trip through the host).
    """
    # not ascontiguousarray: it makes a rank-0 array 1-D
    values = xp.asarray(array, dtype=xp.float32, order="C")
    bits = values.view(xp.uint32)
    lsb = (bits >> 16) & 1
    rounded = ((bits + np.uint32(0x7FFF) + lsb) & np.uint32(0xFFFF0000)).view(
        xp.float32
    )
    return xp.where(xp.isnan(values), values, rounded).astype(xp.float32)


def bf16_bits(array: Any, xp: Any = np) -> Any:
    """float32 values -> the `uint16` bits of their bf16 rounding (how a
    device holds bf16), computed by array module `xp` (numpy or CuPy)."""
    rounded = round_to_bf16(array, xp)
    bits = (rounded.view(xp.uint32) >> 16).astype(xp.uint16)
    # a NaN whose payload is only in the low half would truncate to inf:
    # set the quiet bit, so NaN stays NaN
    return xp.where(xp.isnan(rounded), bits | np.uint16(0x0040), bits)


def from_bf16_bits(bits: Any, xp: Any = np) -> Any:
    """`uint16` bf16 bits -> the float32 values they hold (exactly)."""
    return (bits.astype(xp.uint32) << 16).view(xp.float32)


def half_bits(values: Any, half: str) -> np.ndarray:
    """Values -> the `uint16` bits of their rounding to `half` ("bf16" or
    "f16"), as a device stores them."""
    if half == "bf16":
        return bf16_bits(np.asarray(values).astype(np.float32))
    if half == "f16":
        return np.asarray(values).astype(np.float16).view(np.uint16)
    raise ValueError(f"{half!r} is not a 16-bit float type (bf16, f16)")


def from_half_bits(bits: np.ndarray, half: str) -> np.ndarray:
    """`uint16` bits of a `half` ("bf16" or "f16") -> the float64 values
    they hold (exactly)."""
    if half == "bf16":
        return from_bf16_bits(bits).astype(np.float64)
    if half == "f16":
        return bits.view(np.float16).astype(np.float64)
    raise ValueError(f"{half!r} is not a 16-bit float type (bf16, f16)")


def to_element_type(array: Any, element_type: Attribute) -> np.ndarray:
    """`array` converted (numpy `astype` rules) to hold `element_type` values."""
    result = np.asarray(array).astype(numpy_dtype(element_type), copy=False)
    return round_to_bf16(result) if is_bf16(element_type) else result


def from_bytes(
    data: bytes, element_type: Attribute, shape: tuple[int, ...]
) -> np.ndarray:
    """Decode the raw little-endian storage of a dense attribute."""
    if is_bf16(element_type):
        halves = np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16
        flat = halves.view(np.float32)
    elif isinstance(element_type, IntegerType) and element_type.width.data == 1:
        flat = np.frombuffer(data, dtype=np.uint8) != 0
    else:
        flat = np.frombuffer(data, dtype=numpy_dtype(element_type).newbyteorder("<"))
    count = int(np.prod(shape, dtype=np.int64))
    if flat.size == 1 and count != 1:
        flat = np.repeat(flat, count)
    return flat.astype(numpy_dtype(element_type)).reshape(shape)


def to_bytes(array: Any, element_type: Attribute) -> bytes:
    """The raw little-endian storage of a dense attribute holding `array`
    (converted to `element_type`): `from_bytes`'s inverse."""
    values = np.ascontiguousarray(to_element_type(array, element_type))
    if is_bf16(element_type):
        return (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    if values.dtype == np.bool_:
        return values.astype(np.uint8).tobytes()
    return values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes()


_FLOAT_WIDTHS = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64)}
"""f32 and f64: the numpy float and the unsigned type of its bit pattern
(bf16 and f16 go through `half_bits` / `from_half_bits`)."""


def float_bits(values: Any, typ: Attribute) -> np.ndarray:
    """Values of float type `typ` -> their bit patterns, unsigned integers
    of the type's width (how a device, and MLIR's hex literal, holds them)."""
    name = str(typ)
    if name in ("bf16", "f16"):
        return half_bits(values, name)
    if name not in _FLOAT_WIDTHS:
        raise ValueError(f"no bit pattern for {typ}")
    floating, unsigned = _FLOAT_WIDTHS[name]
    return np.asarray(values, floating).view(unsigned)


def float_from_bits(bits: int, typ: Attribute) -> float:
    """The value of float type `typ` whose bit pattern is `bits` (MLIR's
    hexadecimal float literal); a ValueError when `bits` is wider than the
    type."""
    name = str(typ)
    if name not in ("bf16", "f16", *_FLOAT_WIDTHS):
        raise ValueError(f"no bit pattern for {typ}")
    floating, unsigned = _FLOAT_WIDTHS.get(name, (np.float16, np.uint16))
    width = 8 * np.dtype(unsigned).itemsize
    if bits < 0 or bits >= 1 << width:
        raise ValueError(f"{bits:#x} is wider than {typ}'s {width} bits")
    if name in ("bf16", "f16"):
        return float(from_half_bits(np.array([bits], np.uint16), name)[0])
    return float(np.array([bits], unsigned).view(floating)[0])
