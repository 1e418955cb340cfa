"""Odd Responses bodies on /v1/responses (an `input` of every JSON type, tools that are not objects or have no
name, tool_choice forms the filter does not force on, a `stream` that is no boolean...) get a 4xx JSON error
before anything goes upstream, or go upstream as sent but for a filtered tools list: never a 500, never a body
the client did not send."""
from __future__ import annotations

import httpx2 as httpx
import pytest

from tests.gateway.requests_shapes import RESPONSES_BUILT_INS, responses_tools

pytestmark = pytest.mark.django_db(transaction=True)
USER = [{"role": "user", "content": "weather in Paris"}]
TOOLS = responses_tools() + RESPONSES_BUILT_INS

FORWARDED = {
    "input null": {"input": None},
    "input a number": {"input": 3},
    "input an object": {"input": {"role": "user", "content": "weather in Paris"}},
    "input a list of non-objects": {"input": [1, "weather in Paris", None]},
    "input with odd content": {"input": [{"role": "user", "content": 5}, {"role": "user", "content": [None, 3]}]},
    "input empty": {"input": []},
    "input only developer and system": {"input": [{"role": "developer", "content": "weather"},
                                                  {"role": "system", "content": "stocks"}]},
    "previous_response_id without input": {"input": None, "previous_response_id": "resp_1"},
    "function without a name": {"tools": [*TOOLS, {"type": "function", "description": "weather forecast"}]},
    "function with a number as name": {"tools": [*TOOLS, {"type": "function", "name": 5}]},
    "duplicate names": {"tools": [*TOOLS, {"type": "function", "name": "get_weather", "description": "weather"}]},
    "function choice without a name": {"tool_choice": {"type": "function"}},
    "custom choice": {"tool_choice": {"type": "custom", "name": "run_sql"}},
    "mcp choice": {"tool_choice": {"type": "mcp", "server_label": "deepwiki"}},
    "stream as a string": {"stream": "yes"},
}
REFUSED = {
    "tools holding a string": {"tools": [*TOOLS, "get_weather"]},
    "tools an object": {"tools": {"type": "function", "name": "get_weather"}},
    "deferred built-in without tool_search": {"tools": [*TOOLS, {"type": "web_search", "defer_loading": True}]},
}


def post(live_server, key: str, body: dict) -> httpx.Response:
    return httpx.post(f"{live_server.url}/v1/responses", json=body, headers={"Authorization": f"Bearer {key}"},
                      timeout=30)


@pytest.mark.parametrize("change", FORWARDED.values(), ids=FORWARDED.keys())
def test_an_odd_body_goes_upstream_as_sent_but_for_its_tools(live_server, upstream, our_key, change) -> None:
    body = {"model": "gpt-5", "input": USER, "tools": TOOLS, **change}
    response = post(live_server, our_key, body)
    assert response.status_code == 200, response.text
    sent = upstream.requests[-1]["body"]
    assert {k: v for k, v in sent.items() if k != "tools"} == {k: v for k, v in body.items() if k != "tools"}
    assert all(tool in body["tools"] for tool in sent["tools"])


@pytest.mark.parametrize("change", REFUSED.values(), ids=REFUSED.keys())
def test_a_body_the_filter_cannot_read_is_a_400_before_the_upstream(live_server, upstream, our_key, change) -> None:
    response = post(live_server, our_key, {"model": "gpt-5", "input": USER, "tools": TOOLS, **change})
    assert response.status_code == 400 and set(response.json()) >= {"error", "message"}
    assert upstream.requests == []
