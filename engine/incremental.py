"""Patching a routing index with what changed, instead of building it anew.

`apply_changes(previous, changes)` returns the index that `RoutingIndex(snapshot)` builds for
`previous`'s catalog with `changes` applied: the same tools in the same order, the same BM25
score for every term and tool, the same vectors, bit for bit (tests/engine/
test_engine_patched_index.py compares the two). It reuses what did not change:

- BM25: each tool's term counts per field (`lexical.FieldCounts`, kept by every index). Only
  added tools, changed tools whose entry differs, and the tools of a category whose text
  changed, are tokenised again. The scores are recomputed for every tool, since idf and the
  mean field length move with any change (`lexical.FieldedBM25`, vectorised over the counts).
  When no entry changed (only vectors landed), the previous BM25 is shared.
- vectors: the rows of the tool matrix (folded with hypothetical queries) and of the query
  matrix; only the changed tools' rows are computed, by `VectorIndex` itself.
- the token counts of the tools' definitions, where the tool and its external name did not
  change; the name map, where the names did not.
- the categories' tree, paths, keyword tokens and vector matrix, when no category changed.
- everything when only the version moved (a toolset change): the index is shared.

It raises `PatchNotPossible` where the structure does not allow a patch (the catalog becomes
empty, the vector size changes, the last vector goes); the caller then builds from a full
snapshot. Nothing here changes how a request is ranked: that stays in index.py, lexical.py,
vectors.py and router.py.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .index import RoutingIndex
from .lexical import FIELD_WEIGHTS, FieldedBM25, field_tokens, lexical_weights
from .names import MAPPED_FORMATS, NameMap
from .tokens import TokenCounter
from .types import CatalogSnapshot, CategoryEntry, ToolEntry
from .vectors import VectorIndex


class PatchNotPossible(Exception):
    """The changes cannot be applied to the previous index: build from a full snapshot."""


@dataclass(frozen=True)
class CatalogChanges:
    """What changed since the catalog an index was built from, as of `version`.

    `tools`: every added or changed tool, whole, with its usable vectors in `tool_vectors`
    and `query_vectors` (as a `CatalogSnapshot` has them). `removed`: names no longer in the
    catalog, a renamed tool's old name included. `categories` and `category_vectors`: all of
    them, as a snapshot has them; `categories_changed` says whether they differ from before.
    """

    version: str
    tools: tuple[ToolEntry, ...]
    removed: frozenset[str]
    tool_vectors: Mapping[str, np.ndarray]
    query_vectors: Mapping[str, np.ndarray]
    categories: tuple[CategoryEntry, ...]
    category_vectors: Mapping[str, np.ndarray]
    categories_changed: bool

    @property
    def only_version(self) -> bool:
        return not self.tools and not self.removed and not self.categories_changed


def apply_changes(previous: RoutingIndex, changes: CatalogChanges) -> RoutingIndex:
    """The index of `previous`'s catalog with `changes` applied (see the module's doc)."""
    if changes.only_version:
        shared = copy.copy(previous)
        shared.version = changes.version
        return shared
    return PatchedIndex(previous, changes)


class PatchedIndex(RoutingIndex):
    """A `RoutingIndex` built from the previous one and the changes (see `apply_changes`)."""

    def __init__(self, previous: RoutingIndex, changes: CatalogChanges) -> None:
        changed = {t.name for t in changes.tools}
        kept = tuple(t for t in previous.tools if t.name not in changed and t.name not in changes.removed)
        if not kept and not changes.tools:
            raise PatchNotPossible("the catalog is empty")
        snapshot = CatalogSnapshot(
            version=changes.version, tools=kept + changes.tools, categories=changes.categories,
            tool_vectors={}, query_vectors={}, category_vectors=dict(changes.category_vectors),
            model=previous.model, params=previous.params,
        )
        self._previous = previous
        self._changes = changes
        self._changed = changed
        self._reuse: np.ndarray | None = None
        try:
            super().__init__(snapshot)
        finally:  # an index must not keep its predecessors alive
            del self._previous, self._changes, self._changed, self._reuse

    def _reused_positions(self) -> np.ndarray:
        """Per tool, its position in the previous index, or -1 where it changed or is new (a copy)."""
        if self._reuse is None:
            position = self._previous.position
            self._reuse = np.fromiter((-1 if name in self._changed else position.get(name, -1) for name in self.names),
                                      dtype=np.int64, count=len(self.names))
        return self._reuse.copy()

    # -- categories -------------------------------------------------------------------
    def _build_categories(self, categories: tuple[CategoryEntry, ...]) -> None:
        """The previous index's when the categories did not change (at 2,422 categories, ~10 ms)."""
        if self._changes.categories_changed:
            return super()._build_categories(categories)
        previous = self._previous
        self.tree, self.categories = previous.tree, previous.categories
        self.category_paths, self._category_tokens = previous.category_paths, previous._category_tokens

    def _build_category_matrix(self, category_vectors: dict[str, np.ndarray]) -> None:
        previous = self._previous
        if (self._changes.categories_changed or self.category_names != previous.category_names
                or self.vectors.dim != previous.vectors.dim):
            return super()._build_category_matrix(category_vectors)
        self.category_vector_names, self.category_matrix = previous.category_vector_names, previous.category_matrix

    # -- names ------------------------------------------------------------------------
    def _build_name_map(self) -> NameMap:
        """The previous index's map when the names are the same (an edit, a vector that landed):
        a map depends on the set of names alone."""
        previous = self._previous
        return previous.name_map if self.names == previous.names else NameMap(self.names)

    # -- BM25 -------------------------------------------------------------------------
    def _build_lexical(self, paths: dict[str, tuple[CategoryEntry, ...]]) -> FieldedBM25:
        previous = self._previous
        reuse = self._reused_positions()
        # A changed tool whose entry is the same as before (only its vector moved) has the same terms.
        for i in np.flatnonzero(reuse < 0).tolist():
            at = previous.position.get(self.names[i])
            if at is not None and self.tools[i] == previous.tools[at]:
                reuse[i] = at
        moved = _categories_with_new_text(previous, paths) if self._changes.categories_changed else set()
        if moved:
            reuse[[i for i, t in enumerate(self.tools) if t.category in moved]] = -1
        if len(reuse) == len(previous.tools) and np.array_equal(reuse, np.arange(len(reuse))):
            return previous.lexical  # the same documents in the same order (a vector that landed)
        before = previous.lexical.field_counts
        fresh = field_tokens(self.tools, np.flatnonzero(reuse < 0).tolist(), paths)
        counts = {name: before[name].patched(reuse, fresh[name]) for name in FIELD_WEIGHTS}
        return FieldedBM25(counts, lexical_weights(self.params), len(self.tools))

    # -- vectors ----------------------------------------------------------------------
    def _build_vectors(self, snapshot: CatalogSnapshot) -> VectorIndex:
        before = self._previous.vectors
        changes = self._changes
        reuse = self._reused_positions()
        kept = np.flatnonzero(reuse >= 0)
        fresh = np.flatnonzero(reuse < 0)
        fresh_names = [self.names[i] for i in fresh]
        computed = VectorIndex(
            fresh_names,
            {n: changes.tool_vectors[n] for n in fresh_names if n in changes.tool_vectors},
            {n: changes.query_vectors[n] for n in fresh_names if n in changes.query_vectors},
            {self.names[i]: self.tools[i].hypothetical_queries for i in fresh},
            fold=self.params.query_fold, fold_mode=self.params.query_fold_mode,
        )
        dim = before.dim or computed.dim
        if computed.dim and computed.dim != dim:
            raise PatchNotPossible(f"vectors of {computed.dim} dimensions, the index has {dim}")
        n = len(self.names)
        out = VectorIndex.__new__(VectorIndex)
        out.dim = dim
        out.adapter, out.adapter_share = before.adapter, before.adapter_share  # a new one comes with a full build
        out.tool_matrix = np.zeros((n, dim), dtype=np.int8)
        out.tool_scale = np.ones(n, dtype=np.float32)
        out.has_vector = np.zeros(n, dtype=bool)
        out.has_vector_of_tool = np.zeros(n, dtype=bool)
        out.fold_norm = np.ones(n, dtype=np.float32)
        out.fold_scale = np.zeros(n, dtype=np.float32)
        for source, rows, into in ((before, reuse[kept], kept), (computed, np.arange(len(fresh)), fresh)):
            if source.dim:
                out.tool_matrix[into] = source.tool_matrix[rows]
                out.tool_scale[into] = source.tool_scale[rows]
            out.has_vector[into] = source.has_vector[rows]
            out.has_vector_of_tool[into] = source.has_vector_of_tool[rows]
            out.fold_norm[into] = source.fold_norm[rows]
            out.fold_scale[into] = source.fold_scale[rows]
        if dim and not out.has_vector.any():  # a full build would find no vector size at all
            raise PatchNotPossible("no tool has a vector any more")
        out.keep_scoring_rows()
        _merge_query_rows(out, (before, reuse[kept], kept), (computed, np.arange(len(fresh)), fresh), n=n)
        out.set_head_start()  # the lead depends on every tool's queries, so it is measured again
        return out

    # -- token counts -----------------------------------------------------------------
    def _build_token_counter(self) -> TokenCounter:
        counter = TokenCounter(len(self.tools), self._counting_render())
        previous = self._previous
        same_names = not self._changes.removed and all(name in previous.position for name in self._changed)
        _seed_token_counts(counter, previous, self, self._reused_positions(), same_names)
        return counter


