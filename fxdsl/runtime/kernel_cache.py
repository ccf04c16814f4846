"""On-disk cache of compiled kernel modules (cubin/PTX bytes).

* Key: sha256 over the CUDA source, the GPU architecture, the sorted compile
  options and a format version, so any change to one recompiles.
* Location: `$FXDSL_CACHE_DIR`, else `$XDG_CACHE_HOME/fxdsl/kernels`, else
  `~/.cache/fxdsl/kernels`.
* Entries are written atomically (temp file + rename, `tools/atomic_write`):
  a reader sees the old entry, the whole new one, or none.
* Each entry stores a header with the sha256 of its payload; an entry that is
  truncated, has a bad header or a wrong checksum is deleted and reported as
  a miss, so the caller recompiles: a corrupt cache never fails a run.
* `stats` counts hits, misses, compiles and discarded corrupt entries of this
  cache object; every event is also added to the process-wide counters of
  `fxdsl.runtime.stats()` (`fxdsl.runtime.counters`).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from fxdsl.runtime import counters
from fxdsl.util.atomic_write import write_atomic

FORMAT_VERSION = 1
MAGIC = b"FXDSL-KERNEL-CACHE/1\n"


def default_cache_dir() -> Path:
    """Where compiled kernels live unless told otherwise (see module doc)."""
    explicit = os.environ.get("FXDSL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fxdsl" / "kernels"


def cache_key(
    source: str, arch: str, options: Sequence[str] | Mapping[str, str] = ()
) -> str:
    """Hex key of one compilation: source, GPU arch and compile options."""
    opts = (
        sorted(f"{k}={v}" for k, v in options.items())
        if isinstance(options, Mapping)
        else sorted(options)
    )
    blob = json.dumps([FORMAT_VERSION, arch, opts, source]).encode()
    return hashlib.sha256(blob).hexdigest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    compiles: int = 0
    corrupt: int = 0


class KernelCache:
    """A directory of compiled kernel modules keyed by `cache_key`."""

    def __init__(self, directory: str | os.PathLike[str] | None = None):
        self.directory = (
            Path(directory) if directory is not None else default_cache_dir()
        )
        self.stats = CacheStats()

    def _count(self, name: str) -> None:
        setattr(self.stats, name, getattr(self.stats, name) + 1)
        counters.count(name)

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.bin"

    def get(self, key: str) -> bytes | None:
        """The stored bytes, or None (absent, or corrupt and now deleted)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:  # absent, or unreadable: compile instead
            self._count("misses")
            return None
        payload = _unwrap(data)
        if payload is None:
            self._count("corrupt")
            self._count("misses")
            path.unlink(missing_ok=True)
            return None
        self._count("hits")
        return payload

    def put(self, key: str, payload: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path(key), _wrap(payload))

    def get_or_compile(
        self,
        source: str,
        arch: str,
        options: Sequence[str],
        compile: Callable[[], bytes],
    ) -> bytes:
        """Cached bytes for this compilation, compiling (once) on a miss."""
        key = cache_key(source, arch, options)
        cached = self.get(key)
        if cached is not None:
            return cached
        payload = compile()  # a failure propagates and stores nothing
        self._count("compiles")
        try:
            self.put(key, payload)
        except OSError as error:  # a read-only or full disk slows, never fails
            warnings.warn(f"kernel cache: cannot store {key}: {error}", stacklevel=2)
        return payload


def _wrap(payload: bytes) -> bytes:
    digest = hashlib.sha256(payload).hexdigest().encode()
    return MAGIC + digest + b"\n" + payload


def _unwrap(data: bytes) -> bytes | None:
    if not data.startswith(MAGIC):
        return None
    rest = data[len(MAGIC) :]
    digest, newline, payload = rest[:64], rest[64:65], rest[65:]
    if newline != b"\n" or hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    return payload
