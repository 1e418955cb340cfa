"""`route`: one request in, the few tools it needs out.

Reading order for a newcomer: `route` (the whole flow in ~30 lines), then the
`_rank_*` functions (one per strategy, each returning a `_Ranking` over all
tools on the 0-1 scale of `scoring.py`), then `_select` (top-k / threshold /
related / core), then `_assemble` (definitions, guidance, tokens).

Failure policy: the embedder is called at most once per request, lazily, and
any exception it raises (including the caller's timeout or open circuit)
turns the request into a BM25 answer with `strategy.fallback = true`. The LLM
category selector is treated the same way inside the hierarchical chain.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import adaptive, scoring
from .index import RoutingIndex
from .lexical import LexicalScores, tokenize
from .types import (
    FORMATS,
    MODES,
    STRATEGIES,
    CategoryEntry,
    FallbackKind,
    Match,
    RouteRequest,
    RouteResult,
    StrategyInfo,
    TokenFigures,
)
from .vectors import SemanticScores, cosine_to_unit, normalise

log = logging.getLogger(__name__)

EmbedQuery = Callable[[str], np.ndarray]
SelectCategories = Callable[[str, Sequence[CategoryEntry]], list[str]]

# Hierarchical chain, embedding step: a category qualifies when its score (best
# of its own vector's cosine and its own tools' best cosine) is at least
# CATEGORY_MIN_SIMILARITY and within CATEGORY_SPAN_MARGIN of the best one; at
# most MAX_CATEGORIES are kept, so a query spanning two domains gets both.
CATEGORY_MIN_SIMILARITY = 0.2
CATEGORY_SPAN_MARGIN = 0.05
MAX_CATEGORIES = 3
_IN_CATEGORY_FLOOR = 1e-6


# --------------------------------------------------------------------------
# request context: lazily computed, shared by strategies
# --------------------------------------------------------------------------
@dataclass
class _Context:
    index: RoutingIndex
    request: RouteRequest
    embed_query: EmbedQuery | None
    candidates: np.ndarray  # bool mask of tools that may be ranked
    _tokens: list[str] | None = None
    _lexical: LexicalScores | None = None
    _semantic: SemanticScores | None = None
    _embed_tried: bool = False
    embed_error: str = ""
    embed_error_kind: FallbackKind = ""
    query_vector: np.ndarray | None = None

    @property
    def tokens(self) -> list[str]:
        if self._tokens is None:
            self._tokens = tokenize(self.request.query)
        return self._tokens

    def lexical(self) -> LexicalScores:
        if self._lexical is None:
            self._lexical = self.index.lexical.score(self.tokens)
        return self._lexical

    def semantic(self) -> SemanticScores | None:
        """Cosines of the query, or None (with `embed_error` set) when unavailable."""
        if self._embed_tried:
            return self._semantic
        self._embed_tried = True
        if self.embed_query is None:
            self.embed_error, self.embed_error_kind = "no query embedder configured", "no_embedder"
        elif not self.index.vectors.ready:
            self.embed_error, self.embed_error_kind = "no tool vectors in the index yet", "no_vectors"
        else:
            try:
                self.query_vector = normalise(self.embed_query(self.request.query))
                self._semantic = self.index.vectors.score(self.query_vector, with_closest_query=self.request.explain)
            except Exception as exc:  # noqa: BLE001 - any embedder failure degrades to BM25
                self.embed_error = f"query embedding failed: {type(exc).__name__}: {exc}"[:300]
                self.embed_error_kind = "embedding_failed"
                log.warning("routing falls back to BM25: %s", self.embed_error)
        return self._semantic


@dataclass
class _Ranking:
    scores: np.ndarray  # 0-1 per tool; only entries under `pool` matter
    pool: np.ndarray  # bool mask of ranked tools
    info: StrategyInfo
    threshold_scale: str  # "bm25" | "vector" | "hybrid": which default threshold applies
    order: np.ndarray | None = None  # explicit ranking (multi-step merge); else by score


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------
def route(index: RoutingIndex, request: RouteRequest, *, embed_query: EmbedQuery | None,
          select_categories_llm: SelectCategories | None = None) -> RouteResult:
    """Select tools for one request. Never calls the embedder on the `auto` fast path."""
    _validate(request)
    allowed = index.mask(request.allowed_tools, request.categories)
    candidates = allowed & ~index.core if request.include_core else allowed
    ctx = _Context(index, request, embed_query, candidates)
    parts = split_steps(request.query) if request.strategy != "hierarchical" else [request.query]
    if not request.query.strip():  # only required tools asked for (select:NAME): nothing to rank
        ranking = _Ranking(np.zeros(len(index), dtype=np.float32), np.zeros(len(index), dtype=bool),
                           StrategyInfo(request.strategy, "none", 1.0, reason="no query text to rank"), "hybrid")
    elif len(parts) > 1:
        ranking = _rank_steps(ctx, parts, select_categories_llm)
    else:
        ranking = _RANKERS[request.strategy](ctx, select_categories_llm)
    matches = _select(ctx, ranking)
    return _assemble(ctx, ranking, matches, allowed)


def _validate(request: RouteRequest) -> None:
    if request.mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {request.mode!r}")
    if request.strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, not {request.strategy!r}")
    if request.format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {request.format!r}")
    if request.limit < 1:
        raise ValueError("limit must be at least 1")
    if request.threshold is not None and not 0.0 <= request.threshold <= 1.0:
        raise ValueError("threshold must be between 0 and 1")
    if request.margin is not None and not 0.0 <= request.margin <= 1.0:
        raise ValueError("margin must be between 0 and 1")


# --------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------
def _lexical_confidence(ctx: _Context, pool: np.ndarray) -> float:
    lexical = ctx.lexical()
    features = scoring.gate_features(lexical.raw[pool], lexical.ideal)
    return scoring.gate_confidence(features)


def _rank_bm25(ctx: _Context, _llm: SelectCategories | None = None, *, requested: str = "bm25",
               pool: np.ndarray | None = None, fallback: bool = False, reason: str = "",
               fallback_kind: FallbackKind = "") -> _Ranking:
    pool = ctx.candidates if pool is None else pool
    info = StrategyInfo(requested, "bm25", _lexical_confidence(ctx, pool), fallback, reason,
                        fallback_kind=fallback_kind)
    return _Ranking(ctx.lexical().normalised(), pool, info, "bm25")


def _rank_vector(ctx: _Context, _llm: SelectCategories | None = None) -> _Ranking:
    semantic = ctx.semantic()
    if semantic is None:
        return _rank_bm25(ctx, requested="vector", fallback=True, reason=ctx.embed_error,
                          fallback_kind=ctx.embed_error_kind)
    scores = cosine_to_unit(semantic.cosine)
    return _Ranking(scores, ctx.candidates, StrategyInfo("vector", "vector", _top(scores, ctx.candidates)), "vector")


def _rank_hybrid(ctx: _Context, _llm: SelectCategories | None = None, *, requested: str = "hybrid",
                 pool: np.ndarray | None = None, confidence: float | None = None) -> _Ranking:
    pool = ctx.candidates if pool is None else pool
    semantic = ctx.semantic()
    if semantic is None:
        return _rank_bm25(ctx, requested=requested, pool=pool, fallback=True, reason=ctx.embed_error,
                          fallback_kind=ctx.embed_error_kind)
    lexical = ctx.lexical()
    # A tool its worker has not embedded yet stands in with its lexical score,
    # so a half-embedded catalog does not bury the new tools.
    has_vector = ctx.index.vectors.has_vector[pool]
    semantic_part = np.where(has_vector, semantic.cosine[pool], lexical.normalised()[pool])
    scores = np.zeros(len(ctx.index), dtype=np.float32)
    scores[pool] = scoring.fuse(semantic_part, lexical.raw[pool], scoring.HYBRID_LEXICAL_WEIGHT)
    conf = _top(scores, pool) if confidence is None else confidence
    return _Ranking(scores, pool, StrategyInfo(requested, "hybrid", conf), "hybrid")


def _rank_auto(ctx: _Context, _llm: SelectCategories | None = None) -> _Ranking:
    """BM25 first; embed only when the lexical evidence is not conclusive."""
    confidence = _lexical_confidence(ctx, ctx.candidates)
    if confidence >= scoring.FAST_PATH_CONFIDENCE:
        return _rank_bm25(ctx, requested="auto", reason="confident lexical match (fast path)")
    ranking = _rank_hybrid(ctx, requested="auto", confidence=confidence)
    return ranking


def _rank_hierarchical(ctx: _Context, llm: SelectCategories | None = None) -> _Ranking:
    chosen, steps = _choose_categories(ctx, llm)
    if chosen:
        pool = ctx.candidates & ctx.index.category_mask(chosen)
        ranking = _rank_hybrid(ctx, requested="hierarchical", pool=pool)
        # The chain chose these categories: all their tools qualify, even those
        # without lexical or semantic evidence (they rank last, by name).
        ranking.scores = np.where(pool, np.maximum(ranking.scores, _IN_CATEGORY_FLOOR), ranking.scores)
        if ranking.info.used == "bm25":
            steps.append({"step": "rank", "status": "fallback", "detail": ranking.info.reason})
        ranking.info.used = "hierarchical"
    else:
        ranking = _rank_hybrid(ctx, requested="hierarchical")
        ranking.info.fallback = True
        ranking.info.fallback_kind = ranking.info.fallback_kind or "no_category"
        ranking.info.reason = "; ".join(filter(None, ["no category chosen; searched the whole catalog",
                                                      ranking.info.reason]))
        steps.append({"step": "flat", "status": "ok", "categories": []})
    ranking.info.steps = steps
    return ranking


_RANKERS: dict[str, Callable[[_Context, SelectCategories | None], _Ranking]] = {
    "auto": _rank_auto,
    "bm25": _rank_bm25,
    "vector": _rank_vector,
    "hybrid": _rank_hybrid,
    "hierarchical": _rank_hierarchical,
}


def _top(scores: np.ndarray, pool: np.ndarray) -> float:
    return float(scores[pool].max()) if pool.any() else 0.0


# --------------------------------------------------------------------------
# multi-step requests: "find X, then chart it and mail it"
# --------------------------------------------------------------------------
_STEP_MARKERS = re.compile(r"\s*[,;]?\s*\b(?:and then|then|after that|afterwards|and finally|finally)\b[\s,:]*",
                           re.IGNORECASE)
MAX_STEPS = 4
SPLIT_STEPS = True  # the bench turns it off to measure the difference
_TRAILING_CONJUNCTION = re.compile(r"\s+(?:and|or)$", re.IGNORECASE)


def split_steps(query: str) -> list[str]:
    """Sub-queries of a request that chains steps with explicit sequence words.

    Only explicit markers split ("then", "after that", "afterwards", "finally");
    a part needs two content words to count, so "and then?" does not split.
    Measured by bench/calibrate_auto.py on 299 synthetic two-step requests made
    of two bfcl-dev queries joined by ", and then": recall@5 of both tools
    0.799 -> 0.905 (both found: 0.612 -> 0.813) with per-step ranking and
    round-robin merge; a max-score merge reached only 0.885. On bfcl-dev's
    single-step queries it changes nothing measurable (2 of 605 contain a marker).
    """
    if not SPLIT_STEPS:
        return [query]
    parts = [_TRAILING_CONJUNCTION.sub("", p.strip(" ,;.")) for p in _STEP_MARKERS.split(query or "")]
    parts = [p for p in parts if len(tokenize(p)) >= 2]
    return parts[:MAX_STEPS] if len(parts) > 1 else [query]


def _rank_steps(ctx: _Context, parts: list[str], llm: SelectCategories | None) -> _Ranking:
    """Rank each step on its own and interleave: step 1's best, step 2's best, ..."""
    rankings: list[_Ranking] = []
    for part in parts:
        sub = _Context(ctx.index, replace(ctx.request, query=part), ctx.embed_query, ctx.candidates)
        rankings.append(_RANKERS[ctx.request.strategy](sub, llm))
    depth = ctx.request.limit
    orders = [_ordered(r.scores, r.pool, depth) for r in rankings]
    merged: list[int] = []
    for rank in range(depth):
        for order in orders:
            if rank < len(order) and int(order[rank]) not in merged:
                merged.append(int(order[rank]))
    first = rankings[0]
    used = "hybrid" if any(r.info.used == "hybrid" for r in rankings) else first.info.used
    info = StrategyInfo(ctx.request.strategy, used, min(r.info.confidence for r in rankings),
                        any(r.info.fallback for r in rankings),
                        "; ".join(dict.fromkeys(r.info.reason for r in rankings if r.info.reason)),
                        [{"step": "split", "status": "ok", "parts": parts}],
                        fallback_kind=next((r.info.fallback_kind for r in rankings if r.info.fallback_kind), ""))
    scores = np.max(np.stack([r.scores for r in rankings]), axis=0)
    scale = "hybrid" if used == "hybrid" else first.threshold_scale
    return _Ranking(scores, first.pool, info, scale, order=np.asarray(merged, dtype=np.int64))


# --------------------------------------------------------------------------
# hierarchical chain: LLM -> embedding -> keywords -> default category
# --------------------------------------------------------------------------
def _eligible_categories(ctx: _Context) -> list[CategoryEntry]:
    index = ctx.index
    names = index.tree.subtree(ctx.request.categories) if ctx.request.categories is not None else None
    return [c for n, c in sorted(index.categories.items()) if names is None or n in names]


def _choose_categories(ctx: _Context, llm: SelectCategories | None) -> tuple[list[str], list[dict[str, Any]]]:
    eligible = _eligible_categories(ctx)
    steps: list[dict[str, Any]] = []
    if not eligible:
        steps.append({"step": "categories", "status": "empty", "detail": "no enabled categories"})
        return [], steps
    for step in (_step_llm, _step_embedding, _step_keywords, _step_default):
        chosen, record = step(ctx, eligible, llm)
        steps.append(record)
        if chosen:
            return chosen, steps
    return [], steps


def _step_llm(ctx: _Context, eligible: list[CategoryEntry], llm: SelectCategories | None) -> tuple[list[str], dict[str, Any]]:
    if llm is None:
        return [], {"step": "llm", "status": "skipped", "detail": "no LLM category selector configured"}
    try:
        answer = llm(ctx.request.query, eligible)
    except Exception as exc:  # noqa: BLE001 - the chain goes on with the next step
        return [], {"step": "llm", "status": "error", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    known = {c.name for c in eligible}
    chosen = list(dict.fromkeys(n for n in answer or [] if n in known))[:MAX_CATEGORIES]
    status = "ok" if chosen else "empty"
    return chosen, {"step": "llm", "status": status, "categories": chosen}


def _step_embedding(ctx: _Context, eligible: list[CategoryEntry], _llm: Any) -> tuple[list[str], dict[str, Any]]:
    semantic = ctx.semantic()
    if semantic is None:
        return [], {"step": "embedding", "status": "error", "detail": ctx.embed_error}
    index = ctx.index
    scores: dict[str, float] = {}
    assert ctx.query_vector is not None  # set whenever `semantic` is
    cat_cos = dict(zip(index.category_vector_names, np.einsum("ij,j->i", index.category_matrix, ctx.query_vector),
                       strict=True))
    for cat in eligible:
        own = ctx.candidates & (index.tool_category == index.category_pos[cat.name])
        best_tool = float(semantic.cosine[own].max()) if own.any() else -1.0
        scores[cat.name] = max(best_tool, float(cat_cos.get(cat.name, -1.0)))
    chosen = _pick_spanning(scores)
    record = {"step": "embedding", "status": "ok" if chosen else "empty", "categories": chosen,
              "scores": {n: round(s, 4) for n, s in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:5]}}
    return chosen, record


def _pick_spanning(scores: dict[str, float]) -> list[str]:
    if not scores:
        return []
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    best = ranked[0][1]
    if best < CATEGORY_MIN_SIMILARITY:
        return []
    return [n for n, s in ranked if s >= best - CATEGORY_SPAN_MARGIN][:MAX_CATEGORIES]


def _step_keywords(ctx: _Context, eligible: list[CategoryEntry], _llm: Any) -> tuple[list[str], dict[str, Any]]:
    query_tokens = set(ctx.tokens)
    token_sets = ctx.index.category_token_sets()
    hits = {c.name: len(query_tokens & token_sets.get(c.name, frozenset())) for c in eligible}
    best = max(hits.values(), default=0)
    chosen = [n for n, h in sorted(hits.items()) if best and h == best][:MAX_CATEGORIES]
    return chosen, {"step": "keywords", "status": "ok" if chosen else "empty", "categories": chosen}


def _step_default(ctx: _Context, eligible: list[CategoryEntry], _llm: Any) -> tuple[list[str], dict[str, Any]]:
    default = ctx.request.default_category
    if not default:
        return [], {"step": "default", "status": "skipped", "detail": "no default category"}
    if default not in {c.name for c in eligible}:
        return [], {"step": "default", "status": "empty", "detail": f"unknown category {default!r}"}
    return [default], {"step": "default", "status": "ok", "categories": [default]}


# --------------------------------------------------------------------------
# selection: top-k / threshold, related fill, core tools
# --------------------------------------------------------------------------
def _ordered(scores: np.ndarray, pool: np.ndarray, count: int) -> np.ndarray:
    """Indices of the `count` best pooled tools with score > 0: score desc, then name (= index)."""
    idx = np.flatnonzero(pool & (scores > 0))
    if len(idx) > count:
        kth = np.partition(scores[idx], len(idx) - count)[len(idx) - count]
        idx = idx[scores[idx] >= kth]  # keeps every tie at the boundary
    order = np.lexsort((idx, -scores[idx]))
    return idx[order][:count]


def _best(ranking: _Ranking, count: int) -> np.ndarray:
    if ranking.order is not None:
        return ranking.order[:count]
    return _ordered(ranking.scores, ranking.pool, count)


def _select(ctx: _Context, ranking: _Ranking) -> list[Match]:
    request = ctx.request
    if request.mode == "top_k":
        picked = [(int(i), "rank") for i in _best(ranking, request.limit)]
    elif request.mode == "adaptive":
        best = _best(ranking, request.limit)
        picked = [(int(i), "rank") for i in best[:adaptive.keep_count(ranking.scores[best].tolist(), request.margin,
                                                                           request.limit)]]
    else:
        picked = _select_threshold(ctx, ranking)
    matches: list[Match] = []
    seen: set[int] = set()
    for i, via in _required(ctx) + picked:
        if i not in seen:
            seen.add(i)
            matches.append(_match(ctx, ranking, i, via))
    if request.include_core:
        core = np.flatnonzero(ctx.index.core & ctx.index.mask(request.allowed_tools, request.categories))
        matches.extend(_match(ctx, ranking, int(i), "core") for i in core if int(i) not in seen)
    return matches


def _required(ctx: _Context) -> list[tuple[int, str]]:
    """The request's required tools (pinned, explicit) that it may see, before the ranked ones."""
    allowed = ctx.index.mask(ctx.request.allowed_tools, None)
    positions = ((ctx.index.position.get(name), via) for name, via in ctx.request.required)
    return [(i, via) for i, via in positions if i is not None and allowed[i]]


