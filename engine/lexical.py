"""Field-weighted BM25 over the catalog.

Why fields: a query word found in a tool's name or description says more than
the same word in a parameter's description, and hypothetical queries are
written to look like requests. Each field gets its own BM25 statistics (its own
idf and length normalisation), and the per-field term scores are summed with
weights into ONE sparse (vocabulary x tools) matrix at build time. A query then
costs one row added per query term, whatever the number of fields, which keeps
the fast path well under a millisecond at 1,000 tools.

The scores are computed from each field's term counts (`FieldCounts`) in bm25s's
eager arithmetic, step by step (tests/engine/test_engine_bm25_matches_bm25s.py
checks them against bm25s itself). The index keeps the counts, so a catalog
change re-counts only the tools it touched (engine/incremental.py); counting is
also faster than handing the tokens to bm25s (at 10,000 tools the lexical part of
a build fell from ~700 to ~300 ms).
"""
from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from bm25s.stopwords import STOPWORDS_EN

from .params import RankingParams
from .texts import split_identifier
from .types import CategoryEntry, ToolEntry

log = logging.getLogger(__name__)

# BM25 constants and field weights, tuned on bfcl-dev by bench/calibrate_auto.py (removed in 84dc274)
# (grid k1 in {0.9,1.2,1.5,2.0} x b in {0.4,0.5,0.75}, name in {0.5..2},
# params in {0..0.5}): k1=0.9, b=0.4, name 0.5 / description 1 / parameter
# names 0.5 / parameter descriptions 0.5 gave hybrid recall@5 0.937 vs 0.929
# for the unweighted single-field index. Usage hints and category text: 0.3
# each (dropping either lowered recall@5 on the demo catalog). The weight of the
# hypothetical queries' text is the catalog's own (`RankingParams.queries_field_weight`,
# calibrated): curated examples that are short and chatty match stray words of
# other requests ("tip", "88") more than they help their own tool, real requests
# less so; the value here only stands for it in `describe_fields`.
K1 = 0.9
B = 0.4
FIELD_WEIGHTS: dict[str, float] = {
    "name": 0.5,
    "description": 1.0,
    "param_names": 0.5,
    "param_text": 0.5,
    "queries": 0.1,
    "usage": 0.3,
    "category": 0.3,
}

# The token an empty field gets (as bm25s, which scores no empty document, would be given it).
EMPTY_FIELD = "\x00empty"

_WORD = re.compile(r"\w+(?:[.'\-]\w+)*", re.UNICODE)
STOPWORDS = frozenset(STOPWORDS_EN) | {"please", "could", "would", "want", "like", "need"}


def _load_stemmer() -> Callable[[list[str]], list[str]]:
    """Snowball English stemmer (PyStemmer) when installed, else identity.

    Stemming lifts BM25 recall@5 on bfcl-dev from 0.843 to 0.858 (name+description
    field); the engine stays correct without it, only a little less lexical.
    """
    try:
        import Stemmer
    except ImportError:  # pragma: no cover - depends on the environment
        log.warning("PyStemmer not installed; BM25 runs without stemming")
        return lambda words: words
    stemmer = Stemmer.Stemmer("english")
    stem_words: Callable[[list[str]], list[str]] = stemmer.stemWords
    return stem_words


_stem_words = _load_stemmer()


def tokenize(text: str) -> list[str]:
    """Lower-case words, identifiers split (`getUserInfo` -> get user info), stop words out, stemmed."""
    tokens: list[str] = []
    for raw in _WORD.findall(text or ""):
        tokens.extend(_word_tokens(raw))
    return tokens


@functools.lru_cache(maxsize=262144)
def _word_tokens(raw: str) -> tuple[str, ...]:
    """Tokens of one raw word, cached: catalogs repeat their words, and building
    a 100k-tool index is dominated by this step without the cache."""
    words = [w for w in split_identifier(raw) if w and w not in STOPWORDS]
    return tuple(_stem_words(words)) if words else ()


def tool_fields(tool: ToolEntry, category_path: Sequence[CategoryEntry] = ()) -> dict[str, str]:
    """The text of each BM25 field of one tool (`category_path`: root-to-leaf categories)."""
    properties = tool.schema().get("properties") or {}
    if not isinstance(properties, dict):
        properties = {}
    param_text: list[str] = []
    for schema in properties.values():
        if isinstance(schema, dict):
            param_text.append(str(schema.get("description", "")))
            if isinstance(schema.get("enum"), list):
                param_text.append(" ".join(str(v) for v in schema["enum"][:20]))
    category_text = " ".join(" ".join([c.name, c.description, *c.keywords]) for c in category_path)
    if not category_text and tool.category:
        category_text = tool.category
    return {
        "name": " ".join(split_identifier(tool.name)),
        "description": tool.description or "",
        "param_names": " ".join(str(k) for k in properties),
        "param_text": " ".join(param_text),
        "queries": " ".join(tool.hypothetical_queries),
        "usage": tool.usage_hint or "",
        "category": category_text,
    }


