"""Retrieval metrics and the throw-away catalog `manage.py evaluate` routes against.

Pure Python (no Django), so the benchmarks use the same code.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

import numpy as np

from engine import CatalogSnapshot, CategoryEntry, ToolEntry, category_embedding_text, tool_embedding_text

K_VALUES = (1, 3, 5, 10)


def recall_at(ranked: Sequence[str], expected: Sequence[str], k: int) -> float:
    """Share of the expected tools found in the first k."""
    if not expected:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for name in set(expected) if name in top) / len(set(expected))


def reciprocal_rank(ranked: Sequence[str], expected: Sequence[str]) -> float:
    wanted = set(expected)
    for position, name in enumerate(ranked, start=1):
        if name in wanted:
            return 1.0 / position
    return 0.0


def ndcg_at(ranked: Sequence[str], expected: Sequence[str], k: int = 10) -> float:
    """Binary-relevance nDCG: each expected tool counts 1, discounted by log2(rank + 1)."""
    wanted = set(expected)
    if not wanted:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, name in enumerate(ranked[:k]) if name in wanted)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(wanted), k)))
    return dcg / ideal


def percentile(values: Sequence[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * pct / 100.0
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class QueryOutcome:
    ranked: list[str]
    expected: list[str]
    latency_ms: float
    tokens_selected: int
    tokens_catalog: int


def summarise(outcomes: Iterable[QueryOutcome]) -> dict[str, Any]:
    outcomes = list(outcomes)
    n = len(outcomes) or 1
    summary: dict[str, Any] = {"queries": len(outcomes)}
    for k in K_VALUES:
        summary[f"recall@{k}"] = round(sum(recall_at(o.ranked, o.expected, k) for o in outcomes) / n, 4)
    summary["mrr"] = round(sum(reciprocal_rank(o.ranked, o.expected) for o in outcomes) / n, 4)
    summary["ndcg@10"] = round(sum(ndcg_at(o.ranked, o.expected, 10) for o in outcomes) / n, 4)
    latencies = [o.latency_ms for o in outcomes]
    summary["p50_ms"] = round(median(latencies), 3) if latencies else 0.0
    summary["p95_ms"] = round(percentile(latencies, 95), 3)
    catalog = sum(o.tokens_catalog for o in outcomes) / n
    selected = sum(o.tokens_selected for o in outcomes) / n
    summary["tokens"] = {
        "all_tools": round(catalog, 1),
        "selected_mean": round(selected, 1),
        "saved_pct": round(100.0 * (1 - selected / catalog), 2) if catalog else 0.0,
    }
    return summary


def snapshot_from_document(document: dict[str, Any], embed, model_id: str, batch_size: int = 64) -> CatalogSnapshot:
    """A snapshot of a toolcatalog/v1 document, every text embedded with `embed(list[str])`."""
    tools = [
        ToolEntry(
            name=t["name"], description=t.get("description") or "", category=t.get("category"),
            parameters=t.get("parameters") or {}, usage_hint=t.get("usage_hint") or "",
            related_tools=tuple(t.get("related_tools") or ()), core=bool(t.get("core", False)),
            hypothetical_queries=tuple(t.get("hypothetical_queries") or ()),
        )
        for t in document.get("tools", []) if t.get("enabled", True)
    ]
    categories = [
        CategoryEntry(name=c["name"], description=c.get("description") or "", keywords=tuple(c.get("keywords") or ()),
                      workflow_hint=c.get("workflow_hint") or "", parent=c.get("parent"))
        for c in document.get("categories", []) if c.get("enabled", True)
    ]
    tool_texts = [tool_embedding_text(t.name, t.description, t.category, t.schema()) for t in tools]
    query_texts = [q for t in tools for q in t.hypothetical_queries]
    category_texts = [category_embedding_text(c.name, c.description, c.keywords) for c in categories]
    vectors = _embed_all(embed, tool_texts + query_texts + category_texts, batch_size)
    tool_vectors = {t.name: vectors[i] for i, t in enumerate(tools)}
    offset = len(tools)
    query_vectors: dict[str, np.ndarray] = {}
    for t in tools:
        count = len(t.hypothetical_queries)
        if count:
            query_vectors[t.name] = vectors[offset:offset + count]
        offset += count
    category_vectors = {c.name: vectors[offset + i] for i, c in enumerate(categories)}
    return CatalogSnapshot(version="evaluate", tools=tuple(tools), categories=tuple(categories),
                           tool_vectors=tool_vectors, query_vectors=query_vectors,
                           category_vectors=category_vectors, model=model_id)


def _embed_all(embed, texts: list[str], batch_size: int) -> np.ndarray:
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    parts = [np.asarray(embed(texts[i:i + batch_size]), dtype=np.float32) for i in range(0, len(texts), batch_size)]
    return np.vstack(parts)
