"""graph.index_copy lowered: written in place into a donated argument (a
scatter kernel, no cache-sized allocation), or as a fresh buffer."""

from __future__ import annotations

import numpy as np
import pytest

from fxdsl.api import apply, parse
from fxdsl.interpreters.run import run_reference
from fxdsl.runtime.ir_emulator import Emulator

CACHE = "tensor<2x3x8x4xf32>"
STEP = """func.func @step(%cache: {cache}{mark}, %pos: tensor<{n}xi64>,
    %new: tensor<2x3x{n}x4xf32>) -> {cache} {{
  %r = graph.index_copy %cache, %pos, %new dim 2
    : ({cache}, tensor<{n}xi64>, tensor<2x3x{n}x4xf32>) -> {cache}
  func.return %r : {cache}
}}"""
WRITABLE = " {bufferization.writable = true}"


def _program(writable: bool, rows: int = 1) -> str:
    return STEP.format(cache=CACHE, mark=WRITABLE if writable else "", n=rows)


def _inputs(rows: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    cache = rng.standard_normal((2, 3, 8, 4)).astype(np.float32)
    positions = np.array([5, 2, 7][:rows], np.int64)
    new = rng.standard_normal((2, 3, rows, 4)).astype(np.float32)
    return cache, positions, new


def test_a_writable_cache_is_updated_in_place_without_a_cache_sized_buffer() -> None:
    lowered = apply(parse(_program(writable=True)), "convert-graph-to-gpu")
    cache, positions, new = _inputs()
    before = cache.copy()
    (want,) = run_reference(parse(_program(writable=False)), before, positions, new)
    emulator = Emulator(lowered)
    (got,) = emulator.run("step", cache, positions, new)
    np.testing.assert_array_equal(got, want)
    # the caller's buffer holds the new rows, and only those changed
    np.testing.assert_array_equal(cache, want)
    assert not np.array_equal(cache[:, :, 5], before[:, :, 5])
    assert emulator.allocations == []
    assert emulator.launches == 1
    assert "memref.alloc" not in str(lowered)


def test_without_the_mark_the_result_is_a_new_buffer() -> None:
    lowered = apply(parse(_program(writable=False, rows=3)), "convert-graph-to-gpu")
    cache, positions, new = _inputs(rows=3)
    before = cache.copy()
    (want,) = run_reference(parse(_program(writable=False, rows=3)), *_inputs(3))
    emulator = Emulator(lowered)
    (got,) = emulator.run("step", cache, positions, new)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(cache, before)  # value semantics
    assert emulator.allocations == [(2, 3, 8, 4)]


def test_a_cache_read_elsewhere_is_not_written_in_place() -> None:
    """The old cache is still needed after the update: a new buffer."""
    text = _program(writable=True).replace(
        f"func.return %r : {CACHE}",
        f"%s = graph.add %r, %cache : {CACHE}\n  func.return %s : {CACHE}",
    )
    lowered = apply(parse(text), "convert-graph-to-gpu")
    cache, positions, new = _inputs()
    (want,) = run_reference(parse(text.replace(WRITABLE, "")), cache, positions, new)
    emulator = Emulator(lowered)
    (got,) = emulator.run("step", cache, positions, new)
    np.testing.assert_allclose(got, want)
    assert (2, 3, 8, 4) in emulator.allocations


@pytest.mark.cxx
def test_the_in_place_update_runs_on_cuda_sim() -> None:
    from fxdsl.runtime.cuda_sim import CudaSimEmulator

    lowered = apply(parse(_program(writable=True)), "convert-graph-to-gpu")
    cache, positions, new = _inputs()
    (want,) = run_reference(parse(_program(writable=False)), cache, positions, new)
    sim = CudaSimEmulator(lowered, "address,undefined")
    try:
        (got,) = sim.run("step", cache, positions, new)
    finally:
        sim.close()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(cache, want)
    assert sim.allocations == []
