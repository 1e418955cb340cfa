"""A tool_choice of OpenAI's `allowed_tools` (the Responses API's flat {"type": "allowed_tools", "mode", "tools"}
or chat's {"type": "allowed_tools", "allowed_tools": {...}}) limits the model to the tools it lists: the filter
keeps them beside the ranked ones, else the model has none of them to call (and `"mode": "required"` cannot be met)."""
from __future__ import annotations

import json

import httpx2 as httpx
import pytest

from tests.gateway.proxy_support import last_upstream_request
from tests.gateway.requests_shapes import names, openai_body, post_filter, responses_body

ALLOWED = ["play_music", "calculate"]
RESPONSES_CHOICE = {"type": "allowed_tools", "mode": "required",
                    "tools": [{"type": "function", "name": name} for name in ALLOWED]}
CHAT_CHOICE = {"type": "allowed_tools", "allowed_tools": {
    "mode": "required", "tools": [{"type": "function", "function": {"name": name}} for name in ALLOWED]}}


@pytest.mark.django_db
@pytest.mark.parametrize("body", [
    responses_body("what is the weather in Paris", tool_choice=RESPONSES_CHOICE),
    openai_body("what is the weather in Paris", tool_choice=CHAT_CHOICE),
])
def test_the_allowed_tools_are_kept_beside_the_ranked_ones(route_client, body) -> None:
    response = post_filter(route_client, body, "limit=1")
    assert response.status_code == 200, response.content
    assert sorted(names(json.loads(response.content))) == sorted([*ALLOWED, "get_weather"])


@pytest.mark.django_db(transaction=True)
def test_the_proxy_sends_the_allowed_tools_upstream(live_server, upstream, our_key) -> None:
    body = responses_body("what is the weather in Paris", tool_choice=RESPONSES_CHOICE)
    response = httpx.post(f"{live_server.url}/v1/responses", json=body,
                          headers={"Authorization": f"Bearer {our_key}", "X-Toolrouter-Limit": "1"})
    assert response.status_code == 200
    sent = last_upstream_request(upstream, "/responses")["body"]
    assert set(ALLOWED) <= {tool["name"] for tool in sent["tools"]}
    assert sent["tool_choice"] == RESPONSES_CHOICE