def carry_token_counts(previous: RoutingIndex, index: RoutingIndex) -> None:
    """Start `index`'s token counts from `previous`'s for every tool whose entry is unchanged.

    For a full build of a catalog `previous` already served (a new calibration, a bulk write): its
    first request would otherwise count every tool's definition again, ~0.9 s at 10,000 tools and
    several seconds at 100,000, in each web process. Call it before `index` serves."""
    reuse = np.fromiter((previous.position.get(name, -1) for name in index.names), dtype=np.int64,
                        count=len(index.names))
    for i in np.flatnonzero(reuse >= 0).tolist():
        if index.tools[i] != previous.tools[reuse[i]]:
            reuse[i] = -1
    _seed_token_counts(index.token_counter, previous, index, reuse, previous.names == index.names)


def _seed_token_counts(counter: TokenCounter, previous: RoutingIndex, index: RoutingIndex, reuse: np.ndarray,
                       same_names: bool) -> None:
    """Seed `counter` (of `index`) with `previous`'s counts of the tools at `reuse` (-1: none).
    `same_names`: both catalogs have the same names, so no external name moved."""
    kept = np.flatnonzero(reuse >= 0)
    for fmt, known in previous.token_counter.known_counts().items():
        rows = kept
        if fmt in MAPPED_FORMATS and not same_names:  # a new name can move another's external name
            rows = kept[[previous.name_map.external(index.names[i], fmt) == index.name_map.external(index.names[i], fmt)
                         for i in kept.tolist()]]
        counts = np.full(len(index.tools), -1, dtype=np.int32)
        counts[rows] = known[reuse[rows]]
        counter.seed(fmt, counts)


