"""A bounded cache that evicts its least recently used entry.

The torch backend keeps compiled programs by their IR and by input shape.
A model whose shapes keep changing (generation with a growing key/value
cache, through `dynamic=True`) would otherwise keep every program it ever
compiled, each with its device buffers, for as long as the process lives.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most `capacity` entries; adding one more evicts the entry used
    least recently (a lookup counts as a use)."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"an Lru holds at least one entry, not {capacity}")
        self.capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value of `key`, made by `make()` and kept if it is new."""
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()
