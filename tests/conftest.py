"""Shared pytest setup: the `gpu` marker skips cleanly without a usable GPU,
the `nvcc` marker without an `nvcc` on PATH, the `cxx` marker (cuda-sim)
without a host C++ compiler. Under `CI` (set by CI and by
`CI=true bash .ci/run`) hypothesis draws the same examples on every run, so
a red CI run is reproducible; locally each run draws new ones (that is how
bugs are found) and a failure prints its `@reproduce_failure` blob.
`FXDSL_FUZZ=N` multiplies every property's examples by N, with new draws
each run and no deadlines: a bug hunt (`FXDSL_FUZZ=20 pytest tests/transforms`)."""

from __future__ import annotations

import functools
import os
import shutil

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
FUZZ = int(os.environ.get("FXDSL_FUZZ") or 0)


def fuzz(items: list[pytest.Item]) -> None:
    """Under `FXDSL_FUZZ`, each hypothesis test draws that many times its
    examples (its own `@settings` otherwise win over any profile)."""
    if not FUZZ:
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None:
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                own,
                max_examples=own.max_examples * FUZZ,
                deadline=None,
                derandomize=False,
            )


@functools.cache
def gpu_available() -> str | None:
    """None when CuPy can run kernels here, else the reason it cannot."""
    try:
        import cupy  # type: ignore[import-not-found]

        cupy.cuda.runtime.getDeviceCount()
        cupy.arange(1).sum()
    except Exception as error:  # noqa: BLE001 - any failure means "no GPU"
        return f"{type(error).__name__}: {error}"
    return None


def host_compiler() -> str | None:
    """The C++ compiler cuda-sim builds kernels with, or None."""
    from fxdsl.runtime.cuda_sim import compiler

    return compiler()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    fuzz(items)
    reason = None
    for item in items:
        if item.get_closest_marker("nvcc") is not None and shutil.which("nvcc") is None:
            item.add_marker(pytest.mark.skip(reason="nvcc is not installed"))
        if item.get_closest_marker("cxx") is not None and host_compiler() is None:
            item.add_marker(pytest.mark.skip(reason="needs a host C++ compiler"))
        if item.get_closest_marker("gpu") is None:
            continue
        reason = reason or gpu_available()
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"needs a GPU ({reason})"))
