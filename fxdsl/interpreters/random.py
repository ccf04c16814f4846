"""The reference of `graph.random`: Philox4x32-10 on numpy uint64 arrays
holding 32-bit words (a product of two words fits), one element per lane,
and the distributions of the op's docstring. The kernels compute the same
integer words (bit for bit) and the same f32 formulas."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from fxdsl.ir.graph.base import FLOAT_TYPES
from fxdsl.ir.graph.random import PHILOX_M, PHILOX_ROUNDS, PHILOX_W, UNIFORM_BITS, WORD

Array = np.ndarray[Any, Any]
Words = tuple[Array, Array, Array, Array]


def philox(counter: Sequence[Array], key: Sequence[int]) -> Words:
    """Philox4x32-10 of each lane's counter words `(c0, c1, c2, c3)` under
    `key` `(k0, k1)`: the four output words, as uint64 arrays."""
    mask = np.uint64(WORD)
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) & mask for c in counter)
    k0, k1 = (np.uint64(k & WORD) for k in key)
    m0, m2 = np.uint64(PHILOX_M[0]), np.uint64(PHILOX_M[1])
    w0, w1 = np.uint64(PHILOX_W[0]), np.uint64(PHILOX_W[1])
    for round_ in range(PHILOX_ROUNDS):
        if round_:
            k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
        p0, p2 = m0 * c0, m2 * c2
        c0, c1, c2, c3 = (
            (p2 >> np.uint64(32)) ^ c1 ^ k0,
            p2 & mask,
            (p0 >> np.uint64(32)) ^ c3 ^ k1,
            p0 & mask,
        )
    return c0, c1, c2, c3


def random_words(seed: Array, size: int) -> Words:
    """The Philox words of elements `0 .. size - 1` for `seed` `[key,
    offset]` (the counter is `(i lo, i hi, offset lo, offset hi)`)."""
    key, offset = (int(v) & 0xFFFFFFFFFFFFFFFF for v in np.asarray(seed).reshape(2))
    index = np.arange(size, dtype=np.uint64)
    counter = (
        index & np.uint64(WORD),
        index >> np.uint64(32),
        np.full(size, offset & WORD, dtype=np.uint64),
        np.full(size, offset >> 32, dtype=np.uint64),
    )
    return philox(counter, (key & WORD, key >> 32))


def _unit(word: Array, bits: int) -> Array:
    """`(word >> (32 - bits)) * 2**-bits` in float32 (exact)."""
    top = (word >> np.uint64(32 - bits)).astype(np.float32)
    return top * np.float32(2.0**-bits)


def random_values(
    distribution: str, seed: Array, shape: Sequence[int], dtype: Attribute
) -> Array:
    """The values of `graph.random` (see its docstring), before conversion
    to the result type: float32 for floats, int64 for "bits"."""
    size = math.prod(shape)
    x0, x1, _, _ = random_words(seed, size)
    if distribution == "bits":
        return x0.astype(np.int64).reshape(shape)
    assert dtype in FLOAT_TYPES
    if distribution == "uniform":
        return _unit(x0, UNIFORM_BITS[dtype]).reshape(shape)
    # Box-Muller in float32, in the kernels' order of operations
    u1 = (((x0 >> np.uint64(8)) + np.uint64(1)).astype(np.float32)) * np.float32(
        2.0**-24
    )
    u2 = _unit(x1, 24)
    radius = np.sqrt(np.float32(-2.0) * np.log(u1))
    angle = np.float32(2.0 * math.pi) * u2
    return (radius * np.cos(angle)).reshape(shape)
