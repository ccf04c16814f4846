"""The on-disk kernel cache: keys, hits, atomic entries, corrupt entries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fxdsl.runtime.kernel_cache import KernelCache, cache_key, default_cache_dir

SOURCE = 'extern "C" __global__ void k(float* x) { x[0] = 1.0f; }'


def counting_compiler(calls: list[int], payload: bytes = b"CUBIN-BYTES"):
    def compile() -> bytes:
        calls.append(1)
        return payload

    return compile


def test_key_depends_on_source_arch_and_options() -> None:
    base = cache_key(SOURCE, "sm_90", ["-O3"])
    assert base == cache_key(SOURCE, "sm_90", ["-O3"])
    assert base != cache_key(SOURCE + " ", "sm_90", ["-O3"])
    assert base != cache_key(SOURCE, "sm_80", ["-O3"])
    assert base != cache_key(SOURCE, "sm_90", ["-O2"])
    # option order does not matter
    assert cache_key(SOURCE, "sm_90", ["-a", "-b"]) == cache_key(
        SOURCE, "sm_90", ["-b", "-a"]
    )


def test_miss_compiles_once_then_hits(tmp_path: Path) -> None:
    calls: list[int] = []
    cache = KernelCache(tmp_path)
    first = cache.get_or_compile(SOURCE, "sm_90", [], counting_compiler(calls))
    second = cache.get_or_compile(SOURCE, "sm_90", [], counting_compiler(calls))
    assert first == second == b"CUBIN-BYTES"
    assert len(calls) == 1
    assert (cache.stats.hits, cache.stats.misses, cache.stats.compiles) == (1, 1, 1)
    # a fresh cache object (a second process) reads the entry from disk
    again = KernelCache(tmp_path)
    assert again.get_or_compile(SOURCE, "sm_90", [], counting_compiler(calls)) == first
    assert len(calls) == 1
    assert again.stats.compiles == 0


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"garbage" + data,  # bad header
        lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]),  # payload bit flip
        lambda data: b"",  # empty file
    ],
)
def test_corrupt_entry_is_discarded_and_rebuilt(tmp_path: Path, damage) -> None:
    calls: list[int] = []
    cache = KernelCache(tmp_path)
    cache.get_or_compile(SOURCE, "sm_90", [], counting_compiler(calls))
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(damage(entry.read_bytes()))
    fresh = KernelCache(tmp_path)
    result = fresh.get_or_compile(SOURCE, "sm_90", [], counting_compiler(calls))
    assert result == b"CUBIN-BYTES"
    assert len(calls) == 2
    assert fresh.stats.corrupt == 1
    assert fresh.stats.compiles == 1
    # the rebuilt entry is whole again
    assert KernelCache(tmp_path).get(cache_key(SOURCE, "sm_90", [])) == b"CUBIN-BYTES"


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    cache = KernelCache(tmp_path / "nested" / "dir")
    for n in range(5):
        cache.get_or_compile(f"{SOURCE} // {n}", "sm_90", [], lambda: b"x" * 1000)
    names = sorted(p.name for p in (tmp_path / "nested" / "dir").iterdir())
    assert len(names) == 5
    assert all(n.endswith(".bin") and not n.startswith(".") for n in names)


def test_failed_compile_writes_nothing(tmp_path: Path) -> None:
    cache = KernelCache(tmp_path)

    def broken() -> bytes:
        raise RuntimeError("nvrtc: error: expected a ';'")

    with pytest.raises(RuntimeError, match="nvrtc"):
        cache.get_or_compile(SOURCE, "sm_90", [], broken)
    assert not any(tmp_path.iterdir())


def test_default_directory_honours_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FXDSL_CACHE_DIR", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("FXDSL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "fxdsl" / "kernels"


def test_concurrent_writers_leave_a_valid_entry(tmp_path: Path) -> None:
    """Several processes racing to fill one entry: every reader afterwards
    gets the whole payload (atomic rename), never a torn file."""
    script = (
        "import sys; from fxdsl.runtime.kernel_cache import KernelCache\n"
        "c = KernelCache(sys.argv[1])\n"
        "for _ in range(50): c.put('k' * 64, b'P' * 200000)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)], env=os.environ.copy()
        )
        for _ in range(3)
    ]
    for proc in procs:
        assert proc.wait(timeout=60) == 0
    assert KernelCache(tmp_path).get("k" * 64) == b"P" * 200000
