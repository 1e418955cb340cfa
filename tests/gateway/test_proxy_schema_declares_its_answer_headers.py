"""/api/schema/ lists every X-Toolrouter-* header a proxy answer carries, deferred loading's included
(README: "the `X-Toolrouter-*` option and answer headers are listed"), so a generated client can read
how many search rounds the proxy served, what they found and when it ran out of rounds."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import responses_body, responses_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]


def always_search(kind: str, body: dict) -> dict:
    return {"call": "tool_search", "arguments": {"query": "translate text"}}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, always_search) as server:
        settings.PROXY_TOOL_SEARCH_MAX_ROUNDS = 1  # the model keeps searching: the rounds run out
        yield server


def declared_answer_headers(path: str) -> set[str]:
    schema = json.loads(APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").content)
    return set(schema["paths"][path]["post"]["responses"]["200"].get("headers", {}))


def test_every_header_of_a_deferred_loading_answer_is_declared(upstream) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_key('schema-headers')[1]}")
    tools = responses_tools()
    body = responses_body("translate hello", [tools[0], *({**t, "defer_loading": True} for t in tools[1:])])
    answer = client.post("/v1/responses", json.dumps(body), content_type="application/json")
    assert answer.status_code == 200
    sent = {name for name in answer.headers if name.lower().startswith("x-toolrouter-")}
    assert {"X-Toolrouter-Tool-Search-Rounds", "X-Toolrouter-Tool-Search"} <= sent
    for path in ("/v1/responses", "/v1/chat/completions", "/v1/messages"):
        assert sent - declared_answer_headers(path) == set(), path
