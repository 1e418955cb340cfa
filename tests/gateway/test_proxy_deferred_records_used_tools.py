"""With deferred loading, the usage log records as offered the tools loaded from the start and those
the model's searches loaded, ranked from 1, and as used the tools the final answer calls, never the
proxy's own search tool. A provider's built-in loaded beside them (`{"type": "web_search_preview"}`,
never ranked) is not logged as an offered tool with no name at rank 1, which would push every
function one rank down."""
from __future__ import annotations

from collections.abc import Iterator

import httpx2 as httpx
import pytest

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import anthropic_tools, openai_tools
from tests.gateway.usage_support import logged_request, proxy_feedback
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]


def search_then_translate(kind: str, body: dict) -> dict:
    """Searches first; once the search has answered (OpenAI: a `tool` message; Anthropic: a user
    message of tool results), calls the tool it found."""
    last = body["messages"][-1]
    if last["role"] == "user" and isinstance(last.get("content"), str):
        return {"call": "tool_search", "arguments": {"query": "translate text"}}
    return {"call": "translate_text", "arguments": {"input": "hello"}}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_translate) as server:
        yield server


def test_offered_are_the_tools_sent_and_used_the_final_call(live_server, upstream) -> None:
    key = create_api_key("deferred-agent")[1]
    tools = [anthropic_tools()[0], *({**t, "defer_loading": True} for t in anthropic_tools()[1:])]
    body = {"model": "m", "max_tokens": 100, "tools": tools,
            "messages": [{"role": "user", "content": "say hello in Spanish"}]}
    response = httpx.post(f"{live_server.url}/v1/messages", json=body, headers={"x-api-key": key}, timeout=120)
    assert response.status_code == 200, response.text
    request_id = response.headers["x-toolrouter-request-id"]
    row = logged_request(request_id)
    offered = [r["name"] for r in sorted(row.results, key=lambda r: r["rank"])]
    assert (row.endpoint, row.strategy, row.query) == ("proxy", "deferred", "say hello in Spanish")
    assert offered[0] == "get_weather" and "translate_text" in offered and "tool_search" not in offered
    feedback = proxy_feedback(request_id)
    assert feedback.used_tools == ["translate_text"] and feedback.offered_and_used == ["translate_text"]


def test_a_built_in_loaded_beside_the_tools_is_not_offered(live_server, upstream) -> None:
    key = create_api_key("deferred-built-in-agent")[1]
    tools = [{"type": "web_search_preview"}, openai_tools()[0],
             *({**t, "defer_loading": True} for t in openai_tools()[1:])]
    body = {"model": "gpt-4o", "tools": tools, "messages": [{"role": "user", "content": "say hello in Spanish"}]}
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=body,
                          headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert response.status_code == 200, response.text
    request_id = response.headers["x-toolrouter-request-id"]
    offered = [(r["name"], r["rank"]) for r in sorted(logged_request(request_id).results, key=lambda r: r["rank"])]
    assert offered[:2] == [("get_weather", 1), ("translate_text", 2)]
    assert "" not in [name for name, _ in offered]
    assert proxy_feedback(request_id).used_ranks == [2]
