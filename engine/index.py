"""`build_index`: everything a request needs, computed once per catalog version.

A `RoutingIndex` is never modified after `build_index` returns (the only
mutable parts are caches whose values are pure functions of the index: token
counts, rendered definitions, filter masks). A web process builds a new index
next to the old one and swaps a single reference, so no request ever sees a
half-built index.

Tools are kept sorted by name: position in the index IS the deterministic
tie-break (equal scores -> alphabetical).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from functools import partial
from typing import Any

import numpy as np

from shared.lru import LRUCache
from shared.memory import release_freed_memory

from .formats import render_tool
from .hierarchy import CategoryTree
from .lexical import FieldedBM25, build_lexical, lexical_weights, tokenize
from .names import NameMap
from .tokens import TokenCounter
from .types import CatalogSnapshot, CategoryEntry, ToolEntry
from .vectors import VectorIndex, limit_blas_threads, normalise

_MASK_CACHE_SIZE = 256
_RENDER_CACHE_SIZE = 4096


class RoutingIndex:
    def __init__(self, snapshot: CatalogSnapshot):
        started = time.perf_counter()
        limit_blas_threads()
        self.version = snapshot.version
        self.model = snapshot.model
        self.params = snapshot.params
        self.tools: tuple[ToolEntry, ...] = tuple(sorted(snapshot.tools, key=lambda t: t.name))
        self.names: list[str] = [t.name for t in self.tools]
        self.position: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self._build_categories(snapshot.categories)
        self._build_category_columns()
        self.core = np.array([t.core for t in self.tools], dtype=bool)
        self.lexical: FieldedBM25 = self._build_lexical(self.category_paths)
        self.vectors = self._build_vectors(snapshot)
        self._build_category_vectors(snapshot.category_vectors)
        self.name_map = self._build_name_map()
        self._rendered: LRUCache[tuple[int, str], Any] = LRUCache(_RENDER_CACHE_SIZE)
        # Counting renders without caching: the catalog total touches every
        # tool, and keeping 100k rendered dicts would cost ~120 MB.
        self.token_counter = self._build_token_counter()
        self._masks: LRUCache[Hashable, np.ndarray] = LRUCache(_MASK_CACHE_SIZE)
        release_freed_memory()  # the build's temporaries
        self.build_seconds = time.perf_counter() - started

    # -- construction helpers -------------------------------------------------
    # The costly parts; engine.incremental.PatchedIndex overrides them to reuse what
    # the previous index computed for the tools that did not change.
    def _build_lexical(self, paths: dict[str, tuple[CategoryEntry, ...]]) -> FieldedBM25:
        return build_lexical(self.tools, paths, lexical_weights(self.params))

    def _build_vectors(self, snapshot: CatalogSnapshot) -> VectorIndex:
        return VectorIndex(
            self.names, snapshot.tool_vectors, snapshot.query_vectors,
            {t.name: t.hypothetical_queries for t in self.tools},
            fold=self.params.query_fold, fold_mode=self.params.query_fold_mode,
            adapter=snapshot.query_adapter, adapter_share=self.params.query_adapter_share,
        )

    def _build_name_map(self) -> NameMap:
        return NameMap(self.names)

    def _build_token_counter(self) -> TokenCounter:
        return TokenCounter(len(self.tools), self._counting_render())

    def _counting_render(self) -> Callable[[int, str], Any]:
        # Not the bound method: a counter holding its index would make every index a reference
        # cycle, freed only by the cyclic GC (a replaced 100,000-tool index stayed in memory
        # until the next full collection) and never once frozen (toolrouter/wsgi.py).
        return partial(render_indexed_tool, self.tools, self.name_map)

    def _build_categories(self, categories: tuple[CategoryEntry, ...]) -> None:
        """The category tree and what is read from it per category (not per tool)."""
        self.tree = CategoryTree(categories)
        self.categories: dict[str, CategoryEntry] = self.tree.by_name
        # category name -> its root-to-leaf entries: the BM25 category field of its tools
        self.category_paths = {name: tuple(self.categories[n] for n in self.tree.path(name)) for name in self.categories}
        self._category_tokens = {
            name: frozenset(tokenize(" ".join([name, *cat.keywords])))
            for name, cat in self.categories.items()
        }

    def _build_category_columns(self) -> None:
        """Per tool, the index of its category in `category_names` (-1 = none)."""
        used = {t.category for t in self.tools if t.category}
        self.category_names: list[str] = sorted(set(self.categories) | used)
        cat_pos = {name: i for i, name in enumerate(self.category_names)}
        self.category_pos: dict[str, int] = cat_pos
        self.tool_category = np.array(
            [cat_pos[t.category] if t.category else -1 for t in self.tools], dtype=np.int32
        )

    def _build_category_vectors(self, category_vectors: dict[str, np.ndarray]) -> None:
        self._build_category_matrix(category_vectors)
        # Per tool, the row of its category's vector in category_matrix (-1: none).
        row_of = {n: i for i, n in enumerate(self.category_vector_names)}
        self.tool_category_row = np.array([row_of.get(t.category or "", -1) for t in self.tools], dtype=np.int64)

    def _build_category_matrix(self, category_vectors: dict[str, np.ndarray]) -> None:
        dim = self.vectors.dim
        self.category_vector_names = [
            n for n in self.category_names
            if n in category_vectors and dim and np.asarray(category_vectors[n]).size == dim
        ]
        if self.category_vector_names:
            self.category_matrix = np.vstack([normalise(category_vectors[n]) for n in self.category_vector_names])
        else:
            self.category_matrix = np.zeros((0, dim), dtype=np.float32)

    # -- public helpers -------------------------------------------------------
    def __len__(self) -> int:
        return len(self.tools)

    def external_name(self, name: str, fmt: str = "openai") -> str:
        return self.name_map.external(name, fmt)

    def internal_name(self, external: str) -> str:
        """The catalog name behind a name an agent sends back (any format's); unknown names pass through."""
        return self.name_map.referred(external) or external

    def render(self, i: int, fmt: str) -> Any:
        """Definition of tool `i` in `fmt`; the most recently returned ones are cached."""
        key = (i, fmt)
        cached = self._rendered.get(key)
        if cached is None:
            cached = self._render_uncached(i, fmt)
            self._rendered.put(key, cached)
        return cached

    def _render_uncached(self, i: int, fmt: str) -> Any:
        return render_indexed_tool(self.tools, self.name_map, i, fmt)

    def category_path(self, i: int) -> tuple[str, ...]:
        return self.tree.path(self.tools[i].category)

    def category_cosines(self, query_vector: np.ndarray) -> np.ndarray:
        """Per tool, the cosine of the (unit) query to its category's vector; 0 without one."""
        per_category = np.clip(self.category_matrix @ query_vector, 0.0, 1.0) if len(self.category_matrix) else np.zeros(0)
        out = np.zeros(len(self.tools), dtype=np.float32)
        has = self.tool_category_row >= 0
        out[has] = per_category[self.tool_category_row[has]]
        return out

    def category_token_sets(self) -> dict[str, frozenset[str]]:
        return self._category_tokens

    def mask(self, allowed_tools: frozenset[str] | None, categories: Sequence[str] | None) -> np.ndarray:
        """Boolean per tool: allowed by the toolset and inside the categories' subtrees. Cached."""
        key = (allowed_tools, tuple(sorted(categories)) if categories is not None else None)
        cached = self._masks.get(key)
        if cached is not None:
            return cached
        mask = np.ones(len(self.tools), dtype=bool)
        if allowed_tools is not None:
            allowed = np.zeros(len(self.tools), dtype=bool)
            allowed[[self.position[n] for n in allowed_tools if n in self.position]] = True
            mask &= allowed
        if categories is not None:
            mask &= self.category_mask(categories)
        mask.setflags(write=False)
        self._masks.put(key, mask)
        return mask

    def category_mask(self, categories: Sequence[str]) -> np.ndarray:
        names = self.tree.subtree(categories)
        ids = [i for i, n in enumerate(self.category_names) if n in names]
        return np.isin(self.tool_category, np.asarray(ids, dtype=np.int32))

    def token_total(self, mask_key: Hashable, mask: np.ndarray, fmt: str) -> int:
        return self.token_counter.total((mask_key, fmt), lambda: np.flatnonzero(mask), fmt)


def render_indexed_tool(tools: tuple[ToolEntry, ...], name_map: NameMap, i: int, fmt: str) -> Any:
    tool = tools[i]
    return render_tool(tool, fmt, name_map.external(tool.name, fmt))


def build_index(snapshot: CatalogSnapshot) -> RoutingIndex:
    """Build the immutable routing index of one catalog snapshot (same as `RoutingIndex(snapshot)`).

    Building also limits BLAS to one thread for the process (see
    `vectors.limit_blas_threads`) and returns the build's scratch memory to the OS.
    """
    return RoutingIndex(snapshot)


