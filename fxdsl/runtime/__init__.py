"""Executing compiled programs; the only package that imports cupy (lazily).

`fxdsl.runtime.stats()` returns the process-wide counters (compiles, cache
hits, ...; see `fxdsl.runtime.counters`), `reset_stats()` zeroes them.
"""

from fxdsl.runtime.counters import reset_stats, stats

__all__ = ["reset_stats", "stats"]
