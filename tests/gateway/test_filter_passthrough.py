"""Seed 004's pass-through cases: the body goes on unchanged, byte for byte, and a header says why."""
import json

import pytest

from tests.gateway.requests_shapes import openai_body, post_filter
from tests.support.openai_server import FakeOpenAI


def assert_passthrough(response, raw: bytes, reason: str) -> None:
    assert response.status_code == 200, response.content
    assert response.content == raw
    assert response["X-Toolrouter-Passthrough"] == reason
    assert response["X-Toolrouter-Tokens-Saved"] == "0"
    assert response["X-Toolrouter-Tools-Before"] == response["X-Toolrouter-Tools-After"]


def test_empty_body(db, route_client) -> None:
    assert_passthrough(post_filter(route_client, b""), b"", "empty-body")


@pytest.mark.parametrize("tools", [None, []])
def test_no_tools(db, route_client, tools) -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    if tools is not None:
        body["tools"] = tools
    raw = json.dumps(body, indent=1).encode()
    assert_passthrough(post_filter(route_client, raw), raw, "no-tools")


@pytest.mark.parametrize("last_message", [
    {"role": "user", "content": ""},
    {"role": "assistant", "content": None, "tool_calls": []},
    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]},
])
def test_no_query(db, route_client, last_message) -> None:
    body = openai_body("x")
    body["messages"][-1] = last_message
    raw = json.dumps(body).encode()
    response = post_filter(route_client, raw)
    assert_passthrough(response, raw, "no-query")
    assert response["X-Toolrouter-Tools-Before"] == "8"


def test_query_path_finding_nothing(db, route_client) -> None:
    raw = json.dumps(openai_body("weather")).encode()
    assert_passthrough(post_filter(route_client, raw, "query_path=$.prompt"), raw, "no-query")


def test_embedding_provider_failure(db, route_client, settings) -> None:
    with FakeOpenAI() as server:
        settings.EMBEDDING_PROVIDER = "openai"
        settings.EMBEDDING_MODEL = "fake-embed-failing"
        settings.EMBEDDING_BASE_URL = server.base_url
        settings.EMBEDDING_API_KEY = "test-key"
        server.fail_with = 503
        raw = json.dumps(openai_body("weather in Rome", tools=[{"name": "get_weather", "description": "w 503"}])).encode()
        response = post_filter(route_client, raw)
    assert_passthrough(response, raw, "embedding-unavailable")
