"""How a kernel computes one element of `graph.random`: Philox4x32-10 in
`arith` ops on i64 values that hold 32-bit words, then the distribution.

Every intermediate stays in `[0, 2**48 + 2**32)`, so the printed C (signed
`long long`) never overflows: a word times a 32-bit multiplier would reach
2**64, so the multiplier is split in 16-bit halves (`_mulhilo`). Same words
as the reference (`interpreters/random.py`), bit for bit; the normal's
`log`/`sqrt`/`cos` are the f32 math ops, ulp-close on a GPU.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects import math as scalar_math
from xdsl.dialects.builtin import f32, i64
from xdsl.ir import Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.ir.graph.random import PHILOX_M, PHILOX_ROUNDS, PHILOX_W, UNIFORM_BITS, WORD
from fxdsl.lowering.kernel_emitter import Index, KernelEmitter


def _and(b: KernelEmitter, x: SSAValue, mask: int) -> SSAValue:
    return b.emit(arith.AndIOp(x, b.const(mask, i64)))


def _shr(b: KernelEmitter, x: SSAValue, bits: int) -> SSAValue:
    return b.emit(arith.ShRSIOp(x, b.const(bits, i64)))


def _add(b: KernelEmitter, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.emit(arith.AddiOp(x, y))


def _xor(b: KernelEmitter, *xs: SSAValue) -> SSAValue:
    result = xs[0]
    for x in xs[1:]:
        result = b.emit(arith.XOrIOp(result, x))
    return result


def _mulhilo(b: KernelEmitter, word: SSAValue, m: int) -> tuple[SSAValue, SSAValue]:
    """`(hi, lo)` 32-bit halves of `word * m` without a 64-bit overflow:
    `word * m = (word * mh) * 2**16 + word * ml` with 16-bit `mh`, `ml`."""
    low_part = b.emit(arith.MuliOp(word, b.const(m & 0xFFFF, i64)))
    high_part = b.emit(arith.MuliOp(word, b.const(m >> 16, i64)))
    shifted = b.emit(arith.MuliOp(_and(b, high_part, 0xFFFF), b.const(1 << 16, i64)))
    total = _add(b, low_part, shifted)
    hi = _add(b, _shr(b, high_part, 16), _shr(b, total, 32))
    return hi, _and(b, total, WORD)


def philox_words(
    b: KernelEmitter, counter: list[SSAValue], key: list[SSAValue]
) -> list[SSAValue]:
    """Philox4x32-10 of i64 words: the four output words."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_ in range(PHILOX_ROUNDS):
        if round_:
            k0 = _and(b, _add(b, k0, b.const(PHILOX_W[0], i64)), WORD)
            k1 = _and(b, _add(b, k1, b.const(PHILOX_W[1], i64)), WORD)
        hi0, lo0 = _mulhilo(b, c0, PHILOX_M[0])
        hi2, lo2 = _mulhilo(b, c2, PHILOX_M[1])
        c0, c1, c2, c3 = _xor(b, hi2, c1, k0), lo2, _xor(b, hi0, c3, k1), lo0
    return [c0, c1, c2, c3]


def _unit(b: KernelEmitter, word: SSAValue, bits: int, plus: int = 0) -> SSAValue:
    """`((word >> (32 - bits)) + plus) * 2**-bits` in f32 (exact)."""
    top = _shr(b, word, 32 - bits)
    if plus:
        top = _add(b, top, b.const(plus, i64))
    as_float = b.emit(arith.SIToFPOp(top, f32))
    return b.emit(arith.MulfOp(as_float, b.const(2.0**-bits, f32)))


def random_element(
    b: KernelEmitter, op: Operation, value: SSAValue, idx: Index
) -> SSAValue:
    """Element `idx` of a `graph.random` (in its compute type)."""
    assert isinstance(op, graph.RandomOp)
    key = b.value_at(op.seed, (b.index(0),))
    offset = b.value_at(op.seed, (b.index(1),))
    linear = b.linearize(idx, shape_of(value))
    index = b.emit(arith.IndexCastOp(linear, i64))
    counter = [
        _and(b, index, WORD),
        _shr(b, index, 32),
        _and(b, offset, WORD),
        _and(b, _shr(b, offset, 32), WORD),
    ]
    words = philox_words(
        b, counter, [_and(b, key, WORD), _and(b, _shr(b, key, 32), WORD)]
    )
    if op.kind == "bits":
        return words[0]
    if op.kind == "uniform":
        return _unit(b, words[0], UNIFORM_BITS[dtype_of(value)])
    u1 = _unit(b, words[0], 24, plus=1)
    u2 = _unit(b, words[1], 24)
    log = b.emit(scalar_math.LogOp(u1))
    radius = b.emit(scalar_math.SqrtOp(b.emit(arith.MulfOp(b.const(-2.0, f32), log))))
    angle = b.emit(arith.MulfOp(b.const(2.0 * math.pi, f32), u2))
    return b.emit(arith.MulfOp(radius, b.emit(scalar_math.CosOp(angle))))
