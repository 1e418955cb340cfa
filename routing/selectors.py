"""Reads for routing: the enabled catalog as one consistent snapshot for the engine."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import BinaryField, F, Func, TextField
from django.db.models.functions import Cast

from engine import DEFAULT_PARAMS, CatalogSnapshot, CategoryEntry, RankingParams, ToolEntry
from toolcatalog.models import CatalogVersion, Category, EmbeddingStatus, HypotheticalQuery, Tool
from toolcatalog.selectors import catalog_version

from .models import RankingCalibration


def _enabled_category_names() -> tuple[list[Category], set[str]]:
    """Categories whose whole parent chain is enabled: a disabled parent hides its children."""
    categories = list(Category.objects.all())
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


_CATALOG_STATE = (f"SELECT (SELECT version FROM {CatalogVersion._meta.db_table} WHERE id = 1), "
                  f"(SELECT max(id) FROM {RankingCalibration._meta.db_table})")


def catalog_state() -> tuple[int, int]:
    """(catalog version, newest calibration id) in one statement: a web process rebuilds its
    index when either moves (routing/live_index.py). 0 for what does not exist yet."""
    with connection.cursor() as cursor:
        cursor.execute(_CATALOG_STATE)
        version, calibration = cursor.fetchone()
    return int(version or 0), int(calibration or 0)


def ranking_params() -> RankingParams:
    """The newest calibration's weights; the engine's defaults before the first."""
    latest = RankingCalibration.objects.order_by("-id").values_list("params", flat=True).first()
    return RankingParams.from_dict(latest) if latest else DEFAULT_PARAMS


def load_snapshot(model_id: str, attempts: int = 5, *, params: RankingParams | None = None) -> CatalogSnapshot:
    """Everything the engine needs, as of one catalog version, with the ranking weights to use
    (`params`; by default the newest calibration's).

    Every change bumps the version when it commits, so a load that starts and ends
    on the same version read a consistent catalog; otherwise it reads again. Only
    vectors made by `model_id` count: another model's are not comparable with the query's.
    """
    params = ranking_params() if params is None else params
    for _ in range(attempts - 1):
        before = catalog_version()
        snapshot = _read_snapshot(model_id, before)
        if catalog_version() == before:
            return replace(snapshot, params=params)
    return replace(_read_snapshot(model_id, catalog_version()), params=params)


def _usable(row: Mapping[str, Any], model_id: str) -> bool:
    return (row["embedding_status"] == EmbeddingStatus.READY and row["embedding_model"] == model_id
            and row["vector"] is not None)


def _read_snapshot(model_id: str, version: int) -> CatalogSnapshot:
    categories, enabled_names = _enabled_category_names()
    by_pk = {c.pk: c for c in categories}
    # Parameters stay JSON text (cast in SQL, never parsed here): the engine parses a schema
    # only when it renders the tool, and 100,000 parsed schemas cost ~350 MB per web process.
    tool_rows = list(
        Tool.objects.filter(enabled=True)
        .annotate(parameters_json=Cast("parameters", output_field=TextField()), vector=_binary_embedding())
        .values("pk", "name", "description", "category__name", "parameters_json",
                "usage_hint", "core", "vector", "embedding_status", "embedding_model")
    )
    tool_rows = [r for r in tool_rows if r["category__name"] is None or r["category__name"] in enabled_names]
    names_by_pk = {r["pk"]: r["name"] for r in tool_rows}
    related: dict[int, list[str]] = defaultdict(list)
    for from_id, to_id in Tool.related_tools.through.objects.values_list("from_tool_id", "to_tool_id"):
        if from_id in names_by_pk and to_id in names_by_pk:
            related[from_id].append(names_by_pk[to_id])
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

    tools = tuple(
        ToolEntry(
            name=r["name"], description=r["description"], category=r["category__name"],
            parameters=r["parameters_json"] or "{}", usage_hint=r["usage_hint"],
            related_tools=tuple(sorted(related[r["pk"]])), core=r["core"],
            hypothetical_queries=(*embedded_queries[r["pk"]], *other_queries[r["pk"]]),
        )
        for r in tool_rows
    )
    return CatalogSnapshot(
        version=str(version),
        tools=tools,
        categories=tuple(
            CategoryEntry(
                name=c.name, description=c.description, keywords=tuple(c.keywords),
                workflow_hint=c.workflow_hint,
                parent=by_pk[c.parent_id].name if c.parent_id in by_pk else None,
            )
            for c in categories
        ),
        tool_vectors={
            r["name"]: _vector_from_binary(r["vector"]) for r in tool_rows if _usable(r, model_id)
        },
        query_vectors={names_by_pk[pk]: np.vstack(vs) for pk, vs in query_vectors.items()},
        category_vectors={
            c.name: _vector(c.embedding) for c in categories
            if c.embedding_status == EmbeddingStatus.READY and c.embedding_model == model_id
        },
        model=model_id,
    )
