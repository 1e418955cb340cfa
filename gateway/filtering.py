"""The filter gateway: an LLM request body in, the same body with only the relevant tools out.

Modelled on seed 004's semantic tool filtering, with three differences that matter:
the ranking is the route endpoint's engine (BM25 + vector fusion, TOP_K/THRESHOLD on
the same 0-1 scale), tool embeddings are cached by content hash (in this process and
in Redis) so a client that sends the same 50 tools every turn pays for them once, and
the small index built from a request's tools is kept in an LRU keyed by the tool
list's hash, so a repeated tool list costs no rebuild at all.

Pass-through (body forwarded byte for byte, the reason in `passthrough`): empty body,
no query found, no tools found (or only the provider's own, which are never ranked), embedding
provider unavailable. Malformed JSON, a
JSONPath that does not parse or cannot be evaluated, or a tools path that finds something
other than a list of objects raise `FilterInputError` (a 400 for the caller; more than
FILTER_MAX_TOOLS tools a 413).

Work per request is bounded: at most FILTER_MAX_NEW_EMBEDDINGS tool texts the caches do not
know are embedded on the request's thread. Past that, the request is ranked by BM25 alone (as
the route endpoint does without embeddings), its new texts are embedded in the background
(gateway/tasks.py) for the next request, and the outcome says so (`fallback`).
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from django.conf import settings
from django.db import DatabaseError

from engine import (
    CatalogSnapshot,
    NameMap,
    RouteRequest,
    RoutingIndex,
    ToolEntry,
    count_text,
    definition_json,
    explicit,
    external_name,
    route,
    tool_embedding_text,
)
from routing.query_embeddings import query_embedder
from shared.json_input import JsonInputError, loads
from shared.jsonpaths import compile_jsonpath
from shared.lru import LRUCache
from shared.messages import content_text, last_user_text
from shared.redis_client import get_redis
from shared.vector_cache import VectorCache
from toolcatalog.embeddings import EmbeddingProvider, EmbeddingProviderError, get_provider
from toolcatalog.models import EmbeddingStatus, HypotheticalQuery, Tool
from toolcatalog.selectors import catalog_version

logger = logging.getLogger(__name__)

DEFAULT_QUERY_PATH = "$.messages[-1].content"
DEFAULT_TOOLS_PATH = "$.tools"
DEFAULT_TOP_K = 5  # seed 004's default
FILTER_STRATEGIES = ("auto", "bm25", "vector", "hybrid")
# Seed 004's order: the first non-empty of these is the tool's description.
DESCRIPTION_FIELDS = (("description",), ("desc",), ("summary",), ("info",), ("function", "description"))


class FilterInputError(Exception):
    """The request cannot be filtered as sent: the caller gets `status` (a 400 unless a size limit
    says 413) with this code and message."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}
        self.status = status


@dataclass(frozen=True)
class FilterOptions:
    mode: str = "top_k"
    limit: int | None = None  # None: 5 in top_k, every tool in threshold mode (seed 004)
    threshold: float | None = None
    # Hybrid (BM25 + vector fusion) by default: the tools are embedded anyway. (`auto` ranks the
    # same here: a tool list sent with the request has no calibration, so no fast path.)
    strategy: str = "hybrid"
    query_path: str = DEFAULT_QUERY_PATH
    tools_path: str = DEFAULT_TOOLS_PATH
    margin: float | None = None  # adaptive mode
    # Not a request option: the caller's pinned tools (its key's and its toolset's), by catalog name.
    pinned: tuple[str, ...] = ()
    # Not a request option: the tools the body's `tool_choice` needs kept (`chosen_tools`), by name.
    needed: tuple[str, ...] = ()
    # Not a request option: the body's kind when the door knows it from its path (the proxy's "openai",
    # "anthropic" or "responses"); None (/api/v1/filter) reads it from the body's shape.
    kind: str | None = None