def _select_threshold(ctx: _Context, ranking: _Ranking) -> list[tuple[int, str]]:
    request = ctx.request
    threshold = request.threshold
    if threshold is None:
        threshold = scoring.DEFAULT_THRESHOLDS[ranking.threshold_scale]
    best = _best(ranking, request.limit)
    passing = [int(i) for i in best if ranking.scores[i] >= threshold]
    if not passing:
        ranking.info.fallback = True
        ranking.info.fallback_kind = ranking.info.fallback_kind or "below_threshold"
        ranking.info.reason = (ranking.info.reason + "; " if ranking.info.reason else "") + \
            f"nothing scored {threshold:.2f} or more; returning the best {scoring.THRESHOLD_FALLBACK_COUNT}"
        count = min(scoring.THRESHOLD_FALLBACK_COUNT, request.limit)
        return [(int(i), "fallback") for i in best[:count]]
    picked = [(i, "rank") for i in passing]
    return picked + _related_fill(ctx, ranking, passing, request.limit - len(passing))


def _related_fill(ctx: _Context, ranking: _Ranking, strong: list[int], spare: int) -> list[tuple[int, str]]:
    """Related tools of the passing hits fill the places the threshold left empty.

    They come after every passing hit, so they can never push a ranked tool out;
    only tools the request may see (toolset, categories, not core) qualify.
    """
    if spare <= 0:
        return []
    index = ctx.index
    taken = set(strong)
    extra: list[tuple[int, str]] = []
    for i in strong:
        for name in index.tools[i].related_tools:
            j = index.position.get(name)
            if j is None or j in taken or not ctx.candidates[j]:
                continue
            taken.add(j)
            extra.append((j, "related"))
            if len(extra) >= spare:
                return extra
    return extra