@dataclass(frozen=True)
class LexicalScores:
    """BM25 of one query over all tools, plus what the confidence gate needs."""

    raw: np.ndarray  # float32, one per tool (index order)
    ideal: float  # BM25's ceiling: each known query word's best-field idf, summed
    known_terms: int  # query words present in the catalog vocabulary

    def normalised(self) -> np.ndarray:
        """0-1 lexical score: raw / ideal, clipped (see `ideal`)."""
        if self.ideal <= 0:
            return np.zeros_like(self.raw)
        return np.minimum(self.raw / self.ideal, 1.0)


@dataclass(frozen=True)
class FieldCounts:
    """One BM25 field: every tool's term counts (rows in index order) over a vocabulary that
    only grows (`terms[column]`; columns of terms no tool has any more stay, empty)."""

    vocab: dict[str, int]
    terms: list[str]
    counts: sp.csr_matrix  # uint16 (int32 for a huge field), (tools, len(terms))

    @classmethod
    def empty(cls) -> FieldCounts:
        return cls({}, [], sp.csr_matrix((0, 0), dtype=np.uint16))

    def patched(self, reuse: np.ndarray, fresh: dict[int, list[str]]) -> FieldCounts:
        """Rows `reuse[i]` of these counts where >= 0, the tokens `fresh[i]` elsewhere."""
        vocab, terms = self.vocab, self.terms
        docs = {i: tokens or [EMPTY_FIELD] for i, tokens in fresh.items()}
        new_terms = {t for tokens in docs.values() for t in tokens if t not in vocab}
        if new_terms:  # copied: the previous index keeps its own
            vocab, terms = dict(vocab), list(terms)
            for term in sorted(new_terms):
                vocab[term] = len(terms)
                terms.append(term)
        positions = sorted(docs)
        width = len(terms)
        # one (row, term) pair per token, summed into counts: numpy arrays, not a Python int per
        # count (at 100,000 tools those lists held ~150 MB while building and left the heap fragmented)
        lengths = np.fromiter((len(docs[i]) for i in positions), dtype=np.int64, count=len(positions))
        term_ids = np.fromiter((vocab[t] for i in positions for t in docs[i]), dtype=np.int32, count=int(lengths.sum()))
        rows = np.repeat(np.arange(len(positions), dtype=np.int32), lengths)
        # counts fit in 16 bits unless a field of one tool repeats a word 65,536 times
        dtype = np.uint16 if not len(lengths) or lengths.max() <= np.iinfo(np.uint16).max else np.int32
        fresh_rows = sp.csr_matrix((np.ones(len(term_ids), dtype=dtype), (rows, term_ids)),
                                   shape=(len(positions), width), dtype=dtype)
        fresh_rows.sum_duplicates()
        old = self.counts
        old_rows = sp.csr_matrix((old.data, old.indices, old.indptr), shape=(old.shape[0], width))
        take = reuse.copy()
        take[positions] = old.shape[0] + np.arange(len(positions))
        stacked = sp.vstack([old_rows, fresh_rows], format="csr")
        return FieldCounts(vocab, terms, stacked[take])