@dataclass
class FilterOutcome:
    body: bytes
    passthrough: str | None = None
    fail_safe: str | None = None  # why every tool was kept: nothing was selected
    tools_before: int = 0
    tools_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    strategy: str = ""
    selected: list[str] = field(default_factory=list)
    fallback: str | None = None  # "embedding-budget": ranked by BM25, new tool texts embedded in the background
    deferred_embeddings: int = 0  # tool texts left to the background
    # For the usage log: the query, what was sent on ([{"name", "rank", "score"}] with catalog
    # names) and every tool name of the request as the catalog spells it (the model calls tools
    # by the request's names; engine/names.py's mapping gives the catalog's).
    query: str = ""
    confidence: float | None = None
    offered: list[dict[str, Any]] = field(default_factory=list)
    catalog_names: dict[str, str] = field(default_factory=dict)
    request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def tokens_saved(self) -> int:
        return max(0, self.tokens_before - self.tokens_after)


# --------------------------------------------------------------------------
# options
# --------------------------------------------------------------------------
OPTION_NAMES = ("mode", "limit", "threshold", "margin", "strategy", "query_path", "tools_path")
FILTER_MODES = ("top_k", "threshold", "adaptive")


def parse_options(values: Mapping[str, str], *, key_query_path: str | None = None,
                  key_tools_path: str | None = None) -> FilterOptions:
    """Options from strings (query parameters or headers); the API key's paths are the defaults."""
    mode = (values.get("mode") or "top_k").strip().lower()
    if mode not in FILTER_MODES:
        raise FilterInputError("invalid_request", "mode must be 'top_k', 'threshold' or 'adaptive'.", {"mode": mode})
    strategy = (values.get("strategy") or FilterOptions.strategy).strip().lower()
    if strategy not in FILTER_STRATEGIES:
        raise FilterInputError("invalid_request", f"strategy must be one of {', '.join(FILTER_STRATEGIES)}.",
                               {"strategy": strategy})
    options = FilterOptions(
        mode=mode, strategy=strategy,
        limit=_number(values, "limit", int, 1, settings.FILTER_MAX_LIMIT),
        threshold=_number(values, "threshold", float, 0.0, 1.0),
        margin=_number(values, "margin", float, 0.0, 1.0),
        query_path=values.get("query_path") or key_query_path or DEFAULT_QUERY_PATH,
        tools_path=values.get("tools_path") or key_tools_path or DEFAULT_TOOLS_PATH,
    )
    compiled_path(options.query_path, "query_path")
    compiled_path(options.tools_path, "tools_path")
    return options


# Python's int() and float() also read "1_0" as 10 and other scripts' digits ("٣" as 3).
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


def _number(values: Mapping[str, str], name: str, kind: type, low: float, high: float) -> Any:
    raw = values.get(name)
    if raw in (None, ""):
        return None
    written = (_WHOLE_NUMBER if kind is int else _DECIMAL_NUMBER).fullmatch(raw.strip())
    if written is None:
        raise FilterInputError("invalid_request", f"{name} must be a number.", {name: raw})
    value = kind(written.group())
    if not low <= value <= high:
        raise FilterInputError("invalid_request", f"{name} must be between {low:g} and {high:g}.", {name: raw})
    return value


_compiled_paths: LRUCache[str, Any] = LRUCache(256)


def compiled_path(path: str, what: str) -> Any:
    compiled = _compiled_paths.get(path)
    if compiled is not None:
        return compiled
    limit = settings.FILTER_MAX_JSONPATH_CHARS
    if len(path) > limit:
        raise FilterInputError("invalid_jsonpath", f"{what} is longer than {limit} characters.",
                               {what: path[:100] + "...", "limit": "FILTER_MAX_JSONPATH_CHARS", "allowed": limit})
    try:
        compiled = compile_jsonpath(path)
    except ValueError as exc:
        raise FilterInputError("invalid_jsonpath", f"{what} is not a valid JSONPath: {exc}", {what: path}) from None
    _compiled_paths.put(path, compiled)
    return compiled


