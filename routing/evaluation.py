"""Retrieval metrics, the throw-away catalog `manage.py evaluate` routes against, and the two
baselines (plain BM25 and the seeds' cosine filter) every quality figure is shown beside.

Pure Python (no Django), so the benchmarks use the same code.
"""
from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

import bm25s
import numpy as np

from engine import (
    CatalogSnapshot,
    CategoryEntry,
    ToolEntry,
    category_embedding_text,
    split_identifier,
    tool_embedding_text,
)
from shared.json_input import replace_unpaired_surrogates
from toolcatalog.interchange import parse_catalog
from toolcatalog.interchange.loading import load_document

K_VALUES = (1, 3, 5, 10)
# bm25s sets its own logger to DEBUG when imported, after Django's logging settings are applied:
# `evaluate` printed "Building index from tokens" among its results.
logging.getLogger("bm25s").setLevel(logging.WARNING)


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
    """The figures `evaluate` prints. A query with no expected tool is routed and timed but not
    scored: it has no recall to measure, and counting it as 0 would lower every figure."""
    outcomes = list(outcomes)
    scored = [o for o in outcomes if o.expected]
    n = len(scored) or 1
    summary: dict[str, Any] = {"queries": len(outcomes), "scored": len(scored)}
    for k in K_VALUES:
        summary[f"recall@{k}"] = round(sum(recall_at(o.ranked, o.expected, k) for o in scored) / n, 4)
    summary["mrr"] = round(sum(reciprocal_rank(o.ranked, o.expected) for o in scored) / n, 4)
    summary["ndcg@10"] = round(sum(ndcg_at(o.ranked, o.expected, 10) for o in scored) / n, 4)
    latencies = [o.latency_ms for o in outcomes]
    summary["p50_ms"] = round(median(latencies), 3) if latencies else 0.0
    summary["p95_ms"] = round(percentile(latencies, 95), 3)
    routed = len(outcomes) or 1
    catalog = sum(o.tokens_catalog for o in outcomes) / routed
    selected = sum(o.tokens_selected for o in outcomes) / routed
    summary["tokens"] = {
        "all_tools": round(catalog, 1),
        "selected_mean": round(selected, 1),
        "saved_pct": round(100.0 * (1 - selected / catalog), 2) if catalog else 0.0,
    }
    return summary


@dataclass
class EvaluationCatalog:
    """CATALOG.json as `evaluate` ranks it: a toolcatalog/v1 document whose names are all valid,
    and the way back to the names the file gives, which QUERIES.jsonl's answers use."""

    document: dict[str, Any]
    source_names: dict[str, str]  # catalog name -> the file's name, where they differ
    notes: list[str]  # what a person should know: renamed, skipped, ranked without parameters

    def source_name(self, name: str) -> str:
        return self.source_names.get(name, name)


def evaluation_catalog(data: str | bytes) -> EvaluationCatalog:
    """Read a catalog file for `evaluate` as the import reads it, except that a tool the import
    would refuse only for its name, its parameter schema or an optional field is still ranked
    (CatalogBuilder's `for_ranking`), in every format the import reads. Raises InterchangeError,
    as `parse_catalog`, when the file is not a catalog."""
    document, halves = replace_unpaired_surrogates(load_document(data, keep_unpaired_surrogates=True))
    parsed = parse_catalog(document, for_ranking=True)
    notes = [f"skipped {r}" for r in parsed.rejected] + parsed.warnings
    if halves:
        notes.append(f"{halves} texts hold half of a UTF-16 pair (an escape such as \\ud800 alone), "
                     "ranked as U+FFFD")
    disabled = [parsed.renamed.get(t["name"], t["name"]) for t in parsed.tools if not t["enabled"]]
    if disabled:
        notes.append(f"{len(disabled)} disabled tools are not ranked, as the route endpoint never offers them: "
                     f"{first_names(disabled)}")
    return EvaluationCatalog(parsed.to_document(), dict(parsed.renamed), notes)


def first_names(names: Sequence[str], shown: int = 5) -> str:
    """A few of `names` for a note on stderr: "'a', 'b', ..."."""
    return ", ".join(repr(n) for n in names[:shown]) + (", ..." if len(names) > shown else "")


def complete_ranking(ranked: Sequence[str], names: Sequence[str], limit: int) -> list[str]:
    """`ranked`, then the other `names` in order, up to `limit`. The engine never offers a tool
    that scores 0 (no word and no positive cosine in common with the request), so on a small
    catalog it can name fewer than `limit`; it orders tools with equal scores by name, and so
    does this tail."""
    shown = set(ranked)
    return [*ranked, *(n for n in names if n not in shown)][:max(limit, len(ranked))]


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


# -- the two baselines every quality figure stands beside --------------------------------------
_WORD = re.compile(r"[a-z0-9]+")


def _baseline_words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def baseline_tool_text(tool: ToolEntry) -> str:
    """What both baselines know of a tool: its name (identifier split into words) and description."""
    return f"{' '.join(split_identifier(tool.name))}: {tool.description}"


def bm25_baseline(tools: Sequence[ToolEntry], queries: Sequence[str], limit: int) -> list[list[str]]:
    """Plain Okapi BM25 (k1 1.5, b 0.75) over name and description, lower-cased words: what a
    keyword search over a tool list gives."""
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="robertson")
    retriever.index([_baseline_words(baseline_tool_text(t)) or ["\x00"] for t in tools], show_progress=False)
    vocabulary = retriever.vocab_dict
    names = [t.name for t in tools]
    rankings = []
    for query in queries:
        words = [w for w in _baseline_words(query) if w in vocabulary]
        scores = retriever.get_scores(words) if words else np.zeros(len(tools))
        rankings.append(_top_names(np.asarray(scores, dtype=np.float64), names, limit))
    return rankings


def cosine_baseline(tools: Sequence[ToolEntry], query_vectors: np.ndarray, embed, limit: int,
                    batch_size: int = 64) -> list[list[str]]:
    """The seeds' semantic filter: cosine of the query to each tool's name and description,
    embedded by the same model (`embed(list[str])`)."""
    matrix = _embed_all(embed, [baseline_tool_text(t) for t in tools], batch_size)
    matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    queries = query_vectors / np.maximum(np.linalg.norm(query_vectors, axis=1, keepdims=True), 1e-12)
    names = [t.name for t in tools]
    return [_top_names(matrix @ q, names, limit) for q in queries]


def _top_names(scores: np.ndarray, names: Sequence[str], limit: int) -> list[str]:
    order = np.argsort(-scores, kind="stable")[:limit]
    return [names[i] for i in order]
