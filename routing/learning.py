"""Learning from traffic, the routing side: the engine's view of a weak query's likely tools,
and the refresh that gives it to the suggestion pipeline (usage/suggestions.py, a layer below)."""
from __future__ import annotations

from django.conf import settings

from engine import RouteRequest, route
from toolcatalog.embeddings import get_provider
from usage import suggestions

from .live_index import live_index
from .query_embeddings import query_embedder


def likely_tools(texts: list[str], limit: int = suggestions.WEAK_CANDIDATES) -> dict[str, list[str]]:
    """Each query's best tools by the semantic ranking (a weak query is one the lexical path could
    not place), as the route endpoint would rank them without core tools."""
    provider = get_provider()
    index = live_index.current(provider.model_id)
    embed = query_embedder(provider).embed_many
    found = {}
    for text in texts:
        request = RouteRequest(query=text, limit=limit, strategy="hybrid", include_core=False, format="names",
                               default_category=settings.ROUTE_DEFAULT_CATEGORY)
        found[text] = route(index, request, embed_texts=embed).names
    return found


def refresh_suggestions() -> suggestions.RefreshReport:
    return suggestions.refresh_suggestions(likely_tools=likely_tools)