def _find(path: str, what: str, body: dict) -> list[Any]:
    """The matches of `path` in `body`; a path the library cannot evaluate here is the caller's 400."""
    try:
        return compiled_path(path, what).find(body)
    except FilterInputError:
        raise
    except Exception as exc:  # noqa: BLE001 - jsonpath-ng's functions raise what they meet
        raise FilterInputError("invalid_jsonpath", f"{what} cannot be evaluated on this body: "
                               f"{type(exc).__name__}: {str(exc)[:200]}", {what: path}) from None


# --------------------------------------------------------------------------
# the request body
# --------------------------------------------------------------------------
def load_body(raw: bytes) -> Any:
    try:
        body = loads(raw, max_depth=settings.LLM_MAX_JSON_DEPTH)
    except JsonInputError as exc:
        raise FilterInputError(exc.code, f"The body is {exc.reason}.", exc.details) from None
    if not isinstance(body, dict):
        raise FilterInputError("invalid_json", "The body must be a JSON object (an LLM request).")
    return body


def is_responses_body(body: dict) -> bool:
    """An OpenAI Responses API request (`input`, flat function tools) rather than a chat one (`messages`)."""
    return isinstance(body.get("input"), (str, list)) and "messages" not in body


def reads_as_responses(body: dict, options: FilterOptions) -> bool:
    """Whether `body` is a Responses API request: as the door says when it knows (a Responses body may
    carry `prompt` or `conversation` instead of `input`), else as its shape says."""
    return options.kind == "responses" if options.kind else is_responses_body(body)


def upstream_searches_tools(body: dict, options: FilterOptions) -> bool:
    """A Responses body with OpenAI's own `{"type": "tool_search"}`: the client chose the upstream's
    tool search over its deferred (`defer_loading`) tools, so they must reach it untouched."""
    tools = body.get("tools")
    return (reads_as_responses(body, options) and isinstance(tools, list)
            and any(isinstance(t, dict) and t.get("type") == "tool_search" for t in tools))


def chosen_tools(body: dict) -> tuple[str, ...]:
    """The tools `tool_choice` names: the one it forces (OpenAI's {"type": "function", "function": {"name"}},
    the Responses API's flat {"type": "function", "name"}, Anthropic's {"type": "tool", "name"}), or those
    OpenAI's `allowed_tools` lets the model call (chat's {"type": "allowed_tools", "allowed_tools": {"mode",
    "tools"}}, the Responses API's flat {"type": "allowed_tools", "mode", "tools"}). Filtered out, the
    provider refuses the request, or the model is left with none of the tools it may call."""
    choice = body.get("tool_choice")
    if not isinstance(choice, dict):
        return ()
    if choice.get("type") in ("function", "tool"):
        named: list[Any] = [choice]
    elif choice.get("type") == "allowed_tools":
        allowed = choice.get("allowed_tools")
        listed = (allowed if isinstance(allowed, dict) else choice).get("tools")
        named = listed if isinstance(listed, list) else []
    else:
        return ()
    return tuple(dict.fromkeys(name for name in (tool_name(t) for t in named if isinstance(t, dict)) if name))


def is_provider_tool(tool: dict, responses: bool) -> bool:
    """One of the provider's own tools, which the filter keeps as sent and never ranks: a built-in tool
    has no name to rank (`{"type": "web_search_preview"}`); Anthropic's server tools have a name and a
    versioned type (`{"type": "web_search_20250305", "name": "web_search"}`), where the client's tools have
    none or `custom`; in a Responses body every tool but a function is the provider's (`mcp`, `custom`,
    `namespace` have names, yet are not the client's functions)."""
    kind = tool.get("type")
    if responses:
        return kind != "function" or not tool_name(tool)
    return not tool_name(tool) or (isinstance(kind, str) and kind not in ("function", "custom"))


