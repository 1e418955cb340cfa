"""Score scales, fusion and the `auto` confidence gate.

The 0-1 scale every strategy reports (and threshold mode compares against):

* bm25:    lexical = raw BM25 / ideal, clipped to 1, where ideal is BM25's ceiling
           for the query: the sum of each catalog-known query word's idf in its
           best field, what a tool would score if every word saturated that field
           (`lexical.LexicalScores`). 1 means "all the words, strongly".
* vector:  semantic = cosine clipped at 0 (to the tool's vector, its hypothetical
           queries folded in: `vectors.fold_queries`).
* hybrid:  (semantic + W * lexical_rel) / (1 + W), where lexical_rel is the raw
           BM25 divided by the best raw BM25 among the candidates of this query,
           and W is the catalog's `RankingParams.lexical_weight`. Dividing by the
           query's own best (not by `ideal`) keeps the scale whatever the catalog:
           the top lexical hit always brings the same bonus, so the blend is a
           rank-stable tie-breaker on top of the cosine. Where the catalog has a
           category weight, semantic also counts the cosine to the tool's category.

The gate: `auto` runs BM25 first and turns its score distribution into a
confidence, a logistic estimate of P(BM25's top hit is right) from three
features: coverage (top raw / ideal), margin over the 2nd ((s1 - s2) / s1) and
margin over the 5th ((s1 - s5) / s1). When the confidence reaches the catalog's
`RankingParams.fast_path_confidence` (set by its calibration, where its evidence
shows BM25 alone as good as hybrid there; never by default), BM25's ranking is
returned without calling the embedder.

Why W is one number per catalog, not set per request: every per-request rule measured lifts
seal-dev (requests in its tools' words) and costs plugins-dev (chatty requests, stray-word BM25
hits), whose recall@5 is the lowest of the dev sets. Recall@5 plugins-dev / seal-dev, limit 10,
from 0.893 / 0.953 (seal-dev r@10 0.976): W + 0.2 * the gate's confidence 0.886 / 0.958 (0.979);
W + 0.2 * coverage 0.891 / 0.956; W + 0.2 where BM25's top hit is among the vectors' top five
0.889 / 0.957 (0.979), with W 0.05 where it is not 0.890 / 0.957; W + 0.2 only where both top hits
are one tool 0.891 / 0.956; BM25 / ideal for BM25 / best, W 0.2 or 0.3, 0.892-0.893 / 0.951-0.954; W
scaled by the two score spreads (z-score fusion) 0.891 / 0.953, bfcl-dev 0.952 -> 0.942.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Logistic gate, fitted on bfcl-dev (605 queries, label = BM25 top-1 right) by
# bench/calibrate_auto.py, removed in 84dc274 when per-catalog calibration (which
# picks the gate's bar) replaced it: coefficients for [1, coverage, margin2, margin5].
# The margin over the runner-up carries almost all the signal; coverage little.
GATE_COEFFICIENTS = (-2.131, 0.127, 6.270, 3.273)

# Threshold mode without an explicit threshold, per scale: the value at which
# the right tool still passes for ~85% of bfcl-dev queries (bm25 0.856, vector
# 0.851, hybrid 0.860), while the best wrong tool passes for 75% / 63% / 61%
# (the default local model, adapted to tool routing, and the default weights).
# The scales differ (BM25 coverage runs lower than cosine), hence one each. The
# adapted model puts requests nearer every tool than the packaged one did (at
# 0.4 the vector scale let the best wrong tool through for 85%), hence 0.49.
DEFAULT_THRESHOLDS = {"bm25": 0.25, "vector": 0.49, "hybrid": 0.5}
# Threshold mode with nothing above the threshold: return this many best anyway.
THRESHOLD_FALLBACK_COUNT = 3


@dataclass(frozen=True)
class GateFeatures:
    coverage: float
    margin2: float
    margin5: float

    def as_row(self) -> list[float]:
        return [1.0, self.coverage, self.margin2, self.margin5]


def gate_features(raw: np.ndarray, ideal: float) -> GateFeatures:
    """Features of the BM25 score distribution over the candidate tools."""
    if raw.size == 0 or ideal <= 0:
        return GateFeatures(0.0, 0.0, 0.0)
    k = min(5, raw.size)
    top = _largest(raw, k)
    s1 = float(top[0])
    if s1 <= 0:
        return GateFeatures(0.0, 0.0, 0.0)
    s2 = float(top[1]) if k > 1 else 0.0
    s5 = float(top[k - 1]) if k > 1 else 0.0
    return GateFeatures(min(s1 / ideal, 2.0), (s1 - s2) / s1, (s1 - s5) / s1)


def _largest(raw: np.ndarray, k: int) -> np.ndarray:
    """The k largest BM25 scores, largest first. Scores are never negative and most are zero (the
    tools that share no word with the request), so only the positive ones are searched and zeros
    fill the rest: np.partition over thousands of tied zeros took six times as long (4,076 tools:
    123 us against 20, about four times a request on seal-dev)."""
    positive = raw[raw > 0]
    if positive.size > k:
        positive = np.partition(positive, positive.size - k)[positive.size - k:]
    top = np.zeros(k, dtype=raw.dtype)
    top[:positive.size] = np.sort(positive)[::-1]
    return top


def gate_confidence(features: GateFeatures, coefficients: tuple[float, ...] = GATE_COEFFICIENTS) -> float:
    if features.coverage <= 0:
        return 0.0
    z = sum(c * x for c, x in zip(coefficients, features.as_row()))
    return 1.0 / (1.0 + math.exp(-z))


def fuse(semantic: np.ndarray, lexical_raw: np.ndarray, weight: float) -> np.ndarray:
    """Hybrid 0-1 score over candidates (see the module docstring)."""
    best = float(lexical_raw.max()) if lexical_raw.size else 0.0
    rel = lexical_raw / best if best > 0 else np.zeros_like(lexical_raw)
    fused: np.ndarray = (np.clip(semantic, 0.0, 1.0) + weight * rel) / (1.0 + weight)
    return fused


def best_first(indices: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """The `count` of `indices` with the highest `values` (one per index), best first; equal values
    by index (a tool's index is its name's place, so alphabetical). Only the best are sorted."""
    if len(indices) > count:
        kth = np.partition(values, len(values) - count)[len(values) - count]
        keep = values >= kth  # every tie at the boundary, ordered below
        indices, values = indices[keep], values[keep]
    order: np.ndarray = indices[np.lexsort((indices, -values))][:count]
    return order
