"""Field-weighted BM25 over the catalog.

Why fields: a query word found in a tool's name or description says more than
the same word in a parameter's description, and hypothetical queries are
written to look like requests. Each field gets its own BM25 statistics (its own
idf and length normalisation, computed by `bm25s`), and the per-field term
scores are summed with weights into ONE sparse (vocabulary x tools) matrix at
build time. A query then costs one row slice and one sum, whatever the number
of fields, which keeps the fast path well under a millisecond at 1,000 tools.
"""
from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
import scipy.sparse as sp
from bm25s.stopwords import STOPWORDS_EN

from .params import RankingParams
from .texts import split_identifier
from .types import CategoryEntry, ToolEntry

log = logging.getLogger(__name__)
# bm25s logs a line at every index build; a web process rebuilds on every catalog change.
logging.getLogger("bm25s").setLevel(logging.WARNING)

# BM25 constants and field weights, tuned on bfcl-dev by bench/calibrate_auto.py
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

_WORD = re.compile(r"\w+(?:[.'\-]\w+)*", re.UNICODE)
_STOPWORDS = frozenset(STOPWORDS_EN) | {"please", "could", "would", "want", "like", "need"}


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
    words = [w for w in split_identifier(raw) if w and w not in _STOPWORDS]
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
    ideal: float  # what a tool matching every known query word once would score
    known_terms: int  # query words present in the catalog vocabulary

    def normalised(self) -> np.ndarray:
        """0-1 lexical score: raw / ideal, clipped (see `ideal`)."""
        if self.ideal <= 0:
            return np.zeros_like(self.raw)
        return np.minimum(self.raw / self.ideal, 1.0)


class FieldedBM25:
    """One summed sparse matrix of field-weighted BM25 term scores."""

    def __init__(self, field_tokens: dict[str, list[list[str]]], weights: dict[str, float], n_docs: int):
        self.n_docs = n_docs
        self.vocab: dict[str, int] = {}
        blocks: list[sp.coo_matrix] = []
        ideal_parts: list[np.ndarray] = []
        for field_name, docs in field_tokens.items():
            weight = weights.get(field_name, 0.0)
            if weight <= 0 or not any(docs):
                continue
            block, idf_by_term = self._field_block(docs, weight)
            blocks.append(block)
            ideal_parts.append(idf_by_term)
        width = len(self.vocab)
        self.term_idf = np.zeros(width, dtype=np.float32)
        for part in ideal_parts:  # best single-field evidence per term
            padded = np.zeros(width, dtype=np.float32)
            padded[: len(part)] = part
            np.maximum(self.term_idf, padded, out=self.term_idf)
        if blocks:
            rows = np.concatenate([b.row for b in blocks])
            cols = np.concatenate([b.col for b in blocks])
            data = np.concatenate([b.data for b in blocks]).astype(np.float32)
            matrix = sp.csr_matrix((data, (rows, cols)), shape=(width, n_docs), dtype=np.float32)
        else:
            matrix = sp.csr_matrix((0, n_docs), dtype=np.float32)
        matrix.sum_duplicates()
        self.matrix = matrix

    def _field_block(self, docs: list[list[str]], weight: float) -> tuple[sp.coo_matrix, np.ndarray]:
        """bm25s computes the field's eager term scores; we re-key its vocabulary into ours."""
        placeholder = "\x00empty"
        corpus = [d if d else [placeholder] for d in docs]
        retriever = bm25s.BM25(k1=K1, b=B)
        retriever.index(corpus, show_progress=False)
        scores = retriever.scores
        indptr = np.asarray(scores["indptr"])
        # bm25s appends an empty-string entry to its vocabulary that has no row
        field_vocab = {t: i for t, i in retriever.vocab_dict.items() if t and i < len(indptr) - 1}
        to_global = np.zeros(len(indptr) - 1, dtype=np.int64)
        for term, local_id in field_vocab.items():
            to_global[local_id] = self.vocab.setdefault(term, len(self.vocab))
        rows_local = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        block = sp.coo_matrix(
            (np.asarray(scores["data"], dtype=np.float32) * weight,
             (to_global[rows_local], np.asarray(scores["indices"]))),
            shape=(len(self.vocab), self.n_docs),
        )
        # Lucene idf, as bm25s computes it; a once-matched term in an
        # average-length document scores exactly idf * weight.
        df = np.diff(indptr).astype(np.float64)
        idf = np.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5)) * weight
        if placeholder in field_vocab:
            idf[field_vocab[placeholder]] = 0.0
        idf_global = np.zeros(len(self.vocab), dtype=np.float32)
        idf_global[to_global[list(field_vocab.values())]] = idf[list(field_vocab.values())]
        return block, idf_global

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
        rows = self.matrix[ids]
        raw = np.asarray(rows.sum(axis=0), dtype=np.float32).ravel()
        return LexicalScores(raw, float(self.term_idf[ids].sum()), len(ids))


def build_lexical(tools: Sequence[ToolEntry], category_paths: dict[str, tuple[CategoryEntry, ...]],
                  weights: dict[str, float] | None = None) -> FieldedBM25:
    """`category_paths`: category name -> its root-to-leaf entries (parents' words count too)."""
    field_tokens: dict[str, list[list[str]]] = {name: [] for name in FIELD_WEIGHTS}
    for tool in tools:
        fields = tool_fields(tool, category_paths.get(tool.category or "", ()))
        for field_name, text in fields.items():
            field_tokens[field_name].append(tokenize(text))
    return FieldedBM25(field_tokens, weights or FIELD_WEIGHTS, len(tools))


def lexical_weights(params: RankingParams) -> dict[str, float]:
    """The field weights with the catalog's own weight for its hypothetical queries' text."""
    return {**FIELD_WEIGHTS, "queries": params.queries_field_weight}


def describe_fields() -> dict[str, Any]:
    """For logs and the bench: the constants in force."""
    return {"k1": K1, "b": B, "weights": dict(FIELD_WEIGHTS)}
