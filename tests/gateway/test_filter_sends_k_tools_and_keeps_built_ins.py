"""TOP_K sends K tools, as seed 004 promises ("or fewer if less than K tools are available"), even
where the engine scores some tools 0; a provider's built-in tool (no name, nothing to rank) stays."""
from __future__ import annotations

import json

import pytest

from tests.gateway.requests_shapes import names, openai_body, openai_tools, post_filter

pytestmark = pytest.mark.django_db

THREE = [("get_weather", "Get the current weather for a city"), ("play_music", "Play a song, album or playlist"),
         ("send_email", "Send an email to a recipient")]


def three_tools() -> list[dict]:
    return [{"type": "function", "function": {"name": name, "description": description,
                                              "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}}
            for name, description in THREE]


def test_k_tools_go_out_whatever_they_score(route_client) -> None:
    # play_music shares no word with the query and its cosine is below 0: the engine scores it 0
    body = openai_body("what's the weather in Paris?", tools=three_tools())
    kept = names(json.loads(post_filter(route_client, body, "limit=3").content))
    assert kept[0] == "get_weather" and sorted(kept) == sorted(n for n, _ in THREE)


def test_fewer_tools_than_k_all_go_out(route_client) -> None:
    body = openai_body("what's the weather in Paris?", tools=three_tools())
    assert len(names(json.loads(post_filter(route_client, body, "limit=10").content))) == 3


def test_a_built_in_tool_is_kept(route_client) -> None:
    tools = [*openai_tools(), {"type": "web_search_preview"}]
    response = post_filter(route_client, openai_body("what is the weather in Paris", tools=tools), "limit=2")
    sent = json.loads(response.content)["tools"]
    assert {"type": "web_search_preview"} in sent
    assert [t["function"]["name"] for t in sent if "function" in t][0] == "get_weather"
