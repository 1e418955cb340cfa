"""The engine's BM25, computed from term counts, gives bm25s's scores bit for bit.

The reference hands each field's tokens to bm25s (k1, b as the engine's), weights its eager
scores per field and sums them per term and tool, in float32, field after field; the engine
must give the same score for every term and tool, the same idf, and the same vocabulary.
"""
from __future__ import annotations

import json
from dataclasses import replace

import bm25s
import numpy as np
import scipy.sparse as sp
from conftest import CATEGORIES, TOOLS

from engine import CatalogSnapshot, ToolEntry, build_index
from engine.lexical import EMPTY_FIELD, FIELD_WEIGHTS, K1, B, FieldedBM25, field_tokens


def _generated(i: int) -> ToolEntry:
    params = {"type": "object", "properties": {"x": {"type": "string", "description": f"input {i % 7} of {i % 3}"}}}
    return ToolEntry(f"svc{i % 5}.tool_{i}", f"Does task number {i} for service {i % 5}; task {i % 4} again",
                     ("email", "weather", None)[i % 3], json.dumps(params), usage_hint="" if i % 2 else "Returns ids.",
                     hypothetical_queries=(f"do task {i}",) if i % 4 == 0 else ())


def bm25s_reference(tokens: dict[str, list[list[str]]], weights: dict[str, float], n_docs: int
                    ) -> tuple[dict[str, int], sp.csr_matrix, np.ndarray]:
    vocab: dict[str, int] = {}
    blocks, ideal_parts = [], []
    for name, docs in tokens.items():
        weight = weights.get(name, 0.0)
        if weight <= 0 or not any(docs):
            continue
        retriever = bm25s.BM25(k1=K1, b=B)
        retriever.index([d if d else [EMPTY_FIELD] for d in docs], show_progress=False)
        indptr = np.asarray(retriever.scores["indptr"])
        field_vocab = {t: i for t, i in retriever.vocab_dict.items() if t and i < len(indptr) - 1}
        to_global = np.zeros(len(indptr) - 1, dtype=np.int64)
        for term, local in field_vocab.items():
            to_global[local] = vocab.setdefault(term, len(vocab))
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        blocks.append((to_global[rows], np.asarray(retriever.scores["indices"]),
                       np.asarray(retriever.scores["data"], dtype=np.float32) * weight))
        df = np.diff(indptr).astype(np.float64)
        idf = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)) * weight
        if EMPTY_FIELD in field_vocab:
            idf[field_vocab[EMPTY_FIELD]] = 0.0
        ideal_parts.append((to_global[list(field_vocab.values())], idf[list(field_vocab.values())]))
    width = len(vocab)
    term_idf = np.zeros(width, dtype=np.float32)
    for ids, idf in ideal_parts:
        padded = np.zeros(width, dtype=np.float32)
        padded[ids] = idf
        np.maximum(term_idf, padded, out=term_idf)
    matrix = sp.csr_matrix((np.concatenate([b[2] for b in blocks]).astype(np.float32),
                            (np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks]))),
                           shape=(width, n_docs), dtype=np.float32)
    matrix.sum_duplicates()
    return vocab, matrix, term_idf


def assert_same_bm25(ours: FieldedBM25, vocab: dict[str, int], matrix: sp.csr_matrix, term_idf: np.ndarray) -> None:
    assert ours.vocab.keys() == vocab.keys()
    terms = sorted(vocab)
    rows_ours, rows_ref = ours.matrix[[ours.vocab[t] for t in terms]], matrix[[vocab[t] for t in terms]]
    for part in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(rows_ours, part), getattr(rows_ref, part)), part
    assert np.array_equal(ours.term_idf[[ours.vocab[t] for t in terms]], term_idf[[vocab[t] for t in terms]])


def test_the_engine_bm25_gives_bm25s_scores_for_every_term_and_tool() -> None:
    tools = (*TOOLS, *(_generated(i) for i in range(80)))
    index = build_index(CatalogSnapshot("1", tools, CATEGORIES, {}, {}, {}, "none"))
    paths = {name: tuple(index.categories[n] for n in index.tree.path(name)) for name in index.categories}
    by_position = field_tokens(index.tools, range(len(index.tools)), paths)
    tokens = {name: [by_position[name][i] for i in range(len(index.tools))] for name in FIELD_WEIGHTS}
    assert_same_bm25(index.lexical, *bm25s_reference(tokens, FIELD_WEIGHTS, len(index.tools)))


def test_a_field_without_weight_or_without_words_adds_nothing() -> None:
    tools = tuple(replace(_generated(i), usage_hint="") for i in range(12))  # no tool has a usage hint
    index = build_index(CatalogSnapshot("1", tools, (), {}, {}, {}, "none"))
    by_position = field_tokens(index.tools, range(len(index.tools)), {})
    tokens = {name: [by_position[name][i] for i in range(len(index.tools))] for name in FIELD_WEIGHTS}
    weights = {**FIELD_WEIGHTS, "description": 0.0}
    ours = FieldedBM25(index.lexical.field_counts, weights, len(index.tools))
    assert_same_bm25(ours, *bm25s_reference(tokens, weights, len(index.tools)))
    assert "task" in ours.vocab and "again" not in ours.vocab  # "again" is only in the descriptions