def own_tools(tools: list[dict], responses: bool) -> list[dict]:
    """The request's own tools, in order: those the filter ranks, sends K of and logs as offered."""
    return [tool for tool in tools if not is_provider_tool(tool, responses)]


def find_tools(body: dict, options: FilterOptions) -> tuple[Any, list[dict] | None]:
    """The first match of the tools path and its list, or (None, None) when there is none."""
    matches = _find(options.tools_path, "tools_path", body)
    if not matches or matches[0].value is None:
        return None, None
    tools = matches[0].value
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise FilterInputError("invalid_tools", f"{options.tools_path} must find a list of tool objects.",
                               {"tools_path": options.tools_path})
    if len(tools) > settings.FILTER_MAX_TOOLS:
        raise FilterInputError("too_many_tools", f"The request has {len(tools)} tools; at most "
                               f"{settings.FILTER_MAX_TOOLS} are filtered in one request.",
                               {"limit": "FILTER_MAX_TOOLS", "allowed": settings.FILTER_MAX_TOOLS}, status=413)
    return matches[0], tools


def replace_tools(body: dict, match: Any, kept: list[dict], options: FilterOptions) -> None:
    """Put the kept tools where the tools path found them; a path that found a computed value
    (`sorted`, a filter's copy) cannot be written back and is the caller's 400."""
    try:
        match.full_path.update(body, kept)
    except Exception as exc:  # noqa: BLE001 - as in _find
        raise FilterInputError("invalid_jsonpath", f"tools_path cannot be written back: {type(exc).__name__}",
                               {"tools_path": options.tools_path}) from None
    found = _find(options.tools_path, "tools_path", body)
    if not found or found[0].value is not kept:
        raise FilterInputError("invalid_jsonpath", "tools_path must point at the tools list itself "
                               "(no functions such as `sorted`).", {"tools_path": options.tools_path})


def find_query(body: dict, options: FilterOptions) -> str:
    if options.query_path == DEFAULT_QUERY_PATH and reads_as_responses(body, options):
        given = body.get("input")
        return responses_query(given) if isinstance(given, (str, list)) else ""
    matches = _find(options.query_path, "query_path", body)
    return "\n".join(t for t in (content_text(m.value) for m in matches) if t)


def responses_query(given: str | list) -> str:
    """The query of a Responses body: its `input` text, or its last user message with text (the
    items after it are the function calls and outputs of the same request). With
    `previous_response_id` the history is the upstream's, so this is the new turn's input alone."""
    return given.strip() if isinstance(given, str) else last_user_text(given)


def tool_name(tool: dict) -> str:
    name = tool.get("name")
    if not isinstance(name, str) and isinstance(tool.get("function"), dict):
        name = tool["function"].get("name")
    return name if isinstance(name, str) else ""


def tool_description(tool: dict) -> str:
    for path in DESCRIPTION_FIELDS:
        value: Any = tool
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return tool_name(tool)


def tool_parameters(tool: dict) -> dict:
    function: dict[str, Any] = tool["function"] if isinstance(tool.get("function"), dict) else {}
    for candidate in (tool.get("parameters"), tool.get("input_schema"), tool.get("inputSchema"),
                      function.get("parameters")):
        if isinstance(candidate, dict):
            return candidate
    return {}


