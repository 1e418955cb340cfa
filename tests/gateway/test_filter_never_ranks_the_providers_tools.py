"""The provider's own tools (a Responses body's `web_search`, `file_search`, `mcp`, `custom`...; a nameless
built-in such as chat's `{"type": "web_search_preview"}`) are kept as sent and never ranked: they take no
place of the K that top_k sends, and they do not count as a selection, so a query that matches none of the
request's own tools still gets the fail-safe (every tool kept) instead of the built-ins alone."""
from __future__ import annotations

import json
from typing import Any

import pytest

from tests.gateway.requests_shapes import (
    anthropic_body,
    anthropic_tools,
    openai_body,
    openai_tools,
    post_filter,
    responses_body,
    responses_tools,
)

pytestmark = pytest.mark.django_db

FUNCTIONS = [("get_weather", "Get the current weather forecast for a specific city or location"),
             ("send_email", "Send an email message to a recipient"),
             ("query_database", "Run a SQL query against the company database")]
WEATHER_TEXT = "Get the current weather forecast for a city: temperature, rain and wind"
# Each provider tool's text matches a weather query at least as well as get_weather does.
RESPONSES_PROVIDER_TOOLS: list[dict[str, Any]] = [
    {"type": "web_search"},
    {"type": "custom", "name": "weather_report", "description": WEATHER_TEXT},
    {"type": "mcp", "server_label": "weather", "server_url": "https://weather.example/mcp", "require_approval": "never"},
    {"type": "file_search", "vector_store_ids": ["vs_weather"]},
]
CHAT_PROVIDER_TOOLS: list[dict[str, Any]] = [
    {"type": "web_search_preview"},
    {"type": "custom", "custom": {"name": "weather_report", "description": WEATHER_TEXT}},
    {"type": "image_generation"},
]


def body_of(kind: str, query: str) -> dict:
    if kind == "responses":
        return responses_body(query, tools=[*RESPONSES_PROVIDER_TOOLS, *responses_tools(FUNCTIONS)])
    return openai_body(query, tools=[*CHAT_PROVIDER_TOOLS, *openai_tools(FUNCTIONS)])


def providers_of(kind: str) -> list[dict]:
    return RESPONSES_PROVIDER_TOOLS if kind == "responses" else CHAT_PROVIDER_TOOLS


def function_names(tools: list[dict]) -> list[str]:
    return [t["function"]["name"] if "function" in t else t["name"] for t in tools if t.get("type") == "function"]


@pytest.mark.parametrize("kind", ["responses", "chat"])
def test_a_query_matching_no_function_keeps_every_tool(route_client, kind: str) -> None:
    body = body_of(kind, "play some jazz music")
    response = post_filter(route_client, body, "mode=threshold&strategy=bm25")
    assert response.status_code == 200, response.content
    assert response["X-Toolrouter-Fail-Safe"] == "nothing-selected"
    assert json.loads(response.content)["tools"] == body["tools"]


@pytest.mark.parametrize("kind", ["responses", "chat"])
def test_top_k_sends_k_functions_beside_every_provider_tool(route_client, kind: str) -> None:
    # By BM25 only get_weather scores above 0: the second function comes in the request's order.
    response = post_filter(route_client, body_of(kind, "weather forecast for Paris"), "limit=2&strategy=bm25")
    assert response.status_code == 200, response.content
    sent = json.loads(response.content)["tools"]
    assert len(function_names(sent)) == 2 and function_names(sent)[0] == "get_weather"
    assert [t for t in sent if t.get("type") != "function"] == providers_of(kind)  # as sent, in their order


def test_a_named_provider_tool_matching_the_query_takes_no_ranked_place(route_client) -> None:
    """Chat bodies have no named provider tool: a nameless one has no text to rank."""
    query = "weather forecast for a city: temperature, rain and wind"
    response = post_filter(route_client, body_of("responses", query), "limit=1")
    sent = json.loads(response.content)["tools"]
    assert function_names(sent) == ["get_weather"]
    assert sent == [*RESPONSES_PROVIDER_TOOLS, *responses_tools(FUNCTIONS)[:1]]  # where the client put them


ANTHROPIC_SERVER_TOOLS: list[dict[str, Any]] = [
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
]


def test_anthropics_server_tools_are_kept_and_not_ranked(route_client) -> None:
    """Anthropic's server tools have names, but a versioned type: the client's own tools have none (or `custom`)."""
    client_tools = [{**tool, "type": "custom"} if i == 0 else tool for i, tool in enumerate(anthropic_tools(FUNCTIONS))]
    body = anthropic_body("search the web for the weather forecast in Paris", tools=[*ANTHROPIC_SERVER_TOOLS, *client_tools])
    response = post_filter(route_client, body, "limit=2&strategy=bm25")
    assert response.status_code == 200, response.content
    sent = json.loads(response.content)["tools"]
    assert sent[:2] == ANTHROPIC_SERVER_TOOLS  # as sent, where the client put them
    assert [t["name"] for t in sent[2:]][0] == "get_weather" and len(sent) == 4  # two of the client's own
