"""A Responses answer that calls the proxy's `tool_search` beside a call only the client can answer (a
`computer_call`, whose output is a screenshot) gets no search round: the next request would lack that call's
output and the upstream would refuse it. The client gets the answer at once without the search call
(`X-Toolrouter-Tool-Search: client-call-first`), runs its computer call, and its next request naming that answer
first answers the search call the upstream still holds. A provider-run item (`web_search_call`) stops nothing."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from openai import OpenAI

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import responses_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
SEARCH = {"call": "tool_search", "arguments": {"query": "translate text"}}
CLICK = {"type": "computer_call", "id": "cu_item_1", "call_id": "cu_1", "status": "completed",
         "pending_safety_checks": [], "action": {"type": "click", "button": "left", "x": 10, "y": 20}}
WEB_SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed",
              "action": {"type": "search", "query": "weather in Paris"}}
SCREENSHOT: Any = {"type": "computer_call_output", "call_id": "cu_1",
                   "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="}}


def searches_beside(kind: str, body: dict) -> dict:
    """Searches beside a click, or beside its own web search; once given a screenshot or a search result, answers.
    Refuses, as OpenAI does, an input holding a computer call without its output."""
    given = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
    calls = {item.get("call_id") for item in given if item.get("type") == "computer_call"}
    if calls - {item.get("call_id") for item in given if item.get("type") == "computer_call_output"}:
        return {"fail": 400}
    if any(item.get("type") in ("computer_call_output", "function_call_output") for item in given):
        return {"text": "done"}
    return {**SEARCH, "items": [WEB_SEARCH if "web" in json.dumps(given) else CLICK]}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, searches_beside) as server:
        yield server


@pytest.fixture
def client(live_server, upstream) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key=create_api_key("computer-use")[1], max_retries=0)


def respond(client: OpenAI, given: Any, **extra):
    tools: Any = [{"type": "computer_use_preview", "display_width": 1024, "display_height": 768,
                   "environment": "browser"}, *({**t, "defer_loading": True} for t in responses_tools())]
    return client.responses.with_raw_response.create(model="computer-use-preview", input=given, tools=tools, **extra)


def test_the_client_gets_its_computer_call_without_the_search(client, upstream) -> None:
    raw = respond(client, "open the settings page")
    output = raw.parse().output
    assert [item.type for item in output] == ["reasoning", "computer_call"]
    assert raw.headers["x-toolrouter-tool-search"] == "client-call-first"
    assert len(upstream.raw) == 1  # no search round the upstream would refuse


def test_the_next_request_answers_the_search_first(client, upstream) -> None:
    first = respond(client, "open the settings page").parse()
    second = respond(client, [SCREENSHOT], previous_response_id=first.id).parse()
    assert second.output_text == "done"
    answered, screenshot = json.loads(upstream.raw[-1][1])["input"]
    assert (answered["type"], answered["call_id"]) == ("function_call_output", "call_1")
    assert screenshot == SCREENSHOT


def test_a_provider_run_web_search_does_not_stop_the_search(client, upstream) -> None:
    raw = respond(client, "the web weather")
    assert raw.parse().output_text == "done" and len(upstream.raw) == 2
    assert "x-toolrouter-tool-search" not in raw.headers