# --------------------------------------------------------------------------
# filtering
# --------------------------------------------------------------------------
def filter_request(raw: bytes, options: FilterOptions, body: Any = None) -> FilterOutcome:
    """`body`: `raw` as `load_body` read it, where the caller already has it (the proxy); a
    filtered request has its tools replaced in it."""
    if not raw.strip():
        return FilterOutcome(raw, passthrough="empty-body")
    body = load_body(raw) if body is None else body
    match, tools = find_tools(body, options)
    if not tools:
        return FilterOutcome(raw, passthrough="no-tools")
    responses = reads_as_responses(body, options)
    ours = own_tools(tools, responses)
    options = replace(options, needed=chosen_tools(body))
    tokens_before = count_text(definition_json(tools))
    query = find_query(body, options)[: settings.API_MAX_QUERY_CHARS]
    if upstream_searches_tools(body, options):
        return _unchanged(raw, tools, ours, tokens_before, query, passthrough="upstream-tool-search")
    if not ours:  # the provider's tools alone: nothing of the request's own to rank
        return _unchanged(raw, tools, ours, tokens_before, query, passthrough="no-tools")
    if not query:
        return _unchanged(raw, tools, ours, tokens_before, query, passthrough="no-query")
    provider = get_provider()
    try:
        index = tool_index(ours, provider, with_vectors=options.strategy != "bm25")
    except EmbeddingProviderError as exc:
        logger.warning("filter passes the request through: %s", exc)
        return _unchanged(raw, tools, ours, tokens_before, query, passthrough="embedding-unavailable")
    strategy = "bm25" if index.deferred else options.strategy
    result = route(index.routing, _route_request(query, options, index, strategy),
                   embed_texts=query_embedder(provider).embed_many)
    if result.strategy.embedding_unavailable:  # seed 004: pass the request through
        return _unchanged(raw, tools, ours, tokens_before, query, passthrough="embedding-unavailable")
    if not result.names:  # never zero tools: this door cannot serve a search, so every tool stays
        return _unchanged(raw, tools, ours, tokens_before, query, fail_safe="nothing-selected")
    names = _top_k_filled(result.names, options, index)
    scores = {m.name: m.score for m in result.matches}
    ranked = [ours[index.positions[name]] for name in names]
    kept = _in_the_clients_places(tools, ranked, responses)
    replace_tools(body, match, kept, options)
    filtered = json.dumps(body, ensure_ascii=False).encode("utf-8")
    return FilterOutcome(filtered, tools_before=len(tools), tools_after=len(kept), tokens_before=tokens_before,
                         tokens_after=count_text(definition_json(kept)), strategy=result.strategy.used,
                         selected=[tool_name(t) for t in kept],
                         fallback="embedding-budget" if index.deferred else None, deferred_embeddings=index.deferred,
                         query=query, confidence=result.strategy.confidence,
                         offered=[{"name": index.catalog_names[index.positions[name]], "rank": rank,
                                   "score": round(float(scores[name]), 4) if name in scores else None}
                                  for rank, name in enumerate(names, start=1)],
                         catalog_names=dict(zip((_display_name(key) for key in index.positions), index.catalog_names)))


def _in_the_clients_places(tools: list[dict], ranked: list[dict], responses: bool) -> list[dict]:
    """The tools sent on: each provider tool where the client put it, and the ranked tools, best first,
    in the places the client's own tools held (the places past the last one sent dropped). A list that
    begins or ends with the provider's tools still does, so the filtered body differs from the client's
    only by the tools it drops and their order, and leading built-ins stay a stable prompt-cache prefix."""
    best_first = iter(ranked)
    placed: list[dict] = []
    for tool in tools:
        if is_provider_tool(tool, responses):
            placed.append(tool)
        elif (next_best := next(best_first, None)) is not None:
            placed.append(next_best)
    return placed


def _top_k_filled(ranked: list[str], options: FilterOptions, index: ToolListIndex) -> list[str]:
    """TOP_K sends K tools, as seed 004 promises ("or fewer if less than K tools are available"):
    the engine offers no tool that scores 0 (no word and no positive cosine in common with the
    query), so the rest come in the request's order. The index holds the request's own tools
    only: the provider's, kept beside them, are not among the K."""
    wanted = options.limit or DEFAULT_TOP_K
    if options.mode != "top_k" or len(ranked) >= wanted:
        return ranked
    shown = set(ranked)
    return [*ranked, *[key for key in index.positions if key not in shown][: wanted - len(ranked)]]


