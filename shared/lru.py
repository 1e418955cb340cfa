"""One bounded, thread-safe LRU cache for every in-process cache of the project.

Pure Python (no Django), so the engine uses it too.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """At most `max_items` entries; reading or writing an entry makes it the most recent,
    and the least recently used entry goes first when the cache is full."""

    def __init__(self, max_items: int) -> None:
        if max_items < 1:
            raise ValueError("max_items must be at least 1")
        self.max_items = max_items
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def get_many(self, keys: Iterable[K]) -> dict[K, V]:
        """The entries found among `keys` (missing keys are left out)."""
        found: dict[K, V] = {}
        with self._lock:
            for key in keys:
                value = self._items.get(key)
                if value is not None:
                    self._items.move_to_end(key)
                    found[key] = value
        return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._put(key, value)
            self._trim()

    def put_many(self, values: Mapping[K, V]) -> None:
        with self._lock:
            for key, value in values.items():
                self._put(key, value)
            self._trim()

    def _put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)

    def _trim(self) -> None:
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
