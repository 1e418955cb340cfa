"""The proxy reads every body as the filter does, deferred loading or not: what the filter refuses
(not JSON, no text, too many tools, a query path it cannot follow) is a 4xx before the upstream."""
from __future__ import annotations

import json

import httpx2 as httpx
import pytest

from tests.gateway.requests_shapes import anthropic_tools, openai_body

pytestmark = pytest.mark.django_db(transaction=True)


def deferred_body(count: int = 8, **extra) -> dict:
    tools = [{**t, "defer_loading": True} for t in anthropic_tools()]
    tools = (tools * (count // len(tools) + 1))[:count]
    return {"model": "m", "max_tokens": 100, "tools": tools,
            "messages": [{"role": "user", "content": "translate this"}], **extra}


def post(url: str, key: str, raw: str, path: str = "/v1/messages", **headers: str) -> httpx.Response:
    return httpx.post(url + path, content=raw, timeout=60,
                      headers={"x-api-key": key, "Content-Type": "application/json", **headers})


@pytest.mark.parametrize("raw,status,error", [
    (json.dumps(deferred_body()).replace('"model": "m"', '"model": NaN'), 400, "invalid_json"),
    ("[" * 150 + "]" * 150, 400, "json_too_deep"),
    (json.dumps(deferred_body(1001)), 413, "too_many_tools"),
    (json.dumps(deferred_body()).replace("translate this", "translate \\ud800"), 400, "invalid_json"),
])
def test_a_deferred_body_the_filter_refuses(live_server, upstream, our_key, raw, status, error) -> None:
    response = post(live_server.url, our_key, raw)
    assert (response.status_code, response.json()["error"]) == (status, error)
    assert upstream.requests == []


def test_a_query_path_it_cannot_follow_is_a_400(live_server, upstream, our_key) -> None:
    response = post(live_server.url, our_key, json.dumps(deferred_body()),
                    **{"X-Toolrouter-Query-Path": "$.tools.`sorted`"})
    assert response.status_code == 400 and response.json()["error"] == "invalid_jsonpath"
    assert upstream.requests == []


def test_an_unpaired_surrogate_in_a_chat_completion(live_server, upstream, our_key) -> None:
    raw = json.dumps(openai_body("weather in Paris")).replace("Get the current weather", "Get \\udfff weather")
    response = post(live_server.url, our_key, raw, "/v1/chat/completions")
    assert response.status_code == 400 and "unpaired surrogate" in response.json()["message"]
    assert upstream.requests == []
