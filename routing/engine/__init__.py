"""The selection engine: pure Python over plain lists, no Django imports.

Public API (what the Django side calls):

    index = build_index(snapshot)              # CatalogSnapshot -> RoutingIndex (immutable)
    result = route(index, RouteRequest(...), embed_query=fn, select_categories_llm=None)
    result.to_dict()                           # SPEC route answer, less request_id / latency_ms
    index.external_name(name, fmt) / index.internal_name(external)

See router.py for the request flow, scoring.py for the 0-1 score scale and the
`auto` gate, lexical.py / vectors.py for the two indexes.
"""
from .index import RoutingIndex, build_index
from .router import route
from .types import (CatalogSnapshot, CategoryEntry, Match, RouteRequest, RouteResult,
                    StrategyInfo, TokenFigures, ToolEntry)

__all__ = [
    "CatalogSnapshot", "CategoryEntry", "Match", "RouteRequest", "RouteResult", "RoutingIndex",
    "StrategyInfo", "TokenFigures", "ToolEntry", "build_index", "route",
]
