"""`route`: one request in, the few tools it needs out.

Reading order for a newcomer: `route` (the whole flow in ~20 lines), then the
`_rank_*` functions (one per strategy, each returning a `_Ranking` over all
tools on the 0-1 scale of `scoring.py`), then `_select` (top-k / threshold /
related / core), then `_assemble` (definitions, guidance, tokens).

A request that needs several tools is split into its needs (`needs.py`): each
need is ranked on its own and the answer covers them in turn. A tool the request
names as code spells it (`named.py`) ranks first, whatever the strategy.

Failure policy: the embedder is called at most once per request, lazily, with
every text the request needs (the request and its needs) in one batch; any
exception it raises (including the caller's timeout or open circuit) turns the
request into a BM25 answer with `strategy.fallback = true`. The LLM category
selector is treated the same way inside the hierarchical chain.

The weights of the ranking come from the index's `RankingParams` (`params.py`):
calibrated for its catalog when there was evidence, the defaults otherwise.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import adaptive, scoring
from .index import RoutingIndex
from .lexical import LexicalScores, tokenize
from .named import named_tools
from .needs import Need, cover_order, split_needs, whole_from_needs
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

# Texts in, one vector per text out (rows). One call per request, all its texts at once.
EmbedTexts = Callable[[Sequence[str]], np.ndarray]
SelectCategories = Callable[[str, Sequence[CategoryEntry]], list[str]]

# Hierarchical chain, embedding step: a category's score is the best of its own
# vector's cosine and its own tools' best cosine. When the best category scores at
# least CATEGORY_MIN_SIMILARITY, every category within CATEGORY_SPAN_MARGIN of it
# qualifies, at most MAX_CATEGORIES, so a query spanning two domains gets both.
CATEGORY_MIN_SIMILARITY = 0.2
CATEGORY_SPAN_MARGIN = 0.05
MAX_CATEGORIES = 3
_IN_CATEGORY_FLOOR = 1e-6


# --------------------------------------------------------------------------
# request context: lazily computed, shared by strategies
# --------------------------------------------------------------------------
class _QueryVectors:
    """The vectors of a request's texts (the request and its needs), embedded in one call
    the first time any of them is needed; the error, if the call failed.

    A request of several parts (`needs.whole_from_needs`) is not embedded whole: its vector is the mean
    of its needs' vectors, since its words are theirs and embedding them twice doubled the model's
    work (seal-dev's requests, 71 % of them multi-tool: route p50 14.7 -> 10.0 ms; recall@1/5/10 of
    every dev set within one request, bench/quality.py).

    A request is embedded as written: adding the vector of its content words alone (NLTK's stop
    words out, against chatty padding) took plugins-dev's recall@5 0.893 -> 0.895 and bfcl-dev's
    recall@1 0.784 -> 0.772, for one more text a request."""

    def __init__(self, embed_texts: EmbedTexts | None, query: str, needs: Sequence[Need], index: RoutingIndex) -> None:
        self._embed_texts = embed_texts
        self._whole_from_needs = query if whole_from_needs(needs) else None
        need_texts = [need.text for need in needs]
        texts = need_texts if self._whole_from_needs is not None else [query, *need_texts]
        self._texts = list(dict.fromkeys(texts))
        self._index = index
        self._vectors: dict[str, np.ndarray] | None = None
        self.error = ""
        self.error_kind: FallbackKind = ""

    def vector(self, text: str) -> np.ndarray | None:
        if self._vectors is None:
            self._vectors = self._embed_all()
        return self._vectors.get(text)

    def _embed_all(self) -> dict[str, np.ndarray]:
        if self._embed_texts is None:
            self.error, self.error_kind = "no query embedder configured", "no_embedder"
        elif not self._index.vectors.ready:
            self.error, self.error_kind = "no tool vectors in the index yet", "no_vectors"
        else:
            try:
                rows = np.asarray(self._embed_texts(self._texts), dtype=np.float32).reshape(len(self._texts), -1)
                if rows.shape[1] != self._index.vectors.dim:
                    raise ValueError(f"query vectors have {rows.shape[1]} dimensions, the index {self._index.vectors.dim}")
                vectors = {text: normalise(row) for text, row in zip(self._texts, rows, strict=True)}
                if self._whole_from_needs is not None:
                    vectors[self._whole_from_needs] = normalise(np.mean(list(vectors.values()), axis=0))
                return vectors
            except Exception as exc:  # noqa: BLE001 - any embedder failure degrades to BM25
                self.error = f"query embedding failed: {type(exc).__name__}: {exc}"[:300]
                self.error_kind = "embedding_failed"
                log.warning("routing falls back to BM25: %s", self.error)
        return {}


@dataclass
class _Context:
    index: RoutingIndex
    request: RouteRequest
    query_vectors: _QueryVectors
    candidates: np.ndarray  # bool mask of tools that may be ranked
    _tokens: list[str] | None = None
    _lexical: LexicalScores | None = None
    _semantic: SemanticScores | None = None
    _semantic_tried: bool = False
    query_vector: np.ndarray | None = None

    @property
    def embed_error(self) -> str:
        return self.query_vectors.error

    @property
    def embed_error_kind(self) -> FallbackKind:
        return self.query_vectors.error_kind

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
        if not self._semantic_tried:
            self._semantic_tried = True
            self.query_vector = self.query_vectors.vector(self.request.query)
            if self.query_vector is not None:
                self._semantic = self.index.vectors.score(self.query_vector, with_closest_query=self.request.explain)
        return self._semantic

    def semantic_part(self, pool: np.ndarray) -> np.ndarray:
        """The 0-1 semantic score of the pooled tools: the cosine to the tool's vector, plus
        the cosine to its category's vector with the category weight; a tool its worker has
        not embedded yet stands in with its lexical score, so a half-embedded catalog does not
        bury the new tools. Only call after `semantic()` returned scores."""
        semantic = self._semantic
        assert semantic is not None and self.query_vector is not None
        index = self.index
        cosine = semantic.cosine[pool]
        weight = index.params.category_weight
        if weight > 0:
            category_cosine = index.category_cosines(self.query_vector)[pool]
            cosine = (cosine + weight * category_cosine) / (1.0 + weight)
        has_vector = index.vectors.has_vector[pool]
        part: np.ndarray = np.where(has_vector, cosine, self.lexical().normalised()[pool])
        return part


@dataclass
class _Ranking:
    scores: np.ndarray  # 0-1 per tool; only entries under `pool` matter
    pool: np.ndarray  # bool mask of ranked tools
    info: StrategyInfo
    threshold_scale: str  # "bm25" | "vector" | "hybrid": which default threshold applies
    order: np.ndarray | None = None  # explicit ranking (multi-step merge, named tools); else by score
    named: frozenset[int] = frozenset()  # tools the request names (named.py), ranked first


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------
def route(index: RoutingIndex, request: RouteRequest, *, embed_texts: EmbedTexts | None,
          select_categories_llm: SelectCategories | None = None) -> RouteResult:
    """Select tools for one request. Never calls the embedder on the `auto` fast path."""
    _validate(request)
    allowed = index.mask(request.allowed_tools, request.categories)
    candidates = allowed & ~index.core if request.include_core else allowed
    needs = split_needs(request.query) if request.strategy != "hierarchical" else [Need(request.query)]
    query_vectors = _QueryVectors(embed_texts, request.query, needs if len(needs) > 1 else [], index)
    ctx = _Context(index, request, query_vectors, candidates)
    if not request.query.strip():  # only required tools asked for (select:NAME): nothing to rank
        ranking = _Ranking(np.zeros(len(index), dtype=np.float32), np.zeros(len(index), dtype=bool),
                           StrategyInfo(request.strategy, "none", 1.0, reason="no query text to rank"), "hybrid")
    elif len(needs) > 1:
        ranking = _rank_needs(ctx, needs, select_categories_llm)
    else:
        ranking = _RANKERS[request.strategy](ctx, select_categories_llm)
    _rank_named_first(ctx, ranking)
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
    if ctx.semantic() is None:
        return _rank_bm25(ctx, requested=requested, pool=pool, fallback=True, reason=ctx.embed_error,
                          fallback_kind=ctx.embed_error_kind)
    scores = np.zeros(len(ctx.index), dtype=np.float32)
    scores[pool] = scoring.fuse(ctx.semantic_part(pool), ctx.lexical().raw[pool], ctx.index.params.lexical_weight)
    conf = _top(scores, pool) if confidence is None else confidence
    return _Ranking(scores, pool, StrategyInfo(requested, "hybrid", conf), "hybrid")


def _rank_auto(ctx: _Context, _llm: SelectCategories | None = None) -> _Ranking:
    """BM25 first; embed only when the lexical evidence is not conclusive enough for this catalog
    (its calibration measured BM25 alone as good as hybrid above this confidence)."""
    confidence = _lexical_confidence(ctx, ctx.candidates)
    gate = ctx.index.params.fast_path_confidence
    if gate is not None and confidence >= gate:
        return _rank_bm25(ctx, requested="auto", reason="confident lexical match (fast path)")
    return _rank_hybrid(ctx, requested="auto", confidence=confidence)


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
# requests with several needs: "find X. Then chart it, and finally mail it"
# --------------------------------------------------------------------------
def _rank_needs(ctx: _Context, needs: list[Need], llm: SelectCategories | None) -> _Ranking:
    """Rank the whole request and each need on its own; `cover_order` orders the tools over the needs."""
    strategy = _RANKERS[ctx.request.strategy]
    whole = strategy(ctx, llm)
    # One vector product per need: all needs in one matrix product is slower with one BLAS thread
    # (the product copies the tool rows into its own blocks first): 3 needs over 4,076 float32 rows
    # 0.96 against 0.28 ms, over 100,000 int8 rows 29.8 against 19.9 ms; only 5 needs over 100,000
    # rows gained, 30.8 against 34.2 ms.
    rankings = [strategy(_Context(ctx.index, replace(ctx.request, query=need.text), ctx.query_vectors, ctx.candidates),
                         llm)
                for need in needs]
    weights = [need.weight for need in needs]
    order = cover_order(whole.scores, [r.scores for r in rankings], whole.pool, ctx.request.limit, weights)
    every = [whole, *rankings]
    used = "hybrid" if any(r.info.used == "hybrid" for r in every) else whole.info.used
    info = StrategyInfo(ctx.request.strategy, used, min(r.info.confidence for r in every),
                        any(r.info.fallback for r in every),
                        "; ".join(dict.fromkeys(r.info.reason for r in every if r.info.reason)),
                        [{"step": "split", "status": "ok", "parts": [need.text for need in needs],
                          "weights": weights}],
                        fallback_kind=next((r.info.fallback_kind for r in every if r.info.fallback_kind), ""))
    scores = np.max(np.stack([r.scores for r in every]), axis=0)
    scale = "hybrid" if used == "hybrid" else whole.threshold_scale
    return _Ranking(scores, whole.pool, info, scale, order=order)


def _rank_named_first(ctx: _Context, ranking: _Ranking) -> None:
    """The tools the request names (named.py) that it may see go first, the best ranked of them
    first, with the top score: they load in every mode, within the limit."""
    index = ctx.index
    names = named_tools(ctx.request.query, index.name_map.referred)
    named = np.array([index.position[name] for name in names], dtype=np.int64)
    named = named[ctx.candidates[named]]
    if not len(named):
        return
    named = named[np.lexsort((named, -ranking.scores[named]))]
    rest = _best(ranking, ctx.request.limit)
    ranking.order = np.concatenate([named, rest[~np.isin(rest, named)]])
    ranking.scores = ranking.scores.copy()  # may be the index's own cached array
    ranking.scores[named] = 1.0
    ranking.named = frozenset(named.tolist())


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
    return scoring.best_first(idx, scores[idx], count)


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
    picked = [(i, "named" if i in ranking.named else via) for i, via in picked]
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