def _unchanged(raw: bytes, tools: list[dict], ours: list[dict], tokens: int, query: str, *,
               passthrough: str | None = None, fail_safe: str | None = None) -> FilterOutcome:
    """Passed on with every tool: all of the request's own tools were offered, in the request's order.
    The provider's tools, kept as sent without ranking, say nothing of the ranking: listed, they would
    push the ranked tools down the ranks the learning loop reads (and a nameless one be logged as "tool")."""
    names = [tool_name(t) for t in ours]
    catalog = request_names_in_catalog(names)
    return FilterOutcome(raw, passthrough=passthrough, fail_safe=fail_safe, tools_before=len(tools),
                         tools_after=len(tools), tokens_before=tokens, tokens_after=tokens, query=query,
                         offered=[{"name": name, "rank": rank, "score": None}
                                  for rank, name in enumerate(catalog, start=1)],
                         catalog_names=dict(zip(names, catalog)))


def search_tools(tools: list[dict], query: str, limit: int) -> list[int]:
    """Positions in `tools` of the best matches for `query`, best first (its select: terms
    honoured). The proxy's tool search runs on it; without the embedding provider it ranks by BM25."""
    provider = get_provider()
    options = FilterOptions(limit=limit)
    try:
        index = tool_index(tools, provider, with_vectors=True)
    except EmbeddingProviderError as exc:
        logger.warning("tool search ranks by BM25 alone: %s", exc)
        index = tool_index(tools, provider, with_vectors=False)
        options = FilterOptions(limit=limit, strategy="bm25")
    result = route(index.routing, _route_request(query, options, index, options.strategy),
                   embed_texts=query_embedder(provider).embed_many)
    return [index.positions[name] for name in result.names]


def _route_request(query: str, options: FilterOptions, index: ToolListIndex, strategy: str) -> RouteRequest:
    """The engine request for a tool list: the request's select: terms and the caller's pinned
    tools load first (by their name in the list, catalog or exported spelling)."""
    limit = options.limit or (DEFAULT_TOP_K if options.mode == "top_k" else len(index.positions))
    asked_for = explicit.parse(query)
    required = [(key, "pinned") for key in (index.key_of(name) for name in options.pinned) if key]
    required += [(key, "needed") for key in (index.key_of(name) for name in options.needed) if key]
    if asked_for.any:
        chosen = explicit.resolve(asked_for, list(index.positions), index.key_of)
        required += [(key, "explicit") for key in chosen.names]
        query = asked_for.rest
    return RouteRequest(query=query, limit=limit, mode=options.mode, threshold=options.threshold,  # type: ignore[arg-type]
                        strategy=strategy, include_core=False, format="names",  # type: ignore[arg-type]
                        margin=options.margin, required=tuple(required))


# --------------------------------------------------------------------------
# the per-tool-list index, cached
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ToolListIndex:
    routing: RoutingIndex
    positions: dict[str, int]  # engine key -> position in the request's tools list
    deferred: int = 0  # tool texts over the request's embedding budget: this index has no vectors
    catalog_names: tuple[str, ...] = ()  # by position: the tool's catalog name, else its own

    def key_of(self, name: str) -> str | None:
        """The engine key of the listed tool called `name` (or its exported spelling), if any."""
        for spelling in (name, external_name(name)):
            if spelling in self.positions:
                return spelling
        return None


_indexes: LRUCache[str, ToolListIndex] = LRUCache(settings.FILTER_INDEX_CACHE_SIZE)