def _match(ctx: _Context, ranking: _Ranking, i: int, via: str) -> Match:
    index = ctx.index
    tool = index.tools[i]
    match = Match(name=tool.name, score=float(ranking.scores[i]), category=tool.category,
                  hint=tool.usage_hint, core=tool.core and via == "core", via=via)
    if ctx.request.explain:
        lexical = ctx.lexical()
        match.lexical_score = float(lexical.normalised()[i]) if lexical.ideal > 0 else 0.0
        semantic = ctx._semantic
        if semantic is not None:
            match.semantic_score = float(cosine_to_unit(semantic.cosine[i : i + 1])[0])
            hit = int(semantic.query_hit[i])
            match.matched_query = index.vectors.query_texts[hit] if hit >= 0 else None
        match.category_path = index.category_path(i)
    return match


# --------------------------------------------------------------------------
# answer assembly: definitions, categories, guidance, tokens
# --------------------------------------------------------------------------
def _assemble(ctx: _Context, ranking: _Ranking, matches: list[Match], allowed: np.ndarray) -> RouteResult:
    index = ctx.index
    fmt = ctx.request.format
    positions = [index.position[m.name] for m in matches]
    tools = [index.render(i, fmt) for i in positions]
    categories = list(dict.fromkeys(m.category for m in matches if m.category))
    guidance = index.tree.guidance([m.category for m in matches])
    selected = int(index.token_counter.counts(positions, fmt).sum()) if positions else 0
    mask_key = (ctx.request.allowed_tools, tuple(sorted(ctx.request.categories))
                if ctx.request.categories is not None else None)
    catalog = index.token_total(mask_key, allowed, fmt)
    return RouteResult(matches=matches, tools=tools, categories=categories, guidance=guidance,
                       strategy=ranking.info, tokens=TokenFigures(selected, catalog),
                       explain=ctx.request.explain)
