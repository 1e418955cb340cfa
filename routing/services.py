"""Serving a route request: resolve the caller's restrictions, run the engine, log it."""
from __future__ import annotations

import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from django.conf import settings

from engine import (
    EmbedTexts,
    Format,
    Mode,
    OpenAICategorySelector,
    RouteRequest,
    RouteResult,
    RoutingIndex,
    Strategy,
    explicit,
    route,
    sanitize_name,
)
from toolcatalog import selectors as catalog_selectors
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Toolset
from usage import services as usage

from . import sessions
from .live_index import live_index
from .meta_tool import TOOL_SEARCH_NAME, tool_search_tool
from .query_embeddings import EmbeddingClock, query_embedder


class RouteInputError(Exception):
    """A request naming something that does not exist (for this caller)."""

    def __init__(self, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


@dataclass(frozen=True, kw_only=True)
class RouteQuery:
    """What a caller asks for: the route endpoint's body (less `messages`, already turned into
    `query`), the tool-search body, or the admin's try-query form. Validated by the caller."""

    query: str
    limit: int = 5
    mode: Mode = "top_k"
    threshold: float | None = None
    strategy: Strategy = "auto"
    toolset: str | None = None
    categories: list[str] | None = None
    session_id: str | None = None
    format: Format = "openai"
    include_core: bool = True
    explain: bool = False
    margin: float | None = None


@dataclass(frozen=True, kw_only=True)
class Caller:
    """Who asks: the API key's id and name, the toolset it is bound to (if any) and the tools
    pinned to the key."""

    api_key_id: int | None = None
    name: str = ""
    bound_toolset_id: int | None = None
    pinned_tools: tuple[str, ...] = ()

    @classmethod
    def of_key(cls, api_key: Any) -> Caller:
        return cls(api_key_id=api_key.pk, name=api_key.name, bound_toolset_id=api_key.toolset_id,
                   pinned_tools=tuple(api_key.pinned_tools or ()))


@lru_cache(maxsize=256)
def _toolset_tool_names(version: str, *, pk: int | None = None, name: str | None = None) -> frozenset[str] | None:
    """A toolset's tools as of a catalog version (every toolset change bumps the version)."""
    toolset = Toolset.objects.filter(pk=pk).first() if pk is not None else Toolset.objects.filter(name=name).first()
    return None if toolset is None else frozenset(catalog_selectors.toolset_tool_names(toolset))


@lru_cache(maxsize=256)
def _toolset_pinned_names(version: str, *, pk: int | None = None, name: str | None = None) -> tuple[str, ...]:
    """A toolset's pinned tools as of a catalog version, by name."""
    toolsets = Toolset.objects.filter(pk=pk) if pk is not None else Toolset.objects.filter(name=name)
    return tuple(toolsets.values_list("pinned_tools__name", flat=True).exclude(pinned_tools__name=None)
                 .order_by("pinned_tools__name"))


def pinned_tool_names(caller: Caller, toolset_name: str | None, version: str) -> tuple[str, ...]:
    """Tools that always load for this request: the key's, its toolset's, the requested toolset's."""
    names = list(caller.pinned_tools)
    if caller.bound_toolset_id is not None:
        names.extend(_toolset_pinned_names(version, pk=caller.bound_toolset_id))
    if toolset_name:
        names.extend(_toolset_pinned_names(version, name=toolset_name))
    return tuple(dict.fromkeys(names))


def catalog_name(index: RoutingIndex, written: str) -> str | None:
    """The catalog tool a name sent back by an agent means: the catalog name, its exported
    spelling in any format (files__read_file, Gemini's _1password__get_item), or its namespaced
    one (category.name, see the MCP door)."""
    if written in index.position:
        return written
    name = index.name_map.referred(written)
    if name is not None:
        return name
    namespace, dot, bare = written.partition(".")
    category = index.tools[index.position[bare]].category if dot and bare in index.position else None
    return bare if category and sanitize_name(category) == namespace else None


def _visible_names(index: RoutingIndex, allowed: frozenset[str] | None) -> list[str]:
    return list(index.names) if allowed is None else sorted(n for n in allowed if n in index.position)


def _core_names(index: RoutingIndex, allowed: frozenset[str] | None) -> list[str]:
    mask = index.core & index.mask(allowed, None)
    return [index.tools[i].name for i in mask.nonzero()[0]]


@dataclass(frozen=True)
class CatalogTool:
    """One catalog tool as a door shows it: its definition in a format, and its category."""

    name: str
    category: str | None
    definition: Any


def visible_tool(caller: Caller, written: str, fmt: Format, *, catalog_stamp: bytes | None = None) -> CatalogTool | None:
    """The catalog tool `written` names (any spelling), if this caller may see it; else None,
    the same answer as for a name the catalog does not have."""
    index = live_index.current(get_provider().model_id, catalog_stamp=catalog_stamp)
    allowed = allowed_tool_names(caller, None, index.version)
    name = catalog_name(index, written)
    if name is None or (allowed is not None and name not in allowed):
        return None
    return _shown(caller, index, allowed, [name], fmt)[0]


def core_tools(caller: Caller, fmt: Format, *, catalog_stamp: bytes | None = None) -> list[CatalogTool]:
    """The core tools this caller may see, in name order."""
    index = live_index.current(get_provider().model_id, catalog_stamp=catalog_stamp)
    allowed = allowed_tool_names(caller, None, index.version)
    return _shown(caller, index, allowed, _core_names(index, allowed), fmt)


def _shown(caller: Caller, index: RoutingIndex, allowed: frozenset[str] | None, names: list[str],
           fmt: Format) -> list[CatalogTool]:
    shown = [CatalogTool(n, index.tools[index.position[n]].category, index.render(index.position[n], fmt))
             for n in names]
    if caller.bound_toolset_id is None:
        return shown
    hidden = _hidden_tool_names(index, allowed or frozenset())
    return [replace(t, definition=redact_tool_names(t.definition, hidden)) for t in shown]


def allowed_tool_names(caller: Caller, toolset_name: str | None, version: str) -> frozenset[str] | None:
    """The tools this request may see: the key's toolset, narrowed by the requested one."""
    allowed: frozenset[str] | None = None
    if caller.bound_toolset_id is not None:
        allowed = _toolset_tool_names(version, pk=caller.bound_toolset_id) or frozenset()
    if toolset_name:
        names = _toolset_tool_names(version, name=toolset_name)
        if names is None:
            raise RouteInputError("unknown_toolset", f"No toolset is named {toolset_name!r}.", {"toolset": toolset_name})
        allowed = names if allowed is None else allowed & names
    return allowed


def check_categories(categories: list[str] | None, index: RoutingIndex) -> tuple[str, ...] | None:
    if not categories:
        return None
    unknown = [c for c in categories if c not in index.categories]
    if unknown:
        raise RouteInputError("unknown_category", f"No enabled category is named {', '.join(map(repr, unknown))}.",
                              {"categories": unknown})
    return tuple(dict.fromkeys(categories))


def category_llm() -> OpenAICategorySelector | None:
    if not (settings.CATEGORY_LLM_BASE_URL and settings.CATEGORY_LLM_MODEL):
        return None
    return _category_llm(settings.CATEGORY_LLM_BASE_URL, settings.CATEGORY_LLM_API_KEY,
                         settings.CATEGORY_LLM_MODEL, settings.CATEGORY_LLM_TIMEOUT_SECONDS)


_selectors: dict[tuple, OpenAICategorySelector] = {}


def _category_llm(base_url: str, api_key: str, model: str, timeout: float) -> OpenAICategorySelector:
    key = (base_url, api_key, model, timeout)
    if key not in _selectors:
        _selectors[key] = OpenAICategorySelector(base_url, api_key, model, timeout=timeout)
    return _selectors[key]


@dataclass(frozen=True)
class Routed:
    result: RouteResult
    answer: dict[str, Any]  # the SPEC's JSON answer, with request_id and latency_ms
    descriptions: list[str]  # of the matched tools, in match order
    engine_ms: float  # the engine's ranking and the query model, without the cache around the model
    model_ms: float  # the query model (or provider) alone

    @property
    def server_timing(self) -> str:
        """A `Server-Timing` header value: what of `latency_ms` was the engine and the model, so a
        client (or a browser's network panel) sees what serving added."""
        return (f"model;dur={self.model_ms:.2f}, engine;dur={self.engine_ms:.2f}, "
                f"service;dur={self.answer['latency_ms']:.2f}")


def route_request(asked: RouteQuery, *, caller: Caller, catalog_stamp: bytes | None = None,
                  endpoint: str = "route", log: bool = True) -> Routed:
    """Route one request and (unless `log` is false, as for the admin's trials) log it.

    `catalog_stamp` is the catalog stamp the request read at its start (api/auth.py), or None:
    while it is unchanged, the process's routing index is current without a database read.
    """
    started = time.perf_counter()
    provider = get_provider()
    index = live_index.current(provider.model_id, catalog_stamp=catalog_stamp)
    allowed = allowed_tool_names(caller, asked.toolset, index.version)
    asked_for = explicit.parse(asked.query)
    has_terms = asked_for.any or bool(asked_for.notes)  # a term it could not take still says why
    chosen = explicit.resolve(asked_for, _visible_names(index, allowed), lambda n: catalog_name(index, n)) \
        if has_terms else None
    required = [(name, "pinned") for name in pinned_tool_names(caller, asked.toolset, index.version)]
    required += [(name, "explicit") for name in (chosen.names if chosen else ())]
    request = RouteRequest(
        query=asked_for.rest if has_terms else asked.query,
        limit=asked.limit,
        mode=asked.mode,
        threshold=asked.threshold,
        strategy=asked.strategy,
        allowed_tools=allowed,
        categories=check_categories(asked.categories, index),
        include_core=asked.include_core,
        explain=asked.explain,
        format=asked.format,
        default_category=settings.ROUTE_DEFAULT_CATEGORY,
        margin=asked.margin,
        required=tuple(required),
    )
    embed = query_embedder(provider)
    clock = EmbeddingClock()

    def embed_texts(texts: Sequence[str]) -> np.ndarray:
        return embed.embed_many(texts, clock)

    engine_started = time.perf_counter()
    result = route(index, request, embed_texts=embed_texts, select_categories_llm=category_llm())
    fail_safe = None
    if all(m.via == "core" for m in result.matches):  # core tools come whatever the query: nothing was selected
        result, fail_safe = _never_empty(index, request, result, embed_texts)
    engine_ms = (time.perf_counter() - engine_started - clock.cache_seconds) * 1000
    answer = result.to_dict()
    if fail_safe is not None:
        answer["tools"].append(tool_search_tool(asked.format))
        answer["fail_safe"] = fail_safe
    if chosen is not None:
        answer["explicit"] = {"selected": list(chosen.names), "notes": list(chosen.notes)}
    descriptions = [index.tools[index.position[m.name]].description for m in result.matches]
    if caller.bound_toolset_id is not None:
        # Curated prose may name any tool ("then use geocode_address"); a key bound to a
        # toolset must not learn of tools outside it, even from a hint.
        hidden = _hidden_tool_names(index, request.allowed_tools or frozenset())
        answer = redact_tool_names(answer, hidden)
        descriptions = redact_tool_names(descriptions, hidden)
        if chosen is not None:
            # The notes hold the caller's own words and visible names only; redacted, a hidden name
            # would read unlike one that does not exist.
            answer["explicit"]["notes"] = list(chosen.notes)
    session_id = asked.session_id
    if session_id:
        allowed = request.allowed_tools
        active = sessions.remember_tools(
            caller.api_key_id, session_id, result.names,
            visible=lambda name: name in index.position and (allowed is None or name in allowed))
        answer["session"] = {"id": session_id, "active_tools": active if active is not None else result.names,
                             "stored": active is not None}
    answer["request_id"] = str(uuid.uuid4())
    answer["latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
    if log:
        _log(answer, result, asked, caller, endpoint)
    return Routed(result, answer, descriptions, engine_ms=round(engine_ms, 2), model_ms=round(clock.model_seconds * 1000, 2))


def _never_empty(index: RoutingIndex, request: RouteRequest, empty: RouteResult,
                 embed_texts: EmbedTexts) -> tuple[RouteResult, dict[str, Any]]:
    """An answer with no tool at all becomes tool_search plus the core tools the caller may see,
    with the reason (the agent can still search; it is never left with nothing)."""
    core = _core_names(index, request.allowed_tools)
    reason = "no tool matched the query" + (f" ({empty.strategy.reason})" if empty.strategy.reason else "")
    reason += f"; offering {TOOL_SEARCH_NAME}" + (" and the core tools" if core else "") + " instead"
    result = route(index, replace(request, query="", required=tuple((n, "fail_safe") for n in core),
                                  include_core=False), embed_texts=embed_texts)
    result.strategy = replace(empty.strategy, fallback=True, reason=reason)
    return result, {"reason": reason, "added": [TOOL_SEARCH_NAME, *core]}


_hidden_by_version: dict[tuple[str, frozenset[str]], frozenset[str]] = {}


def _hidden_tool_names(index: RoutingIndex, allowed: frozenset[str]) -> frozenset[str]:
    """The index's tools a restricted caller may not see, kept per catalog version so a
    100,000-tool catalog is not turned into a set on every request of a bound key (and
    without holding on to an old index)."""
    key = (index.version, allowed)
    if key not in _hidden_by_version:
        if any(version != index.version for version, _ in _hidden_by_version):
            _hidden_by_version.clear()
        _hidden_by_version[key] = frozenset(index.names) - allowed
    return _hidden_by_version[key]


_NAME_LIKE = re.compile(r"[A-Za-z0-9_.\-]+")
HIDDEN_TOOL = "[another tool]"


def redact_tool_names(value: Any, hidden: frozenset[str]) -> Any:
    """`value` with every whole-word mention of a hidden tool name replaced."""
    if isinstance(value, str):
        return _NAME_LIKE.sub(lambda m: _redacted_word(m.group(0), hidden), value) if hidden else value
    if isinstance(value, dict):
        return {k: redact_tool_names(v, hidden) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_tool_names(v, hidden) for v in value]
    return value


def _redacted_word(word: str, hidden: frozenset[str]) -> str:
    core = word.rstrip(".-")  # a name at the end of a sentence keeps its full stop
    return HIDDEN_TOOL + word[len(core):] if core in hidden else word


def _log(answer: dict[str, Any], result: RouteResult, asked: RouteQuery, caller: Caller, endpoint: str) -> None:
    usage.record_request(usage.RequestRecord(
        request_id=answer["request_id"], endpoint=endpoint, api_key_id=caller.api_key_id, client=caller.name,
        toolset=asked.toolset, query=asked.query, strategy=result.strategy.used,
        confidence=result.strategy.confidence, fallback=result.strategy.fallback,
        # The categories the ranking chose: core tools come with every answer, and their
        # category would top the dashboard's categories whatever agents asked for.
        categories=list(dict.fromkeys(m.category for m in result.matches if m.category and m.via != "core")),
        results=[{"name": m.name, "rank": i + 1, "score": round(float(m.score), 4)} for i, m in enumerate(result.matches)],
        latency_ms=answer["latency_ms"], tokens_selected=result.tokens.selected,
        tokens_catalog=result.tokens.catalog, tokens_saved=result.tokens.saved, session_id=asked.session_id,
    ))
