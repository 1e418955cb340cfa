"""Property-based tests of the pure engine over the demo catalog (no database, no model):
any string routes without an error, the results never leave the allowed tools, and the same
catalog gives the same answer."""
from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    FORMATS,
    STRATEGIES,
    CatalogSnapshot,
    CategoryEntry,
    RouteRequest,
    RoutingIndex,
    ToolEntry,
    category_embedding_text,
    route,
    tool_embedding_text,
)
from tests.support.catalog import demo_document
from tests.support.openai_server import word_vector

DIMENSIONS = 64
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def embed_one(text: str) -> np.ndarray:
    """Deterministic word-hash vectors: semantic strategies run for real, without a model."""
    return np.asarray(word_vector(text, DIMENSIONS), dtype=np.float32)


def embed(texts: list[str]) -> np.ndarray:
    return np.stack([embed_one(t) for t in texts])


def failing_embedder(texts: list[str]) -> np.ndarray:
    raise TimeoutError("the provider is down")


def snapshot(seed: int | None = None) -> CatalogSnapshot:
    """The demo catalog as a snapshot; `seed` shuffles the order its rows arrive in."""
    document = demo_document()
    tools = [ToolEntry(t["name"], t["description"], t["category"], t["parameters"], t.get("usage_hint", ""),
                       tuple(t.get("related_tools", ())), t.get("core", False), tuple(t.get("hypothetical_queries", ())))
             for t in document["tools"] if t.get("enabled", True)]
    categories = [CategoryEntry(c["name"], c["description"], tuple(c["keywords"]), c["workflow_hint"], c["parent"])
                  for c in document["categories"]]
    if seed is not None:
        random.Random(seed).shuffle(tools)
        random.Random(seed).shuffle(categories)
    return CatalogSnapshot(
        "demo", tuple(tools), tuple(categories),
        {t.name: embed_one(tool_embedding_text(t.name, t.description, t.category, t.parameters)) for t in tools},
        {t.name: embed(list(t.hypothetical_queries)) for t in tools if t.hypothetical_queries},
        {c.name: embed_one(category_embedding_text(c.name, c.description, c.keywords)) for c in categories},
        "word-hash",
    )


@lru_cache(maxsize=1)
def demo_index() -> RoutingIndex:
    return RoutingIndex(snapshot())


TOOL_NAMES = sorted(t["name"] for t in demo_document()["tools"])
CATEGORY_NAMES = sorted(c["name"] for c in demo_document()["categories"])

queries = st.one_of(
    st.text(min_size=1, max_size=300),  # any unicode text, control characters included
    st.lists(st.sampled_from(["play", "jazz", "email", "and then", "weather", "😀", "\x00", "ß", "  ", "?"]),
             min_size=1, max_size=20).map(" ".join),
)
requests = st.builds(
    RouteRequest,
    query=queries,
    limit=st.integers(min_value=1, max_value=50),
    mode=st.sampled_from(["top_k", "threshold"]),
    threshold=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)),
    strategy=st.sampled_from(STRATEGIES),
    allowed_tools=st.one_of(st.none(), st.frozensets(st.sampled_from(TOOL_NAMES), max_size=30)),
    categories=st.one_of(st.none(), st.lists(st.sampled_from(CATEGORY_NAMES), min_size=1, max_size=4, unique=True)
                         .map(tuple)),
    include_core=st.booleans(),
    explain=st.booleans(),
    format=st.sampled_from(FORMATS),
)


@PROPERTY_SETTINGS
@given(request=requests, provider_up=st.booleans())
def test_any_request_routes_and_stays_inside_the_allowed_tools(request: RouteRequest, provider_up: bool) -> None:
    result = route(demo_index(), request, embed_texts=embed if provider_up else failing_embedder)
    names = result.names
    assert len(names) == len(set(names))
    if request.allowed_tools is not None:
        assert set(names) <= request.allowed_tools
    answer = result.to_dict()  # what the API serialises must serialise
    assert len(answer["tools"]) == len(names)
    assert all(0.0 <= m["score"] <= 1.0 for m in answer["matches"])


PARENTS = {c["name"]: c["parent"] for c in demo_document()["categories"]}


@PROPERTY_SETTINGS
@given(request=requests.filter(lambda r: r.categories is not None))
def test_category_restrictions_keep_results_inside_those_categories(request: RouteRequest) -> None:
    result = route(demo_index(), request, embed_texts=embed)
    for match in result.matches:
        if match.core and request.include_core:
            continue  # core tools are always offered, inside the allowed tools
        lineage, category = set(), match.category
        while category is not None:
            lineage.add(category)
            category = PARENTS.get(category)
        assert lineage & set(request.categories), (match.name, match.category, request.categories)


@settings(max_examples=40, deadline=None)
@given(request=requests, seed=st.integers(min_value=0, max_value=2**16))
def test_the_same_catalog_gives_the_same_answer(request: RouteRequest, seed: int) -> None:
    first = route(demo_index(), request, embed_texts=embed).to_dict()
    again = route(demo_index(), request, embed_texts=embed).to_dict()
    rebuilt = route(RoutingIndex(snapshot(seed)), request, embed_texts=embed).to_dict()
    assert first == again
    assert first["matches"] == rebuilt["matches"] and first["tools"] == rebuilt["tools"]