class FieldedBM25:
    """One summed sparse matrix of field-weighted BM25 term scores, computed from each field's
    term counts (`field_counts`, kept for engine.incremental's patches)."""

    def __init__(self, field_counts: dict[str, FieldCounts], weights: dict[str, float], n_docs: int):
        self.n_docs = n_docs
        self.vocab: dict[str, int] = {}
        self.field_counts = field_counts
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        data: list[np.ndarray] = []
        ideal_parts: list[tuple[np.ndarray, np.ndarray]] = []
        for name, field in field_counts.items():
            weight = weights.get(name, 0.0)
            counts = field.counts
            df = np.bincount(counts.indices, minlength=len(field.terms))
            live = np.flatnonzero(df)
            empty_column = field.vocab.get(EMPTY_FIELD, -1)
            if weight <= 0 or not any(column != empty_column for column in live[:2].tolist()):
                continue  # a field without weight, or empty in every tool
            to_global = np.full(len(field.terms), -1, dtype=np.int64)
            vocab, terms = self.vocab, field.terms
            to_global[live] = [vocab.setdefault(terms[column], len(vocab)) for column in live.tolist()]
            scores = _bm25s_scores(counts, df, n_docs)
            rows.append(to_global[counts.indices])
            cols.append(np.repeat(np.arange(n_docs), np.diff(counts.indptr)))
            data.append(scores * weight)
            # the field's weighted idf (what a term scores as its count grows: BM25's ceiling), zero
            # for the empty-field token; `term_idf` keeps the best field's per term
            live_df = df[live].astype(np.float64)
            idf = np.log(1.0 + (n_docs - live_df + 0.5) / (live_df + 0.5)) * weight
            idf[live == empty_column] = 0.0
            ideal_parts.append((to_global[live], idf))
        width = len(self.vocab)
        self.term_idf = np.zeros(width, dtype=np.float32)
        for ids, idf in ideal_parts:
            padded = np.zeros(width, dtype=np.float32)
            padded[ids] = idf
            np.maximum(self.term_idf, padded, out=self.term_idf)
        if rows:
            matrix = sp.csr_matrix((np.concatenate(data).astype(np.float32), (np.concatenate(rows), np.concatenate(cols))),
                                   shape=(width, n_docs), dtype=np.float32)
        else:
            matrix = sp.csr_matrix((0, n_docs), dtype=np.float32)
        matrix.sum_duplicates()
        self.matrix = matrix

    def term_ids(self, tokens: Iterable[str]) -> list[int]:
        seen: dict[int, None] = {}
        for token in tokens:
            term_id = self.vocab.get(token)
            if term_id is not None:
                seen.setdefault(term_id, None)
        return list(seen)

    def score(self, tokens: Sequence[str]) -> LexicalScores:
        ids = self.term_ids(tokens)
        if not ids:
            return LexicalScores(np.zeros(self.n_docs, dtype=np.float32), 0.0, 0)
        # Each term's row of the CSR matrix added in turn: the same sums as scipy's row selection
        # and sum, without its per-call checks (40 against 76 us at seal-dev's 4,076 tools).
        matrix = self.matrix
        raw = np.zeros(self.n_docs, dtype=np.float32)
        for term in ids:
            start, end = matrix.indptr[term], matrix.indptr[term + 1]
            raw[matrix.indices[start:end]] += matrix.data[start:end]
        return LexicalScores(raw, float(self.term_idf[ids].sum()), len(ids))


def build_lexical(tools: Sequence[ToolEntry], category_paths: dict[str, tuple[CategoryEntry, ...]],
                  weights: dict[str, float] | None = None) -> FieldedBM25:
    """`category_paths`: category name -> its root-to-leaf entries (parents' words count too)."""
    tokens = field_tokens(tools, range(len(tools)), category_paths)
    reuse = np.full(len(tools), -1, dtype=np.int64)
    counts = {name: FieldCounts.empty().patched(reuse, tokens[name]) for name in FIELD_WEIGHTS}
    return FieldedBM25(counts, weights or FIELD_WEIGHTS, len(tools))


def field_tokens(tools: Sequence[ToolEntry], positions: Iterable[int],
                 category_paths: dict[str, tuple[CategoryEntry, ...]]) -> dict[str, dict[int, list[str]]]:
    """Per field, the tokens of the tools at `positions`, by position."""
    out: dict[str, dict[int, list[str]]] = {name: {} for name in FIELD_WEIGHTS}
    for i in positions:
        tool = tools[i]
        for name, text in tool_fields(tool, category_paths.get(tool.category or "", ())).items():
            out[name][i] = tokenize(text)
    return out


def lexical_weights(params: RankingParams) -> dict[str, float]:
    """The field weights with the catalog's own weight for its hypothetical queries' text."""
    return {**FIELD_WEIGHTS, "queries": params.queries_field_weight}


def describe_fields() -> dict[str, Any]:
    """For logs and the bench: the constants in force."""
    return {"k1": K1, "b": B, "weights": dict(FIELD_WEIGHTS)}


def _bm25s_scores(counts: sp.csr_matrix, df: np.ndarray, n_docs: int) -> np.ndarray:
    """bm25s's eager Lucene scores (k1=K1, b=B) of every stored count, float32, in its arithmetic:
    idf = log(1 + (N - df + 0.5) / (df + 0.5)) in Python floats stored as float32;
    tfc = tf / (k1 * ((1 - b) + b * len / avg_len) + tf) in float64; score = float32(idf * tfc)."""
    lengths = np.asarray(counts.sum(axis=1), dtype=np.int64).ravel()
    average = lengths.mean()
    values, inverse = np.unique(df, return_inverse=True)  # per term, not per count: far fewer to sort
    idf = np.array([math.log(1 + (n_docs - v + 0.5) / (v + 0.5)) for v in values.tolist()], dtype=np.float32)
    tf = counts.data.astype(np.float64)
    doc_length = np.repeat(lengths, np.diff(counts.indptr)).astype(np.float64)
    tfc = tf / (K1 * ((1 - B) + B * doc_length / average) + tf)
    scores: np.ndarray = (idf[inverse[counts.indices]].astype(np.float64) * tfc).astype(np.float32)
    return scores
