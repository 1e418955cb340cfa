"""The selection engine: pure Python over plain lists, no Django imports.

Public API (what the Django side calls; import it from here, not from the submodules):

    index = build_index(snapshot)              # CatalogSnapshot -> RoutingIndex (immutable)
    result = route(index, RouteRequest(...), embed_texts=fn, select_categories_llm=None)
    result.to_dict()                           # SPEC route answer, less request_id / latency_ms
    index.external_name(name, fmt) / index.internal_name(external)

Also the text every catalog object is embedded by (`tool_embedding_text`...), token
counting, and THE tool-name mapping (`NameMap`) that every door uses.

See router.py for the request flow, needs.py for requests that need several tools,
scoring.py for the 0-1 score scale and the `auto` gate, params.py, calibration.py and adapter.py
for the weights each catalog is ranked with, lexical.py / vectors.py for the two indexes, names.py for the name rule.
"""
from . import adaptive, explicit, scoring
from .adapter import QueryAdapter
from .calibration import CalibrationResult, ConfirmedQuery, calibrate
from .formats import render_definition, render_tool
from .index import RoutingIndex, build_index
from .lexical import tokenize
from .llm_category import OpenAICategorySelector
from .names import (
                    CATALOG_NAME_MAX,
                    CATALOG_NAME_RE,
                    CATALOG_NAME_RULE,
                    MAPPED_FORMATS,
                    PROVIDER_NAME_RE,
                    NameMap,
                    external_name,
                    hashed_name,
                    is_catalog_name,
                    is_provider_name,
                    sanitize_name,
)
from .needs import split_needs
from .params import DEFAULT_PARAMS, RankingParams
from .router import EmbedTexts, route
from .texts import category_embedding_text, split_identifier, text_hash, tool_embedding_text
from .tokens import count_text, definition_json
from .types import (
                    FORMATS,
                    MODES,
                    STRATEGIES,
                    CatalogSnapshot,
                    CategoryEntry,
                    FallbackKind,
                    Format,
                    Match,
                    Mode,
                    RouteRequest,
                    RouteResult,
                    Strategy,
                    StrategyInfo,
                    TokenFigures,
                    ToolEntry,
)

__all__ = [
    "DEFAULT_PARAMS", "CalibrationResult", "ConfirmedQuery", "EmbedTexts", "QueryAdapter", "RankingParams", "calibrate",
    "CATALOG_NAME_MAX", "CATALOG_NAME_RE", "CATALOG_NAME_RULE", "FORMATS", "MAPPED_FORMATS", "MODES", "PROVIDER_NAME_RE",
    "STRATEGIES",
    "CatalogSnapshot", "CategoryEntry", "FallbackKind", "Format", "Match", "Mode", "NameMap", "OpenAICategorySelector",
    "RouteRequest", "RouteResult", "RoutingIndex", "Strategy", "StrategyInfo", "TokenFigures", "ToolEntry", "build_index",
    "adaptive", "category_embedding_text", "count_text", "definition_json", "explicit", "external_name", "hashed_name",
    "is_catalog_name", "is_provider_name", "render_definition", "render_tool", "route", "sanitize_name", "scoring",
    "split_identifier", "split_needs", "text_hash", "tokenize", "tool_embedding_text",
]
