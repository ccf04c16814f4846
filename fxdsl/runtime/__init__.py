"""Executing compiled programs; the only package that imports cupy (lazily).

`fxdsl.runtime.stats()` returns the process-wide counters (compiles, cache
hits, ...; see `fxdsl.runtime.counters`), `timings()` the seconds spent
per compile phase (lower, build, load), `reset_stats()` zeroes both.
"""

from fxdsl.runtime.counters import reset_stats, stats, timings

__all__ = ["reset_stats", "stats", "timings"]
