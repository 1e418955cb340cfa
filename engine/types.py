"""Plain data the engine consumes and produces.

The Django side turns model rows into a `CatalogSnapshot`, the engine turns a
snapshot into a `RoutingIndex` (see `index.py`) and answers `RouteRequest`s with
`RouteResult`s. Nothing here knows about Django, HTTP or the database.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .adapter import QueryAdapter
from .params import DEFAULT_PARAMS, RankingParams

Mode = Literal["top_k", "threshold", "adaptive"]
Strategy = Literal["auto", "bm25", "vector", "hybrid", "hierarchical"]
Format = Literal["openai", "responses", "anthropic", "gemini", "bedrock", "mcp", "names"]
# Why an answer fell back (`StrategyInfo.fallback_kind`), for callers that act on it (the
# filter gateway passes a request through when the query could not be embedded):
# "no_embedder" (none configured), "embedding_failed" (it raised, timed out, circuit open),
# "no_vectors" (no tool embedded yet), "below_threshold" (threshold mode found nothing),
# "no_category" (the hierarchical chain chose none); "" when nothing fell back.
FallbackKind = Literal["", "no_embedder", "embedding_failed", "no_vectors", "below_threshold", "no_category"]
EMBEDDING_UNAVAILABLE: frozenset[str] = frozenset({"no_embedder", "embedding_failed"})

MODES: tuple[str, ...] = ("top_k", "threshold", "adaptive")
STRATEGIES: tuple[str, ...] = ("auto", "bm25", "vector", "hybrid", "hierarchical")
FORMATS: tuple[str, ...] = ("openai", "responses", "anthropic", "gemini", "bedrock", "mcp", "names")


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One enabled tool.

    `parameters` is the JSON Schema, either as a dict or as its JSON text. The database
    loader keeps the text: a parsed schema costs ~10x its text in Python objects, which at
    100,000 tools was ~350 MB of a web process. Read it through `schema()`.
    """

    name: str
    description: str
    category: str | None
    parameters: dict[str, Any] | str
    usage_hint: str = ""
    related_tools: tuple[str, ...] = ()
    core: bool = False
    hypothetical_queries: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        """The parameters as a dict (parsed anew from the text form on every call)."""
        if isinstance(self.parameters, str):
            parsed: dict[str, Any] = json.loads(self.parameters) if self.parameters else {}
            return parsed
        return self.parameters or {}


@dataclass(frozen=True, slots=True)
class CategoryEntry:
    name: str
    description: str = ""
    keywords: tuple[str, ...] = ()
    workflow_hint: str = ""
    parent: str | None = None


@dataclass(frozen=True)
class CatalogSnapshot:
    """One consistent view of the enabled catalog, with whatever vectors are ready.

    Vectors are optional per object: a tool without a vector is still found by
    BM25, and semantically it simply scores 0 until its worker has embedded it.
    `params` are the ranking weights for this catalog (its calibration's, or the defaults).
    """

    version: str
    tools: tuple[ToolEntry, ...]
    categories: tuple[CategoryEntry, ...]
    tool_vectors: dict[str, np.ndarray]
    query_vectors: dict[str, np.ndarray]
    category_vectors: dict[str, np.ndarray]
    model: str = ""
    params: RankingParams = DEFAULT_PARAMS
    query_adapter: QueryAdapter | None = None  # the calibration's, used when params.query_adapter_share > 0


@dataclass(frozen=True, slots=True)
class RouteRequest:
    query: str
    limit: int = 5
    mode: Mode = "top_k"
    threshold: float | None = None
    strategy: Strategy = "auto"
    allowed_tools: frozenset[str] | None = None
    categories: tuple[str, ...] | None = None
    include_core: bool = True
    explain: bool = False
    format: Format = "openai"
    default_category: str | None = None
    margin: float | None = None  # adaptive mode (adaptive.py); None: its default
    # Tools that load whatever the ranking says, first and in this order: (name, why), e.g.
    # ("files.read_file", "pinned") or (..., "explicit"); names outside the request's allowed
    # tools are dropped. With an empty query nothing is ranked and only these (and core) load.
    required: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class Match:
    """One selected tool. `score` is on the 0-1 scale documented in `scoring.py`."""

    name: str
    score: float
    category: str | None
    hint: str = ""
    core: bool = False
    via: str = "rank"  # "rank" | "named" | "core" | "related" | "fallback" | "pinned" | "explicit" | "needed"
    lexical_score: float | None = None
    semantic_score: float | None = None
    matched_query: str | None = None
    category_path: tuple[str, ...] = ()

    def to_dict(self, explain: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "score": round(float(self.score), 4),
            "category": self.category,
            "hint": self.hint,
            "core": self.core,
        }
        if explain:
            out["via"] = self.via
            out["lexical_score"] = _round_or_none(self.lexical_score)
            out["semantic_score"] = _round_or_none(self.semantic_score)
            out["matched_query"] = self.matched_query
            out["category_path"] = list(self.category_path)
        return out


@dataclass(slots=True)
class StrategyInfo:
    """How the answer was produced.

    `used` names the ranking that produced the matches: "bm25", "vector",
    "hybrid" or "hierarchical". `auto` reports "bm25" when its confidence gate
    took the fast path (no embedding call at all) and "hybrid" otherwise.
    `fallback` is true whenever the engine had to answer with less than it was
    asked for (embedding unavailable, nothing above the threshold, hierarchical
    chain fell through to a flat search). `reason` says why for a person, `fallback_kind`
    for a program (the first cause, see `FallbackKind`).
    """

    requested: str
    used: str
    confidence: float
    fallback: bool = False
    reason: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)
    fallback_kind: FallbackKind = ""

    @property
    def embedding_unavailable(self) -> bool:
        """The answer fell back because the query could not be embedded."""
        return self.fallback_kind in EMBEDDING_UNAVAILABLE

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "used": self.used,
            "requested": self.requested,
            "confidence": round(float(self.confidence), 4),
            "fallback": self.fallback,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.steps:
            out["steps"] = self.steps
        return out


@dataclass(slots=True)
class TokenFigures:
    selected: int
    catalog: int

    @property
    def saved(self) -> int:
        return max(0, self.catalog - self.selected)

    @property
    def saved_pct(self) -> float:
        return round(100.0 * self.saved / self.catalog, 1) if self.catalog else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "selected": self.selected,
            "catalog": self.catalog,
            "saved": self.saved,
            "saved_pct": self.saved_pct,
        }


INSTRUCTION = "These tools are now available. Search again if you need more."


@dataclass(slots=True)
class RouteResult:
    matches: list[Match]
    tools: list[Any]
    categories: list[str]
    guidance: str
    strategy: StrategyInfo
    tokens: TokenFigures
    instruction: str = INSTRUCTION
    explain: bool = False

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.matches]

    def to_dict(self) -> dict[str, Any]:
        """The SPEC's route answer, less `request_id` and `latency_ms`."""
        return {
            "tools": self.tools,
            "matches": [m.to_dict(self.explain) for m in self.matches],
            "categories": list(self.categories),
            "guidance": self.guidance,
            "instruction": self.instruction,
            "strategy": self.strategy.to_dict(),
            "tokens": self.tokens.to_dict(),
        }


def _round_or_none(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)
