"""The reference of graph.random: Philox4x32-10 against Random123's
known-answer vectors, the counter layout (a value depends only on the seed
and its index), and the distributions' ranges and moments."""

from __future__ import annotations

import numpy as np
import pytest

from fxdsl.api import parse
from fxdsl.interpreters.random import philox, random_words
from fxdsl.interpreters.run import run_reference

# Random123's kat_vectors for philox4x32_10: (counter, key, output).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2,
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]  # fmt: skip


@pytest.mark.parametrize(("counter", "key", "expected"), KAT)
def test_philox_matches_the_known_answers(
    counter: tuple[int, ...], key: tuple[int, int], expected: tuple[int, ...]
) -> None:
    words = philox([np.array([c], np.uint64) for c in counter], key)
    assert tuple(int(w[0]) for w in words) == expected


def test_the_counter_is_index_then_offset_and_the_key_is_the_seed() -> None:
    key, offset = (0x299F31D0 << 32) | 0xA4093822, (0x03707344 << 32) | 0x13198A2E
    words = random_words(np.array([key, offset]), 3)
    (expected,) = zip(*philox(
        [np.array([2]), np.array([0]), np.array([0x13198A2E]), np.array([0x03707344])],
        (0xA4093822, 0x299F31D0),
    ))  # fmt: skip
    assert tuple(int(w[2]) for w in words) == tuple(int(e) for e in expected)
    # a longer draw starts with the same numbers: a value is its index's
    for short, long in zip(words, random_words(np.array([key, offset]), 9)):
        np.testing.assert_array_equal(short, long[:3])


def _run(distribution: str, dtype: str, n: int, seed: tuple[int, int]) -> np.ndarray:
    text = f"""func.func @f(%s: tensor<2xi64>) -> tensor<{n}x{dtype}> {{
      %r = graph.random %s distribution "{distribution}" : (tensor<2xi64>) -> tensor<{n}x{dtype}>
      func.return %r : tensor<{n}x{dtype}>
    }}"""
    (values,) = run_reference(parse(text), np.array(seed, np.int64))
    return values


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_uniform_is_in_the_unit_interval_with_its_moments(dtype: str) -> None:
    u = _run("uniform", dtype, 100_000, (7, 0)).astype(np.float64)
    assert u.min() >= 0.0
    assert u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01
    assert abs(u.var() - 1 / 12) < 0.005


def test_normal_has_mean_zero_and_variance_one() -> None:
    z = _run("normal", "f32", 100_000, (11, 3)).astype(np.float64)
    assert np.isfinite(z).all()
    assert abs(z.mean()) < 0.02
    assert abs(z.var() - 1.0) < 0.02
    # the tails a Box-Muller of 24-bit uniforms reaches (|z| < 5.8)
    assert 0.002 < np.mean(np.abs(z) > 3) < 0.0035


def test_bits_are_uniform_32_bit_words() -> None:
    bits = _run("bits", "i64", 100_000, (5, 9))
    assert bits.min() >= 0
    assert bits.max() < 2**32
    assert abs(bits.mean() / 2**32 - 0.5) < 0.01


def test_seeds_and_offsets_give_other_numbers() -> None:
    base = _run("uniform", "f32", 64, (1, 0))
    np.testing.assert_array_equal(base, _run("uniform", "f32", 64, (1, 0)))
    assert not np.array_equal(base, _run("uniform", "f32", 64, (2, 0)))
    assert not np.array_equal(base, _run("uniform", "f32", 64, (1, 1)))
    # a negative key is its two's-complement word pair, not an error
    assert not np.array_equal(base, _run("uniform", "f32", 64, (-1, 0)))
