"""The calibration enables `auto`'s BM25 fast path only where, on the catalog's held-out evidence,
BM25 alone finds every tool the hybrid ranking finds: one request it would lose is one too many."""
from __future__ import annotations

import numpy as np

from engine import CatalogSnapshot, ToolEntry, calibrate
from tests.support.calibration import WORDS

QUERIES_PER_TOOL = 7  # 210 evidence queries: one lost request is 0.0048 of recall@5


def catalog(misleading_query: str | None) -> CatalogSnapshot:
    """Each tool owns one rare word and a vector of its own; every hypothetical query says its
    tool's word and lies near its tool's vector, so BM25 and the vectors agree. With
    `misleading_query`, the last tool's first query names only another tool's word: its vector
    still points to its tool (the hybrid ranking finds it), its words confidently to the other."""
    rng = np.random.default_rng(11)
    axes = np.eye(len(WORDS), dtype=np.float32)
    tools, query_vectors = [], {}
    for i, word in enumerate(WORDS):
        queries = [f"{word} {n}" for n in range(QUERIES_PER_TOOL)]
        if misleading_query is not None and i == len(WORDS) - 1:
            queries[0] = misleading_query
        tools.append(ToolEntry(f"tool_{word}", f"Handles {word} records", None, {},
                               hypothetical_queries=tuple(queries)))
        query_vectors[f"tool_{word}"] = axes[i] + 0.05 * rng.normal(size=(QUERIES_PER_TOOL, len(WORDS))).astype(np.float32)
    return CatalogSnapshot("t", tuple(tools), (), {t.name: axes[i] for i, t in enumerate(tools)},
                           query_vectors, {}, "axes")


def test_a_catalog_where_bm25_agrees_with_the_vectors_gets_a_fast_path() -> None:
    result = calibrate(catalog(misleading_query=None))
    assert result.params.fast_path_confidence is not None
    assert result.fast_path_share > 0


def test_one_request_that_bm25_alone_would_lose_keeps_the_fast_path_off() -> None:
    misled = catalog(misleading_query="basalt")  # a query of tool_delta that says only tool_basalt's word
    result = calibrate(misled)
    assert result.params.fast_path_confidence is None
    assert result.fast_path_share == 0.0
