"""A key bound to a toolset never sees a tool outside it: not in matches, tool definitions,
explanations, sessions, tool-search, nor in the errors it provokes."""
from __future__ import annotations

import json
import re
from itertools import product

import pytest
from rest_framework.test import APIClient

from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool, Toolset

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]

# Queries aimed squarely at tools outside the toolset, and one that fits it.
QUERIES = ["play some jazz", "send an email to my boss", "what is the stock price of ACME",
           "search the web for news and then play music", "will it rain tomorrow"]


@pytest.fixture
def weather_client() -> APIClient:
    toolset = Toolset.objects.create(name="weather-only")
    toolset.categories.add(Category.objects.get(name="weather"))
    Toolset.objects.create(name="music-only").categories.add(Category.objects.get(name="music"))
    return api_client(["route"], toolset=toolset, name="weather-agent")


def outside_names() -> set[str]:
    return set(Tool.objects.exclude(category__name="weather").values_list("name", flat=True))


def leaked(payload: object, names: set[str]) -> set[str]:
    """Outside tool names found anywhere in the answer, curated prose included (the demo's
    weather hint says "use geocode_address"), as whole names (not inside a longer one)."""
    text = json.dumps(payload)
    return {name for name in names if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text)}


def route(client: APIClient, **body) -> dict:
    response = client.post("/api/v1/route", body, format="json")
    assert response.status_code in (200, 400), response.content
    return response.json()


def test_route_in_every_strategy_and_format_with_explain_stays_inside(weather_client) -> None:
    names = outside_names()
    strategies, formats = ["auto", "bm25", "vector", "hybrid", "hierarchical"], ["openai", "anthropic", "mcp", "names"]
    for query, strategy, fmt in product(QUERIES, strategies, formats):
        body = route(weather_client, query=query, strategy=strategy, format=fmt, explain=True, limit=10)
        assert not leaked(body, names), (query, strategy, fmt)
        assert {m["name"] for m in body["matches"]} <= set(Tool.objects.filter(category__name="weather")
                                                            .values_list("name", flat=True))


def test_asking_for_outside_categories_or_toolsets_reveals_no_tool(weather_client) -> None:
    names = outside_names()
    answers = [
        route(weather_client, query="play some jazz", categories=["music"], explain=True),
        route(weather_client, query="play some jazz", toolset="music-only", explain=True),
        route(weather_client, query="play some jazz", toolset="no-such-toolset"),
        route(weather_client, query="play some jazz", categories=["no-such-category"]),
        route(weather_client, query="play some jazz", mode="threshold", threshold=0.0, explain=True),
    ]
    for body in answers:
        assert not leaked(body, names), body
    assert answers[0]["matches"] == [] and answers[1]["matches"] == []


def test_sessions_and_tool_search_stay_inside(weather_client) -> None:
    names = outside_names()
    for query in QUERIES:
        body = route(weather_client, query=query, session_id="s-1", strategy="hybrid")
        assert not leaked(body, names)
        found = weather_client.post("/api/v1/tool-search", {"query": query, "session_id": "s-2", "limit": 10},
                                    format="json").json()
        assert not leaked(found, names)
    assert not leaked(route(weather_client, query="weather", session_id="s-1")["session"], names)


def test_a_session_id_used_by_another_key_is_another_session(weather_client) -> None:
    unrestricted = api_client(["route"], name="all-tools-agent")
    unrestricted.post("/api/v1/route", {"query": "play some jazz", "session_id": "shared"}, format="json")
    body = route(weather_client, query="weather forecast", session_id="shared")
    assert not leaked(body, outside_names())