def _categories_with_new_text(previous: RoutingIndex, paths: dict[str, tuple[CategoryEntry, ...]]) -> set[str]:
    """Categories whose root-to-leaf entries (the BM25 category field of their tools) changed."""
    before = previous.category_paths
    return {name for name in before.keys() | paths.keys() if before.get(name, ()) != paths.get(name, ())}


def _merge_query_rows(out: VectorIndex, *sources: tuple[VectorIndex, np.ndarray, np.ndarray], n: int) -> None:
    """The hypothetical-query rows of every tool, taken from the source index it comes from.

    Each source is (index, its rows for the tools, their positions in `out`)."""
    count = np.zeros(n, dtype=np.int64)
    first = np.zeros(n, dtype=np.int64)
    origin = np.zeros(n, dtype=np.int64)
    for k, (source, rows, into) in enumerate(sources):
        per_tool = np.bincount(source.query_owner, minlength=len(source.has_vector))
        starts = np.zeros(len(per_tool), dtype=np.int64)
        starts[source._owner_ids] = source._owner_starts
        count[into] = per_tool[rows]
        first[into] = starts[rows]
        origin[into] = k
    owners = np.repeat(np.arange(n), count)
    offset = np.arange(len(owners)) - np.repeat(np.cumsum(count) - count, count)
    source_row = np.repeat(first, count) + offset
    row_origin = np.repeat(origin, count)
    out.query_matrix = np.zeros((len(owners), out.dim), dtype=np.float16)
    texts: list[str] = [""] * len(owners)
    for k, (source, _, _) in enumerate(sources):
        mine = np.flatnonzero(row_origin == k)
        if len(mine):
            out.query_matrix[mine] = source.query_matrix[source_row[mine]]
            for j, row in zip(mine.tolist(), source_row[mine].tolist(), strict=True):
                texts[j] = source.query_texts[row]
    out.query_owner = owners.astype(np.int64)
    out.query_texts = texts
    # as VectorIndex._build_queries sets them
    if len(out.query_owner):
        out._owner_starts = np.flatnonzero(np.r_[True, out.query_owner[1:] != out.query_owner[:-1]])
    else:
        out._owner_starts = np.zeros(0, dtype=np.int64)
    out._owner_ids = out.query_owner[out._owner_starts] if len(out._owner_starts) else out._owner_starts