def tool_index(tools: list[dict], provider: EmbeddingProvider, *, with_vectors: bool) -> ToolListIndex:
    """The index of this tool list, built once per (tools, model, catalog version)."""
    version = _catalog_version()
    canonical = json.dumps(tools, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = hashlib.sha256(f"{provider.model_id}\n{version}\n{with_vectors}\n{canonical}".encode()).hexdigest()
    cached = _indexes.get(key)
    if cached is not None:
        return cached
    built = _build_index(tools, provider, with_vectors, version)
    if not built.deferred:  # a BM25 stand-in is built again, to find the vectors once they are there
        _indexes.put(key, built)
    return built


def _catalog_version() -> int:
    try:
        return catalog_version()
    except DatabaseError:
        return -1


def _build_index(tools: list[dict], provider: EmbeddingProvider, with_vectors: bool, version: int) -> ToolListIndex:
    keys = _engine_keys(tools)
    catalog_names = request_names_in_catalog([_display_name(key) for key in keys])
    catalog = _catalog_queries(keys, catalog_names, provider.model_id)
    entries = [ToolEntry(name=key, description=tool_description(tool), category=None,
                         parameters=tool_parameters(tool), hypothetical_queries=tuple(catalog.get(key, ((), None))[0]))
               for key, tool in zip(keys, tools)]
    tool_vectors: dict[str, np.ndarray] = {}
    query_vectors: dict[str, np.ndarray] = {}
    deferred = 0
    if with_vectors:
        texts = [tool_embedding_text(_display_name(e.name), e.description, None, e.schema()) for e in entries]
        try:
            vectors = tool_vector_cache.vectors(texts, provider, budget=settings.FILTER_MAX_NEW_EMBEDDINGS)
        except OverBudget as over:
            deferred = len(over.missing)
            embed_in_background(over.missing, provider)
        else:
            tool_vectors = dict(zip(keys, vectors))
            query_vectors = {k: v for k, (_, v) in catalog.items() if v is not None}
    snapshot = CatalogSnapshot(version=f"filter:{version}", tools=tuple(entries), categories=(),
                               tool_vectors=tool_vectors, query_vectors=query_vectors, category_vectors={},
                               model=provider.model_id)
    return ToolListIndex(RoutingIndex(snapshot), {key: i for i, key in enumerate(keys)}, deferred,
                         tuple(catalog_names))


QUEUED_PREFIX = "toolrouter:temb-queued:"
QUEUED_SECONDS = 600  # a text queued this recently is not queued again (a worker may be busy)


def embed_in_background(texts: list[str], provider: EmbeddingProvider) -> int:
    """Queue the texts no request queued lately for the worker (gateway/tasks.py); returns how many.

    Without Redis or a broker nothing is queued: the next request with the same tools is ranked
    by BM25 again and tries again."""
    from .tasks import embed_tool_texts

    keys = [QUEUED_PREFIX + tool_vector_cache.key(provider.model_id, t) for t in texts]
    try:
        pipe = get_redis().pipeline(transaction=False)
        for key in keys:
            pipe.set(key, b"1", nx=True, ex=QUEUED_SECONDS)
        fresh = [t for t, newly in zip(texts, pipe.execute(), strict=True) if newly]
        if fresh:
            embed_tool_texts.delay(fresh, provider.model_id)
    except Exception:  # noqa: BLE001 - Redis or the broker away: the answer stays BM25, nothing else breaks
        logger.warning("filter: could not queue %d tool texts for embedding", len(texts), exc_info=True)
        return 0
    return len(fresh)


def _engine_keys(tools: list[dict]) -> list[str]:
    """A unique key per tool: its name, or name#position when a name is missing or repeated."""
    keys: list[str] = []
    seen: set[str] = set()
    for position, tool in enumerate(tools):
        name = tool_name(tool)
        key = name if name and name not in seen else f"{name or 'tool'}#{position}"
        seen.add(key)
        keys.append(key)
    return keys


def _display_name(key: str) -> str:
    return key.split("#", 1)[0]


def request_names_in_catalog(names: list[str]) -> list[str]:
    """Each tool name of a request as the catalog spells it (`files__read_file` is the catalog's
    `files.read_file`, by engine/names.py's one mapping), else as sent."""
    try:
        name_map = NameMap(Tool.objects.filter(enabled=True).values_list("name", flat=True))
    except DatabaseError:
        logger.warning("catalog unreadable; tool names stay as the request sent them", exc_info=True)
        return list(names)
    return [name_map.get(name, name) or name for name in names]


def _catalog_queries(keys: list[str], catalog_names: list[str],
                     model_id: str) -> dict[str, tuple[list[str], np.ndarray | None]]:
    """Hypothetical queries of catalog tools with the same (or the same exported) name.

    Texts with a ready vector of this model come first, in the order of the vector
    block, as the engine expects; the rest still count for BM25.
    """
    try:
        wanted = dict(zip(catalog_names, keys))
        rows = list(HypotheticalQuery.objects.filter(tool__name__in=list(wanted), approved=True)
                    .order_by("tool__name", "pk")
                    .values_list("tool__name", "text", "embedding", "embedding_status", "embedding_model"))
    except DatabaseError:
        logger.warning("catalog unreadable; filtering without its hypothetical queries", exc_info=True)
        return {}
    found: dict[str, tuple[list[str], list[str], list[np.ndarray]]] = {}
    for tool, text, embedding, status, model in rows:
        ready, other, vectors = found.setdefault(wanted[tool], ([], [], []))
        if status == EmbeddingStatus.READY and model == model_id and embedding is not None:
            ready.append(text)
            vectors.append(np.asarray(embedding, dtype=np.float32))
        else:
            other.append(text)
    return {key: (ready + other, np.vstack(vectors) if vectors else None)
            for key, (ready, other, vectors) in found.items()}


class OverBudget(Exception):
    """More texts are missing from the caches than the caller may embed now."""

    def __init__(self, missing: list[str]) -> None:
        super().__init__(f"{len(missing)} tool texts to embed")
        self.missing = missing


class ToolVectorCache:
    """Tool-text vectors by content hash: the shared two-level cache, then one provider call."""

    def __init__(self, memory_items: int = 20_000) -> None:
        self._cache = VectorCache("toolrouter:temb:", memory_items)

    def key(self, model_id: str, text: str) -> str:
        return self._cache.key(model_id, text)

    def vectors(self, texts: list[str], provider: EmbeddingProvider, *, budget: int | None = None) -> list[np.ndarray]:
        """The texts' vectors; OverBudget when more than `budget` (None: any number) must be embedded."""
        keys = [self.key(provider.model_id, t) for t in texts]
        found = self._cache.get_many(keys)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if budget is not None and len(missing) > budget:
            raise OverBudget(missing)
        if missing:
            fresh = dict(zip((self.key(provider.model_id, t) for t in missing), self._embed(missing, provider),
                             strict=True))
            self._cache.put_many(fresh, ttl_seconds=settings.FILTER_TOOL_EMBEDDING_CACHE_SECONDS)
            found.update(fresh)
        return [found[k] for k in keys]

    def _embed(self, texts: list[str], provider: EmbeddingProvider) -> np.ndarray:
        # The route's circuit breaker: a provider that keeps failing is not called on every request.
        breaker = query_embedder(provider).breaker
        breaker.check()
        batch = settings.EMBEDDING_BATCH_SIZE
        try:
            # On the request's path: the model a web worker has loaded for queries.
            vectors = np.vstack([provider.embed_queries(texts[i:i + batch]) for i in range(0, len(texts), batch)])
        except Exception as exc:
            breaker.failed()
            if isinstance(exc, EmbeddingProviderError):
                raise
            raise EmbeddingProviderError(f"{type(exc).__name__}: {exc}") from exc
        breaker.succeeded()
        return vectors.astype(np.float32)

    def clear(self) -> None:
        self._cache.clear_memory()


tool_vector_cache = ToolVectorCache()


def clear_process_caches() -> None:
    """Forget this process's indexes and vectors (Redis keeps its copies); for tests and reloads."""
    _indexes.clear()
    tool_vector_cache.clear()
