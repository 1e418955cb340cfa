"""Comparing two routing indexes: a patched one (engine.incremental) against a full build."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from engine import RouteRequest, RoutingIndex, route

QUERIES = ("play some jazz", "will it rain in Paris tomorrow", "send a message to Bob", "draw a graph of sales",
           "episode of my favourite show", "ask me what I mean", "tool number 17 for service 3", "inbox")


def assert_same_index(patched: RoutingIndex, full: RoutingIndex,
                      embed_texts: Callable[[Sequence[str]], np.ndarray] | None = None) -> None:
    """Part by part, bit for bit; then the same answers to QUERIES (semantic ones when
    `embed_texts` is given)."""
    assert patched.version == full.version
    assert patched.tools == full.tools and patched.names == full.names
    assert patched.categories == full.categories and patched.category_names == full.category_names
    assert np.array_equal(patched.tool_category, full.tool_category) and np.array_equal(patched.core, full.core)
    # BM25: the same terms, and for each the same scores in the same tools and the same idf
    a, b = patched.lexical, full.lexical
    assert a.n_docs == b.n_docs and a.vocab.keys() == b.vocab.keys()
    terms = sorted(a.vocab)
    rows_a = a.matrix[[a.vocab[t] for t in terms]]
    rows_b = b.matrix[[b.vocab[t] for t in terms]]
    for part in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(rows_a, part), getattr(rows_b, part)), part
    assert np.array_equal(a.term_idf[[a.vocab[t] for t in terms]], b.term_idf[[b.vocab[t] for t in terms]])
    # vectors: every attribute, bit for bit
    va, vb = vars(patched.vectors), vars(full.vectors)
    assert va.keys() == vb.keys()
    for name, value in vb.items():
        if isinstance(value, np.ndarray):
            assert value.dtype == va[name].dtype and np.array_equal(va[name], value), name
        else:
            assert va[name] == value, name
    assert patched.category_vector_names == full.category_vector_names
    assert np.array_equal(patched.category_matrix, full.category_matrix)
    everything = np.ones(len(full), dtype=bool)
    for fmt in ("openai", "anthropic", "mcp"):
        assert patched.token_total(("all",), everything, fmt) == full.token_total(("all",), everything, fmt)
        assert np.array_equal(patched.token_counter.counts(np.arange(len(full)), fmt),
                              full.token_counter.counts(np.arange(len(full)), fmt))
    for query in QUERIES:
        for strategy in ("bm25", "hybrid", "auto") if embed_texts else ("bm25",):
            request = RouteRequest(query=query, strategy=strategy, limit=5, explain=True)
            assert (route(patched, request, embed_texts=embed_texts).to_dict()
                    == route(full, request, embed_texts=embed_texts).to_dict()), (query, strategy)
