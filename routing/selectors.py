"""Reads for routing: the enabled catalog as one consistent snapshot for the engine, or what
changed in it since the version an index was built from."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import BinaryField, F, Func, QuerySet, TextField
from django.db.models.functions import Cast

from engine import DEFAULT_PARAMS, CatalogSnapshot, CategoryEntry, QueryAdapter, RankingParams, ToolEntry
from engine.incremental import CatalogChanges
from toolcatalog.models import (
    CatalogChange,
    CatalogVersion,
    Category,
    ChangeKind,
    EmbeddingStatus,
    HypotheticalQuery,
    Tool,
)
from toolcatalog.selectors import catalog_version

from .models import RankingCalibration


def _enabled_categories(categories: list[Category]) -> tuple[list[Category], set[str]]:
    """Categories whose whole parent chain is enabled: a disabled parent hides its children."""
    by_pk = {c.pk: c for c in categories}

    def chain_enabled(category: Category) -> bool:
        seen = set()
        current: Category | None = category
        while current is not None and current.pk not in seen:
            if not current.enabled:
                return False
            seen.add(current.pk)
            current = by_pk.get(current.parent_id) if current.parent_id is not None else None
        return True

    enabled = [c for c in categories if chain_enabled(c)]
    return enabled, {c.name for c in enabled}


def _vector(value) -> np.ndarray:
    return np.asarray(value, dtype=np.float32)


def _binary_embedding() -> Func:
    """The embedding in pgvector's binary form (`vector_send`). Parsing the text form cost
    ~40 us per vector and dominated snapshot loads; numpy reads the binary one in ~1 us
    (50,000 vectors of 384 dimensions: 6.8 s -> 0.5 s)."""
    return Func(F("embedding"), function="vector_send", output_field=BinaryField())


def _vector_from_binary(data: bytes) -> np.ndarray:
    # vector_send's layout: uint16 dimensions, uint16 unused, then big-endian float32s.
    return np.frombuffer(data, dtype=">f4", offset=4).astype(np.float32)


@dataclass(frozen=True)
class SnapshotRows:
    """Which rows an index was read from, as of `version`: what patching it later needs.

    It keeps the categories as read (`category_entries`, `category_vectors` and the names of the
    enabled ones), so a change that records no category reuses them instead of reading and
    parsing every category again."""

    version: int
    tool_names: dict[int, str]  # pk -> name of every tool in the index
    categories: dict[int, tuple[str, int | None, bool]]  # pk -> (name, parent pk, enabled), all categories
    category_entries: tuple[CategoryEntry, ...]
    category_vectors: Mapping[str, np.ndarray]
    enabled_categories: frozenset[str]


_CATALOG_STATE = (f"SELECT (SELECT version FROM {CatalogVersion._meta.db_table} WHERE id = 1), "
                  f"(SELECT max(id) FROM {RankingCalibration._meta.db_table})")


def catalog_state() -> tuple[int, int]:
    """(catalog version, newest calibration id) in one statement: a web process updates its
    index when either moves (routing/live_index.py). 0 for what does not exist yet."""
    with connection.cursor() as cursor:
        cursor.execute(_CATALOG_STATE)
        version, calibration = cursor.fetchone()
    return int(version or 0), int(calibration or 0)


def ranking(model_id: str) -> tuple[RankingParams, QueryAdapter | None]:
    """The newest calibration's weights, and its query adapter if it was fitted on `model_id`'s
    vectors (another model's map means nothing here, and may not even fit its dimensions); the
    engine's defaults before the first calibration."""
    latest = (RankingCalibration.objects.order_by("-id")
              .values_list("params", "model", "query_adapter", "query_adapter_pairs").first())
    if not latest:
        return DEFAULT_PARAMS, None
    params, model, adapter, pairs = latest
    if adapter is None or model != model_id:
        return RankingParams.from_dict(params), None
    return RankingParams.from_dict(params), QueryAdapter.from_bytes(bytes(adapter), pairs)


def load_snapshot(model_id: str, attempts: int = 5, *, params: RankingParams | None = None) -> CatalogSnapshot:
    """Everything the engine needs, as of one catalog version, with the ranking weights to use:
    `params` (and no query adapter), or by default the newest calibration's weights and adapter.

    Every change bumps the version when it commits, so a load that starts and ends
    on the same version read a consistent catalog; otherwise it reads again. Only
    vectors made by `model_id` count: another model's are not comparable with the query's.
    """
    return load_snapshot_and_rows(model_id, attempts, params=params)[0]


def load_snapshot_and_rows(model_id: str, attempts: int = 5, *, params: RankingParams | None = None
                           ) -> tuple[CatalogSnapshot, SnapshotRows]:
    """`load_snapshot`, and the rows it was read from (for `load_changes` next time)."""
    params, adapter = ranking(model_id) if params is None else (params, None)
    for _ in range(attempts - 1):
        before = catalog_version()
        snapshot, rows = _read_snapshot(model_id, before)
        if catalog_version() == before:
            return replace(snapshot, params=params, query_adapter=adapter), rows
    snapshot, rows = _read_snapshot(model_id, catalog_version())
    return replace(snapshot, params=params, query_adapter=adapter), rows


def _usable(row: Mapping[str, Any], model_id: str) -> bool:
    return (row["embedding_status"] == EmbeddingStatus.READY and row["embedding_model"] == model_id
            and row["vector"] is not None)


def _read_snapshot(model_id: str, version: int) -> tuple[CatalogSnapshot, SnapshotRows]:
    all_categories = list(Category.objects.all())
    categories, enabled_names = _enabled_categories(all_categories)
    # Parameters stay JSON text (cast in SQL, never parsed here): the engine parses a schema
    # only when it renders the tool, and 100,000 parsed schemas cost ~350 MB per web process.
    visible = _visible_tools(Tool.objects.filter(enabled=True), enabled_names, streamed=True)
    names_by_pk = _names(visible)
    tools, tool_vectors, query_vectors = _tool_entries(visible, model_id, _related_names(names_by_pk))
    category_entries, category_vectors = _category_entries(categories), _category_vectors(categories, model_id)
    snapshot = CatalogSnapshot(
        version=str(version),
        tools=tools,
        categories=category_entries,
        tool_vectors=tool_vectors,
        query_vectors=query_vectors,
        category_vectors=category_vectors,
        model=model_id,
    )
    return snapshot, SnapshotRows(version, names_by_pk, _category_rows(all_categories), category_entries,
                                  category_vectors, frozenset(enabled_names))


def _visible_tools(tools: QuerySet[Tool], enabled_categories: Set[str], *, streamed: bool = False
                  ) -> dict[int, tuple[str, str | None]]:
    """pk -> (name, category name) of these tools, those of a disabled category left out.
    `streamed`: read from a server-side cursor, for the whole catalog (see `_rows`)."""
    rows = _rows(tools.values_list("pk", "name", "category__name"), streamed)
    return {pk: (name, category) for pk, name, category in rows
            if category is None or category in enabled_categories}


def _names(visible: Mapping[int, tuple[str, str | None]]) -> dict[int, str]:
    return {pk: name for pk, (name, _) in visible.items()}


def _related_names(visible: Mapping[int, str], of: Mapping[int, str] | None = None) -> dict[int, list[str]]:
    """The related tools of the tools `of` (default: all `visible` ones), as names, those not
    `visible` left out."""
    related: dict[int, list[str]] = defaultdict(list)
    links = Tool.related_tools.through.objects.values_list("from_tool_id", "to_tool_id")
    if of is not None:
        links = links.filter(from_tool_id__in=list(of))
    for from_id, to_id in links:
        if from_id in (visible if of is None else of) and to_id in visible:
            related[from_id].append(visible[to_id])
    return related


# Tools are read this many rows at a time (a server-side cursor); fewer are read by primary key.
_CHUNK_ROWS = 2_000


def _rows(rows: QuerySet[Any, Any], streamed: bool) -> Iterable[Any]:
    """The rows `_CHUNK_ROWS` at a time from a server-side cursor when `streamed`, else in one
    fetch: a server-side cursor costs extra round trips, which a patch's few rows do not repay."""
    return rows.iterator(_CHUNK_ROWS) if streamed else rows


def _tool_entries(visible: Mapping[int, tuple[str, str | None]], model_id: str, related: Mapping[int, list[str]]
                  ) -> tuple[tuple[ToolEntry, ...], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """ToolEntries of the `visible` tools, with their usable tool vectors and hypothetical-query vectors.

    The rows are streamed a few thousand at a time (a server-side cursor), and the vectors read
    apart from the texts: at 100,000 tools, a list of whole rows, and 1.5 KB vectors read between
    the strings the index keeps, left ~100 MB of freed but unreturnable pages in a web process."""
    names_by_pk = _names(visible)
    # Queries with a usable vector come first, in the same order as their vectors, so the
    # engine can name the query that matched (vectors[i] belongs to queries[i]).
    embedded_queries: dict[int, list[str]] = defaultdict(list)
    other_queries: dict[int, list[str]] = defaultdict(list)
    query_vectors: dict[int, list[np.ndarray]] = defaultdict(list)
    for row in HypotheticalQuery.objects.filter(approved=True, tool_id__in=list(names_by_pk)).annotate(
        vector=_binary_embedding()
    ).values("tool_id", "text", "vector", "embedding_status", "embedding_model").order_by("tool_id", "pk"):
        if _usable(row, model_id):
            embedded_queries[row["tool_id"]].append(row["text"])
            query_vectors[row["tool_id"]].append(_vector_from_binary(row["vector"]))
        else:
            other_queries[row["tool_id"]].append(row["text"])

    rows = _rows(_of(visible).annotate(parameters_json=Cast("parameters", output_field=TextField()))
                 .values_list("pk", "description", "parameters_json", "usage_hint", "core"),
                 streamed=len(visible) >= _CHUNK_ROWS)
    tools = tuple(
        ToolEntry(
            name=visible[pk][0], description=description, category=visible[pk][1],
            parameters=parameters or "{}", usage_hint=usage_hint,
            related_tools=tuple(sorted(related.get(pk, ()))), core=core,
            hypothetical_queries=(*embedded_queries[pk], *other_queries[pk]),
        )
        for pk, description, parameters, usage_hint, core in rows if pk in visible
    )
    tool_vectors = _tool_vectors(names_by_pk, model_id)
    return tools, tool_vectors, {names_by_pk[pk]: np.vstack(vs) for pk, vs in query_vectors.items()}


def _of(tools: Mapping[int, Any]) -> QuerySet[Tool]:
    """The rows of these tools; a large set is read whole and filtered by the caller (an IN list
    of 100,000 keys costs the database more than the rows it leaves out)."""
    return Tool.objects.all() if len(tools) >= _CHUNK_ROWS else Tool.objects.filter(pk__in=list(tools))


def _tool_vectors(names_by_pk: Mapping[int, str], model_id: str) -> dict[str, np.ndarray]:
    """The usable vectors of these tools, by name, as the rows of one matrix."""
    tools = _of(names_by_pk).filter(embedding_status=EmbeddingStatus.READY, embedding_model=model_id,
                                    embedding__isnull=False)
    rows = _rows(tools.annotate(vector=_binary_embedding()).values_list("pk", "vector"),
                 streamed=len(names_by_pk) >= _CHUNK_ROWS)
    block = np.empty((0, 0), dtype=np.float32)
    names: list[str] = []
    for pk, data in rows:
        name = names_by_pk.get(pk)
        if name is None:
            continue
        vector = np.frombuffer(data, dtype=">f4", offset=4)
        if not names:
            block = np.empty((len(names_by_pk), vector.size), dtype=np.float32)
        block[len(names)] = vector
        names.append(name)
    return {name: block[i] for i, name in enumerate(names)}


def _category_entries(categories: list[Category]) -> tuple[CategoryEntry, ...]:
    by_pk = {c.pk: c for c in categories}
    return tuple(
        CategoryEntry(
            name=c.name, description=c.description, keywords=tuple(c.keywords),
            workflow_hint=c.workflow_hint,
            parent=by_pk[c.parent_id].name if c.parent_id in by_pk else None,
        )
        for c in categories
    )


def _category_vectors(categories: list[Category], model_id: str) -> dict[str, np.ndarray]:
    return {c.name: _vector(c.embedding) for c in categories
            if c.embedding_status == EmbeddingStatus.READY and c.embedding_model == model_id}


def _category_rows(categories: list[Category]) -> dict[int, tuple[str, int | None, bool]]:
    return {c.pk: (c.name, c.parent_id, c.enabled) for c in categories}


def load_changes(model_id: str, known: SnapshotRows, indexed: Sequence[ToolEntry], version: int
                 ) -> tuple[CatalogChanges, SnapshotRows] | None:
    """What changed from `known.version` to `version` (read before this call), read from the rows
    the change records name (toolcatalog.models.CatalogChange), for `engine.apply_changes`; None
    when a full load is needed: records pruned or missing, a bulk write that did not say what it
    changed, or a category renamed, moved, enabled, disabled or deleted (which shows or hides its
    tools). Categories are read only when a record names one.

    `indexed`: the tools of the index built from `known`. Rows are read after the version,
    so they are at least as new as it; a later change is read again with its own version.
    """
    if version <= known.version:
        return None
    records = list(CatalogChange.objects.filter(version__gt=known.version, version__lte=version)
                   .values_list("version", "kind", "object_id"))
    if len({v for v, _, _ in records}) != version - known.version or any(k == ChangeKind.ALL for _, k, _ in records):
        return None
    categories_changed = any(k == ChangeKind.CATEGORY for _, k, _ in records)
    category_rows, category_entries = known.categories, known.category_entries
    category_vectors, enabled_names = known.category_vectors, known.enabled_categories
    if categories_changed:
        all_categories = list(Category.objects.all())
        category_rows = _category_rows(all_categories)
        if any(category_rows.get(pk) != row for pk, row in known.categories.items()):
            return None
        categories, enabled = _enabled_categories(all_categories)
        category_entries, category_vectors = _category_entries(categories), _category_vectors(categories, model_id)
        enabled_names = frozenset(enabled)
    changed_ids = {oid for _, kind, oid in records if kind == ChangeKind.TOOL and oid is not None}
    visible = _visible_tools(Tool.objects.filter(enabled=True, pk__in=changed_ids), enabled_names)
    tool_names = dict(known.tool_names)
    removed = _forget(tool_names, changed_ids, _names(visible))
    # Tools naming a changed tool among their related tools list it by name, or stop listing it.
    referring = _referring_tools(changed_ids, removed, known.tool_names, indexed) - changed_ids
    referring &= known.tool_names.keys()
    if referring:
        more = _visible_tools(Tool.objects.filter(enabled=True, pk__in=referring), enabled_names)
        removed |= _forget(tool_names, referring, _names(more))
        visible |= more
    tool_names |= _names(visible)
    tools, tool_vectors, query_vectors = _tool_entries(
        visible, model_id, _related_names(tool_names, of=_names(visible)))
    changes = CatalogChanges(
        version=str(version), tools=tools, removed=frozenset(removed), tool_vectors=tool_vectors,
        query_vectors=query_vectors, categories=category_entries, category_vectors=category_vectors,
        categories_changed=categories_changed,
    )
    return changes, SnapshotRows(version, tool_names, category_rows, category_entries, category_vectors,
                                 enabled_names)


def _forget(tool_names: dict[int, str], ids: set[int], loaded: Mapping[int, str]) -> set[str]:
    """Drop `ids` from `tool_names`; the names that leave the index (gone, hidden or renamed)."""
    removed = set()
    for pk in ids:
        old = tool_names.pop(pk, None)
        if old is not None and loaded.get(pk) != old:
            removed.add(old)
    return removed


def _referring_tools(changed_ids: set[int], removed: set[str], known_names: Mapping[int, str],
                     indexed: Sequence[ToolEntry]) -> set[int]:
    """Tools whose related list names (or should now name) a changed or removed tool."""
    referring = set(Tool.related_tools.through.objects.filter(to_tool_id__in=list(changed_ids))
                    .values_list("from_tool_id", flat=True))
    if removed:  # the links of a deleted tool are gone with it: look in the index
        pk_of = {name: pk for pk, name in known_names.items()}
        referring |= {pk_of[t.name] for t in indexed if t.name in pk_of and not removed.isdisjoint(t.related_tools)}
    return referring
