"""`fxdsl.util.lru.Lru`: the bounded cache of the torch backend's compiled
programs."""

from __future__ import annotations

import pytest

from fxdsl.util.lru import Lru


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: Lru[str, int] = Lru(2)
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(made)

    assert cache.get("a", lambda: make("a")) == 1
    assert cache.get("b", lambda: make("b")) == 2
    assert cache.get("a", lambda: make("a")) == 1  # a use: b is now the oldest
    assert cache.get("c", lambda: make("c")) == 3
    assert "b" not in cache
    assert "a" in cache
    assert len(cache) == 2
    assert cache.get("b", lambda: make("b")) == 4  # made again
    assert made == ["a", "b", "c", "b"]
    cache.clear()
    assert len(cache) == 0


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one entry, not 0"):
        Lru(0)
